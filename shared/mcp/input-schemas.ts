// Input schemas of the MCP tools: the parameter names, required sets and defaults of the
// GrayMatter wire contract, so agents written for it work unchanged, plus Engram's own tools and
// keys (added beside the old ones, never changing them: test/mcp-schemas.test.ts compares every
// tool of release 0.2.0 with what is served). Defined in zod, served as JSON Schema. Every schema
// is a flat object with additionalProperties: false and no root combinator — several MCP hosts
// drop tools whose input root has anyOf/oneOf/allOf.
import { z } from 'zod';
import { CONFIDENCE_LABELS, DEFAULT_TOP_K, MAX_CONFIDENCE_WEIGHT, MAX_GC_LIMIT, MAX_OBSERVED_FACTS, MAX_PAGE_SIZE, SHARED_AGENT_ID } from '../validate.ts';
import { CONFIDENCE_TEXT, WRITE_OPTIONS } from '../schemas/write-fields.ts';
import { RECIPE_FIELDS } from '../schemas/recipe-fields.ts';
import { CONTEXT_FIELDS } from '../schemas/context-fields.ts';
import { RELATION_TYPES } from '../model.ts';
import { CONVENTIONAL_SLOTS, MAX_SLOT_VALUE_BYTES, SLOT_STATUSES, SLOT_VISIBILITIES } from '../slots.ts';

/** A non-empty string with at least one non-whitespace character (never trimmed). */
const identity = (description: string) => z.string().min(1).regex(/\S/).describe(description);

const agentId = identity(
  `Stable agent identifier (the memory namespace), e.g. "my-project". Use the same one every session. Pass "${SHARED_AGENT_ID}" for memory shared by all agents.`,
);

const topK = (what: string) => z.int().default(DEFAULT_TOP_K).describe(`How many facts to return ${what}. Omitted or non-positive means ${DEFAULT_TOP_K}.`);

const minConfidence = z
  .enum(CONFIDENCE_LABELS)
  .describe('Only facts at least this confident, applied before ranking and top_k. Facts stored without a label count as inferred; unknown historical labels as unverified.')
  .optional();

const confidenceWeight = z
  .number()
  .min(0)
  .max(MAX_CONFIDENCE_WEIGHT)
  .describe(
    `Finite preference weight in [0, ${MAX_CONFIDENCE_WEIGHT}]; omitted = the daemon's default (0). final score = base RRF score x (1 + weight x c), c = +1 verified, 0 inferred, -1 unverified. 0 keeps any min_confidence filter.`,
  )
  .optional();

const factId = z.string().describe('The fact, by the fact_id a write, memory_list or an explain receipt returned.');

export const REFLECT_ACTIONS = ['add', 'update', 'forget', 'link', 'pin', 'unpin'] as const;
export type ReflectAction = (typeof REFLECT_ACTIONS)[number];

/** search_memory's top_k when none is given (the CortexGraph default). */
export const CORTEX_TOP_K = 10;

/** The namespace of the CortexGraph tools when they name none. */
export const DEFAULT_CORTEX_AGENT = 'default';

const cortexAgent = identity(`The memory namespace. Omitted: the server's default namespace (ENGRAM_AGENT, else "${DEFAULT_CORTEX_AGENT}").`).optional();

/** memory_list's page size when none is given. */
export const LIST_PAGE_SIZE = 50;

/** Facts per memory_add_batch call. */
export const MAX_BATCH_FACTS = 100;

const recipeOption = z
  .string()
  .describe(
    'A retrieval recipe (memory_recipes lists them): cheap, balanced, deep, forensic, verified_only, low_latency or a saved one. It sets the keyword and vector candidate counts, graph depth, a reranker, a preference for verified facts (verified_only: only verified ones) and, for forensic, the evidence behind each fact. Options given here still win.',
  )
  .optional();

export const INPUT_TYPES = {
  memory_search: z
    .object({
      agent_id: agentId,
      query: z.string().describe('What you want to know, in natural language; matching is hybrid (keyword + semantic + recency).'),
      top_k: topK('at most'),
      explain: z
        .boolean()
        .default(false)
        .describe(
          'true: return one receipt per fact under `explained` (per-signal ranks, fused and final score, fact_id, written_at, confidence, pinned) instead of bare texts. Same facts, same order.',
        ),
      min_confidence: minConfidence,
      confidence_weight: confidenceWeight,
      kg: z
        .boolean()
        .describe("Append up to three knowledge-graph neighbours of the facts under kg_hints (they have no confidence receipts; never with explain or min_confidence). Omitted: the server's --kg.")
        .optional(),
      recipe: recipeOption,
    })
    .strict(),
  memory_search_batch: z
    .object({
      agent_id: agentId,
      queries: z.array(z.string()).min(1).describe('One natural-language query per open question; each is ranked on its own, then merged.'),
      top_k: topK('per query, at most'),
      min_confidence: minConfidence,
      confidence_weight: confidenceWeight,
      recipe: recipeOption,
    })
    .strict(),
  memory_add: z
    .object({
      agent_id: agentId,
      text: z.string().describe('The fact: one atomic, self-contained sentence that will make sense in a later session.'),
      ...WRITE_OPTIONS,
    })
    .strict(),
  memory_add_batch: z
    .object({
      agent_id: agentId,
      facts: z
        .array(
          z
            .object({
              text: z.string().describe('One atomic, self-contained sentence, as for memory_add.'),
              ...WRITE_OPTIONS,
            })
            .strict(),
        )
        .min(1)
        .max(MAX_BATCH_FACTS)
        .describe(`The facts to store, 1 to ${MAX_BATCH_FACTS}; each is stored (or found already remembered) on its own.`),
    })
    .strict(),
  memory_alias: z
    .object({
      agent_id: agentId,
      term: z.string().describe('The word or phrase as you would write it in a query.'),
      equivalents: z.array(z.string()).min(1).describe('The words the stored facts actually use for the same thing; one or more.'),
    })
    .strict(),
  checkpoint_save: z
    .object({
      agent_id: agentId,
      state: z.string().describe('A JSON object as a string, e.g. "{\\"task\\": \\"migrate db\\", \\"step\\": 3}". Anything else is rejected. Omitted: {}.').optional(),
    })
    .strict(),
  checkpoint_resume: z
    .object({
      agent_id: agentId,
      on_missing: z
        .enum(['error', 'empty'])
        .default('error')
        .describe('When the agent has no checkpoint: "error" (default) returns a tool error; "empty" returns a successful {"found": false, "agent_id"} result.'),
    })
    .strict(),
  // Both identity spellings stay schema-optional so canonical-only and alias-only callers pass
  // client-side validation; the handler requires at least one at runtime.
  memory_reflect: z
    .object({
      action: z
        .enum(REFLECT_ACTIONS)
        .describe(
          'add: store text. update: replace fact target with text. forget: retire fact target. pin / unpin: protect fact target (or stop protecting it). link: attach text as an entity of fact target; with relation, relate fact target to the fact text names instead.',
        ),
      agent_id: identity('The agent whose memory to change (canonical). Supply agent_id or agent; at least one is required. agent_id wins when both are valid.').optional(),
      agent: identity('Deprecated alias of agent_id, accepted for compatibility. agent_id wins when both are valid.').optional(),
      text: z.string().describe('add/update: the fact text. link: the entity to attach. forget/pin/unpin: accepted in place of target.').optional(),
      target: z.string().describe('update/forget/pin/unpin/link: the existing fact, by fact_id (from explain receipts) or by its exact text.').optional(),
      confidence: z
        .enum(CONFIDENCE_LABELS)
        .describe(`${CONFIDENCE_TEXT} Only for add and update; an omitted update label is min(inferred, the replaced facts' confidence).`)
        .optional(),
      relation: z
        .enum(RELATION_TYPES)
        .describe('Only for link: the typed relation from fact target to the fact text names (by fact_id or exact text), instead of attaching an entity.')
        .optional(),
    })
    .strict(),
  memory_list: z
    .object({
      agent_id: agentId,
      page_size: z.int().min(1).max(MAX_PAGE_SIZE).default(LIST_PAGE_SIZE).describe(`How many facts per page (1 to ${MAX_PAGE_SIZE}).`),
      page_token: z.string().describe('next_page_token of the previous page; omitted: the first page.').optional(),
    })
    .strict(),
  memory_get: z.object({ agent_id: agentId, fact_id: factId }).strict(),
  memory_forget: z.object({ agent_id: agentId, fact_id: factId }).strict(),
  memory_delete: z.object({ agent_id: agentId, fact_id: factId }).strict(),
  memory_relate: z
    .object({
      agent_id: agentId,
      from_id: factId.describe('The fact the relation starts from, by fact_id.'),
      to_id: factId.describe('The fact it points at, by fact_id (live, same agent).'),
      type: z.enum(RELATION_TYPES).describe('related, causes, supports, contradicts, has_decision or consolidated_from.'),
      remove: z.boolean().default(false).describe('Remove the relation instead of adding it.'),
    })
    .strict(),
  read_graph: z
    .object({
      agent_id: agentId,
      fact_id: z.string().describe('The fact whose neighbourhood to read: its entities, its relations both ways, its lineage. Give this or entity.').optional(),
      entity: z.string().describe('The entity whose neighbourhood to read: the facts naming it, the entities named with it. Give this or fact_id.').optional(),
      limit: z.int().min(1).max(200).default(25).describe('Facts listed around an entity, newest first.'),
    })
    .strict(),
  open_memories: z
    .object({
      agent_id: agentId,
      memory_ids: z.array(z.string()).min(1).max(50).describe('The facts to open, by fact_id.'),
    })
    .strict(),
  memory_consolidate: z
    .object({
      agent_id: agentId,
      dry_run: z.boolean().default(false).describe('Report what a run would summarise; write nothing.'),
    })
    .strict(),
  memory_slot_set: z
    .object({
      slot_name: z.string().describe(`The slot's name; conventionally one of ${CONVENTIONAL_SLOTS.join(', ')}. Writing the same project, scope and name again updates that one slot.`),
      slot_value: z.unknown().describe(`Any JSON value (at most ${MAX_SLOT_VALUE_BYTES} bytes as JSON); required for a new slot, omitted: unchanged.`).optional(),
      scope: z.string().describe('Omitted: "user".').optional(),
      project_id: z.string().describe('Omitted: a global slot, injected in every project.').optional(),
      locked: z.boolean().describe('true: deletion is refused until a write sets false. Omitted: unchanged.').optional(),
      status: z.enum(SLOT_STATUSES).describe('Omitted: unchanged (new slots: needs_review). Only a person should approve.').optional(),
      evidence_refs: z.array(z.string()).describe('Source span or record ids supporting it.').optional(),
      confidence: z.number().min(0).max(1).describe('Omitted: unchanged (new slots: 0.75).').optional(),
      visibility: z.enum(SLOT_VISIBILITIES).optional(),
    })
    .strict(),
  memory_slot_list: z
    .object({
      project_id: z.string().describe('Only this project ("" = the global slots); omitted: all.').optional(),
      query: z.string().describe('A substring of the name or value.').optional(),
      archived: z.boolean().default(false).describe('The archived slots instead.'),
      limit: z.int().min(1).max(1000).default(100),
      page_token: z.string().describe('next_page_token of the previous page; omitted: the first page.').optional(),
    })
    .strict(),
  memory_slot_delete: z.object({ record_id: z.string().describe('The slot, by record_id.') }).strict(),
  memory_slot_context: z
    .object({
      project_id: z.string().describe("The project: its slots plus the global ones (a project slot shadows a global one of the same scope and name).").optional(),
      slot_names: z.array(z.string()).describe('Only these slots.').optional(),
    })
    .strict(),
  memory_context: z.object({ agent_id: agentId, ...CONTEXT_FIELDS }).strict(),
  memory_recipes: z.object({}).strict(),
  memory_recipe_save: z
    .object({
      name: z.string().describe('The recipe: cheap, balanced, deep, forensic, verified_only or low_latency to override a built-in, or a new name.'),
      ...RECIPE_FIELDS,
    })
    .strict(),
  memory_extract: z
    .object({
      agent_id: agentId,
      message: z.string().describe('A message to extract durable facts from.').optional(),
      turns: z
        .array(z.object({ speaker: z.string().optional(), text: z.string() }).strict())
        .describe('Or the turns of a conversation, each {speaker?, text}.')
        .optional(),
      remember: z.boolean().default(false).describe('Store the proposals (as unverified facts whose source names the extractor); false: only propose them.'),
    })
    .strict(),
  // The CortexGraph tools: its names, parameters and defaults. They are not per-agent there, so
  // agent_id is optional here: omitted, the server's default namespace (ENGRAM_AGENT, "default").
  save_memory: z
    .object({
      content: z.string().describe('The content to remember: one self-contained statement.'),
      tags: z.array(z.string()).describe('Tags for categorization (search_memory and observe_memory_usage use them).').optional(),
      entities: z.array(z.string()).describe('Named entities the memory is about.').optional(),
      source: z.string().describe('Source of the memory.').optional(),
      context: z.string().describe('Context when the memory was created; searchable, not returned as its content.').optional(),
      meta: z.record(z.string(), z.unknown()).describe('Additional custom metadata (a JSON object).').optional(),
      strength: z.number().min(0).max(2).describe('Importance multiplier of the decay score: 1.0 normal, 1.3-1.5 important, 1.8-2.0 critical. Omitted: 1.0.').optional(),
      enable_preprocessing: z.boolean().default(true).describe('Fill in what is not given: entities extracted from the content, and a strength from its importance markers (see analyze_message).'),
      agent_id: cortexAgent,
    })
    .strict(),
  search_memory: z
    .object({
      query: z.string().describe('Text query to search for; omitted or "": the most recent memories.').optional(),
      tags: z.array(z.string()).describe('Only memories with any of these tags.').optional(),
      top_k: z.int().min(1).default(CORTEX_TOP_K).describe('Maximum number of results.'),
      window_days: z.int().min(1).max(36_500).describe('Only memories from the last N days.').optional(),
      min_score: z.number().min(0).describe('Minimum decay score threshold.').optional(),
      use_embeddings: z.boolean().default(false).describe('Use semantic (vector) search beside keywords and recency.'),
      agent_id: cortexAgent,
    })
    .strict(),
  touch_memory: z
    .object({
      memory_id: z.string().describe('ID of the memory to reinforce.'),
      boost_strength: z.boolean().default(false).describe('Also raise its strength by 0.1 (at most 2).'),
      agent_id: cortexAgent,
    })
    .strict(),
  observe_memory_usage: z
    .object({
      memory_ids: z.array(z.string()).min(1).max(MAX_OBSERVED_FACTS).describe('IDs of the memories that were actually used in the response.'),
      context_tags: z.array(z.string()).default([]).describe('Tags representing the current conversation; little overlap with a memory\'s own tags counts as cross-domain use.'),
      agent_id: cortexAgent,
    })
    .strict(),
  gc: z
    .object({
      dry_run: z.boolean().default(true).describe('Preview without removing.'),
      archive_instead: z.boolean().default(false).describe('Archive (retire, keep listed) instead of delete.'),
      limit: z.int().min(1).max(MAX_GC_LIMIT).describe('Max memories to process, lowest scores first.').optional(),
      agent_id: cortexAgent,
    })
    .strict(),
  search_unified: z
    .object({
      query: z.string().describe('Text query to search for.').optional(),
      tags: z.array(z.string()).describe('Only results with any of these tags.').optional(),
      limit: z.int().min(1).default(10).describe('Maximum total results.'),
      stm_weight: z.number().min(0).default(1.0).describe('Weight for short-term (store) results.'),
      ltm_weight: z.number().min(0).default(0.7).describe('Weight for long-term (vault note) results.'),
      window_days: z.int().min(1).max(36_500).describe('Only include short-term memories from the last N days.').optional(),
      min_score: z.number().min(0).describe('Minimum short-term decay score.').optional(),
      verbose: z.boolean().default(false).describe('Include metadata (ids, paths).'),
      agent_id: cortexAgent,
    })
    .strict(),
  cluster_memories: z
    .object({
      strategy: z.enum(['similarity']).default('similarity').describe('Clustering strategy.'),
      threshold: z.number().gt(0).max(1).default(0.83).describe('Similarity threshold.'),
      max_cluster_size: z.int().min(1).max(1000).default(12).describe('Max memories per cluster.'),
      find_duplicates: z.boolean().default(false).describe('Find duplicate pairs instead.'),
      duplicate_threshold: z.number().gt(0).max(1).default(0.88).describe('Threshold for duplicates.'),
      agent_id: cortexAgent,
    })
    .strict(),
  consolidate_memories: z
    .object({
      cluster_id: z.string().describe('A cluster id from cluster_memories (stable: the same members give the same id).'),
      mode: z.enum(['dry_run', 'apply']).default('dry_run').describe('"dry_run" shows the merged memory; "apply" writes it and retires the members.'),
      agent_id: cortexAgent,
    })
    .strict(),
  promote_memory: z
    .object({
      memory_id: z.string().describe('The memory to promote.').optional(),
      auto_detect: z.boolean().default(false).describe('Promote every memory that qualifies (score >= the promote threshold, or used often while young), instead of memory_id.'),
      dry_run: z.boolean().default(false).describe('Preview without promoting; without memory_id, list every memory that qualifies.'),
      target: z.enum(['obsidian']).default('obsidian').describe('Where promoted memories go: the daemon\'s markdown (Obsidian) vault.'),
      force: z.boolean().default(false).describe('Promote memory_id even if it does not meet the criteria.'),
      agent_id: cortexAgent,
    })
    .strict(),
  analyze_message: z.object({ message: z.string().min(1).describe('The user message to analyze for memory-worthy content.') }).strict(),
  analyze_for_recall: z.object({ message: z.string().min(1).describe('The user message to analyze for recall intent.') }).strict(),
} as const;

/** Which tools speak the CortexGraph contract (optional agent_id, {"success": false} errors). */
export const CORTEX_TOOLS: ReadonlySet<string> = new Set(['save_memory', 'search_memory', 'touch_memory', 'observe_memory_usage', 'gc', 'promote_memory', 'search_unified', 'cluster_memories', 'consolidate_memories', 'analyze_message', 'analyze_for_recall']);

export type ToolName = keyof typeof INPUT_TYPES;
