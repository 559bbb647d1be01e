// In-memory BM25 inverted index for one namespace.
//
// Layout, chosen for recall latency over up to ~1M docs:
// - Each term has a postings list: three parallel typed arrays (doc, tf, doc length),
//   sorted by doc ascending. Keeping the doc length in the posting means scoring never
//   looks a doc up in a Map; sorted lists let `search` merge the query terms' lists
//   document-at-a-time, so a doc's score is summed in one place, in a fixed term order,
//   with no per-posting allocation and no accumulator keyed by doc.
// - Removal is lazy: the doc's posting slots get tf = 0 (skipped by search) and a list
//   is compacted once more than 25% of its slots are dead, so bulk deletes stay cheap.
// - A forward index (doc → length and term ids) tells `remove` which lists to touch,
//   keeps document frequencies exact, and lets a filtered search count eligible docs
//   by scanning typed arrays.
//
// Doc numbers may be sparse (they are compared and stored, never used as array
// indexes), but must fit in an Int32.

export const BM25 = { k1: 1.2, b: 0.75 } as const;

export interface KeywordHit {
  doc: number;
  score: number;
}

export interface SearchOptions {
  /** Only docs for which this returns true exist for the query. Must be pure: it may be called more than once per doc. */
  eligible?: (doc: number) => boolean;
  /** Keep only the best `limit` hits. */
  limit?: number;
  /** How much each query term counts (its BM25 score is multiplied by it); absent = 1. */
  termWeights?: ReadonlyMap<string, number>;
}

/** A KeywordIndex as flat arrays: term id i has name termNames[i] (null = a free id) and its
 *  postings in slots offsets[i]..offsets[i+1] of docs/tfs/lens. */
export interface KeywordState {
  termNames: (string | null)[];
  offsets: Int32Array;
  docs: Int32Array;
  tfs: Int32Array;
  lens: Int32Array;
  forward: ForwardState;
  totalLength: number;
}

export interface ForwardState {
  docs: Int32Array;
  lengths: Int32Array;
  starts: Int32Array;
  arena: Int32Array;
  arenaDead: number;
}

const MAX_DOC = 0x7ffffffe;

export class KeywordIndex {
  // Term dictionary. Ids of terms whose last live doc was removed are recycled.
  private readonly termIds = new Map<string, number>();
  private readonly termNames: string[] = [];
  private readonly postings: (Postings | undefined)[] = [];
  private readonly freeIds: number[] = [];

  private readonly forward = new ForwardIndex();
  private totalLength = 0; // sum of live doc lengths, for avgdl

  // Candidate buffers reused across searches (search is synchronous: no sharing hazard).
  private candDocs: Int32Array = new Int32Array(256);
  private candScores: Float64Array = new Float64Array(256);
  private accumulated: Float64Array = new Float64Array(256);
  private marked: Uint8Array = new Uint8Array(256);

  add(doc: number, tf: Map<string, number>, length: number): void {
    checkDoc(doc);
    if (this.forward.has(doc)) throw new Error(`KeywordIndex: doc ${doc} added twice`);
    checkCounts(tf, length);

    const ids: number[] = [];
    for (const [term, count] of tf) {
      const id = this.termId(term);
      this.postings[id]!.insert(doc, count, length);
      ids.push(id);
    }
    this.forward.add(doc, length, ids);
    this.totalLength += length;
  }

  remove(doc: number): void {
    const ids = this.forward.termIds(doc);
    if (ids === undefined) return;
    for (let i = 0; i < ids.length; i++) this.unpost(ids[i], doc);
    this.totalLength -= this.forward.delete(doc);
  }

  has(doc: number): boolean {
    return this.forward.has(doc);
  }

  get size(): number {
    return this.forward.size;
  }

  documentFrequency(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : this.postings[id]!.live;
  }

  /** Terms with df > 0 (a term leaves the dictionary when its df reaches 0). */
  vocabulary(): Iterable<string> {
    return this.termIds.keys();
  }

  /**
   * Ranks every live doc that contains at least one query term.
   * `queryTerms` are already tokenized and stemmed; duplicates count once.
   * With `eligible`, only eligible docs exist for this query: N, avgdl and df are
   * computed over them (the filter applies before document frequencies). That costs a
   * scan of all live docs; without `eligible`, maintained totals are used.
   * Sorted by score desc, then doc asc.
   */
  search(queryTerms: readonly string[], options: SearchOptions = {}): KeywordHit[] {
    const { eligible, limit, termWeights } = options;
    if (limit !== undefined && limit < 1) return [];

    // Lexicographic term order fixes the floating-point summation order.
    const unique = [...new Set(queryTerms)].sort();
    let lists: PostingsView[] = [];
    let weights: number[] = [];
    for (const term of unique) {
      const id = this.termIds.get(term);
      if (id === undefined) continue;
      lists.push(this.postings[id]!);
      weights.push(termWeights?.get(term) ?? 1);
    }
    if (lists.length === 0) return [];

    let n = this.forward.size;
    let total = this.totalLength;
    if (eligible) {
      const filtered = lists.map((list) => filterPostings(list, eligible));
      weights = weights.filter((_, i) => filtered[i]!.live > 0);
      lists = filtered.filter((list) => list.live > 0);
      if (lists.length === 0) return [];
      [n, total] = this.forward.totals(eligible);
    }
    const idfs = lists.map((list, i) => weights[i]! * idf(n, list.live));
    const m = this.score(lists, idfs, total / n);
    return this.rank(m, limit);
  }

  // ---- snapshot (a clean shutdown saves the index; the next start restores it) ----

  /** Everything the index holds, as flat arrays. Term ids keep their numbers (free ids are null
   *  names with empty lists), so the forward index's term ids stay valid as they are. */
  toState(): KeywordState {
    const offsets = new Int32Array(this.postings.length + 1);
    for (let id = 0; id < this.postings.length; id++) offsets[id + 1] = offsets[id]! + (this.postings[id]?.live ?? 0);
    const total = offsets[this.postings.length]!;
    const docs = new Int32Array(total);
    const tfs = new Int32Array(total);
    const lens = new Int32Array(total);
    this.postings.forEach((list, id) => list?.copyLiveTo(docs, tfs, lens, offsets[id]!));
    const termNames = this.postings.map((list, id) => (list ? this.termNames[id]! : null));
    return { termNames, offsets, docs, tfs, lens, forward: this.forward.toState(), totalLength: this.totalLength };
  }

  /** Throws if the state is not one toState could have made (a damaged snapshot). */
  static fromState(state: KeywordState): KeywordIndex {
    checkState(state);
    const index = new KeywordIndex();
    state.termNames.forEach((term, id) => {
      if (term === null) {
        index.postings[id] = undefined;
        index.freeIds.push(id);
        return;
      }
      const [from, to] = [state.offsets[id]!, state.offsets[id + 1]!];
      index.termIds.set(term, id);
      index.termNames[id] = term;
      index.postings[id] = Postings.of(state.docs.subarray(from, to), state.tfs.subarray(from, to), state.lens.subarray(from, to));
    });
    index.forward.restore(state.forward);
    index.totalLength = state.totalLength;
    return index;
  }

  // ---- search internals ----

  /**
   * Term-at-a-time: each list in turn adds its terms' scores into a per-doc accumulator, so every
   * doc's score is summed in list order (bit for bit what a document-at-a-time merge sums), in
   * time proportional to the postings rather than to candidates × lists — a query widened by its
   * expansions has eight lists or more. The docs touched are then put in doc order, the order the
   * candidates come out in. Returns their count.
   */
  private score(lists: PostingsView[], idfs: number[], avgdl: number): number {
    const { k1, b } = BM25;
    this.reserveCandidates(lists.reduce((sum, list) => sum + list.live, 0));
    let maxDoc = -1;
    for (const list of lists) if (list.count > 0) maxDoc = Math.max(maxDoc, list.docs[list.count - 1]!);
    this.reserveAccumulator(maxDoc + 1);
    const { accumulated, marked } = this;
    const docs = this.candDocs;
    let m = 0;
    for (let i = 0; i < lists.length; i++) {
      const list = lists[i]!;
      for (let p = 0; p < list.count; p++) {
        const tf = list.tfs[p]!;
        if (tf === 0) continue; // a removed doc
        const doc = list.docs[p]!;
        const norm = k1 * (1 - b + (b * list.lens[p]!) / avgdl);
        if (marked[doc] === 0) {
          marked[doc] = 1;
          docs[m++] = doc;
        }
        accumulated[doc]! += (idfs[i]! * tf * (k1 + 1)) / (tf + norm);
      }
    }
    // Into doc order: a few docs are sorted; many are read back off the marks in one pass.
    if (m * 16 < maxDoc) docs.subarray(0, m).sort();
    else for (let doc = 0, j = 0; j < m; doc++) if (marked[doc] === 1) docs[j++] = doc;
    const scores = this.candScores;
    for (let j = 0; j < m; j++) {
      const doc = docs[j]!;
      scores[j] = accumulated[doc]!;
      accumulated[doc] = 0;
      marked[doc] = 0;
    }
    return m;
  }

  /** Turns the first `m` candidates into hits, best first. */
  private rank(m: number, limit: number | undefined): KeywordHit[] {
    const scores = this.candScores;
    const k = limit === undefined ? m : Math.min(m, Math.floor(limit));
    let order: Int32Array;
    if (k < m) {
      order = topK(m, k, scores);
    } else {
      order = new Int32Array(m);
      for (let i = 0; i < m; i++) order[i] = i;
    }
    sortBest(order, 0, order.length - 1, scores);
    const hits: KeywordHit[] = new Array(order.length);
    for (let i = 0; i < order.length; i++) {
      hits[i] = { doc: this.candDocs[order[i]], score: scores[order[i]] };
    }
    return hits;
  }

  /** Per-doc score sums and marks (the doc was touched by this search), all zero between searches. */
  private reserveAccumulator(needed: number): void {
    if (needed <= this.accumulated.length) return;
    const capacity = Math.max(needed, this.accumulated.length * 2);
    this.accumulated = new Float64Array(capacity);
    this.marked = new Uint8Array(capacity);
  }

  private reserveCandidates(needed: number): void {
    if (needed <= this.candDocs.length) return;
    const capacity = Math.max(needed, this.candDocs.length * 2);
    this.candDocs = new Int32Array(capacity);
    this.candScores = new Float64Array(capacity);
  }

  // ---- maintenance internals ----

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id !== undefined) return id;
    id = this.freeIds.pop() ?? this.postings.length;
    this.termIds.set(term, id);
    this.termNames[id] = term;
    this.postings[id] = new Postings();
    return id;
  }

  private unpost(id: number, doc: number): void {
    const list = this.postings[id]!;
    list.kill(doc);
    if (list.live > 0) return;
    // Last live doc gone: drop the term so vocabulary() and memory stay clean.
    this.termIds.delete(this.termNames[id]);
    this.postings[id] = undefined;
    this.freeIds.push(id);
  }
}

// ---------------------------------------------------------------------------
// Postings

/** A postings list as search reads it. Slots with tf = 0 are removed docs. */
interface PostingsView {
  readonly docs: Int32Array;
  readonly tfs: Int32Array;
  readonly lens: Int32Array;
  readonly count: number; // used slots, dead ones included
  readonly live: number; // slots with tf > 0: the document frequency
}

class Postings implements PostingsView {
  docs: Int32Array;
  tfs: Int32Array;
  lens: Int32Array;
  count = 0;
  live = 0;

  constructor(capacity = 4) {
    this.docs = new Int32Array(capacity);
    this.tfs = new Int32Array(capacity);
    this.lens = new Int32Array(capacity);
  }

  /** A full list over the given arrays (live slots only; they are used in place, not copied). */
  static of(docs: Int32Array, tfs: Int32Array, lens: Int32Array): Postings {
    const list = new Postings(0);
    list.docs = docs;
    list.tfs = tfs;
    list.lens = lens;
    list.count = list.live = docs.length;
    return list;
  }

  /** Writes the live slots, in doc order, at `at` of the given arrays. */
  copyLiveTo(docs: Int32Array, tfs: Int32Array, lens: Int32Array, at: number): void {
    for (let r = 0; r < this.count; r++) {
      if (this.tfs[r] === 0) continue;
      docs[at] = this.docs[r];
      tfs[at] = this.tfs[r];
      lens[at] = this.lens[r];
      at++;
    }
  }

  insert(doc: number, tf: number, len: number): void {
    // Docs normally arrive in ascending order: append.
    let i = this.count;
    if (i > 0 && this.docs[i - 1] >= doc) {
      i = this.lowerBound(doc);
      if (i < this.count && this.docs[i] === doc) {
        // A removed doc re-added before its dead slot was compacted away.
        this.tfs[i] = tf;
        this.lens[i] = len;
        this.live++;
        return;
      }
    }
    this.reserve(this.count + 1);
    if (i < this.count) this.shiftRight(i);
    this.docs[i] = doc;
    this.tfs[i] = tf;
    this.lens[i] = len;
    this.count++;
    this.live++;
  }

  /** Marks `doc` removed. The caller guarantees it is present and live. */
  kill(doc: number): void {
    this.tfs[this.lowerBound(doc)] = 0;
    this.live--;
    if (this.count - this.live > this.count >> 2) this.compact();
  }

  private lowerBound(doc: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.docs[mid] < doc) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private shiftRight(i: number): void {
    this.docs.copyWithin(i + 1, i, this.count);
    this.tfs.copyWithin(i + 1, i, this.count);
    this.lens.copyWithin(i + 1, i, this.count);
  }

  private compact(): void {
    let w = 0;
    for (let r = 0; r < this.count; r++) {
      if (this.tfs[r] === 0) continue;
      this.docs[w] = this.docs[r];
      this.tfs[w] = this.tfs[r];
      this.lens[w] = this.lens[r];
      w++;
    }
    this.count = w;
  }

  private reserve(needed: number): void {
    if (needed <= this.docs.length) return;
    const capacity = Math.max(needed, this.docs.length * 2);
    this.docs = grow(this.docs, capacity);
    this.tfs = grow(this.tfs, capacity);
    this.lens = grow(this.lens, capacity);
  }
}

/** The live, eligible slots of `list`, copied. */
function filterPostings(list: PostingsView, eligible: (doc: number) => boolean): PostingsView {
  const docs = new Int32Array(list.live);
  const tfs = new Int32Array(list.live);
  const lens = new Int32Array(list.live);
  let w = 0;
  for (let r = 0; r < list.count; r++) {
    if (list.tfs[r] === 0 || !eligible(list.docs[r])) continue;
    docs[w] = list.docs[r];
    tfs[w] = list.tfs[r];
    lens[w] = list.lens[r];
    w++;
  }
  return { docs, tfs, lens, count: w, live: w };
}

function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

// ---------------------------------------------------------------------------
// Forward index

/**
 * doc → length and term ids. Live docs occupy rows 0..size-1 (a removal moves the last
 * row into the hole), so a filtered search scans typed arrays instead of a Map. Term
 * ids live in one append-only arena as [count, ...ids], compacted when half dead.
 */
class ForwardIndex {
  private readonly rowOf = new Map<number, number>();
  private docs: Int32Array = new Int32Array(64);
  private lengths: Int32Array = new Int32Array(64);
  private starts: Int32Array = new Int32Array(64); // arena offset of the row's record
  private arena: Int32Array = new Int32Array(1024);
  private arenaUsed = 0;
  private arenaDead = 0;

  get size(): number {
    return this.rowOf.size;
  }

  has(doc: number): boolean {
    return this.rowOf.has(doc);
  }

  add(doc: number, length: number, ids: readonly number[]): void {
    const row = this.rowOf.size;
    if (row === this.docs.length) this.growRows();
    const start = this.reserveArena(1 + ids.length);
    this.arena[start] = ids.length;
    for (let i = 0; i < ids.length; i++) this.arena[start + 1 + i] = ids[i];
    this.docs[row] = doc;
    this.lengths[row] = length;
    this.starts[row] = start;
    this.rowOf.set(doc, row);
  }

  toState(): ForwardState {
    const rows = this.rowOf.size;
    return {
      docs: this.docs.slice(0, rows),
      lengths: this.lengths.slice(0, rows),
      starts: this.starts.slice(0, rows),
      arena: this.arena.slice(0, this.arenaUsed),
      arenaDead: this.arenaDead,
    };
  }

  /** Takes over the arrays of a state (an empty index only). */
  restore(state: ForwardState): void {
    this.docs = state.docs;
    this.lengths = state.lengths;
    this.starts = state.starts;
    this.arena = state.arena;
    this.arenaUsed = state.arena.length;
    this.arenaDead = state.arenaDead;
    for (let row = 0; row < state.docs.length; row++) this.rowOf.set(state.docs[row], row);
  }

  /** The doc's term ids (a view, valid until the next mutation), or undefined if absent. */
  termIds(doc: number): Int32Array | undefined {
    const row = this.rowOf.get(doc);
    if (row === undefined) return undefined;
    const start = this.starts[row];
    return this.arena.subarray(start + 1, start + 1 + this.arena[start]);
  }

  /** Deletes a present doc; returns its length. */
  delete(doc: number): number {
    const row = this.rowOf.get(doc)!;
    const length = this.lengths[row];
    this.arenaDead += 1 + this.arena[this.starts[row]];
    const last = this.rowOf.size - 1;
    if (row !== last) {
      this.docs[row] = this.docs[last];
      this.lengths[row] = this.lengths[last];
      this.starts[row] = this.starts[last];
      this.rowOf.set(this.docs[row], row);
    }
    this.rowOf.delete(doc);
    if (this.arenaDead > 4096 && this.arenaDead > this.arenaUsed >> 1) this.compactArena();
    return length;
  }

  /** Number and total length of the eligible docs. */
  totals(eligible: (doc: number) => boolean): [n: number, total: number] {
    let n = 0;
    let total = 0;
    for (let row = 0; row < this.rowOf.size; row++) {
      if (!eligible(this.docs[row])) continue;
      n++;
      total += this.lengths[row];
    }
    return [n, total];
  }

  private growRows(): void {
    const capacity = Math.max(64, this.docs.length * 2); // a restored index may have 0 rows
    this.docs = grow(this.docs, capacity);
    this.lengths = grow(this.lengths, capacity);
    this.starts = grow(this.starts, capacity);
  }

  private reserveArena(words: number): number {
    const start = this.arenaUsed;
    if (start + words > this.arena.length) {
      this.arena = grow(this.arena, Math.max(start + words, this.arena.length * 2));
    }
    this.arenaUsed += words;
    return start;
  }

  private compactArena(): void {
    const next = new Int32Array(Math.max(1024, (this.arenaUsed - this.arenaDead) * 2));
    let w = 0;
    for (let row = 0; row < this.rowOf.size; row++) {
      const start = this.starts[row];
      const words = 1 + this.arena[start];
      next.set(this.arena.subarray(start, start + words), w);
      this.starts[row] = w;
      w += words;
    }
    this.arena = next;
    this.arenaUsed = w;
    this.arenaDead = 0;
  }
}

// ---------------------------------------------------------------------------
// Ranking helpers. Candidates are identified by their index in the candidate buffers;
// since those are in doc order, "lower index" is the doc-ascending tie-break.

/** True if candidate `a` ranks before candidate `c`: higher score, then lower doc. */
function before(a: number, c: number, scores: Float64Array): boolean {
  return scores[a] > scores[c] || (scores[a] === scores[c] && a < c);
}

/**
 * Indices of the best `k` of `m` candidates (unordered), via a size-k heap whose root
 * is the worst kept candidate: most candidates are rejected by one comparison.
 */
function topK(m: number, k: number, scores: Float64Array): Int32Array {
  const heap = new Int32Array(k);
  for (let i = 0; i < k; i++) {
    // sift up: parents must rank after (be worse than) their children
    let at = i;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!before(heap[parent], i, scores)) break;
      heap[at] = heap[parent];
      at = parent;
    }
    heap[at] = i;
  }
  for (let i = k; i < m; i++) {
    if (before(i, heap[0], scores)) siftDown(heap, i, scores);
  }
  return heap;
}

/** Replaces the heap's root with `value` and restores the heap. */
function siftDown(heap: Int32Array, value: number, scores: Float64Array): void {
  let at = 0;
  for (;;) {
    let child = 2 * at + 1;
    if (child >= heap.length) break;
    if (child + 1 < heap.length && before(heap[child], heap[child + 1], scores)) child++; // the worse child
    if (!before(value, heap[child], scores)) break;
    heap[at] = heap[child];
    at = child;
  }
  heap[at] = value;
}

/**
 * Sorts order[lo..hi] (inclusive) best first. A hand-written quicksort: a comparator
 * passed to Array/TypedArray#sort costs ~10x more per comparison, and sorting is most of
 * the cost of an unlimited search. Keys are unique (index breaks ties), so the result is
 * the same whatever the pivot choices.
 */
function sortBest(order: Int32Array, lo: number, hi: number, scores: Float64Array): void {
  while (hi - lo >= 16) {
    // Hoare partition around the middle element; recurse into the smaller side.
    const pivot = order[(lo + hi) >>> 1];
    let i = lo - 1;
    let j = hi + 1;
    for (;;) {
      do i++; while (before(order[i], pivot, scores));
      do j--; while (before(pivot, order[j], scores));
      if (i >= j) break;
      const t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    if (j - lo < hi - j) {
      sortBest(order, lo, j, scores);
      lo = j + 1;
    } else {
      sortBest(order, j + 1, hi, scores);
      hi = j;
    }
  }
  // insertion sort for short ranges
  for (let i = lo + 1; i <= hi; i++) {
    const v = order[i];
    let j = i - 1;
    while (j >= lo && before(v, order[j], scores)) {
      order[j + 1] = order[j];
      j--;
    }
    order[j + 1] = v;
  }
}

// ---------------------------------------------------------------------------
// Shared helpers

/** The invariants search and remove rely on: list bounds, doc-sorted lists, forward records
 *  inside the arena. Linear in the state's size, a small price next to reading it. */
function checkState(state: KeywordState): void {
  const { termNames, offsets, docs, tfs, lens, forward } = state;
  const bad = (what: string) => new Error(`keyword index state: ${what}`);
  if (!Array.isArray(termNames) || offsets.length !== termNames.length + 1 || offsets[0] !== 0) throw bad('term table');
  if (offsets[termNames.length] !== docs.length || tfs.length !== docs.length || lens.length !== docs.length) throw bad('postings size');
  for (let id = 0; id < termNames.length; id++) {
    if (offsets[id + 1]! < offsets[id]!) throw bad('postings offsets');
    for (let p = offsets[id]! + 1; p < offsets[id + 1]!; p++) if (docs[p - 1]! >= docs[p]!) throw bad('postings order');
  }
  const rows = forward.docs.length;
  if (forward.lengths.length !== rows || forward.starts.length !== rows) throw bad('forward rows');
  for (let row = 0; row < rows; row++) {
    const start = forward.starts[row]!;
    if (!(start >= 0 && start < forward.arena.length && start + 1 + forward.arena[start]! <= forward.arena.length)) throw bad('forward arena');
  }
}

function grow(a: Int32Array, capacity: number): Int32Array {
  const b = new Int32Array(capacity);
  b.set(a);
  return b;
}

function checkDoc(doc: number): void {
  if (!Number.isInteger(doc) || doc < 0 || doc > MAX_DOC) {
    throw new RangeError(`KeywordIndex: doc must be an integer in [0, ${MAX_DOC}], got ${doc}`);
  }
}

/** Rejects counts that would corrupt scores; checked before any mutation. */
function checkCounts(tf: Map<string, number>, length: number): void {
  if (!Number.isInteger(length) || length < 0 || length > MAX_DOC) {
    throw new RangeError(`KeywordIndex: length must be a non-negative integer, got ${length}`);
  }
  let sum = 0;
  for (const [term, count] of tf) {
    if (!Number.isInteger(count) || count < 1) {
      throw new RangeError(`KeywordIndex: tf of "${term}" must be a positive integer, got ${count}`);
    }
    sum += count;
  }
  if (sum > length) throw new RangeError(`KeywordIndex: term counts sum to ${sum} > length ${length}`);
}
