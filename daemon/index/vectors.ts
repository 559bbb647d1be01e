// The vector index of one namespace: USearch HNSW, cosine. A derived structure: the vectors
// themselves live in the store; this index is saved with the change number it covers and the
// keys it holds, then caught up from the store's change log at start-up instead of being rebuilt.
import { Index, MetricKind, ScalarKind } from 'usearch';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync, renameSync, statSync } from 'node:fs';
import { syncPath, writeFileAtomically } from '../files/atomic-file.ts';

const BACKGROUND_BATCH = 256;
const BACKGROUND_DELAY_MS = 10;

/** Writes to a namespace wait while this many of its vectors wait for the HNSW graph. A bulk
 *  load outruns the graph's inserts (a few thousand a second), and whatever waits is inserted all
 *  at once, blocking the event loop, by the next search or index save: at 200k facts that took
 *  longer than a batch write's 30 s deadline. Bounded, such a catch-up takes about a second. */
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
  /** How the graph stores vectors; a file saved with another (or, before f16, none) is rebuilt. */
  scalar?: string;
}

/** The graph holds its vectors as 16-bit floats: measured on 100k sentence vectors (npm run
 *  bench:hnsw), it finds exactly as many of the exact nearest 160 as 32-bit floats (0.882) with
 *  1.5–1.7x the inserts per second, faster searches and a file 37% smaller. The store keeps every
 *  vector in 32 bits, and exact searches (small namespaces, filtered ones) read those. */
const SCALAR = { kind: ScalarKind.F16, name: 'f16' } as const;

/** Size and SHA-256 of a file, read in chunks (an index can be hundreds of megabytes). */
function fileDigest(path: string): { bytes: number; sha256: string } {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  const chunk = Buffer.allocUnsafe(1 << 20);
  let bytes = 0;
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) {
      hash.update(chunk.subarray(0, n));
      bytes += n;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Up to this many vectors an index also keeps them in memory and recall searches them exactly:
 *  HNSW is approximate, and among many near-identical vectors (300 notes that differ only by a
 *  number, say) it can lose a distinct one for good. 2048 × 100 floats is 800 KB. */
export const EXACT_SEARCH_LIMIT = 2048;

export class VectorIndex {
  private index: Index;
  private readonly keys = new Set<number>();
  /** key → vector while the index is small; null when it is not (or, after a load, until the
   *  stored vectors are handed back with restoreExact). */
  private exact: Map<number, Float32Array> | null = new Map();
  /** Vectors accepted but not yet in the HNSW graph: added in one batch on the next search. */
  private pending: { key: number; vector: Float32Array }[] = [];

  constructor(readonly dimensions: number) {
    this.index = VectorIndex.create(dimensions);
  }

  private static create(dimensions: number): Index {
    // M = 16, default expansions: exact enough at this size, and bit-identical on every search.
    return new Index({
      dimensions,
      metric: MetricKind.Cos,
      quantization: SCALAR.kind,
      connectivity: 16,
      expansion_add: 128,
      expansion_search: 64,
      multi: false,
    });
  }

  get size(): number {
    return this.keys.size + this.pending.length;
  }

  has(key: number): boolean {
    return this.keys.has(key) || this.pending.some((p) => p.key === key);
  }

  /** Whether the index differs from its saved file (or has none): only these are saved. */
  changed = false;

  /** Adds (or, for a key it holds, replaces) a vector: applying a fact's state twice — a daemon
   *  following a shared store may see its own commit again — must not fail. */
  add(key: number, vector: Float32Array): void {
    this.changed = true;
    if (this.keys.delete(key)) this.index.remove(BigInt(key));
    this.pending.push({ key, vector });
    if (this.exact && this.size <= EXACT_SEARCH_LIMIT) this.exact.set(key, vector);
    else this.exact = null;
    this.scheduleBackgroundFlush();
  }

  private flushTimer: NodeJS.Timeout | null = null;

  /** Writes never wait for the HNSW graph: vectors join it in small batches shortly after, so a
   *  write burst costs no recall a multi-second catch-up, and no batch blocks the loop for long. */
  private scheduleBackgroundFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flushPending(BACKGROUND_BATCH);
      if (this.pending.length > 0) this.scheduleBackgroundFlush();
    }, BACKGROUND_DELAY_MS);
    this.flushTimer.unref();
  }

  /** Whether MAX_PENDING vectors wait for the graph: writes then wait for room(). */
  get full(): boolean {
    return this.pending.length >= MAX_PENDING;
  }

  /** Resolves once fewer than MAX_PENDING vectors wait for the graph (the background flush
   *  drains them; checked again every flush interval, so a dropped index never strands a writer). */
  async room(): Promise<void> {
    while (this.full) await new Promise((resolve) => setTimeout(resolve, BACKGROUND_DELAY_MS));
  }

  /** Vectors accepted but not yet in the graph. */
  get pendingCount(): number {
    return this.pending.length;
  }

  remove(key: number): void {
    this.changed = true;
    this.exact?.delete(key);
    const before = this.pending.length;
    this.pending = this.pending.filter((p) => p.key !== key);
    if (this.pending.length === before && this.keys.delete(key)) this.index.remove(BigInt(key));
  }

  /** Adding many vectors in one call is ~2x faster than one by one, so adds are batched. */
  flushPending(limit = Infinity): void {
    if (this.pending.length === 0) return;
    let batch = this.pending.length <= limit ? this.pending : this.pending.slice(0, limit);
    this.pending = this.pending.length <= limit ? [] : this.pending.slice(limit);
    // A key added twice before a flush: the later vector wins (a later batch's copy too).
    const later = new Set(this.pending.map((p) => p.key));
    const last = new Map(batch.map((p) => [p.key, p]));
    if (last.size < batch.length || later.size > 0) batch = [...last.values()].filter((p) => !later.has(p.key));
    if (batch.length === 0) return;
    const keys = new BigUint64Array(batch.map((p) => BigInt(p.key)));
    const matrix = new Float32Array(batch.length * this.dimensions);
    batch.forEach((p, i) => matrix.set(p.vector, i * this.dimensions));
    this.index.add(keys, matrix);
    for (const p of batch) this.keys.add(p.key);
  }

  /** Nearest `count` keys, ordered by distance then key, so equal distances order the same way every time. */
  search(query: Float32Array, count: number): VectorHit[] {
    this.flushPending();
    if (this.keys.size === 0 || count <= 0) return [];
    // One query on the calling thread: handing a single search to USearch's thread pool costs more
    // than it saves (measured: ~430 µs vs 460–610 µs at 30k vectors of 100 dimensions).
    const matches = this.index.search(query, Math.min(count, this.keys.size), 1);
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
    return [...this.keys, ...this.pending.map((p) => p.key)];
  }

  /** Writes `<base>.usearch` and `<base>.json` atomically (temp file, then rename). */
  save(base: string, info: Omit<SavedIndexInfo, 'keys'>): void {
    this.flushPending();
    this.index.save(`${base}.usearch.tmp`);
    syncPath(`${base}.usearch.tmp`);
    const digest = fileDigest(`${base}.usearch.tmp`);
    renameSync(`${base}.usearch.tmp`, `${base}.usearch`);
    const saved: SavedIndexInfo = { ...info, keys: [...this.keys].sort((a, b) => a - b), fileBytes: digest.bytes, fileSha256: digest.sha256, scalar: SCALAR.name };
    writeFileAtomically(`${base}.json`, [Buffer.from(JSON.stringify(saved))]);
    this.changed = false;
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

  /** Loads a saved index, or returns null if there is none or it was made for another model. */
  static load(base: string, embedder: string, dimensions: number): { index: VectorIndex; info: SavedIndexInfo } | null {
    if (!existsSync(`${base}.usearch`)) return null;
    try {
      const info = VectorIndex.readInfo(base);
      if (!info || info.embedder !== embedder || info.dimensions !== dimensions || info.scalar !== SCALAR.name) return null;
      // Checked before USearch sees it; an index saved before files carried a digest is rebuilt.
      if (info.fileBytes === undefined || statSync(`${base}.usearch`).size !== info.fileBytes) return null;
      if (fileDigest(`${base}.usearch`).sha256 !== info.fileSha256) return null;
      const vi = new VectorIndex(dimensions);
      vi.exact = null; // the file holds the graph, not the vectors: recall reads them once if small
      vi.index.load(`${base}.usearch`);
      for (const key of info.keys) vi.keys.add(key);
      if (vi.index.size() !== vi.keys.size) return null;
      return { index: vi, info };
    } catch {
      return null; // a damaged derived file is rebuilt from the store, never trusted
    }
  }
}
