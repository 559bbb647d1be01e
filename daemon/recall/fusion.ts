// Weighted reciprocal rank fusion and the total order. Kept apart so receipts, recall and
// tests all use the one formula.
import { SIGNAL_NAMES, type SignalRanks, type Weights } from './registry.ts';

export const RRF_K = 60;

/** B = Σ w_s / (k + rank_s) over the signals that ranked the fact, summed in registry order so
 *  the floating-point result is reproducible from a receipt. */
export function fusedScore(ranks: SignalRanks, weights: Weights, k = RRF_K): number {
  return fuse((s) => ranks[SIGNAL_NAMES[s]!], (s) => weights[SIGNAL_NAMES[s]!], k);
}

/** The sum itself, over signal s = 0, 1, … in registry order (a rank of 0: not ranked). Every
 *  fused score, however its ranks are held, is this one loop, so they agree bit for bit. */
export function fuse(rankOf: (signal: number) => number, weightOf: (signal: number) => number, k = RRF_K): number {
  let score = 0;
  for (let s = 0; s < SIGNAL_NAMES.length; s++) {
    const rank = rankOf(s);
    if (rank > 0) score += weightOf(s) / (k + rank);
  }
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
