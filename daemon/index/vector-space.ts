// The vector side of the indexes: which model makes this store's vectors, whether the vector
// signal is on, and each namespace's USearch index — saved to files with the change number they
// cover, loaded at start-up and caught up from the store's change log (never re-embedding).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { syncPath, writeFileAtomically } from '../files/atomic-file.ts';
import type { Embedder } from '../embed/provider.ts';
import type { Log } from '../log.ts';
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';
import type { Catalog } from './catalog.ts';
import { isIndexed } from './derive.ts';
import type { NamespaceIndex } from './namespace.ts';
import { MAX_PENDING, STOPPED_LOADING, VectorIndex } from './vectors.ts';

export interface Embedded {
  vector: Float32Array | null;
  /** What to record as the fact's embedder: the model id, or "" when it is still pending. */
  embedder: string;
}

const NOT_EMBEDDED: Embedded = { vector: null, embedder: '' };

/** A saved graph's file name ends so; its key list is beside it in `<base>.json`. */
const USEARCH = '.usearch';

/** `covered.json` beside the index files: every file there covers the changes up to coveredSeq. */
interface Manifest {
  embedder: string;
  coveredSeq: number;
}

type SavedIndex = Awaited<ReturnType<typeof VectorIndex.load>>;

export class VectorSpace {
  private offReason: string | null = null;
  /** Whether the next save writes every namespace's index, changed or not. */
  private all = false;
  /** Saved index files the graph thread is already reading, by file base (see preload). */
  private preloaded = new Map<string, Promise<SavedIndex>>();

  constructor(
    readonly embedder: Embedder,
    /** Folder of the saved indexes. */
    private readonly dir: string,
    private readonly log: Log,
  ) {}

  /** Why the vector signal is off for this store, or null when it is on. */
  get off(): string | null {
    return this.offReason;
  }

  /** Turns the vector signal off (with why) or on (null): the store's vectors come from another
   *  model until a reindex, or the daemon runs without vectors. */
  setOff(reason: string | null): void {
    this.offReason = reason;
  }

  get dimensions(): number {
    return this.embedder.dimensions;
  }

  /** The embedder as retrieval metadata names it. */
  get activeEmbedder(): string {
    return this.off ? 'none' : this.embedder.id;
  }

  /** The next save writes every namespace's index, not only the changed ones. */
  saveAllNext(): void {
    this.all = true;
  }

  /** A recallable fact without a vector from the current model (vectors on). */
  isPending(fact: FactRecord): boolean {
    return !this.off && isIndexed(fact) && fact.embedder !== this.embedder.id;
  }

  /** Embeds a text for a write. A failing provider never fails the write: the fact is stored
   *  keyword-only with embedder "" (pending) and the reconciler embeds it later. */
  async embedForWrite(text: string): Promise<Embedded> {
    return (await this.embedManyForWrite([text]))[0]!;
  }

  /** The same for many texts in one provider call (a batch write). */
  async embedManyForWrite(texts: readonly string[]): Promise<Embedded[]> {
    if (this.off || texts.length === 0) return texts.map(() => NOT_EMBEDDED);
    try {
      const vectors = await this.embedder.embed(texts);
      // The embedder is recorded even when the text had no known word: it ran, nothing is pending.
      return vectors.map((vector) => ({ vector: vector ?? null, embedder: this.embedder.id }));
    } catch (error) {
      this.log.warn(`embedding failed, ${texts.length === 1 ? 'fact' : `${texts.length} facts`} stored keyword-only and queued for the reconciler: ${(error as Error).message}`);
      return texts.map(() => NOT_EMBEDDED);
    }
  }

  /** Adds a fact's vector to its namespace's index. */
  add(ns: NamespaceIndex, vectorKey: number, vector: Float32Array): void {
    ns.vectors ??= new VectorIndex(this.dimensions);
    ns.vectors.add(vectorKey, vector);
  }

  /** Saves the index of every namespace that changed since its last save (on the graph thread,
   *  so no client waits behind them), then records in the manifest that
   *  every saved file covers the changes up to `coveredSeq` (all applied when this starts): an
   *  unchanged namespace's file already did. Returns whether anything was saved. */
  async saveChanged(catalog: Catalog, coveredSeq: number): Promise<boolean> {
    if (this.off) return true;
    const all = this.all;
    const changed = [...catalog.all()].filter((ns) => ns.vectors && (all || ns.vectors.changed));
    if (changed.length === 0 && !all) return false;
    this.all = false;
    for (const ns of changed) {
      await ns.vectors?.save(this.indexBase(ns.agentId), { agentId: ns.agentId, embedder: this.embedder.id, dimensions: this.dimensions, coveredSeq });
    }
    // The manifest vouches for the files renamed above: they reach the disk first.
    syncPath(this.dir);
    writeFileAtomically(this.manifestPath, [Buffer.from(JSON.stringify({ embedder: this.embedder.id, coveredSeq } satisfies Manifest))]);
    return true;
  }

  /** The change number every saved file covers (0 when unknown): each file covers at least its
   *  own, and an unchanged namespace's file also every change the manifest names. */
  private manifestSeq(): number {
    try {
      const manifest = JSON.parse(readFileSync(this.manifestPath, 'utf8')) as Partial<Manifest>;
      return manifest.embedder === this.embedder.id && typeof manifest.coveredSeq === 'number' ? manifest.coveredSeq : 0;
    } catch {
      return 0;
    }
  }

  private get manifestPath(): string {
    return join(this.dir, 'covered.json');
  }

  /** Starts reading every saved index file on the graph thread before the namespaces are known,
   *  so that reading (and verifying) a large graph overlaps the restore of the other indexes on
   *  this thread instead of following it. `load` uses what it needs; the rest is let go. */
  preload(): void {
    if (this.dimensions === 0) return;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.endsWith(USEARCH)) continue;
      const base = join(this.dir, name.slice(0, -USEARCH.length));
      this.preloaded.set(base, VectorIndex.load(base, this.embedder.id, this.dimensions));
    }
  }

  /** Loads each namespace's index: the saved file caught up from the change log when it can be,
   *  else every stored vector of the namespace (`useSaved` false: always the latter). */
  async load(store: MemoryStore, catalog: Catalog, useSaved: boolean): Promise<void> {
    const preloaded = this.preloaded;
    this.preloaded = new Map();
    if (this.off) return;
    const saved = new Map<string, { index: VectorIndex; coveredSeq: number }>();
    const manifestSeq = useSaved ? this.manifestSeq() : 0;
    for (const ns of catalog.all()) {
      const base = this.indexBase(ns.agentId);
      const loaded = useSaved ? await (preloaded.get(base) ?? VectorIndex.load(base, this.embedder.id, this.dimensions)) : null;
      const file = loaded === STOPPED_LOADING ? null : loaded;
      // Rebuilt below (so changed), it is written anew at the next save.
      if (loaded === STOPPED_LOADING) this.log.warn(`loading the saved vector index of "${ns.agentId}" stopped the daemon last time: rebuilding it from the stored vectors`);
      else if (useSaved && !file && existsSync(`${base}.usearch`)) this.log.warn(`the saved vector index of "${ns.agentId}" is damaged, foreign or unverifiable: rebuilding it from the stored vectors`);
      const coveredSeq = file ? Math.max(file.info.coveredSeq, manifestSeq) : 0;
      if (file && coveredSeq >= store.changesKeptAfter) saved.set(ns.agentId, { index: file.index, coveredSeq });
    }
    const changed = await changedSince(store, saved);
    for (const ns of catalog.all()) {
      const from = saved.get(ns.agentId);
      ns.vectors = from ? await catchUp(store, ns, from.index, changed.get(ns.agentId) ?? []) : await this.readAll(store, ns);
      if (!ns.vectors) continue;
      // Said, because until it is done a search of this namespace waits for it.
      if (!from && ns.vectors.pendingCount >= MAX_PENDING) this.log.info(`building the vector index of "${ns.agentId}" from ${ns.vectors.pendingCount} stored vectors on the graph thread (no usable saved index); its recalls wait for it, other namespaces do not`);
      ns.vectors.flushSome();
    }
  }

  /** The running model became the store's (after a reindex): every namespace's index is built
   *  anew from the stored vectors, and the signal is on. */
  async rebuildAll(store: MemoryStore, catalog: Catalog): Promise<void> {
    for (const ns of catalog.all()) ns.vectors = null;
    this.offReason = null;
    await this.load(store, catalog, false);
    this.all = true;
  }

  private async readAll(store: MemoryStore, ns: NamespaceIndex): Promise<VectorIndex | null> {
    const index = new VectorIndex(this.dimensions);
    for await (const [vectorKey, vector] of store.scanVectors(ns.agentId)) {
      if (ns.docOfVectorKey(vectorKey) !== undefined) index.add(vectorKey, vector);
    }
    return index.size > 0 ? index : null;
  }

  private indexBase(agentId: string): string {
    return join(this.dir, Buffer.from(agentId, 'utf8').toString('base64url') || '_');
  }
}

/** Fact ids changed after the oldest saved index's change number, by namespace. */
async function changedSince(store: MemoryStore, saved: Map<string, { coveredSeq: number }>): Promise<Map<string, { factId: string; seq: number }[]>> {
  const byNamespace = new Map<string, { factId: string; seq: number }[]>();
  if (saved.size === 0) return byNamespace;
  const oldest = Math.min(...[...saved.values()].map((s) => s.coveredSeq));
  for await (const change of store.changesSince(oldest)) {
    if (!saved.has(change.agentId)) continue;
    let list = byNamespace.get(change.agentId);
    if (!list) byNamespace.set(change.agentId, (list = []));
    list.push({ factId: change.factId, seq: change.seq });
  }
  return byNamespace;
}

/** A saved index plus what changed since: keys without a live fact leave, live facts' vectors
 *  it lacks join. */
async function catchUp(store: MemoryStore, ns: NamespaceIndex, index: VectorIndex, changed: { factId: string }[]): Promise<VectorIndex | null> {
  for (const key of index.allKeys()) if (ns.docOfVectorKey(key) === undefined) index.remove(key);
  const missing = new Set<number>();
  for (const { factId } of changed) {
    const doc = ns.docOf(factId);
    const vectorKey = doc === undefined ? 0 : ns.doc(doc).vectorKey;
    if (vectorKey && !index.has(vectorKey)) missing.add(vectorKey);
  }
  const keys = [...missing];
  const vectors = await store.getVectors(ns.agentId, keys);
  keys.forEach((key, i) => {
    if (vectors[i]) index.add(key, vectors[i]!);
  });
  return index.size > 0 ? index : null;
}
