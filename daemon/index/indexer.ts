// The in-memory indexes of every namespace, kept in step with committed facts. Writers call one
// of these after their commit; nothing else changes the indexes (start-up and doctor rebuild
// them whole).
import type { FactRecord } from '../store/record.ts';
import { PendingSet } from '../lifecycle/pending.ts';
import { Catalog } from './catalog.ts';
import { docOf, isIndexed, termsOf, type Terms } from './derive.ts';
import { loadAlias, loadCatalog, restoreNamespaces, type LoadResult } from './load.ts';
import type { Snapshot } from './snapshot.ts';
import type { MemoryStore } from '../store/store.ts';
import type { NamespaceIndex } from './namespace.ts';
import type { VectorSpace } from './vector-space.ts';

export class Indexer {
  readonly catalog = new Catalog();
  /** Recallable facts waiting for a vector from the current model. */
  readonly pending = new PendingSet();

  constructor(readonly vectors: VectorSpace) {}

  namespace(agentId: string): NamespaceIndex | undefined {
    return this.catalog.get(agentId);
  }

  /** A live fact of the namespace that says what a fact with this content key says. */
  factSaying(agentId: string, contentKey: string): string | undefined {
    return this.catalog.get(agentId)?.factSaying(contentKey);
  }

  /** A live recallable fact, new or changed. `vector`: its new vector; 'kept' = the one under its
   *  unchanged vector key stays; null = none. `contentKey`: the fact's, when the writer has it. */
  indexed(fact: FactRecord, terms: Terms, vector: Float32Array | null | 'kept', contentKey?: string): void {
    const ns = this.catalog.ensure(fact.agentId);
    ns.replace(docOf(fact, contentKey), terms);
    if (vector instanceof Float32Array && fact.vectorKey && !this.vectors.off) this.vectors.add(ns, fact.vectorKey, vector);
    this.trackPending(fact);
  }

  /** A live recallable fact whose indexed inputs did not change (pin, confidence, tags…). */
  updated(fact: FactRecord): void {
    this.catalog.get(fact.agentId)?.updateDoc(docOf(fact));
  }

  /** A new alias record: its expansions apply from now on. */
  aliasAdded(fact: FactRecord): void {
    loadAlias(this.catalog, fact);
  }

  /** A fact that is no longer recallable (retired or erased), and an alias that no longer applies. */
  removed(fact: FactRecord): void {
    // Its vector leaves the namespace's index, which is then saved as changed.
    this.catalog.get(fact.agentId)?.remove(fact.id);
    this.pending.delete(fact);
  }

  /** Brings one fact's indexing in step with its stored state, as another process left it:
   *  `fact` undefined = erased. `vector`: the stored vector under its key when the index lacks it. */
  followed(key: { agentId: string; factId: string }, fact: FactRecord | undefined, terms: Terms | undefined, vector: Float32Array | undefined): void {
    if (!fact) {
      this.catalog.get(key.agentId)?.remove(key.factId);
      this.pending.delete({ agentId: key.agentId, id: key.factId });
      return;
    }
    if (!isIndexed(fact)) {
      this.removed(fact);
      if (fact.kind === 'alias' && fact.supersededBy === '') this.aliasAdded(fact);
      return;
    }
    const ns = this.catalog.get(fact.agentId);
    const kept = fact.vectorKey !== 0 && ns?.docOfVectorKey(fact.vectorKey) !== undefined;
    this.indexed(fact, terms ?? termsOf(fact), kept ? 'kept' : (vector ?? null));
  }

  private trackPending(fact: FactRecord): void {
    if (this.vectors.isPending(fact)) this.pending.add(fact);
    else this.pending.delete(fact);
  }

  /** Restores the indexes a snapshot saved; throws (leaving them empty) if any part is unsound. */
  restore(snapshot: Snapshot): void {
    try {
      for (const ns of restoreNamespaces(snapshot)) this.catalog.restore(ns);
      for (const fact of snapshot.pending) this.pending.add(fact);
    } catch (error) {
      this.catalog.clear();
      throw error;
    }
  }

  /** Builds the keyword, recency and alias indexes from every fact in the store (the vector
   *  indexes are loaded by the vector space). `storedTerms` false: computed from the texts. */
  async rebuild(store: MemoryStore, storedTerms = true, onProgress?: (factsRead: number) => void): Promise<LoadResult> {
    this.catalog.clear();
    const loaded = await loadCatalog(store, this.catalog, this.vectors.off ? null : this.vectors.embedder.id, storedTerms, onProgress);
    for (const fact of loaded.unembedded) if (isIndexed(fact)) this.trackPending(fact);
    return loaded;
  }
}
