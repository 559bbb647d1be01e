// The recipes' second stage, "term-coverage-v1": fusion ranks by where each signal put a fact,
// so a fact that matches one query word very well can outrank one that contains every word.
// The reranker looks at the fused pool's facts themselves and scales each score by how much of
// the query the fact's text covers: final = fused-and-modified · (1 + w · coverage), coverage =
// the share of the query's distinct index terms (stemmed, stopwords out, no expansions) that
// occur in the fact's text. Deterministic, offline, and cheap: it reads only the pool's texts.
import type { RerankStep } from '../../shared/model.ts';
import { terms } from '../index/tokenizer.ts';
import { compareResults, type Orderable } from './fusion.ts';

export const RERANK_STAGE = 'term-coverage-v1';
export const RERANK_WEIGHT = 0.5;

/** How many fused candidates the stage reorders: the pool recall ranks before cutting to top_k. */
export const rerankPool = (topK: number): number => Math.max(30, topK * 3);

export interface Reranked<R> {
  results: R[];
  /** Per result, same order. */
  steps: RerankStep[];
}

function coverage(queryTerms: ReadonlySet<string>, text: string): number {
  if (queryTerms.size === 0) return 0;
  const own = new Set(terms(text));
  let hit = 0;
  for (const term of queryTerms) if (own.has(term)) hit++;
  return hit / queryTerms.size;
}

/** Reorders one namespace's `pool` (in total order, ranked without a relevance floor) and returns
 *  its first `topK`. Facts the query matched stay ahead of filler, and the relevance floor, when
 *  the plan has one, applies to the reranked scores (so it means what it says after the stage). */
export function rerank<R extends Orderable & { matched: boolean }>(pool: readonly R[], queryText: string, textOf: (r: R) => string, topK: number, minRelevance: number): Reranked<R> {
  const queryTerms = new Set(terms(queryText));
  const scored = pool.map((r, i) => {
    const c = coverage(queryTerms, textOf(r));
    const factor = 1 + RERANK_WEIGHT * c;
    return { result: { ...r, final: r.final * factor }, step: { stage: RERANK_STAGE, scoreBefore: r.final, coverage: c, factor, rankBefore: i + 1, rankAfter: 0 } };
  });
  scored.sort((a, b) => Number(b.result.matched) - Number(a.result.matched) || compareResults(a.result, b.result));
  const floor = minRelevance > 0 && scored.length ? scored[0]!.result.final * minRelevance : -Infinity;
  const kept = scored.filter((s) => minRelevance === 0 || (s.result.matched && s.result.final >= floor)).slice(0, topK);
  kept.forEach((s, i) => (s.step.rankAfter = i + 1));
  return { results: kept.map((s) => s.result), steps: kept.map((s) => s.step) };
}
