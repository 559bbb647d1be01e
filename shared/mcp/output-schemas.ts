// Output schemas: authoritative declarations of each tool's structuredContent (payloads.ts has the
// same shapes as types), in zod, served as JSON Schema. Every result shape is closed, nested
// objects included, so a new key can only arrive through a schema revision. checkpoint_resume has
// two successful shapes under oneOf; each branch closes itself, since a root-level
// additionalProperties would apply to (and reject) both.
import { z } from 'zod';
import { dateTime } from '../schemas/json-schema.ts';
import { AppliedRecipeJson, ContextJson, EvidenceJson, ClusterReportJson, ConsolidateJson, ConsolidationCountersJson, ConsolidationRunJson, ExtractJson, FactJson, GraphJson, KgHintJson, RecipeJson, SlotJson, PromoteJson, ReceiptJson, RecallAdviceJson, SaveAdviceJson } from '../schemas/json-shapes.ts';
import { CONFIDENCE_LABELS, MAX_CONFIDENCE_WEIGHT } from '../validate.ts';
import { REFLECT_ACTIONS, type ToolName } from './input-schemas.ts';

const count = z.int().min(0);
const strings = z.array(z.string());
const label = z.enum(CONFIDENCE_LABELS);
const stored = z.literal(true);

/** Fact texts; nullable in the schema so clients of the GrayMatter contract validate, though Engram always sends an array. */
const facts = strings.nullable();

const retrieval = z
  .object({
    min_confidence: label.nullable(),
    confidence_weight: z.number().min(0).max(MAX_CONFIDENCE_WEIGHT),
    policy: z.string(),
    kg: z.string(),
  })
  .strict();

export const OUTPUT_TYPES = {
  memory_search: z
    .object({
      agent_id: z.string(),
      query: z.string(),
      count,
      facts,
      feedback: z.string().optional(),
      explained: z.array(ReceiptJson).optional(),
      retrieval: retrieval.optional(),
      matched: count.describe('How many of the facts a query signal matched; the rest only fill top_k.').optional(),
      kg_hints: z.array(KgHintJson).describe('With the knowledge graph on: up to three neighbours of the facts, after them (no confidence receipts).').optional(),
      recipe: AppliedRecipeJson.describe('The recipe the call named, as resolved.').optional(),
      evidence: z.array(z.array(EvidenceJson)).describe('Per fact, same order, when the recipe includes evidence: the records supporting it.').optional(),
    })
    .strict(),
  memory_search_batch: z
    .object({
      agent_id: z.string(),
      count,
      merged: strings,
      per_query: z.array(z.object({ query: z.string(), facts, error: z.string().optional() }).strict()),
      retrieval: retrieval.optional(),
      recipe: AppliedRecipeJson.describe('The recipe the call named, as resolved.').optional(),
    })
    .strict(),
  memory_add: z
    .object({
      agent_id: z.string(),
      stored,
      fact_id: z.string().optional(),
      confidence: label.optional(),
      duplicate: z.boolean().describe('true: an identical fact was already remembered; fact_id is that fact and nothing new was stored.').optional(),
    })
    .strict(),
  memory_add_batch: z
    .object({
      agent_id: z.string(),
      stored: count.describe('New facts stored.'),
      duplicates: count.describe('Facts already remembered word for word (nothing new stored for them).'),
      failed: count.describe('Facts refused; the others were still stored.'),
      results: z
        .array(
          z
            .object({
              fact_id: z.string().optional(),
              duplicate: z.boolean().optional(),
              error: z.string().describe('Why this fact was refused (nothing of it stored).').optional(),
            })
            .strict(),
        )
        .describe('One per fact, in order.'),
    })
    .strict(),
  memory_alias: z.object({ agent_id: z.string(), term: z.string(), equivalents: strings, stored }).strict(),
  checkpoint_save: z.object({ agent_id: z.string(), checkpoint_id: z.string(), created_at: dateTime() }).strict(),
  checkpoint_resume: z.xor([
    // `state` is the agent's own JSON object, so it is the one open object here.
    z.object({ id: z.string(), created_at: dateTime(), state: z.record(z.string(), z.unknown()).optional(), message_count: count.optional() }).strict(),
    z.object({ found: z.literal(false), agent_id: z.string() }).strict(),
  ]),
  memory_reflect: z
    .object({
      action: z.enum(REFLECT_ACTIONS),
      agent: z.string(),
      ok: z.literal(true),
      fact_id: z.string().optional(),
      confidence: label.optional(),
      agent_id: z.string().describe('The same identity as agent, under the name every other tool uses.').optional(),
    })
    .strict(),
  memory_list: z.object({ agent_id: z.string(), count, facts: z.array(FactJson), next_page_token: z.string() }).strict(),
  memory_relate: z.object({ agent_id: z.string(), changed: z.boolean(), fact: FactJson }).strict(),
  read_graph: GraphJson.extend({ agent_id: z.string() }).strict(),
  open_memories: z
    .object({
      agent_id: z.string(),
      count,
      memories: z.array(FactJson),
      not_found: strings.describe('Ids the agent has no fact for.'),
      edges: GraphJson.shape.edges.describe("The memories' relations both ways, entities and lineage."),
    })
    .strict(),
  memory_recipes: z.object({ count, recipes: z.array(RecipeJson) }).strict(),
  memory_recipe_save: z.object({ recipe: RecipeJson }).strict(),
  memory_slot_set: z.object({ slot: SlotJson, created: z.boolean(), changed: z.boolean().describe('false: the slot already held this; no version was recorded.') }).strict(),
  memory_slot_list: z.object({ count, slots: z.array(SlotJson), next_page_token: z.string().describe('Give it as page_token for the next page; "" on the last page.') }).strict(),
  memory_slot_delete: z.object({ slot: SlotJson }).strict(),
  memory_slot_context: z.object({ count, slots: z.array(SlotJson) }).strict(),
  memory_context: ContextJson,
  memory_consolidate: ConsolidationRunJson.extend({ agent_id: z.string(), counters: ConsolidationCountersJson.optional() }).strict(),
  memory_get: z.object({ fact: FactJson }).strict(),
  memory_forget: z.object({ agent_id: z.string(), fact_id: z.string(), forgotten: z.literal(true), fact: FactJson }).strict(),
  memory_delete: z.object({ agent_id: z.string(), fact_id: z.string(), deleted: z.literal(true) }).strict(),
  memory_extract: ExtractJson.extend({ agent_id: z.string() }).strict(),
  save_memory: z
    .object({
      success: z.literal(true),
      memory_id: z.string(),
      message: z.string(),
      has_embedding: z.boolean(),
      enrichment_applied: z.boolean(),
      duplicate: z.boolean().describe('An identical memory existed: memory_id is that memory and nothing was stored.'),
      agent_id: z.string(),
    })
    .strict(),
  search_memory: z
    .object({
      success: z.literal(true),
      count,
      results: z.array(
        z
          .object({
            id: z.string(),
            content: z.string(),
            tags: strings,
            score: z.number().describe('Decay score now: use_count^beta x f(time since last use) x strength.'),
            similarity: z.null().describe('Not reported (null), as in the CortexGraph contract.'),
            use_count: count,
            last_used: z.number().describe('Seconds since the epoch.'),
            age_days: z.number(),
            relevance: z.number().describe('The recall score that ordered the results.'),
          })
          .strict(),
      ),
      agent_id: z.string(),
    })
    .strict(),
  touch_memory: z
    .object({
      success: z.literal(true),
      memory_id: z.string(),
      old_score: z.number(),
      new_score: z.number(),
      use_count: count,
      strength: z.number(),
      message: z.string(),
    })
    .strict(),
  observe_memory_usage: z
    .object({
      reinforced: z.boolean(),
      reason: z.string().optional().describe('Why nothing was reinforced (auto-reinforce disabled).'),
      count,
      cross_domain_count: count.optional(),
      results: z
        .array(
          z
            .object({
              id: z.string(),
              status: z.enum(['reinforced', 'not_found', 'retired']),
              cross_domain: z.boolean(),
              new_use_count: count,
              new_review_count: count,
              strength: z.number(),
            })
            .strict(),
        )
        .optional(),
    })
    .strict(),
  gc: z
    .object({
      success: z.literal(true),
      dry_run: z.boolean(),
      removed_count: count,
      archived_count: count,
      freed_score_sum: z.number(),
      memory_ids: strings,
      total_affected: count,
      message: z.string(),
    })
    .strict(),
  search_unified: z
    .object({
      success: z.literal(true),
      count,
      stm_count: count,
      ltm_count: count,
      vault: z.boolean(),
      results: z.array(
        z
          .object({ source: z.enum(['stm', 'ltm']), content: z.string(), title: z.string(), score: z.number(), id: z.string().optional(), path: z.string().optional() })
          .strict(),
      ),
    })
    .strict(),
  cluster_memories: ClusterReportJson.extend({ success: z.literal(true) }).strict(),
  consolidate_memories: ConsolidateJson.extend({ success: z.literal(true) }).strict(),
  promote_memory: PromoteJson.extend({ success: z.literal(true) }).strict(),
  analyze_message: SaveAdviceJson,
  analyze_for_recall: RecallAdviceJson,
} as const satisfies Record<ToolName, z.ZodType>;
