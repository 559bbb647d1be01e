// The HNSW graphs of a process live on one worker thread. USearch's add is synchronous: on the
// daemon's own thread every batch of inserts stopped every call for its duration, and with the
// local embedder 16 single-fact writers found the event loop the bound (one core busy, most of
// the other idle). On their own thread inserts overlap the rest of the daemon's work. A search
// costs one message each way (~85 µs more than on the calling thread, measured on this machine),
// which recall hides by scoring its keyword signal meanwhile (recall/rank.ts). The vectors live in
// the store: a graph is only ever derived from them.
import { Worker } from 'node:worker_threads';

/** The graph thread's name, as the operating system shows it (Linux: `top -H`, /proc). */
/** The file that exists, beside a saved graph, only while the graph thread loads it: found at a
 *  start, it means that load took the process down. USearch trusts what it loads, and a file of
 *  the right digest can still abort the process when the library has a bug reading it (2.25 did,
 *  with graphs that had removed many vectors). Written by the thread right before the load, so
 *  the graphs still waiting their turn are not marked too. */
export const loadingMark = (graphPath: string): string => `${graphPath}.loading`;

export const GRAPH_THREAD_NAME = 'engram-graph';

type GraphOp =
  | { op: 'create'; dimensions: number }
  | { op: 'drop' }
  | { op: 'add'; keys: BigUint64Array; vectors: Float32Array }
  | { op: 'remove'; key: bigint }
  | { op: 'search'; query: Float32Array; count: number }
  | { op: 'save'; path: string }
  | { op: 'load'; path: string; dimensions: number; bytes: number; sha256: string };

export type GraphRequest = GraphOp & { id: number; graph: number };

export interface SearchReply {
  keys: BigUint64Array;
  distances: Float32Array;
}

export interface FileDigest {
  bytes: number;
  sha256: string;
}

export interface GraphReply {
  id: number;
  value?: SearchReply | FileDigest | number | null;
  error?: string;
}

/** Built, the worker is a file beside this chunk; run from the sources (the tests), it is
 *  TypeScript, loaded through tsx as they are. */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./graph-worker.js', import.meta.url));
  const source = new URL('./graph-worker.ts', import.meta.url).href;
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })`, { eval: true });
}

interface Waiter {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** The worker and the requests it has not answered yet. */
class GraphThread {
  private readonly worker = startWorker();
  private readonly waiting = new Map<number, Waiter>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor() {
    this.worker.unref();
    this.worker.on('message', (reply: GraphReply) => this.settle(reply));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the vector graph thread stopped (exit code ${code})`)));
  }

  request<T>(graph: number, op: GraphOp, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    // While an answer is owed the process stays up for it (a shutdown waits for its saves).
    if (this.waiting.size === 0) this.worker.ref();
    const answered = new Promise<T>((resolve, reject) => this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject }));
    this.worker.postMessage({ ...op, id, graph } satisfies GraphRequest, transfer);
    return answered;
  }

  private settle(reply: GraphReply): void {
    const waiter = this.waiting.get(reply.id);
    if (!waiter) return;
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker.unref();
    if (reply.error !== undefined) waiter.reject(new Error(reply.error));
    else waiter.resolve(reply.value);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(this.failure);
    this.waiting.clear();
  }
}

let thread: GraphThread | null = null;
const graphThread = (): GraphThread => (thread ??= new GraphThread());

/** A graph nobody holds any more is freed on the thread too. */
const released = new FinalizationRegistry<number>((graph) => void graphThread().request(graph, { op: 'drop' }).catch(() => {}));
let nextGraph = 1;

/**
 * One HNSW graph (cosine, 16-bit floats) on the graph thread. Its requests run in the order they
 * are made: a search sees every add made before it, a save holds exactly what was added before it.
 */
export class Graph {
  private constructor(private readonly id: number) {
    released.register(this, id);
  }

  static create(dimensions: number): Graph {
    const graph = new Graph(nextGraph++);
    // Nothing waits for this: a failure would fail the graph's first add or search.
    graph.request({ op: 'create', dimensions }).catch(() => {});
    return graph;
  }

  /** A saved graph, if its file has the size and SHA-256 recorded when it was saved (else null),
   *  with the number of vectors it holds. */
  static async load(path: string, dimensions: number, digest: FileDigest): Promise<{ graph: Graph; size: number } | null> {
    const id = nextGraph++;
    const size = await graphThread().request<number | null>(id, { op: 'load', path, dimensions, ...digest });
    return size === null ? null : { graph: new Graph(id), size };
  }

  /** `vectors`: one row of `dimensions` floats per key; its buffer moves to the thread. */
  add(keys: BigUint64Array, vectors: Float32Array): Promise<void> {
    return this.request({ op: 'add', keys, vectors }, [keys.buffer as ArrayBuffer, vectors.buffer as ArrayBuffer]);
  }

  remove(key: number): Promise<void> {
    return this.request({ op: 'remove', key: BigInt(key) });
  }

  search(query: Float32Array, count: number): Promise<SearchReply> {
    return this.request({ op: 'search', query, count });
  }

  /** Writes the graph to `path` and syncs it; resolves with the file's size and SHA-256. */
  save(path: string): Promise<FileDigest> {
    return this.request({ op: 'save', path });
  }

  private request<T>(op: GraphOp, transfer?: ArrayBuffer[]): Promise<T> {
    return graphThread().request<T>(this.id, op, transfer);
  }
}
