// Records and results ↔ protocol messages. Pure mapping, no behaviour.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { FactSchema, Fact } from '../../shared/gen/engram/v1/fact_pb.ts';
import { factToMessage } from '../../shared/fact-message.ts';
import { invalidArgument } from '../../shared/errors.ts';
import { RecallScope, type RecallOptions, type RecallReceiptSchema, type RetrievalMetadataSchema, type WeakMatchFeedbackSchema } from '../../shared/gen/engram/v1/recall_pb.ts';
import type { RecallOptionsInput, Scope } from '../core/engram.ts';
import type { FactFields, FactRestore as FactRestoreMessage, WriteOptions } from '../../shared/gen/engram/v1/memory_pb.ts';
import { FactKind } from '../../shared/gen/engram/v1/fact_pb.ts';
import type { FactRestore } from '../../shared/restore.ts';
import type { FactPatch } from '../core/engram.ts';
import type { Receipt, RetrievalMetadata, WeakMatchFeedback } from '../../shared/model.ts';
import type { FactRecord } from '../core/engram.ts';
import type { WriteInput } from '../core/engram.ts';

export function factMessage(fact: FactRecord): MessageInitShape<typeof FactSchema> {
  return factToMessage(fact, fact.meta);
}

/** Optional write fields: absent message = all defaults. */
export function writeFields(fields: FactFields | undefined): Omit<WriteInput, 'agentId' | 'text' | 'requestId'> {
  if (!fields) return {};
  return {
    occurredAt: optionalNumber(fields.occurredAtMs),
    tags: fields.tags,
    entities: fields.entities,
    source: fields.source,
    context: fields.context,
    meta: fields.metaJson,
  };
}

/** What of a restore the profile takes: restore-write-v1's fields, restore-promotion-v1's. */
export interface RestoreServed {
  restore: boolean;
  promotion: boolean;
}

/** The options of a write: absent fields stay undefined (the core's defaults). A profile from
 *  before restore-write-v1 ignores a restore, and one from before restore-promotion-v1 its
 *  promoted_at, as their releases (which knew no such field) did. */
export function writeOptions(options: WriteOptions | undefined, served: RestoreServed): Pick<WriteInput, 'confidence' | 'allowDuplicate' | 'strength' | 'restore'> {
  const restore = served.restore && options?.restore ? restoreInput(options.restore, served.promotion) : undefined;
  return { confidence: options?.confidence, allowDuplicate: options?.allowDuplicate, strength: options?.strength, ...(restore ? { restore } : {}) };
}

/** Every kind by name, alias included: the core refuses it in its words, not as unknown. */
const RESTORED_KINDS: Partial<Record<FactKind, string>> = { [FactKind.FACT]: 'fact', [FactKind.SUMMARY]: 'summary', [FactKind.ALIAS]: 'alias' };

/** A FactRestore in the core's terms, unchecked (absent fields stay undefined; the core checks them all). */
function restoreInput(r: FactRestoreMessage, promotionServed: boolean): Record<keyof FactRestore, unknown> {
  return {
    useCount: r.useCount,
    lastUsedAt: optionalNumber(r.lastUsedAtMs),
    reviewCount: r.reviewCount,
    crossDomainCount: r.crossDomainCount,
    kind: RESTORED_KINDS[r.kind],
    replaces: r.replaces,
    promotedAt: promotionServed ? optionalNumber(r.promotedAtMs) : undefined,
  };
}

export function factPatch(fact: Fact): FactPatch {
  return {
    id: fact.id,
    text: fact.text,
    occurredAt: optionalNumber(fact.occurredAtMs),
    confidence: fact.confidence,
    pinned: fact.pinned,
    supersededBy: fact.supersededBy,
    tags: fact.tags,
    entities: fact.entities,
    source: fact.source,
    context: fact.context,
    meta: fact.metaJson,
    strength: fact.strength === 0 ? undefined : fact.strength,
  };
}

export function retrievalMessage(meta: RetrievalMetadata): MessageInitShape<typeof RetrievalMetadataSchema> {
  return {
    weights: meta.weights,
    signals: meta.signals,
    eligibleCount: meta.eligibleCount,
    keywordCandidates: meta.keywordCandidates,
    vectorCandidates: meta.vectorCandidates,
    embedder: meta.embedder,
    rrfK: meta.rrfK,
    notes: meta.notes,
    minRelevance: meta.minRelevance,
    filtered: meta.filtered,
    expandedTerms: meta.expandedTerms,
    vectorSearched: meta.vectorSearched,
    minConfidence: meta.minConfidence,
    confidenceWeight: meta.confidenceWeight,
    policy: meta.policy,
    kg: meta.kg,
    recipe: meta.recipe && { ...meta.recipe, reranker: meta.recipe.rerankerStage },
  };
}

export function receiptMessage(receipt: Receipt<FactRecord>): MessageInitShape<typeof RecallReceiptSchema> {
  return {
    text: receipt.text,
    weight: receipt.weight,
    ageDays: receipt.ageDays,
    ranks: receipt.ranks,
    provenance: { ...receipt.provenance, writtenAtMs: BigInt(receipt.provenance.writtenAt) },
    kgLinks: receipt.kgLinks,
    fact: factMessage(receipt.fact),
    ranking: receipt.ranking,
    matched: receipt.matched ?? false,
    recipe: receipt.recipe ?? '',
    rerank: receipt.rerank,
    evidence: receipt.evidence ?? [],
  };
}

/** int64 on the wire, number in the core: times in ms stay far inside the safe-integer range. */
function optionalNumber(value: bigint | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

const SCOPES: Record<number, Scope> = { [RecallScope.SHARED]: 'shared', [RecallScope.ALL]: 'all' };

/** An enum value this protocol does not define is the caller's mistake, not the default scope. */
export function scopeOf(scope: RecallScope): Scope {
  if (!(scope in RecallScope) || typeof RecallScope[scope] !== 'string') throw invalidArgument('scope', `unknown RecallScope value ${scope}; use RECALL_SCOPE_AGENT, RECALL_SCOPE_SHARED or RECALL_SCOPE_ALL`);
  return SCOPES[scope] ?? 'agent';
}

/** Wire options → core input; absent optional fields stay undefined (= the configured default). */
export function recallOptionsInput(o: RecallOptions | undefined, served: { confidence: boolean; decay: boolean; kg: boolean; recipe: boolean }): RecallOptionsInput | undefined {
  if (!o) return undefined;
  const f = o.filters;
  return {
    topK: o.topK,
    weights: o.signalWeights
      ? { vector: o.signalWeights.vector, keyword: o.signalWeights.keyword, recency: o.signalWeights.recency, ...(served.decay ? { decay: o.signalWeights.decay } : {}), ...(served.kg ? { graph: o.signalWeights.graph } : {}) }
      : undefined,
    minRelevance: o.minRelevance,
    filters: f && {
      windowDays: f.windowDays,
      tagsAny: f.tagsAny,
      tagsAll: f.tagsAll,
      createdAfter: optionalNumber(f.createdAfterMs),
      createdBefore: optionalNumber(f.createdBeforeMs),
      occurredAfter: optionalNumber(f.occurredAfterMs),
      occurredBefore: optionalNumber(f.occurredBeforeMs),
      ...(served.decay ? { minDecayScore: f.minDecayScore } : {}),
    },
    // A profile without confidence-recall-v1 is an older daemon: it never knew these fields.
    ...(served.confidence ? { minConfidence: o.minConfidence, confidenceWeight: o.confidenceWeight } : {}),
    ...(served.kg && o.kg !== undefined ? { kg: o.kg } : {}),
    ...(served.recipe && o.recipe !== undefined ? { recipe: o.recipe } : {}),
  };
}

export function feedbackMessage(f: WeakMatchFeedback): MessageInitShape<typeof WeakMatchFeedbackSchema> {
  return { queryTerms: f.queryTerms, knownTerms: f.knownTerms, unknownTerms: f.unknownTerms, nearbyTerms: f.nearbyTerms, advice: f.advice };
}
