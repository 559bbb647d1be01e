// Explain receipts: one per returned fact, carrying everything needed to recompute its score
// (ranks, k, weights) plus where the fact came from. Recall keys ranks by signal name; the
// protocol has one frozen field per signal, and this is the one place that maps the two.
import type { Receipt, RerankStep } from '../../shared/model.ts';
import type { FactRecord } from '../store/record.ts';
import { RRF_K } from './fusion.ts';
import type { RankedFact } from './rank.ts';
import type { ConfidencePlan } from './plan.ts';
import type { SignalName, SignalRanks, Weights } from './registry.ts';
import { CONFIDENCE_POLICY, confidenceValue, effectiveLabel } from '../lifecycle/confidence.ts';

export type { Receipt } from '../../shared/model.ts';

/** The protocol's rank field of each signal. */
const RANK_FIELDS = { vector: 'vectorRank', keyword: 'keywordRank', recency: 'recencyRank', decay: 'decayRank', graph: 'graphRank' } as const satisfies Record<SignalName, string>;

type RankFields = { [S in SignalName as (typeof RANK_FIELDS)[S]]: number };

function rankFields(ranks: SignalRanks): RankFields {
  const out = {} as Record<string, number>;
  for (const [name, field] of Object.entries(RANK_FIELDS)) out[field] = ranks[name as SignalName];
  return out as RankFields;
}

const DAY_MS = 86_400_000;

/** `rerank`: what the recipe's second stage did; the receipt's weight is then its result, and the
 *  confidence ranking's final score what the stage started from. */
export function toReceipt(ranked: RankedFact, fact: FactRecord, weights: Weights, now: number, confidence: ConfidencePlan | null, rerank?: RerankStep): Receipt<FactRecord> {
  const receipt: Receipt<FactRecord> = {
    text: fact.text,
    weight: ranked.final,
    ageDays: Math.max(0, (now - fact.createdAt) / DAY_MS),
    ranks: { ...rankFields(ranked.ranks), fusedScore: ranked.fused, k: RRF_K, weights: { ...weights } },
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
    matched: ranked.matched,
    ...(rerank ? { rerank } : {}),
  };
  if (confidence) {
    const c = confidenceValue(fact.confidence);
    receipt.ranking = {
      baseScore: ranked.fused,
      finalScore: rerank ? rerank.scoreBefore : ranked.final,
      factor: 1 + confidence.weight * c,
      effectiveConfidence: effectiveLabel(fact.confidence),
      confidenceValue: c,
      confidenceWeight: confidence.weight,
      policy: CONFIDENCE_POLICY,
    };
  }
  return receipt;
}
