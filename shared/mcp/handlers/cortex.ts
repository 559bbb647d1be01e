// The CortexGraph tools — save_memory, search_memory, touch_memory, observe_memory_usage, gc —
// with its parameter names, defaults and payload keys, over the same backend as every other
// tool. Arguments are checked against the tool's own input schema (so what is served is what is
// enforced), and agent_id falls back to the server's default namespace.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { schemaArgs as parsed, type Args } from '../args.ts';
import type { McpBackend } from '../backend.ts';
import type { GcPayload, ObservePayload, SavePayload, ScoredSearchPayload, TouchPayload } from '../payloads.ts';
import { success } from '../result.ts';
import { clusterReportJson, consolidateJson, promoteJson, recallAdviceJson, saveAdviceJson, unifiedText } from '../../json/shapes.ts';
import type { HandlerContext } from './context.ts';

const round = (x: number, digits = 4): number => Math.round(x * 10 ** digits) / 10 ** digits;
const DAY_MS = 86_400_000;

/** Auto-enrichment: what the writer left out — entities, strength — from the message analysis. */
async function enriched(a: { content: string; entities?: string[]; strength?: number; enable_preprocessing: boolean }, backend: McpBackend) {
  if (!a.enable_preprocessing || (a.entities !== undefined && a.strength !== undefined)) return { entities: a.entities, strength: a.strength, applied: false };
  const advice = await backend.analyzeMessage(a.content);
  return { entities: a.entities ?? advice.suggestedEntities, strength: a.strength ?? advice.suggestedStrength, applied: true };
}

export async function saveMemory(args: Args, backend: McpBackend, ctx: HandlerContext): Promise<CallToolResult> {
  const a = parsed('save_memory', args);
  const agentId = a.agent_id ?? ctx.defaultAgentId;
  const { entities, strength, applied } = await enriched(a, backend);
  const written = await backend.add({
    agentId,
    text: a.content,
    ...(a.tags ? { tags: a.tags } : {}),
    ...(entities?.length ? { entities } : {}),
    ...(a.source !== undefined ? { source: a.source } : {}),
    ...(a.context !== undefined ? { context: a.context } : {}),
    ...(a.meta ? { meta: a.meta } : {}),
    ...(strength !== undefined ? { strength } : {}),
  });
  const message = written.duplicate ? `Memory already saved with ID: ${written.factId}` : `Memory saved with ID: ${written.factId}`;
  const payload: SavePayload = { success: true, memory_id: written.factId, message, has_embedding: written.hasEmbedding, enrichment_applied: applied, duplicate: written.duplicate, agent_id: agentId };
  return success(payload, JSON.stringify(payload, null, 2));
}

export async function searchMemory(args: Args, backend: McpBackend, ctx: HandlerContext): Promise<CallToolResult> {
  const a = parsed('search_memory', args);
  const agentId = a.agent_id ?? ctx.defaultAgentId;
  const found = await backend.searchScored({
    agentId,
    query: a.query ?? '',
    topK: a.top_k,
    ...(a.tags?.length ? { tags: a.tags } : {}),
    ...(a.window_days !== undefined ? { windowDays: a.window_days } : {}),
    ...(a.min_score !== undefined ? { minScore: a.min_score } : {}),
    useEmbeddings: a.use_embeddings,
  });
  const now = Date.now();
  // A query returns what it matched; recall's filler (recent facts that only complete top_k) is
  // what an empty query asks for.
  const results = found.filter((f) => f.matched || !a.query).map(({ fact, score, relevance }) => ({
    id: fact.id,
    content: fact.text,
    tags: fact.tags,
    score: round(score),
    similarity: null,
    use_count: fact.use_count,
    last_used: Math.floor(Date.parse(fact.last_used_at ?? fact.created_at) / 1000),
    age_days: round((now - Date.parse(fact.created_at)) / DAY_MS, 1),
    relevance,
  }));
  const payload: ScoredSearchPayload = { success: true, count: results.length, results, agent_id: agentId };
  return success(payload, JSON.stringify(payload, null, 2));
}

export async function touchMemory(args: Args, backend: McpBackend, ctx: HandlerContext): Promise<CallToolResult> {
  const a = parsed('touch_memory', args);
  const r = await backend.touch(a.agent_id ?? ctx.defaultAgentId, a.memory_id, a.boost_strength);
  const payload: TouchPayload = {
    success: true,
    memory_id: r.fact.id,
    old_score: round(r.oldScore),
    new_score: round(r.newScore),
    use_count: r.fact.use_count,
    strength: r.fact.strength,
    message: `Memory reinforced. Score: ${r.oldScore.toFixed(2)} -> ${r.newScore.toFixed(2)}`,
  };
  return success(payload, JSON.stringify(payload, null, 2));
}

export async function observeMemoryUsage(args: Args, backend: McpBackend, ctx: HandlerContext): Promise<CallToolResult> {
  const a = parsed('observe_memory_usage', args);
  const r = await backend.observeUsage(a.agent_id ?? ctx.defaultAgentId, a.memory_ids, a.context_tags);
  const payload: ObservePayload = r.reinforced
    ? {
        reinforced: true,
        count: r.count,
        cross_domain_count: r.crossDomainCount,
        results: r.results.map((o) => ({
          id: o.factId,
          status: o.status as 'reinforced' | 'not_found' | 'retired',
          cross_domain: o.crossDomain,
          new_use_count: o.useCount,
          new_review_count: o.reviewCount,
          strength: o.strength,
        })),
      }
    : { reinforced: false, reason: r.reason, count: 0 };
  return success(payload, JSON.stringify(payload, null, 2));
}

export async function gc(args: Args, backend: McpBackend, ctx: HandlerContext): Promise<CallToolResult> {
  const a = parsed('gc', args);
  const r = await backend.collectGarbage(a.agent_id ?? ctx.defaultAgentId, { dryRun: a.dry_run, archiveInstead: a.archive_instead, ...(a.limit !== undefined ? { limit: a.limit } : {}) });
  const payload: GcPayload = {
    success: true,
    dry_run: r.dryRun,
    removed_count: r.removedCount,
    archived_count: r.archivedCount,
    freed_score_sum: r.freedScoreSum,
    memory_ids: r.factIds,
    total_affected: r.totalAffected,
    message: r.message,
  };
  return success(payload, JSON.stringify(payload, null, 2));
}

export async function analyzeMessage(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const payload = saveAdviceJson(await backend.analyzeMessage(parsed('analyze_message', args).message));
  return success(payload, JSON.stringify(payload, null, 2));
}

export async function analyzeForRecall(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const payload = recallAdviceJson(await backend.analyzeForRecall(parsed('analyze_for_recall', args).message));
  return success(payload, JSON.stringify(payload, null, 2));
}

export async function promoteMemory(args: Args, backend: McpBackend, ctx: HandlerContext): Promise<CallToolResult> {
  const a = parsed('promote_memory', args);
  const r = await backend.promote(a.agent_id ?? ctx.defaultAgentId, { ...(a.memory_id ? { factId: a.memory_id } : {}), autoDetect: a.auto_detect, dryRun: a.dry_run, force: a.force, target: a.target });
  const payload = { success: true as const, ...promoteJson(r) };
  return success(payload, JSON.stringify(payload, null, 2));
}

export async function searchUnified(args: Args, backend: McpBackend, ctx: HandlerContext): Promise<CallToolResult> {
  const a = parsed('search_unified', args);
  const r = await backend.searchUnified(a.agent_id ?? ctx.defaultAgentId, a.query ?? '', {
    ...(a.tags?.length ? { tags: a.tags } : {}),
    limit: a.limit,
    stmWeight: a.stm_weight,
    ltmWeight: a.ltm_weight,
    ...(a.window_days !== undefined ? { windowDays: a.window_days } : {}),
    ...(a.min_score !== undefined ? { minScore: a.min_score } : {}),
  });
  const results = r.hits.map((h) => ({ source: h.source, content: h.content, title: h.title, score: round(h.score), ...(a.verbose ? { id: h.id, path: h.path } : {}) }));
  const payload = { success: true as const, count: r.hits.length, stm_count: r.stmCount, ltm_count: r.ltmCount, vault: r.vault, results };
  return success(payload, unifiedText(r, a.verbose));
}

export async function clusterMemories(args: Args, backend: McpBackend, ctx: HandlerContext): Promise<CallToolResult> {
  const a = parsed('cluster_memories', args);
  const r = await backend.cluster(a.agent_id ?? ctx.defaultAgentId, { threshold: a.threshold, maxClusterSize: a.max_cluster_size, findDuplicates: a.find_duplicates, duplicateThreshold: a.duplicate_threshold });
  const payload = { success: true as const, ...clusterReportJson(r) };
  return success(payload, JSON.stringify(payload, null, 2));
}

export async function consolidateMemories(args: Args, backend: McpBackend, ctx: HandlerContext): Promise<CallToolResult> {
  const a = parsed('consolidate_memories', args);
  const r = await backend.consolidate(a.agent_id ?? ctx.defaultAgentId, a.cluster_id, a.mode);
  const payload = { success: true as const, ...consolidateJson(r) };
  return success(payload, JSON.stringify(payload, null, 2));
}
