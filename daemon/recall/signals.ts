// The three signals of one namespace, each as doc → 1-based rank. Every signal orders ties by
// doc number, which is id order, so ranks are total and repeatable.
import type { NamespaceIndex } from '../index/namespace.ts';

export type RankMap = Map<number, number>;

export function keywordRanks(ns: NamespaceIndex, queryTerms: readonly string[]): RankMap {
  const ranks: RankMap = new Map();
  if (queryTerms.length === 0) return ranks;
  ns.keyword.search(queryTerms).forEach((hit, i) => ranks.set(hit.doc, i + 1));
  return ranks;
}

/** How many nearest neighbours the vector signal ranks: a fixed function of top_k, so the same
 *  query always sees the same candidate list. */
export const vectorCandidateCount = (topK: number): number => Math.max(64, topK * 4);

export function vectorRanks(ns: NamespaceIndex, query: Float32Array, count: number): RankMap {
  const ranks: RankMap = new Map();
  if (!ns.vectors) return ranks;
  const hits: { doc: number; distance: number }[] = [];
  for (const hit of ns.vectors.search(query, count)) {
    const doc = ns.docOfVectorKey(hit.key);
    // A key without a live doc is a stale entry of a saved index; it never takes a rank.
    if (doc !== undefined) hits.push({ doc, distance: hit.distance });
  }
  hits.sort((a, b) => a.distance - b.distance || a.doc - b.doc);
  hits.forEach((hit, i) => ranks.set(hit.doc, i + 1));
  return ranks;
}
