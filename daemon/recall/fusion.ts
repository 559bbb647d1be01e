// Weighted reciprocal rank fusion and the total order. Kept apart so receipts, recall and
// tests all use the one formula.

export const RRF_K = 60;

export type { SignalWeights } from '../../shared/model.ts';
import type { SignalWeights } from '../../shared/model.ts';

/** Unset weights mean these defaults; an explicit 0 turns a signal off. */
export const DEFAULT_WEIGHTS: Readonly<SignalWeights> = { vector: 1.0, keyword: 1.0, recency: 0.5 };

/** 1-based ranks; 0 means the signal did not rank the fact. */
export interface Ranks {
  vector: number;
  keyword: number;
  recency: number;
}

/** B = Σ w_s / (k + rank_s), summed in the fixed order vector, keyword, recency so the
 *  floating-point result is reproducible from a receipt. */
export function fusedScore(ranks: Ranks, weights: SignalWeights, k = RRF_K): number {
  let score = 0;
  if (ranks.vector > 0) score += weights.vector / (k + ranks.vector);
  if (ranks.keyword > 0) score += weights.keyword / (k + ranks.keyword);
  if (ranks.recency > 0) score += weights.recency / (k + ranks.recency);
  return score;
}

export interface Orderable {
  final: number;
  createdAt: number;
  factId: string;
}

/** The total order: final score desc, then created_at asc, then id asc. */
export function compareResults(a: Orderable, b: Orderable): number {
  if (a.final !== b.final) return b.final - a.final;
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.factId < b.factId ? -1 : a.factId > b.factId ? 1 : 0;
}
