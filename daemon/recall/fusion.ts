// Weighted reciprocal rank fusion and the total order. Kept apart so receipts, recall and
// tests all use the one formula.
import { SIGNAL_NAMES, type SignalRanks, type Weights } from './registry.ts';

export const RRF_K = 60;

/** B = Σ w_s / (k + rank_s) over the signals that ranked the fact, summed in registry order so
 *  the floating-point result is reproducible from a receipt. */
export function fusedScore(ranks: SignalRanks, weights: Weights, k = RRF_K): number {
  let score = 0;
  for (const name of SIGNAL_NAMES) {
    const rank = ranks[name];
    if (rank > 0) score += weights[name] / (k + rank);
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
