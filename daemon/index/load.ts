// Start-up: build the in-memory keyword, recency and alias indexes from the store. Keyword terms
// come from the stored rows (no re-tokenising) unless they were written by another tokenizer.
// Facts are read by namespace in id order, so doc order is id order.
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';
import { parseAliasMeta } from './aliases.ts';
import type { Catalog } from './catalog.ts';
import { docOf, fromStoredTerms, isIndexed, termsOf } from './derive.ts';
import { NamespaceIndex } from './namespace.ts';
import type { Snapshot } from './snapshot.ts';

export interface LoadResult {
  facts: number;
  indexed: number;
  /** Facts whose stored terms were missing and were recomputed (a doctor finding, repaired in memory). */
  missingTerms: number;
  /** Recallable facts with no vector from `embedder`. */
  unembedded: FactRecord[];
}

/** `storedTerms` false: the stored keyword rows were made by another tokenizer version, so
 *  every fact's terms are computed from its text instead (slower, but never stale). */
/** A load reports how far it got every this many facts read (a large store, or one indexed from
 *  its texts after a tokenizer change, takes long enough at start-up to need saying). */
export const LOAD_PROGRESS_STEP = 10_000;

export async function loadCatalog(store: MemoryStore, catalog: Catalog, embedder: string | null, storedTerms = true, onProgress?: (factsRead: number) => void): Promise<LoadResult> {
  const result: LoadResult = { facts: 0, indexed: 0, missingTerms: 0, unembedded: [] };
  for await (const { fact, terms } of store.scanFacts({ withTerms: storedTerms })) {
    result.facts++;
    if (result.facts % LOAD_PROGRESS_STEP === 0) onProgress?.(result.facts);
    if (fact.kind === 'alias' && fact.supersededBy === '') loadAlias(catalog, fact);
    if (!isIndexed(fact)) continue;
    if (fact.embedder !== embedder) result.unembedded.push(fact);
    if (storedTerms && !terms) result.missingTerms++;
    catalog.ensure(fact.agentId).add(docOf(fact), terms ? fromStoredTerms(terms) : termsOf(fact));
    result.indexed++;
  }
  return result;
}

export function loadAlias(catalog: Catalog, fact: FactRecord): void {
  const alias = parseAliasMeta(fact.meta);
  if (alias) catalog.ensure(fact.agentId).aliases.add(fact.id, alias.alias_term, alias.alias_equivalents);
}

/** The namespaces a snapshot saved; throws if any part is inconsistent, so the caller rebuilds
 *  from the store (nothing built from a damaged snapshot is ever used). */
export function restoreNamespaces(snapshot: Snapshot): NamespaceIndex[] {
  return snapshot.namespaces.map((state) => NamespaceIndex.fromState(state));
}
