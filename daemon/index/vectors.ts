// The vector index of one namespace: USearch HNSW, cosine. A derived structure: the vectors
// themselves live in the store; this index is saved with the change number it covers and the
// keys it holds, then caught up from the store's change log at start-up instead of being rebuilt.
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { writeFileAtomically } from '../files/atomic-file.ts';
import { GRAPH_SETTINGS } from './graph-settings.ts';
import { Graph, loadingMark } from './graph-thread.ts';

const BACKGROUND_BATCH = 256;
const BACKGROUND_DELAY_MS = 10;
/** Background batches of one namespace on the graph thread at a time. The thread is shared and
 *  takes batches in order: a namespace rebuilt after a crash sent all its vectors at once, and
 *  every other namespace's writes then waited behind them (past a batch write's deadline, at
 *  100k facts). Two keep the thread busy while another namespace's batch waits behind at most
 *  two of these. */
const BACKGROUND_IN_FLIGHT = 2;

/** Writes to a namespace wait while this many of its vectors wait for the HNSW graph. A bulk
 *  load outruns the graph's inserts (a few thousand a second), and the next search or index save
 *  waits for whatever is queued before it: unbounded, at 200k facts that took longer than a batch
 *  write's 30 s deadline. Bounded, such a wait takes about a second. */
export const MAX_PENDING = 4096;

export interface VectorHit {
  key: number;
  distance: number;
}

export interface SavedIndexInfo {
  agentId: string;
  embedder: string;
  dimensions: number;
  /** Every change up to this change number is in the saved index. */
  coveredSeq: number;
  keys: number[];
  /** The index file's size and SHA-256 when it was saved: USearch trusts the file it loads (a
   *  damaged one can crash the process or spin), so a file that does not match is never loaded. */
  fileBytes?: number;
  fileSha256?: string;
  /** How the graph stores vectors; a file saved with another (f16 before i8 graphs;
   *  none, meaning f32, before f16 ones) is rebuilt. */
  scalar?: string;
}

/** Up to this many vectors an index also keeps them in memory and recall searches them exactly:
 *  HNSW is approximate, and among many near-identical vectors (300 notes that differ only by a
 *  number, say) it can lose a distinct one for good. 2048 × 100 floats is 800 KB. */
export const EXACT_SEARCH_LIMIT = 2048;

export class VectorIndex {
  private readonly graph: Graph;
  /** The keys in the graph, or on their way to it. */
  private readonly keys = new Set<number>();
  /** key → vector while the index is small; null when it is not (or, after a load, until the
   *  stored vectors are handed back with restoreExact). */
  private exact: Map<number, Float32Array> | null = new Map();
  /** Vectors accepted but not yet sent to the HNSW graph: sent in batches shortly after, or by
   *  the next search. */
  private readonly pending = new Map<number, Float32Array>();
  /** Vectors sent to the graph that it has not inserted yet, and the batches they are in. */
  private inserting = 0;
  private batchesInFlight = 0;

  constructor(
    readonly dimensions: number,
    graph?: Graph,
  ) {
    this.graph = graph ?? Graph.create(dimensions);
  }

  get size(): number {
    return this.keys.size + this.pending.size;
  }

  has(key: number): boolean {
    return this.keys.has(key) || this.pending.has(key);
  }

  /** Whether the index differs from its saved file (or has none): only these are saved. */
  changed = false;

  /** Adds (or, for a key it holds, replaces) a vector: applying a fact's state twice — a daemon
   *  following a shared store may see its own commit again — must not fail. */
  add(key: number, vector: Float32Array): void {
    this.changed = true;
    if (this.keys.delete(key)) this.removeFromGraph(key);
    // A key added again before it is sent: the later vector wins.
    this.pending.set(key, vector);
    if (this.exact && this.size <= EXACT_SEARCH_LIMIT) this.exact.set(key, vector);
    else this.exact = null;
    this.scheduleBackgroundFlush();
  }

  private flushTimer: NodeJS.Timeout | null = null;

  /** Writes never wait for the HNSW graph: vectors are sent to it shortly after, gathered into
   *  batches (adding many in one call is ~2x faster than one by one), and batches of at most
   *  BACKGROUND_BATCH so a search waits behind little. */
  private scheduleBackgroundFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flushSome();
    }, BACKGROUND_DELAY_MS);
    this.flushTimer.unref();
  }

  /** Whether MAX_PENDING vectors wait for the graph: writes then wait for room(). */
  get full(): boolean {
    return this.pendingCount >= MAX_PENDING;
  }

  /** Resolves once fewer than MAX_PENDING vectors wait for the graph (the background flush
   *  drains them; checked again every flush interval, so a dropped index never strands a writer). */
  async room(): Promise<void> {
    while (this.full) await new Promise((resolve) => setTimeout(resolve, BACKGROUND_DELAY_MS));
  }

  /** Vectors accepted but not yet in the graph. */
  get pendingCount(): number {
    return this.pending.size + this.inserting;
  }

  remove(key: number): void {
    this.changed = true;
    this.exact?.delete(key);
    if (!this.pending.delete(key) && this.keys.delete(key)) this.removeFromGraph(key);
  }

  private removeFromGraph(key: number): void {
    this.graph.remove(key).catch(graphFailed);
  }

  /** Sends every pending vector to the graph, in batches of at most BACKGROUND_BATCH: what a
   *  search or a save must see. */
  flushPending(): void {
    const batch = this.takePending(Infinity);
    for (let start = 0; start < batch.length; start += BACKGROUND_BATCH) this.send(batch.slice(start, start + BACKGROUND_BATCH));
  }

  /** Sends pending vectors in the background, BACKGROUND_IN_FLIGHT batches at a time: each
   *  batch inserted sends the next (see BACKGROUND_IN_FLIGHT). */
  flushSome(): void {
    while (this.batchesInFlight < BACKGROUND_IN_FLIGHT && this.pending.size > 0) this.send(this.takePending(BACKGROUND_BATCH));
  }

  /** Up to `count` pending vectors, oldest first. */
  private takePending(count: number): { key: number; vector: Float32Array }[] {
    const taken: { key: number; vector: Float32Array }[] = [];
    for (const [key, vector] of this.pending) {
      if (taken.length >= count) break;
      taken.push({ key, vector });
    }
    for (const { key } of taken) this.pending.delete(key);
    return taken;
  }

  private send(batch: { key: number; vector: Float32Array }[]): void {
    const keys = new BigUint64Array(batch.map((p) => BigInt(p.key)));
    const matrix = new Float32Array(batch.length * this.dimensions);
    batch.forEach((p, i) => matrix.set(p.vector, i * this.dimensions));
    for (const p of batch) this.keys.add(p.key);
    this.inserting += batch.length;
    this.batchesInFlight++;
    const inserted = () => {
      this.inserting -= batch.length;
      this.batchesInFlight--;
      this.flushSome();
    };
    this.graph.add(keys, matrix).then(inserted, (error: unknown) => {
      inserted();
      graphFailed(error);
    });
  }

  /** Nearest `count` keys, ordered by distance then key, so equal distances order the same way
   *  every time. The search sees every vector added before it. */
  async search(query: Float32Array, count: number): Promise<VectorHit[]> {
    this.flushPending();
    if (this.keys.size === 0 || count <= 0) return [];
    const matches = await this.graph.search(query, Math.min(count, this.keys.size));
    const hits: VectorHit[] = [];
    for (let i = 0; i < matches.keys.length; i++) {
      hits.push({ key: Number(matches.keys[i]), distance: matches.distances[i]! });
    }
    return hits.sort((a, b) => a.distance - b.distance || a.key - b.key);
  }

  /** Every vector by key, when the index is small enough to hold them (see EXACT_SEARCH_LIMIT). */
  exactVectors(): ReadonlyMap<number, Float32Array> | null {
    return this.exact;
  }

  /** Whether a small loaded index waits for its vectors (restoreExact). */
  get wantsExact(): boolean {
    return this.exact === null && this.size <= EXACT_SEARCH_LIMIT;
  }

  /** Takes the stored vectors of a small index that was loaded from a file; ignored unless they
   *  are exactly the index's keys (a write in between leaves it to the next try). */
  restoreExact(entries: readonly (readonly [number, Float32Array])[]): void {
    const map = new Map(entries);
    const keys = this.allKeys();
    if (this.size <= EXACT_SEARCH_LIMIT && map.size === keys.length && keys.every((k) => map.has(k))) this.exact = map;
  }

  allKeys(): number[] {
    return [...this.keys, ...this.pending.keys()];
  }

  /** Writes `<base>.usearch` and `<base>.json` atomically (temp file, then rename). One save of
   *  an index at a time (the daemon saves its indexes one after another). */
  async save(base: string, info: Omit<SavedIndexInfo, 'keys'>): Promise<void> {
    this.flushPending();
    // What the graph holds when it saves: every key sent to it before the save.
    const keys = [...this.keys].sort((a, b) => a - b);
    this.changed = false;
    try {
      const digest = await this.graph.save(`${base}.usearch.tmp`);
      renameSync(`${base}.usearch.tmp`, `${base}.usearch`);
      const saved: SavedIndexInfo = { ...info, keys, fileBytes: digest.bytes, fileSha256: digest.sha256, scalar: GRAPH_SETTINGS.scalar };
      writeFileAtomically(`${base}.json`, [Buffer.from(JSON.stringify(saved))]);
    } catch (error) {
      this.changed = true;
      throw error;
    }
  }

  /** The description saved beside an index file, or null if there is none of the expected shape
   *  (a foreign or damaged file is ignored: the index is then rebuilt from the store). */
  static readInfo(base: string): SavedIndexInfo | null {
    let info: Partial<SavedIndexInfo> | null;
    try {
      info = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as Partial<SavedIndexInfo> | null;
    } catch {
      return null;
    }
    const isKey = (k: unknown): k is number => Number.isSafeInteger(k) && (k as number) >= 0;
    if (!info || !isKey(info.coveredSeq) || !Array.isArray(info.keys) || !info.keys.every(isKey)) return null;
    if (typeof info.embedder !== 'string' || typeof info.dimensions !== 'number') return null;
    return info as SavedIndexInfo;
  }

  /** Loads a saved index, or returns null if there is none or it was made for another model;
   *  STOPPED_LOADING if loading it took the process down last time (see loadingMark): its files
   *  are removed, so the namespace is rebuilt from the store instead of every start aborting. */
  static async load(base: string, embedder: string, dimensions: number): Promise<{ index: VectorIndex; info: SavedIndexInfo } | null | typeof STOPPED_LOADING> {
    const graphFile = `${base}.usearch`;
    if (!existsSync(graphFile)) return null;
    if (existsSync(loadingMark(graphFile))) {
      for (const file of [graphFile, `${base}.json`, loadingMark(graphFile)]) rmSync(file, { force: true });
      return STOPPED_LOADING;
    }
    return VectorIndex.loadChecked(base, embedder, dimensions);
  }

  private static async loadChecked(base: string, embedder: string, dimensions: number): Promise<{ index: VectorIndex; info: SavedIndexInfo } | null> {
    try {
      const info = VectorIndex.readInfo(base);
      if (!info || info.embedder !== embedder || info.dimensions !== dimensions || info.scalar !== GRAPH_SETTINGS.scalar) return null;
      // An index saved before files carried a digest is rebuilt.
      if (info.fileBytes === undefined || info.fileSha256 === undefined) return null;
      const loaded = await Graph.load(`${base}.usearch`, dimensions, { bytes: info.fileBytes, sha256: info.fileSha256 });
      if (!loaded) return null;
      const vi = new VectorIndex(dimensions, loaded.graph);
      vi.exact = null; // the file holds the graph, not the vectors: recall reads them once if small
      for (const key of info.keys) vi.keys.add(key);
      if (loaded.size !== vi.keys.size) return null;
      return { index: vi, info };
    } catch {
      return null; // a damaged derived file is rebuilt from the store, never trusted
    }
  }
}

/** What VectorIndex.load answers for a saved index whose last load took the process down. */
export const STOPPED_LOADING = 'stopped-loading';

/** An insert or removal nobody waits for failed: the graph may now miss or keep a vector, which
 *  only the next start's rebuild would mend, so it is said loudly. */
function graphFailed(error: unknown): void {
  process.emitWarning(`the vector graph refused an update: ${(error as Error).message}`);
}
