// Keyword: BM25 over the namespace's inverted index, the query's terms alias-expanded and, with
// word vectors, joined by their nearest store words at a reduced weight (expansion.ts). A fact
// below the candidate depth gets rank 0, as a fact outside the vector neighbours does.
import type { MatchSignal } from '../signal.ts';

/** How deep the keyword signal ranks: a fixed function of top_k. */
export const keywordCandidateCount = (topK: number): number => Math.max(100, topK * 10);

export const keywordSignal = {
  name: 'keyword',
  kind: 'match',
  applies: () => true,
  async rank({ ns, query, topK, depth, filter }) {
    const ranks = new Map<number, number>();
    if (query.terms.length === 0) return { ranks, matched: new Set(), searched: 0 };
    const eligible = filter ? (doc: number) => filter(ns.doc(doc)) : undefined;
    const { termWeights } = query;
    const hits = ns.keyword.search(query.terms, { eligible, limit: depth ?? keywordCandidateCount(topK), ...(termWeights ? { termWeights } : {}) });
    // Equal scores in id order, not doc order (which may differ between daemons of one store).
    hits.sort((a, b) => b.score - a.score || ns.idOrder(a.doc, b.doc)).forEach((hit, i) => ranks.set(hit.doc, i + 1));
    // Every hit shares a term with the query, or a word its nearest to (similarity 0.6 or more).
    return { ranks, matched: new Set(ranks.keys()), searched: ranks.size };
  },
} as const satisfies MatchSignal;
