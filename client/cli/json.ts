// The stable JSON shapes of `engram ... --json` (documented in README.md, "JSON output").
// snake_case keys and RFC 3339 times, matching the MCP payloads.
import type { DaemonInfo } from '../connection.ts';
import type { Checkpoint, Fact, Receipt, RetrievalMetadata, Stats, WeakMatchFeedback } from '../types.ts';

const iso = (ms: number): string | null => (ms ? new Date(ms).toISOString() : null);

function metaObject(metaJson: string): Record<string, unknown> {
  return metaJson ? (JSON.parse(metaJson) as Record<string, unknown>) : {};
}

export function factJson(f: Fact) {
  return {
    id: f.id,
    agent_id: f.agentId,
    text: f.text,
    kind: f.kind,
    created_at: iso(f.createdAt),
    occurred_at: f.occurredAt === undefined ? null : iso(f.occurredAt),
    updated_at: iso(f.updatedAt),
    access_count: f.accessCount,
    last_accessed_at: iso(f.lastAccessedAt),
    confidence: f.confidence,
    pinned: f.pinned,
    pinned_at: iso(f.pinnedAt),
    superseded_by: f.supersededBy,
    tags: f.tags,
    entities: f.entities,
    source: f.source,
    context: f.context,
    meta: metaObject(f.metaJson),
    strength: f.strength,
  };
}

export function retrievalJson(r: RetrievalMetadata) {
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
    ...(r.policy ? { min_confidence: r.minConfidence ?? null, confidence_weight: r.confidenceWeight ?? 0, policy: r.policy, kg: r.kg } : {}),
  };
}

/** The RecallReceipt wire shape shared with the MCP `explained` payload. */
export function receiptJson(r: Receipt) {
  return {
    text: r.text,
    weight: r.weight,
    age_days: r.ageDays,
    ranks: {
      vector_rank: r.ranks.vectorRank,
      keyword_rank: r.ranks.keywordRank,
      recency_rank: r.ranks.recencyRank,
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

export function statsJson(s: Stats) {
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
  };
}

export function daemonJson(d: DaemonInfo) {
  return {
    protocol: d.protocol,
    version: d.daemonVersion,
    instance_id: d.instanceId,
    profile: d.profile,
    capabilities: d.capabilities,
    default_confidence_weight: d.defaultConfidenceWeight ?? null,
    limits: { max_text_bytes: d.limits.maxTextBytes, max_top_k: d.limits.maxTopK, max_batch: d.limits.maxBatch },
    embedder: d.embedder,
  };
}

/** `{feedback: {...}}` when the query matched weakly, else nothing (the key is omitted). */
export function feedbackJson(f: WeakMatchFeedback | undefined) {
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

/** `checkpoint save --json`: MCP checkpoint_save's payload. */
export function checkpointSavedJson(c: Checkpoint) {
  return { agent_id: c.agentId, checkpoint_id: c.id, created_at: iso(c.createdAt) };
}

/** `checkpoint resume --json` and each entry of `checkpoint list --json`: MCP checkpoint_resume's
 *  payload (message_count only when the state has a `messages` list). */
export function checkpointJson(c: Checkpoint) {
  return {
    id: c.id,
    created_at: iso(c.createdAt),
    state: c.state,
    ...(c.messageCount !== undefined ? { message_count: c.messageCount } : {}),
  };
}
