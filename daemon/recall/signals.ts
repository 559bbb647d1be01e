// The three signals of one namespace, each as doc → 1-based rank over the eligible docs. Every
// signal orders ties by doc number, which is id order, so ranks are total and repeatable.
import type { NamespaceIndex } from '../index/namespace.ts';
import type { DocFilter } from './filters.ts';

export type RankMap = Map<number, number>;

export function keywordRanks(ns: NamespaceIndex, queryTerms: readonly string[], filter: DocFilter | null): RankMap {
  const ranks: RankMap = new Map();
  if (queryTerms.length === 0) return ranks;
  const eligible = filter ? (doc: number) => filter(ns.doc(doc)) : undefined;
  ns.keyword.search(queryTerms, { eligible }).forEach((hit, i) => ranks.set(hit.doc, i + 1));
  return ranks;
}

/** How many nearest eligible neighbours the vector signal ranks: a fixed function of top_k, so
 *  the same query always sees the same candidate list. */
export const vectorCandidateCount = (topK: number): number => Math.max(64, topK * 4);

export interface VectorRanking {
  ranks: RankMap;
  /** How many neighbours were searched in the end (after widening). */
  searched: number;
}

/** USearch has no filtered search: widen the neighbour count with the same query vector until
 *  enough eligible hits are found or the whole index was searched. A short list is never taken
 *  as proof that nothing else matched. */
export function vectorRanks(ns: NamespaceIndex, query: Float32Array, wanted: number, filter: DocFilter | null): VectorRanking {
  const ranks: RankMap = new Map();
  const index = ns.vectors;
  if (!index || index.size === 0) return { ranks, searched: 0 };
  let count = Math.min(wanted, index.size);
  let hits: { doc: number; distance: number }[] = [];
  for (;;) {
    hits = [];
    for (const hit of index.search(query, count)) {
      const doc = ns.docOfVectorKey(hit.key);
      // A key without a live doc is a stale entry of a saved index; it never takes a rank.
      if (doc !== undefined && (!filter || filter(ns.doc(doc)))) hits.push({ doc, distance: hit.distance });
    }
    if (hits.length >= wanted || count >= index.size) break;
    count = Math.min(index.size, count * 4);
  }
  hits.sort((a, b) => a.distance - b.distance || a.doc - b.doc);
  hits.slice(0, wanted).forEach((hit, i) => ranks.set(hit.doc, i + 1));
  return { ranks, searched: count };
}

/** Recency ranks over the eligible docs only (a filtered query): one pass, newest first. */
export function filteredRecencyRanks(ns: NamespaceIndex, filter: DocFilter): RankMap {
  const ranks: RankMap = new Map();
  for (const doc of ns.recency.newest()) if (filter(ns.doc(doc))) ranks.set(doc, ranks.size + 1);
  return ranks;
}
