// Explain receipts: one per returned fact, carrying everything needed to recompute its score
// (ranks, k, weights) plus where the fact came from.
import type { FactRecord } from '../store/record.ts';
import { RRF_K, type Ranks, type SignalWeights } from './fusion.ts';
import type { RankedFact } from './rank.ts';
import type { ConfidencePlan } from './plan.ts';
import { CONFIDENCE_POLICY, confidenceValue, effectiveLabel } from '../lifecycle/confidence.ts';

export interface Receipt {
  text: string;
  /** The final score that decided selection and order. */
  weight: number;
  ageDays: number;
  ranks: Ranks & { fusedScore: number; k: number; weights: SignalWeights };
  provenance: { factId: string; writtenAt: number; supersededBy: string; confidence: string; pinned: boolean; agentId: string };
  kgLinks: string[];
  fact: FactRecord;
  /** Present when confidence options were in effect. */
  ranking?: ConfidenceRanking;
}

export type { ConfidenceRanking } from '../../shared/model.ts';
import type { ConfidenceRanking } from '../../shared/model.ts';

const DAY_MS = 86_400_000;

export function toReceipt(ranked: RankedFact, fact: FactRecord, weights: SignalWeights, now: number, confidence: ConfidencePlan | null): Receipt {
  const receipt: Receipt = {
    text: fact.text,
    weight: ranked.final,
    ageDays: Math.max(0, (now - fact.createdAt) / DAY_MS),
    ranks: { ...ranked.ranks, fusedScore: ranked.fused, k: RRF_K, weights },
    provenance: {
      factId: fact.id,
      writtenAt: fact.createdAt,
      supersededBy: fact.supersededBy,
      confidence: fact.confidence,
      pinned: fact.pinned,
      agentId: fact.agentId,
    },
    kgLinks: [],
    fact,
  };
  if (confidence) {
    const c = confidenceValue(fact.confidence);
    receipt.ranking = {
      baseScore: ranked.fused,
      finalScore: ranked.final,
      factor: 1 + confidence.weight * c,
      effectiveConfidence: effectiveLabel(fact.confidence),
      confidenceValue: c,
      confidenceWeight: confidence.weight,
      policy: CONFIDENCE_POLICY,
    };
  }
  return receipt;
}
