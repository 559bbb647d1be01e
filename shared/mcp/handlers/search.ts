// memory_search and memory_search_batch: validate → backend recall → payload + text.
import { CONFIDENCE_POLICY, type ConfidenceLabel } from '../../validate.ts';
import * as arg from '../args.ts';
import type { McpBackend, RecallPolicy } from '../backend.ts';
import type { BatchPayload, ReceiptJson, SearchRetrieval, SearchPayload } from '../payloads.ts';
import { success } from '../result.ts';
import { appliedRecipeJson, evidenceJson, kgHintJson } from '../../json/shapes.ts';
import { batchText, feedbackText, searchText } from '../text.ts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export async function memorySearch(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const query = arg.nonEmpty(arg.requiredString(args, 'query'), 'query');
  const topK = arg.topK(args);
  const explain = arg.booleanArg(args, 'explain', false);
  const { requested, ...confidence } = arg.recallConfidence(args);
  const kg = arg.supplied(args, 'kg') ? arg.booleanArg(args, 'kg', false) : undefined;
  const recipe = arg.optionalString(args, 'recipe');

  const result = await backend.search({ agentId, query, topK, explain, ...confidence, ...(kg !== undefined ? { kg } : {}), ...(recipe !== undefined ? { recipe } : {}) });
  const retrieval = retrievalOf(requested || recipe !== undefined, result.policy);
  const payload: SearchPayload = explain
    ? { agent_id: agentId, query, count: result.receipts?.length ?? 0, facts: [], explained: (result.receipts ?? []).map((r) => legacyReceipt(r, retrieval)) }
    : { agent_id: agentId, query, count: result.facts.length, facts: result.facts };
  if (result.matched && result.facts.length) payload.matched = result.matched.filter(Boolean).length;
  if (result.feedback) payload.feedback = feedbackText(result.feedback, agentId);
  if (retrieval) payload.retrieval = retrieval;
  if (result.hints?.length) payload.kg_hints = result.hints.map(kgHintJson);
  if (result.policy.recipe) payload.recipe = appliedRecipeJson(result.policy.recipe);
  if (result.evidence) payload.evidence = result.evidence.map((list) => list.map(evidenceJson));
  return success(payload, searchText(payload, result.matched));
}

export async function memorySearchBatch(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const queries = arg.stringList(args, 'queries');
  const topK = arg.topK(args);
  const { requested, ...confidence } = arg.recallConfidence(args);
  const recipe = arg.optionalString(args, 'recipe');

  const result = await backend.searchBatch({ agentId, queries, topK, ...confidence, ...(recipe !== undefined ? { recipe } : {}) });
  // Two facts may share a text; the wire shows texts, so the merged view shows each once.
  const merged = [...new Set(result.merged)];
  const payload: BatchPayload = {
    agent_id: agentId,
    count: merged.length,
    merged,
    per_query: result.perQuery.map((r) => ({ query: r.query, facts: r.facts, ...(r.error ? { error: r.error } : {}) })),
  };
  const retrieval = retrievalOf(requested || recipe !== undefined, result.policy);
  if (retrieval) payload.retrieval = retrieval;
  if (result.policy.recipe) payload.recipe = appliedRecipeJson(result.policy.recipe);
  return success(payload, batchText(payload));
}

/** The `retrieval` block: present when the caller gave a confidence option or the daemon applied
 *  a positive default weight; a legacy call omits it, so a client written before confidence
 *  options sees the payload it knows. */
function retrievalOf(requested: boolean, policy: RecallPolicy): SearchRetrieval | undefined {
  const weight = policy.confidenceWeight ?? 0;
  if (!requested && weight === 0) return undefined;
  return {
    min_confidence: (policy.minConfidence || null) as ConfidenceLabel | null,
    confidence_weight: weight,
    // An explicit weight 0 with no filter is legacy ranking; a daemon may route it down the
    // historical RPC, which reports no policy name — the arithmetic is confidence-v1 at w = 0.
    policy: policy.policy || CONFIDENCE_POLICY,
    kg: policy.kg,
  };
}

/** On a legacy call the receipts drop the confidence `ranking` too. */
function legacyReceipt(r: ReceiptJson, retrieval: SearchRetrieval | undefined): ReceiptJson {
  if (retrieval || !r.ranking) return r;
  const { ranking: _ranking, ...rest } = r;
  return rest;
}
