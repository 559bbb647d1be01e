// The library's public shapes: plain objects with number times (ms since the epoch), converted
// from the protocol messages so callers never handle bigint or protobuf internals.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { AssembleContextResponse, Recipe as RecipeMessage, Slot as SlotMessage } from '../shared/gen/engram/v1/controls_pb.ts';
import type { AppliedRecipe, ContextAssembly, ContextItem, Evidence, Fact, FactFields, KgHint, Recipe, Slot, Receipt, RetrievalMetadata, SignalWeights, Stats, WeakMatchFeedback } from '../shared/model.ts';
import { toFact as toPublicFact, toRecord } from '../shared/fact-shape.ts';
export type { ConfidenceLabel, ConfidenceRanking, Fact, Receipt, RetrievalMetadata, SignalWeights, Stats, WeakMatchFeedback } from '../shared/model.ts';
import type { Fact as FactMessage, FactSchema } from '../shared/gen/engram/v1/fact_pb.ts';
import { FactKind } from '../shared/gen/engram/v1/fact_pb.ts';
import { factToMessage } from '../shared/fact-message.ts';
import type { AppliedRecipe as AppliedRecipeMessage, RecallReceipt, RetrievalMetadata as RetrievalMessage, WeakMatchFeedback as FeedbackMessage } from '../shared/gen/engram/v1/recall_pb.ts';
import type { StatsResponse } from '../shared/gen/engram/v1/memory_pb.ts';
import type { Checkpoint as CheckpointMessage } from '../shared/gen/engram/v1/checkpoint_pb.ts';
import type { TokenInfo as TokenInfoMessage } from '../shared/gen/engram/v1/admin_pb.ts';
import { RIGHTS, type TokenInfo } from '../shared/model.ts';

export function toFeedback(m: FeedbackMessage): WeakMatchFeedback {
  return { queryTerms: m.queryTerms, knownTerms: m.knownTerms, unknownTerms: [...m.unknownTerms], nearbyTerms: [...m.nearbyTerms], advice: m.advice };
}

const KIND_NAMES: Record<number, Fact['kind']> = { [FactKind.ALIAS]: 'alias', [FactKind.SUMMARY]: 'summary' };

export function toFact(m: FactMessage | undefined): Fact {
  if (!m) throw new Error('daemon response lacks its fact');
  const fields: FactFields = {
    id: m.id,
    agentId: m.agentId,
    text: m.text,
    createdAt: Number(m.createdAtMs),
    ...(m.occurredAtMs !== undefined ? { occurredAt: Number(m.occurredAtMs) } : {}),
    updatedAt: Number(m.updatedAtMs),
    accessCount: m.accessCount,
    lastAccessedAt: Number(m.lastAccessedAtMs),
    confidence: m.confidence,
    pinned: m.pinned,
    pinnedAt: Number(m.pinnedAtMs),
    supersededBy: m.supersededBy,
    kind: KIND_NAMES[m.kind] ?? 'fact',
    tags: [...m.tags],
    entities: [...m.entities],
    source: m.source,
    context: m.context,
    strength: m.strength,
    embedder: m.embedder,
    useCount: m.useCount,
    lastUsedAt: Number(m.lastUsedAtMs),
    reviewCount: m.reviewCount,
    crossDomainCount: m.crossDomainCount,
    retiredReason: m.retiredReason,
    promotedAt: Number(m.promotedAtMs),
    relations: m.relations.map((r) => ({ type: r.type, targetId: r.targetId, createdAt: Number(r.createdAtMs) })),
    replaces: [...m.replaces],
    entityTypes: { ...m.entityTypes },
  };
  return toPublicFact(fields, m.metaJson);
}

const ZERO_WEIGHTS: SignalWeights = { vector: 0, keyword: 0, recency: 0, decay: 0, graph: 0 };

/** Weights from the wire (decay is 0 from daemons before decay-v1). */
export const toWeights = (w: SignalWeights | undefined): SignalWeights => (w ? { vector: w.vector, keyword: w.keyword, recency: w.recency, decay: w.decay, graph: w.graph } : ZERO_WEIGHTS);

export function toRetrieval(m: RetrievalMessage | undefined): RetrievalMetadata {
  return {
    weights: toWeights(m?.weights),
    signals: [...(m?.signals ?? [])],
    eligibleCount: m?.eligibleCount ?? 0,
    keywordCandidates: m?.keywordCandidates ?? 0,
    vectorCandidates: m?.vectorCandidates ?? 0,
    embedder: m?.embedder ?? '',
    rrfK: m?.rrfK ?? 0,
    notes: [...(m?.notes ?? [])],
    minRelevance: m?.minRelevance ?? 0,
    filtered: m?.filtered ?? false,
    expandedTerms: [...(m?.expandedTerms ?? [])],
    vectorSearched: m?.vectorSearched ?? 0,
    ...(m?.minConfidence !== undefined ? { minConfidence: m.minConfidence } : {}),
    ...(m?.confidenceWeight !== undefined ? { confidenceWeight: m.confidenceWeight } : {}),
    policy: m?.policy ?? '',
    kg: m?.kg ?? '',
    ...(m?.recipe ? { recipe: toAppliedRecipe(m.recipe) } : {}),
  };
}

function toAppliedRecipe(m: AppliedRecipeMessage): AppliedRecipe {
  const { id, name, version, vectorTopK, lexicalTopK, graphDepth, tokenBudget, preferVerified, verifiedOnly, includeEvidence, reranker } = m;
  return { id, name, version, vectorTopK, lexicalTopK, graphDepth, reranker: reranker !== '', tokenBudget, preferVerified, verifiedOnly, includeEvidence, rerankerStage: reranker };
}

/** A supporting record from the wire. */
export const toEvidence = ({ kind, ref, text, retired }: Evidence): Evidence => ({ kind, ref, text, retired });

export function toContextAssembly(m: AssembleContextResponse, withMatch: boolean): ContextAssembly {
  return {
    block: m.block,
    tokens: m.tokens,
    tokenBudget: m.tokenBudget,
    tokenizer: m.tokenizer,
    mode: m.mode,
    recipe: toAppliedRecipe(m.recipe!),
    items: m.items.map((i) => ({
      kind: i.kind as ContextItem['kind'],
      id: i.id,
      text: i.text,
      tokens: i.tokens,
      ...(i.slot ? { slot: toSlot(i.slot), confidence: i.confidence } : {}),
      ...(i.fact ? { fact: toFact(i.fact) } : {}),
      ...(i.receipt ? { receipt: toReceipt(i.receipt, withMatch) } : {}),
      ...(i.evidence.length ? { evidence: i.evidence.map(toEvidence) } : {}),
    })),
    cut: m.cut.map((c) => ({ kind: c.kind as ContextItem['kind'], id: c.id, tokens: c.tokens, reason: c.reason })),
    retrieval: toRetrieval(m.retrieval),
  };
}

/** `withMatch`: the daemon sends `matched` (recall-matches-v1); otherwise it stays undefined. */
export function toReceipt(m: RecallReceipt, withMatch = false): Receipt {
  const r = m.ranks;
  const p = m.provenance;
  return {
    ...(withMatch ? { matched: m.matched } : {}),
    text: m.text,
    weight: m.weight,
    ageDays: m.ageDays,
    ranks: {
      vectorRank: r?.vectorRank ?? 0,
      keywordRank: r?.keywordRank ?? 0,
      recencyRank: r?.recencyRank ?? 0,
      decayRank: r?.decayRank ?? 0,
      graphRank: r?.graphRank ?? 0,
      fusedScore: r?.fusedScore ?? 0,
      k: r?.k ?? 0,
      weights: toWeights(r?.weights),
    },
    provenance: {
      factId: p?.factId ?? '',
      writtenAt: Number(p?.writtenAtMs ?? 0n),
      supersededBy: p?.supersededBy ?? '',
      confidence: p?.confidence ?? '',
      pinned: p?.pinned ?? false,
      agentId: p?.agentId ?? '',
    },
    kgLinks: [...m.kgLinks],
    fact: toFact(m.fact),
    ...(m.recipe ? { recipe: m.recipe } : {}),
    ...(m.evidence.length ? { evidence: m.evidence.map(toEvidence) } : {}),
    ...(m.rerank ? { rerank: { stage: m.rerank.stage, scoreBefore: m.rerank.scoreBefore, coverage: m.rerank.coverage, factor: m.rerank.factor, rankBefore: m.rerank.rankBefore, rankAfter: m.rerank.rankAfter } } : {}),
    ...(m.ranking
      ? {
          ranking: {
            baseScore: m.ranking.baseScore,
            finalScore: m.ranking.finalScore,
            factor: m.ranking.factor,
            effectiveConfidence: m.ranking.effectiveConfidence,
            confidenceValue: m.ranking.confidenceValue,
            confidenceWeight: m.ranking.confidenceWeight,
            policy: m.ranking.policy,
          },
        }
      : {}),
  };
}

export function toStats(m: StatsResponse): Stats {
  return {
    factCount: Number(m.factCount),
    liveCount: Number(m.liveCount),
    retiredCount: Number(m.retiredCount),
    pinnedCount: Number(m.pinnedCount),
    textBytes: Number(m.textBytes),
    oldestCreatedAt: Number(m.oldestCreatedAtMs),
    newestCreatedAt: Number(m.newestCreatedAtMs),
    agentCount: m.agentCount,
    vectorCount: Number(m.vectorCount),
    pendingEmbeddings: Number(m.pendingEmbeddings),
    storeBytes: Number(m.storeBytes),
    embedder: m.embedder,
    liveByConfidence: { verified: Number(m.liveVerified), inferred: Number(m.liveInferred), unverified: Number(m.liveUnverified) },
  };
}

/** The whole fact as UpdateFact sends it back. */
export function toFactMessage(f: Fact): MessageInitShape<typeof FactSchema> {
  const { fields, metaJson } = toRecord(f);
  return factToMessage(fields, metaJson);
}

export interface Checkpoint {
  id: string;
  agentId: string;
  createdAt: number;
  /** The saved JSON object. */
  state: Record<string, unknown>;
  messageCount?: number;
}

export function toSlot(m: SlotMessage | undefined): Slot {
  if (!m) throw new Error('daemon response lacks its slot');
  return {
    id: m.recordId,
    slotName: m.slotName,
    slotValue: JSON.parse(m.slotValueJson || 'null') as unknown,
    scope: m.scope,
    projectId: m.projectId,
    locked: m.locked,
    status: m.status,
    authority: m.authority,
    evidenceRefs: [...m.evidenceRefs],
    verificationState: m.verificationState,
    confidence: m.confidence,
    visibility: m.visibility,
    createdAt: Number(m.createdAtMs),
    updatedAt: Number(m.updatedAtMs),
    version: m.version,
  };
}

export function toRecipe(m: RecipeMessage | undefined): Recipe {
  if (!m) throw new Error('daemon response lacks its recipe');
  const { $typeName: _t, savedAtMs, ...r } = m;
  return { ...r, savedAt: Number(savedAtMs) };
}

export function toHint(m: { label: string; kind: string; factId: string; relation: string; via: string }): KgHint {
  return { label: m.label, kind: m.kind === 'entity' ? 'entity' : 'fact', factId: m.factId, relation: m.relation, via: m.via };
}

export function toCheckpoint(m: CheckpointMessage): Checkpoint {
  return {
    id: m.id,
    agentId: m.agentId,
    createdAt: Number(m.createdAtMs),
    state: JSON.parse(m.stateJson || '{}') as Record<string, unknown>,
    ...(m.messageCount !== undefined ? { messageCount: m.messageCount } : {}),
  };
}

export function toTokenInfo(m: TokenInfoMessage): TokenInfo {
  const rights = (list: readonly string[]) => RIGHTS.filter((r) => list.includes(r));
  return { id: m.id, agents: [...m.agents], rights: rights(m.rights), shared: rights(m.sharedRights), label: m.label, createdAt: Number(m.createdAtMs), createdBy: m.createdBy, revokedAt: Number(m.revokedAtMs) };
}
