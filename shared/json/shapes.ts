// The stable snake_case JSON shapes every JSON front door prints: `engram ... --json`, REST
// responses and (where they overlap) the MCP payloads. Times are RFC 3339 (null when unset).
// The input types are structural views, so the client's Fact/Receipt/Stats and the daemon's
// records (after a field rename, see daemon/http/views.ts) both fit without either side
// importing the other.

import type { AppliedRecipe, ContextAssembly, Evidence, CompactReport, Fact, GcResult, ObserveUsageResult, PromoteResult, Receipt, RecallAdvice, RetrievalMetadata, SaveAdvice, Stats, StorageReport, UnifiedResult, ExtractResult, ClusterReport, ConsolidateResult, ConsolidationCounters, ConsolidationRun, GraphView, KgHint, Recipe, Slot, SlotChange, TokenInfo, WriteStatus } from '../model.ts';
import type { AppliedRecipeJson, ContextJson, EvidenceJson, MatchJson, CompactReportJson, FactJson, GcJson, ObserveJson, PromoteJson, ReceiptJson, RecallAdviceJson, RetrievalJson, SaveAdviceJson, StorageReportJson, TouchJson, UnifiedJson, ExtractJson, ClusterReportJson, ConsolidateJson, ConsolidationCountersJson, ConsolidationRunJson, GraphJson, KgHintJson, RecipeJson, RelatedJson, SlotChangeJson, SlotJson, TokenJson, WriteStatusJson } from '../schemas/json-shapes.ts';
import type { ConfidenceLabel } from '../validate.ts';
import { counted } from '../counted.ts';

export type FactView = Fact;

export type RetrievalView = RetrievalMetadata;

/** A receipt, whatever fact type it carries (the JSON shape prints no fact). */
export type ReceiptView = Omit<Receipt<unknown>, 'fact'>;

export type StatsView = Stats;

export interface FeedbackView {
  queryTerms: number;
  knownTerms: number;
  unknownTerms: string[];
  nearbyTerms: string[];
  advice: string;
}

const rfc3339 = (ms: number): string => new Date(ms).toISOString();

/** Milliseconds → RFC 3339; absent (or 0: "never") prints as null. */
export const iso = (ms: number | undefined): string | null => (ms ? new Date(ms).toISOString() : null);

/** A fact: every key always present, null where the fact has no value. */
export function factJson(f: FactView): FactJson {
  return {
    id: f.id,
    agent_id: f.agentId,
    text: f.text,
    kind: f.kind,
    created_at: rfc3339(f.createdAt),
    occurred_at: f.occurredAt === undefined ? null : rfc3339(f.occurredAt),
    updated_at: rfc3339(f.updatedAt),
    access_count: f.accessCount,
    last_accessed_at: iso(f.lastAccessedAt),
    confidence: f.confidence ?? null,
    pinned: f.pinned,
    pinned_at: iso(f.pinnedAt),
    superseded_by: f.supersededBy ?? null,
    tags: f.tags,
    entities: f.entities,
    source: f.source ?? null,
    context: f.context ?? null,
    meta: f.meta,
    strength: f.strength,
    use_count: f.useCount,
    last_used_at: iso(f.lastUsedAt),
    review_count: f.reviewCount,
    cross_domain_count: f.crossDomainCount,
    retired_reason: f.retiredReason ?? null,
    promoted_at: iso(f.promotedAt),
    relations: f.relations.map((r) => ({ type: r.type, target_id: r.targetId, created_at: rfc3339(r.createdAt) })),
    replaces: f.replaces,
    entity_types: f.entityTypes,
  };
}

export function retrievalJson(r: RetrievalView): RetrievalJson {
  return {
    weights: r.weights,
    signals: r.signals,
    eligible_count: r.eligibleCount,
    keyword_candidates: r.keywordCandidates,
    vector_candidates: r.vectorCandidates,
    embedder: r.embedder,
    rrf_k: r.rrfK,
    notes: r.notes,
    min_relevance: r.minRelevance,
    filtered: r.filtered,
    expanded_terms: r.expandedTerms,
    vector_searched: r.vectorSearched,
    // Legacy calls (no policy) omit the confidence metadata: clients written before it see the shape they know.
    ...(r.policy ? { min_confidence: (r.minConfidence || null) as ConfidenceLabel | null, confidence_weight: r.confidenceWeight ?? 0, policy: r.policy, kg: r.kg } : {}),
    ...(r.recipe ? { recipe: appliedRecipeJson(r.recipe) } : {}),
  };
}

export const appliedRecipeJson = (r: AppliedRecipe): AppliedRecipeJson => ({
  id: r.id,
  name: r.name,
  version: r.version,
  reranker: r.rerankerStage,
  graph_depth: r.graphDepth,
  lexical_top_k: r.lexicalTopK,
  vector_top_k: r.vectorTopK,
  prefer_verified: r.preferVerified,
  verified_only: r.verifiedOnly,
  include_evidence: r.includeEvidence,
  token_budget: r.tokenBudget,
});

export const evidenceJson = (e: Evidence): EvidenceJson => ({ kind: e.kind, ref: e.ref, text: e.text, retired: e.retired });

/** One recalled fact's match as REST and the CLI's --json give it. */
export const matchJson = (m: { matched: boolean; score: number; signals: string[]; decayScore?: number; evidence?: Evidence[] }): MatchJson => ({
  matched: m.matched,
  score: m.score,
  signals: m.signals,
  decay_score: m.decayScore ?? 0,
  ...(m.evidence?.length ? { evidence: m.evidence.map(evidenceJson) } : {}),
});

/** The RecallReceipt wire shape shared with the MCP `explained` payload. */
export function receiptJson(r: ReceiptView): ReceiptJson {
  return {
    text: r.text,
    weight: r.weight,
    age_days: r.ageDays,
    ranks: {
      vector_rank: r.ranks.vectorRank,
      keyword_rank: r.ranks.keywordRank,
      recency_rank: r.ranks.recencyRank,
      decay_rank: r.ranks.decayRank,
      graph_rank: r.ranks.graphRank,
      fused_score: r.ranks.fusedScore,
      k: r.ranks.k,
      weights: r.ranks.weights,
    },
    provenance: {
      fact_id: r.provenance.factId,
      written_at: iso(r.provenance.writtenAt),
      superseded_by: r.provenance.supersededBy,
      confidence: r.provenance.confidence,
      pinned: r.provenance.pinned,
      agent_id: r.provenance.agentId,
    },
    kg_links: r.kgLinks,
    ...(r.matched !== undefined ? { matched: r.matched } : {}),
    ...(r.recipe ? { recipe: r.recipe } : {}),
    ...(r.evidence?.length ? { evidence: r.evidence.map(evidenceJson) } : {}),
    ...(r.rerank
      ? { rerank: { stage: r.rerank.stage, score_before: r.rerank.scoreBefore, coverage: r.rerank.coverage, factor: r.rerank.factor, rank_before: r.rerank.rankBefore, rank_after: r.rerank.rankAfter } }
      : {}),
    ...(r.ranking
      ? {
          ranking: {
            base_score: r.ranking.baseScore,
            final_score: r.ranking.finalScore,
            factor: r.ranking.factor,
            effective_confidence: r.ranking.effectiveConfidence,
            confidence_weight: r.ranking.confidenceWeight,
            policy: r.ranking.policy,
          },
        }
      : {}),
  };
}

export function statsJson(s: StatsView) {
  return {
    fact_count: s.factCount,
    live_count: s.liveCount,
    retired_count: s.retiredCount,
    pinned_count: s.pinnedCount,
    text_bytes: s.textBytes,
    oldest_created_at: iso(s.oldestCreatedAt),
    newest_created_at: iso(s.newestCreatedAt),
    agent_count: s.agentCount,
    vector_count: s.vectorCount,
    pending_embeddings: s.pendingEmbeddings,
    store_bytes: s.storeBytes,
    embedder: s.embedder,
    live_by_confidence: { ...s.liveByConfidence },
  };
}

/** `{feedback: {...}}` when the query matched weakly, else nothing (the key is omitted). */
export function feedbackJson(f: FeedbackView | undefined) {
  if (!f) return {};
  return {
    feedback: {
      query_terms: f.queryTerms,
      known_terms: f.knownTerms,
      unknown_terms: f.unknownTerms,
      nearby_terms: f.nearbyTerms,
      advice: f.advice,
    },
  };
}

export interface CheckpointView {
  id: string;
  agentId: string;
  createdAt: number;
  /** The saved JSON object. */
  state: Record<string, unknown>;
  messageCount?: number;
}

/** A saved checkpoint: MCP checkpoint_save's payload. */
export function checkpointSavedJson(c: CheckpointView) {
  return { agent_id: c.agentId, checkpoint_id: c.id, created_at: iso(c.createdAt) };
}

/** A resumed checkpoint: MCP checkpoint_resume's payload (message_count only when the state has
 *  a `messages` list). */
export function checkpointJson(c: CheckpointView) {
  return {
    id: c.id,
    created_at: iso(c.createdAt),
    state: c.state,
    ...(c.messageCount !== undefined ? { message_count: c.messageCount } : {}),
  };
}

export function touchJson(r: { fact: FactView; oldScore: number; newScore: number; replayed: boolean }): TouchJson {
  return { fact: factJson(r.fact), old_score: r.oldScore, new_score: r.newScore, replayed: r.replayed };
}

export function observeJson(r: ObserveUsageResult): ObserveJson {
  return {
    reinforced: r.reinforced,
    reason: r.reason,
    count: r.count,
    cross_domain_count: r.crossDomainCount,
    results: r.results.map((o) => ({ fact_id: o.factId, status: o.status, cross_domain: o.crossDomain, use_count: o.useCount, review_count: o.reviewCount, strength: o.strength })),
    replayed: r.replayed,
  };
}

export function gcJson(r: GcResult): GcJson {
  return {
    dry_run: r.dryRun,
    removed_count: r.removedCount,
    archived_count: r.archivedCount,
    freed_score_sum: r.freedScoreSum,
    fact_ids: r.factIds,
    scores: r.scores,
    total_affected: r.totalAffected,
    threshold: r.threshold,
    message: r.message,
    replayed: r.replayed,
  };
}

export function saveAdviceJson(a: SaveAdvice): SaveAdviceJson {
  return { should_save: a.shouldSave, confidence: a.confidence, suggested_entities: a.suggestedEntities, suggested_tags: a.suggestedTags, suggested_strength: a.suggestedStrength, reasoning: a.reasoning };
}

export function recallAdviceJson(a: RecallAdvice): RecallAdviceJson {
  return { should_search: a.shouldSearch, confidence: a.confidence, suggested_query: a.suggestedQuery, suggested_tags: a.suggestedTags, suggested_entities: a.suggestedEntities, reasoning: a.reasoning };
}

export function storageReportJson(r: StorageReport): StorageReportJson {
  return { store_bytes: r.storeBytes, tables: r.tables.map((t) => ({ ...t })), fact_count: r.factCount, retired_count: r.retiredCount, hints: r.hints };
}

export function compactReportJson(r: CompactReport): CompactReportJson {
  return { bytes_before: r.bytesBefore, bytes_after: r.bytesAfter, seconds: r.seconds };
}

export function promoteJson(r: PromoteResult): PromoteJson {
  return {
    dry_run: r.dryRun,
    candidates_found: r.candidatesFound,
    promoted_count: r.promotedCount,
    promoted_ids: r.promotedIds,
    candidates: r.candidates.map((c) => ({ id: c.id, content_preview: c.contentPreview, reason: c.reason, score: c.score, use_count: c.useCount, age_days: c.ageDays })),
    message: r.message,
  };
}

export function unifiedJson(r: UnifiedResult): UnifiedJson {
  return { count: r.hits.length, stm_count: r.stmCount, ltm_count: r.ltmCount, vault: r.vault, results: r.hits.map((h) => ({ ...h, score: Math.round(h.score * 1e4) / 1e4 })) };
}

/** The seed's text block: one line per result, best first, [STM] or [LTM]; verbose adds ids and paths. */
export function unifiedText(r: UnifiedResult, verbose: boolean): string {
  if (r.hits.length === 0) return r.vault ? 'No results in short- or long-term memory.' : 'No results (short-term memory only: no vault is configured).';
  const lines = [`Found ${counted(r.hits.length, 'result')} (STM: ${r.stmCount}, LTM: ${r.ltmCount})${r.vault ? '' : ' — no vault is configured'}`, ''];
  r.hits.forEach((h, i) => {
    const text = h.source === 'ltm' ? `${h.title}: ${h.content.replace(/\s+/g, ' ').slice(0, 200)}` : h.content;
    lines.push(`${i + 1}. [${h.source.toUpperCase()}] ${text} (score ${h.score.toFixed(2)})`);
    if (verbose) lines.push(`   ${h.source === 'ltm' ? `path: ${h.path}${h.id !== h.path ? `, id: ${h.id}` : ''}` : `id: ${h.id}`}`);
  });
  return lines.join('\n');
}

export function extractJson(r: ExtractResult): ExtractJson {
  return {
    extractor: r.extractor,
    count: r.facts.length,
    stored: r.stored,
    facts: r.facts.map((f) => ({ text: f.text, kind: f.kind, entities: f.entities, ...(f.factId ? { fact_id: f.factId, duplicate: f.duplicate ?? false } : {}), ...(f.error ? { error: f.error } : {}) })),
    ...(r.rejected ? { rejected: r.rejected } : {}),
  };
}

export function clusterReportJson(r: ClusterReport): ClusterReportJson {
  const base = { mode: r.mode, similarity: r.similarity, threshold: r.threshold, message: r.message };
  if (r.mode === 'duplicate_detection') {
    return { ...base, duplicates_found: r.duplicates.length, duplicates: r.duplicates.map((d) => ({ id1: d.id1, id2: d.id2, content1_preview: d.content1Preview, content2_preview: d.content2Preview, similarity: d.similarity })) };
  }
  return {
    ...base,
    strategy: 'similarity',
    clusters_found: r.clusters.length,
    clusters: r.clusters.map((c) => ({ id: c.id, size: c.size, cohesion: c.cohesion, suggested_action: c.suggestedAction, memory_ids: c.memoryIds, content_previews: c.contentPreviews })),
  };
}

export function consolidateJson(r: ConsolidateResult): ConsolidateJson {
  const m = r.merged;
  return { mode: r.mode, cluster_id: r.clusterId, merged: { text: m.text, tags: m.tags, entities: m.entities, use_count: m.useCount, strength: m.strength, confidence: m.confidence }, retired_ids: r.retiredIds, fact_id: r.factId, message: r.message };
}

export const kgHintJson = (h: KgHint): KgHintJson => ({ label: h.label, kind: h.kind, fact_id: h.factId, relation: h.relation, via: h.via });

export const graphJson = (g: GraphView): GraphJson => ({ nodes: g.nodes.map((n) => ({ ...n })), edges: g.edges.map((e) => ({ ...e })) });

export const relatedJson = (r: { fact: FactView; changed: boolean; replayed: boolean }): RelatedJson => ({ fact: factJson(r.fact), changed: r.changed, replayed: r.replayed });

export function consolidationRunJson(r: ConsolidationRun<FactView>): ConsolidationRunJson {
  return {
    dry_run: r.dryRun,
    faded_count: r.fadedCount,
    summary: r.summary ? factJson(r.summary) : null,
    source_ids: r.sourceIds,
    retired_ids: r.retiredIds,
    failures: r.failures.map((f) => ({ fact_id: f.factId, error: f.error })),
    summarizer: r.summarizer,
    rejected: r.rejected,
    text: r.text,
    message: r.message,
    replayed: r.replayed,
  };
}

export const consolidationCountersJson = (c: ConsolidationCounters): ConsolidationCountersJson => ({
  runs: c.runs,
  summaries_written: c.summariesWritten,
  facts_retired: c.factsRetired,
  failures: c.failures,
  rejected_proposals: c.rejectedProposals,
  last_run_at: iso(c.lastRunAt),
  queued: c.queued,
});

export const slotJson = (s: Slot): SlotJson => ({
  record_id: s.id,
  slot_name: s.slotName,
  slot_value: s.slotValue,
  scope: s.scope,
  project_id: s.projectId || null,
  locked: s.locked,
  status: s.status,
  authority: s.authority === 'human_reviewed' ? 'human_reviewed' : 'generated',
  evidence_refs: s.evidenceRefs,
  verification_state: s.verificationState === 'supported' ? 'supported' : 'unverified',
  confidence: s.confidence,
  visibility: s.visibility,
  created_at: rfc3339(s.createdAt),
  updated_at: rfc3339(s.updatedAt),
  version: s.version,
});

export const slotChangeJson = (c: SlotChange): SlotChangeJson => ({ version: c.version, at: rfc3339(c.at), by: c.by, op: c.op, before: c.before ? slotJson(c.before) : null, after: slotJson(c.after) });

export const recipeJson = (r: Recipe): RecipeJson => ({
  id: r.id,
  name: r.name,
  version: r.version,
  builtin: r.builtin,
  saved_at: iso(r.savedAt),
  vector_top_k: r.vectorTopK,
  lexical_top_k: r.lexicalTopK,
  graph_depth: r.graphDepth,
  reranker: r.reranker,
  token_budget: r.tokenBudget,
  prefer_verified: r.preferVerified,
  verified_only: r.verifiedOnly,
  include_evidence: r.includeEvidence,
});

/** An assembled context as every door gives it (the receipts print no fact, the items do). */
export const contextJson = (agentId: string, query: string, c: ContextAssembly<Fact>): ContextJson => ({
  agent_id: agentId,
  query,
  block: c.block,
  tokens: c.tokens,
  token_budget: c.tokenBudget,
  tokenizer: c.tokenizer,
  mode: c.mode,
  recipe: appliedRecipeJson(c.recipe),
  count: c.items.length,
  items: c.items.map((i) => ({
    kind: i.kind,
    id: i.id,
    text: i.text,
    tokens: i.tokens,
    ...(i.confidence !== undefined ? { confidence: i.confidence } : {}),
    ...(i.slot ? { slot: slotJson(i.slot) } : {}),
    ...(i.fact ? { fact: factJson(i.fact) } : {}),
    ...(i.receipt ? { receipt: receiptJson(i.receipt) } : {}),
    ...(i.evidence?.length ? { evidence: i.evidence.map(evidenceJson) } : {}),
  })),
  cut: c.cut,
  retrieval: retrievalJson(c.retrieval),
});

export const tokenJson = (t: TokenInfo): TokenJson => ({
  id: t.id,
  agents: [...t.agents],
  rights: [...t.rights],
  shared: [...t.shared],
  label: t.label,
  created_at: rfc3339(t.createdAt),
  created_by: t.createdBy,
  revoked_at: iso(t.revokedAt),
});

export const writeStatusJson = (s: WriteStatus<FactView>): WriteStatusJson => ({
  committed: s.committed,
  agent_id: s.agentId || null,
  op: s.op || null,
  fact: s.fact ? factJson(s.fact) : null,
  result: s.result,
});
