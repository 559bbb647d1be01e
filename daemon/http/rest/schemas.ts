// The REST vocabulary: what each route takes (query parameters and JSON bodies) and answers,
// defined once in zod. Requests are validated with these, and the OpenAPI document's components
// are generated from them, so the two cannot disagree. Names are the protocol's and the MCP
// contract's (agent_id, query, top_k, page_size); the older REST spellings are aliases (ALIASES).
import { z } from 'zod';
import {
  CheckpointJson,
  ContextJson,
  CheckpointSavedJson,
  FactJson,
  FeedbackJson,
  GcJson,
  MatchJson,
  ObserveJson,
  RecallAdviceJson,
  SaveAdviceJson,
  StorageReportJson,
  CompactReportJson,
  PromoteJson,
  UnifiedJson,
  ExtractJson,
  ClusterReportJson,
  ConsolidateJson,
  ConsolidationCountersJson,
  ConsolidationRunJson,
  GraphJson,
  KgHintJson,
  SlotChangeJson,
  SlotJson,
  RecipeJson,
  RelatedJson,
  TouchJson,
  ReceiptJson,
  RetrievalJson,
  SignalWeightsJson,
  StatsJson,
  TokenJson,
  WriteStatusJson,
} from '../../../shared/schemas/json-shapes.ts';
import { confidence, FACT_FIELDS, WRITE_OPTIONS } from '../../../shared/schemas/write-fields.ts';
import { RECIPE_FIELDS } from '../../../shared/schemas/recipe-fields.ts';
import { CONTEXT_FIELDS } from '../../../shared/schemas/context-fields.ts';
import { RELATION_TYPES, RIGHTS } from '../../../shared/model.ts';
import { CONVENTIONAL_SLOTS, MAX_SLOT_VALUE_BYTES, SLOT_STATUSES, SLOT_VISIBILITIES } from '../../../shared/slots.ts';
import { CONFIDENCE_LABELS, DEFAULT_LIMITS, DEFAULT_PAGE_SIZE, DEFAULT_TOP_K, MAX_CONFIDENCE_WEIGHT, MAX_GC_LIMIT, MAX_OBSERVED_FACTS, MAX_PAGE_SIZE } from '../../../shared/validate.ts';

/** Older REST spellings, accepted wherever their canonical name is (documented as deprecated). */
export const ALIASES: Readonly<Record<string, string>> = { agent: 'agent_id', q: 'query', k: 'top_k', limit: 'page_size' };

const agentId = z.string().describe('The namespace: non-empty, not only whitespace, at most 256 UTF-8 bytes; never trimmed.');
const text = z.string().describe(`The fact: non-empty, at most ${DEFAULT_LIMITS.maxTextBytes} UTF-8 bytes by default.`);
const topK = z.int().min(1).describe(`How many facts, at most the daemon's max_top_k (${DEFAULT_LIMITS.maxTopK} by default). Omitted: ${DEFAULT_TOP_K}.`);
const minConfidence = z.enum(CONFIDENCE_LABELS).describe('Only facts at least this confident, applied before ranking and top_k.');
const confidenceWeight = z.number().min(0).max(MAX_CONFIDENCE_WEIGHT).describe("Preference for confident facts: final score = base x (1 + weight x c). Omitted: the daemon's default.");
const count = z.int().min(0);
/** Of a slot or recipe write's answer (absent on reads). */
const changedFlag = z.boolean().describe('false: the write left it as it was, so no version was recorded (the answer is the stored one).').optional();
const replayedFlag = z.boolean().describe('true: this request_id was used before; the answer is what that write answered, and nothing was written now.').optional();
const recipeName = z.string().describe('A retrieval recipe (GET /v1/memory-controls/retrieval-recipes): its candidate counts, graph depth, reranker and confidence settings, under any option given here.').optional();
// JSON tells an empty key from none: "" is a mistake (an unset variable, say), which would write
// without the replay protection the caller asked for, so it is refused, not read as absent.
const NON_EMPTY_KEY = { error: 'must not be empty (omit it to write without replay protection)' };
const requestId = z.string().min(1, NON_EMPTY_KEY).describe('Idempotency key: re-sending it returns the first result instead of writing twice.');
const strength = z.number().describe('Importance in [0, 2] (1 normal, 1.5 important, 1.8 and above critical): it multiplies the decay score. Omitted: 1.');

// Query parameters ------------------------------------------------------------------------------

const typedTime = z.string().describe('A date (2024-05-08, midnight UTC) or an RFC 3339 time.');

// The per-call recall options beside top_k and the confidence ones, as gRPC's RecallOptions has
// them (signal_weights, min_relevance, filters), flat in a query string and in a JSON body. Their
// ranges are the core's to check (the same checks and messages as every door).
const minRelevance = z.number().describe('0 (the default): no floor. In (0, 1]: drop results whose final score is below this fraction of the top score.');
const recallFilters = {
  window_days: z.int().describe('Only facts whose event time (occurred_at, else created_at) is within the last N days (1 to 36500).'),
  tags_any: z.array(z.string()).describe('Only facts with at least one of these tags.'),
  tags_all: z.array(z.string()).describe('Only facts with every one of these tags.'),
  created_after: typedTime.describe('Only facts created at or after this time: a date (2024-05-08, midnight UTC) or an RFC 3339 time.'),
  created_before: typedTime.describe('Only facts created before this time: a date (2024-05-08, midnight UTC) or an RFC 3339 time.'),
  occurred_after: typedTime.describe('Only facts whose event time (occurred_at, else created_at) is at or after this time: a date (2024-05-08, midnight UTC) or an RFC 3339 time.'),
  occurred_before: typedTime.describe('Only facts whose event time (occurred_at, else created_at) is before this time: a date (2024-05-08, midnight UTC) or an RFC 3339 time.'),
  min_decay_score: z.number().describe('Only facts whose decay score is at least this (>= 0) now.'),
};
const allOptional = <T extends Record<string, z.ZodType>>(fields: T) => Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };

const weightsQuery = z
  .string()
  .describe("Per-call signal weights vector,keyword,recency[,decay[,graph]]: three to five plain decimal numbers, each in [0, 100] (0 turns a signal off; at least one must be positive); a weight not given is the daemon's (--signal-weights).");

const weightOf = (signal: string) => z.number().describe(`The ${signal} signal's weight in [0, 100]; omitted: the daemon's.`).optional();
const weightsBody = z
  .object({ vector: weightOf('vector'), keyword: weightOf('keyword'), recency: weightOf('recency'), decay: weightOf('decay'), graph: weightOf('graph') })
  .strict()
  .describe("Per-call signal weights (0 turns a signal off; at least one must be positive); a weight not given is the daemon's (--signal-weights).");

export const RecallQuery = z
  .object({
    agent_id: agentId,
    query: z.string().describe('What to recall ("" = recency only).'),
    top_k: topK.optional(),
    weights: weightsQuery.optional(),
    min_relevance: minRelevance.optional(),
    ...allOptional({ ...recallFilters, tags_any: recallFilters.tags_any.describe('Only facts with at least one of these tags (repeat the parameter).'), tags_all: recallFilters.tags_all.describe('Only facts with every one of these tags (repeat the parameter).') }),
    min_confidence: minConfidence.optional(),
    confidence_weight: confidenceWeight.optional(),
    kg: z.boolean().describe("Append up to three knowledge-graph neighbour hints after the facts (kg_hints); omitted: the daemon's --kg.").optional(),
    recipe: recipeName,
  })
  .strict();

export const GraphQuery = z
  .object({
    agent_id: agentId,
    fact_id: z.string().describe('The fact whose neighbourhood to read (or entity).').optional(),
    entity: z.string().describe('The entity whose neighbourhood to read (or fact_id).').optional(),
    limit: z.int().min(1).max(200).describe('Facts listed around an entity. Omitted: 25.').optional(),
  })
  .strict();

export const SlotListQuery = z
  .object({
    project_id: z.string().describe('Only this project\'s slots ("" = the global ones); omitted: every slot.').optional(),
    query: z.string().describe('A substring of the slot name or value.').optional(),
    archived: z.boolean().describe('The archived slots instead of the others.').optional(),
    // page_size, as the facts listing calls it (limit is its alias there and here).
    page_size: z.int().min(1).max(1000).describe('Slots per page (omitted: 100).').optional(),
    page_token: z.string().describe('next_page_token of the previous page.').optional(),
  })
  .strict();

export const SlotContextQuery = z
  .object({
    project_id: z.string().describe("The project: its slots plus the global ones (a project slot shadows a global one of the same scope and name); omitted: the global ones.").optional(),
    slot_names: z.array(z.string()).describe('Only these slots (repeat the parameter).').optional(),
  })
  .strict();

export const ListQuery = z
  .object({
    agent_id: agentId,
    page_size: z.int().min(1).max(MAX_PAGE_SIZE).describe(`Facts per page. Omitted: ${DEFAULT_PAGE_SIZE}.`).optional(),
    page_token: z.string().describe('next_page_token of the previous page.').optional(),
    order: z.enum(['oldest', 'newest']).describe('oldest (id order, the default) or newest first.').optional(),
    text: z.string().describe('Only facts whose text or context holds every one of these words (case-insensitive).').optional(),
    confidence: z.array(z.enum(CONFIDENCE_LABELS)).describe('Only facts with one of these labels (repeat the parameter; no label counts as inferred).').optional(),
    pinned: z.boolean().describe('Only pinned (true) or unpinned (false) facts.').optional(),
    retired: z.boolean().describe('Only retired (true) or live (false) facts.').optional(),
    tags: z.array(z.string()).describe('Only facts with every one of these tags (repeat the parameter).').optional(),
    entities: z.array(z.string()).describe('Only facts naming every one of these entities (repeat the parameter).').optional(),
    created_after: typedTime.describe('Created at or after this date or time.').optional(),
    created_before: typedTime.describe('Created before this date or time.').optional(),
    occurred_after: typedTime.describe('Happened (occurred_at) at or after this date or time.').optional(),
    occurred_before: typedTime.describe('Happened (occurred_at) before this date or time.').optional(),
  })
  .strict();

export const AgentQuery = z.object({ agent_id: agentId.describe('The namespace of the fact.') }).strict();

export const CheckpointResumeQuery = z
  .object({
    agent_id: agentId.describe('The agent whose checkpoint to read.'),
    on_missing: z.enum(['error', 'empty']).describe('With no checkpoint: error (404, the default) or empty (200 {"found": false, "agent_id"}), as the CLI and MCP offer.').optional(),
  })
  .strict();

export const OptionalAgentQuery = z.object({ agent_id: agentId.describe('The namespace to count; omitted: the whole store.').optional() }).strict();

export const NoQuery = z.object({}).strict();

export const WriteStatusQuery = z.object({ agent_id: agentId.describe('The namespace the write went to; omitted: every one the caller may read.').optional() }).strict();

// Request bodies --------------------------------------------------------------------------------

const CONFIRM_PROBLEM = 'must be true: forgetting by query retires every fact the query recalls (up to top_k); recall first to see which';

export const REQUESTS = {
  RememberRequest: z.object({ agent_id: agentId, text, ...WRITE_OPTIONS, strength: strength.optional(), request_id: requestId.optional() }).strict(),
  BatchRememberRequest: z
    .object({
      items: z
        .array(
          z
            .object({
              agent_id: agentId,
              text,
              ...WRITE_OPTIONS,
              strength: strength.optional(),
              request_id: z.string().min(1, NON_EMPTY_KEY).describe('Idempotency key of this item: re-sending it returns the first result instead of writing twice.').optional(),
            })
            .strict(),
        )
        .min(1)
        .describe("The facts to remember, at most the daemon's max_write_batch (1000); each is written, deduplicated and answered on its own."),
    })
    .strict(),
  ReviseRequest: z
    .object({
      agent_id: agentId,
      target_ids: z.array(z.string()).min(1).describe('The live facts the new one replaces; each is retired with superseded_by = the new fact id.'),
      text,
      confidence: confidence.describe("Omitted: min(inferred, the replaced facts' confidence).").optional(),
      ...FACT_FIELDS,
    })
    .strict(),
  FactTargetRequest: z.object({ agent_id: agentId.describe('The namespace of the fact.') }).strict(),
  ConfidenceRequest: z.object({ agent_id: agentId.describe('The namespace of the fact.'), confidence: z.enum(CONFIDENCE_LABELS).describe('The new label.') }).strict(),
  TouchRequest: z
    .object({
      agent_id: agentId.describe('The namespace of the fact.'),
      boost_strength: z.boolean().describe('Also raise its strength by 0.1 (at most 2).').optional(),
      request_id: requestId.optional(),
    })
    .strict(),
  ObserveRequest: z
    .object({
      agent_id: agentId,
      fact_ids: z.array(z.string()).min(1).max(MAX_OBSERVED_FACTS).describe('The facts that were actually used.'),
      context_tags: z.array(z.string()).describe("Tags of the conversation; a fact whose own tags barely overlap them (Jaccard < 0.3) was used cross-domain.").optional(),
      request_id: requestId.optional(),
    })
    .strict(),
  EmptyRequest: z.object({}).strict(),
  ContextRequest: z.object({ agent_id: agentId, ...CONTEXT_FIELDS }).strict(),
  ClusterRequest: z
    .object({
      agent_id: agentId,
      threshold: z.number().gt(0).max(1).optional(),
      max_cluster_size: z.int().min(1).max(1000).optional(),
      find_duplicates: z.boolean().optional(),
      duplicate_threshold: z.number().gt(0).max(1).optional(),
    })
    .strict(),
  ConsolidateRequest: z.object({ agent_id: agentId, mode: z.enum(['dry_run', 'apply']).optional(), request_id: requestId.optional() }).strict(),
  ConsolidationRunRequest: z
    .object({ agent_id: agentId, dry_run: z.boolean().describe('Report what a run would do; write nothing.').optional(), request_id: requestId.optional() })
    .strict(),
  SlotRequest: z
    .object({
      slot_name: z.string().describe(`The slot's name: free, conventionally ${CONVENTIONAL_SLOTS.join(', ')}.`),
      slot_value: z.unknown().describe(`Any JSON value, at most ${MAX_SLOT_VALUE_BYTES} bytes as JSON; required for a new slot.`).optional(),
      scope: z.string().describe('Omitted: "user".').optional(),
      project_id: z.string().describe('Omitted or "": a global slot.').optional(),
      locked: z.boolean().describe('A locked slot refuses deletion (409 "slot is locked"); omitted: unchanged.').optional(),
      status: z.enum(SLOT_STATUSES).describe('Omitted: unchanged (a new slot: needs_review). approved and promoted give authority human_reviewed.').optional(),
      evidence_refs: z.array(z.string()).describe('Source span or record ids: any makes it verification_state supported.').optional(),
      confidence: z.number().describe('In [0, 1] (omitted: unchanged; a new slot 0.75); out of range is an error.').optional(),
      visibility: z.enum(SLOT_VISIBILITIES).optional(),
      request_id: requestId.optional(),
    })
    .strict(),
  TokenRequest: z
    .object({
      agents: z.array(agentId).describe('The agent namespaces the token opens (at least one).'),
      rights: z.array(z.enum(RIGHTS)).describe('Rights there (default read and write).').optional(),
      shared: z.array(z.enum(RIGHTS)).describe('Rights on the shared namespace, slots and recipes (default read; [] for none).').optional(),
      label: z.string().optional(),
    })
    .strict(),
  RecipeRequest: z
    .object({
      name: z.string().describe('The recipe: a built-in name (cheap, balanced, deep, forensic, verified_only, low_latency) to override it, or a new one.'),
      ...RECIPE_FIELDS,
      request_id: requestId.optional(),
    })
    .strict(),
  RelateRequest: z
    .object({
      agent_id: agentId,
      from_id: z.string().describe('The fact the relation starts from (live).'),
      to_id: z.string().describe('The fact it points at (live, same namespace).'),
      type: z.enum(RELATION_TYPES),
      remove: z.boolean().describe('Remove the relation instead of adding it.').optional(),
      request_id: requestId.optional(),
    })
    .strict(),
  LinkEntityRequest: z
    .object({ agent_id: agentId, entity: z.string().describe('The entity label.'), entity_type: z.string().describe('What kind of thing it is (person, place, organization, topic, ...).').optional(), request_id: requestId.optional() })
    .strict(),
  ExtractRequest: z
    .object({
      agent_id: agentId,
      message: z.string().describe('A message to extract durable facts from.').optional(),
      turns: z.array(z.object({ speaker: z.string().optional(), text: z.string() }).strict()).describe('Or the turns of a conversation.').optional(),
      remember: z.boolean().describe('Store the proposals as unverified facts.').optional(),
    })
    .strict(),
  UnifiedRequest: z
    .object({
      agent_id: agentId,
      query: z.string().describe('What to search for.'),
      tags: z.array(z.string()).describe('Only results with any of these tags.').optional(),
      limit: z.int().min(1).describe('At most this many results (default 10).').optional(),
      stm_weight: z.number().min(0).describe("Weight of the store's facts (default 1.0).").optional(),
      ltm_weight: z.number().min(0).describe("Weight of the vault's notes (default 0.7).").optional(),
      window_days: z.int().min(1).max(36_500).describe('Only facts from the last N days.').optional(),
      min_score: z.number().min(0).describe('Only facts whose decay score is at least this.').optional(),
    })
    .strict(),
  PromoteRequest: z
    .object({
      agent_id: agentId,
      fact_id: z.string().describe('The fact to promote; omitted with auto_detect or dry_run: every fact that qualifies.').optional(),
      auto_detect: z.boolean().optional(),
      dry_run: z.boolean().optional(),
      force: z.boolean().describe('Promote fact_id even if it does not qualify.').optional(),
    })
    .strict(),
  AnalyzeRequest: z.object({ message: z.string().describe('The message to analyze.') }).strict(),
  GcRequest: z
    .object({
      agent_id: agentId,
      dry_run: z.boolean().describe('Omitted or true: report only.').optional(),
      archive_instead: z.boolean().describe('Retire the facts (kept and listed with the reason) instead of erasing them.').optional(),
      limit: z.int().min(1).max(MAX_GC_LIMIT).describe('At most this many, lowest scores first.').optional(),
      request_id: requestId.optional(),
    })
    .strict(),
  AliasRequest: z
    .object({
      agent_id: agentId,
      term: z.string().describe('The word as a query would use it.'),
      equivalents: z.array(z.string()).min(1).describe('The words stored facts use for the same thing.'),
    })
    .strict(),
  BatchRecallRequest: z
    .object({
      agent_id: agentId,
      queries: z.array(z.string()).min(1).describe('Each is ranked on its own, then the results are merged.'),
      top_k: topK.optional(),
      weights: weightsBody.optional(),
      min_relevance: minRelevance.optional(),
      ...allOptional(recallFilters),
      min_confidence: minConfidence.optional(),
      confidence_weight: confidenceWeight.optional(),
      recipe: recipeName,
    })
    .strict(),
  ForgetRequest: z
    .object({
      agent_id: agentId,
      query: z.string(),
      top_k: topK.optional(),
      confirm: z.literal(true, { error: CONFIRM_PROBLEM }).describe('Required: forgetting by query retires every fact the query recalls.'),
    })
    .strict(),
  CheckpointRequest: z.object({ agent_id: agentId, state: z.record(z.string(), z.unknown()).describe('The agent state; omitted: {}.').optional(), request_id: requestId.optional() }).strict(),
} as const;

export type RequestName = keyof typeof REQUESTS;

// Responses -------------------------------------------------------------------------------------

const facts = z.array(FactJson);

export const RESPONSES = {
  Error: z
    .object({
      error: z
        .object({
          code: z.string().describe('invalid_argument, not_found, unauthenticated, method_not_allowed, resource_exhausted, internal, ...'),
          message: z.string().describe('For invalid_argument it starts with the field name.'),
          field: z.string().describe('The request field at fault, as the caller spelled it (agent_id or its alias agent, id for the path).').optional(),
          ref: z.string().describe('Internal errors only: quote it to find the details in the daemon log.').optional(),
        })
        .strict(),
    })
    .strict(),
  SignalWeights: SignalWeightsJson,
  Fact: FactJson,
  FactMatch: MatchJson,
  Retrieval: RetrievalJson,
  Feedback: FeedbackJson,
  Receipt: ReceiptJson,
  Stats: StatsJson,
  FactEnvelope: z.object({ fact: FactJson }).strict(),
  Touched: TouchJson,
  Observed: ObserveJson,
  Collected: GcJson,
  SaveAdvice: SaveAdviceJson,
  StorageReport: StorageReportJson,
  Promoted: PromoteJson,
  Unified: UnifiedJson,
  Extracted: ExtractJson,
  Clusters: ClusterReportJson,
  Consolidated: ConsolidateJson,
  ConsolidationRun: ConsolidationRunJson,
  ConsolidationCounters: ConsolidationCountersJson,
  Related: RelatedJson,
  RecipeEnvelope: z.object({ recipe: RecipeJson, changed: changedFlag, replayed: replayedFlag }).strict(),
  TokenCreated: z.object({ token: z.string().describe('The token itself, shown only here.'), info: TokenJson }).strict(),
  TokenList: z.object({ tokens: z.array(TokenJson) }).strict(),
  TokenEnvelope: z.object({ token: TokenJson }).strict(),
  WriteStatus: WriteStatusJson,
  RecipeList: z.object({ count, recipes: z.array(RecipeJson) }).strict(),
  SlotEnvelope: z.object({ slot: SlotJson, created: z.boolean().optional(), changed: changedFlag, replayed: replayedFlag }).strict(),
  SlotList: z.object({ count, slots: z.array(SlotJson), next_page_token: z.string() }).strict(),
  SlotContext: z.object({ count, slots: z.array(SlotJson) }).strict(),
  Context: ContextJson,
  SlotHistory: z.object({ record_id: z.string(), changes: z.array(SlotChangeJson) }).strict(),
  Graph: GraphJson,
  CompactReport: CompactReportJson,
  RecallAdvice: RecallAdviceJson,
  Remembered: z
    .object({
      fact: FactJson,
      duplicate: z.boolean().describe('true: an identical live fact was already remembered; `fact` is it and nothing was stored (200, not 201).'),
      replayed: z.boolean().describe('true: this request_id was used before; `fact` is what that write stored and nothing was stored now (200, not 201).'),
    })
    .strict(),
  RecallResult: z
    .object({
      agent_id: z.string(),
      query: z.string(),
      count,
      matched: count.describe('How many of the facts a query signal matched; the rest only fill top_k.'),
      facts,
      matches: z.array(MatchJson).describe('Per fact, same order: whether the query matched it, its score and the signals that ranked it.'),
      retrieval: RetrievalJson,
      feedback: FeedbackJson.optional(),
      kg_hints: z.array(KgHintJson).describe('With the knowledge graph on (kg or --kg), no min_confidence: up to three neighbours of the facts, after them.'),
    })
    .strict(),
  ExplainResult: z
    .object({
      agent_id: z.string(),
      query: z.string(),
      count,
      matched: count,
      explained: z.array(ReceiptJson),
      retrieval: RetrievalJson,
      feedback: FeedbackJson.optional(),
    })
    .strict(),
  BatchRecallResult: z
    .object({
      agent_id: z.string(),
      count: count.describe('Distinct facts in merged.'),
      merged: facts.describe('Best first; a fact several queries found appears once.'),
      results: z.array(
        z
          .object({
            query: z.string(),
            matched: count.describe('How many of its facts the query matched; the rest only fill top_k.'),
            facts,
            matches: z.array(MatchJson).describe('Per fact, same order: whether the query matched it, its score and the signals that ranked it.'),
            error: z.string().describe('This query failed; the others still ran.').optional(),
          })
          .strict(),
      ),
      retrieval: RetrievalJson.optional(),
    })
    .strict(),
  BatchRemembered: z
    .object({
      results: z
        .array(
          z
            .object({
              fact_id: z.string().describe('The stored fact, or the one that answers a replay or a duplicate.').optional(),
              replayed: z.boolean().optional(),
              duplicate: z.boolean().optional(),
              error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }).strict().describe('This item was refused and nothing of it written; the others still were.').optional(),
            })
            .strict(),
        )
        .describe('One per item, in order.'),
    })
    .strict(),
  FactPage: z
    .object({
      agent_id: z.string(),
      facts,
      next_page_token: z.string().describe('Pass as page_token for the next page; "" on the last page.'),
      scanned: z.int().describe('With a filter or order: facts read to make this page. A filtered page may hold fewer facts than asked (a call reads at most 20,000): go on with next_page_token.').optional(),
    })
    .strict(),
  Timeline: z
    .object({ agent_id: z.string(), days: z.array(z.object({ day: z.string().describe('YYYY-MM-DD (UTC).'), created: count, retired: count.describe('Of those, retired now.') }).strict()).describe('Days with facts, oldest first.') })
    .strict(),
  Lineage: z
    .object({
      fact_id: z.string(),
      sources: facts.describe('What the fact replaced or summarises (revisions, consolidation), and what those replaced, nearest first.'),
      successors: facts.describe('What replaced it, then what replaced that, up to the current version.'),
      missing: z.array(z.string()).describe('Ids named in the lineage that are no longer stored (erased).'),
    })
    .strict(),
  DecayCurve: z
    .object({
      fact_id: z.string(),
      model: z.string(),
      now: z.string(),
      score: z.number(),
      forget_threshold: z.number(),
      promote_threshold: z.number(),
      forgets_at: z.string().describe('When the score falls below the forget threshold if nothing uses the fact again (absent: not within ten years, or never collected: pinned, promoted or retired).').optional(),
      points: z.array(z.object({ at: z.string(), score: z.number() }).strict()).describe('The score from its last use on: at least 30 days ahead, and past forgets_at (up to a year).'),
    })
    .strict(),
  ReviseResult: z
    .object({
      fact: FactJson.describe('The replacement.'),
      retired_ids: z.array(z.string()),
      failures: z.array(z.object({ fact_id: z.string(), error: z.string() }).strict()).describe('Targets that could not be retired (the replacement is stored).'),
    })
    .strict(),
  AliasResult: z.object({ agent_id: z.string(), term: z.string(), equivalents: z.array(z.string()), fact_id: z.string(), duplicate: z.boolean().describe('The agent already had this alias: fact_id is that record and nothing was written.') }).strict(),
  DeleteResult: z.object({ agent_id: z.string(), fact_id: z.string(), deleted: z.literal(true) }).strict(),
  ForgetResult: z
    .object({
      forgotten: z.array(z.string()).describe('Ids of the facts retired by this call.'),
      failures: z.array(z.object({ id: z.string(), error: z.string() }).strict()).describe('Facts the query recalled that could not be retired (the others were).').optional(),
    })
    .strict(),
  Agents: z.object({ agents: z.array(z.string()) }).strict(),
  CheckpointSaved: CheckpointSavedJson,
  Checkpoint: CheckpointJson,
  CheckpointResumed: z.union([CheckpointJson, z.object({ found: z.literal(false), agent_id: z.string() }).strict()]).describe('The latest checkpoint; with on_missing=empty and none saved, {"found": false, "agent_id"}.'),
  Checkpoints: z.object({ agent_id: z.string(), count: z.int().min(0), checkpoints: z.array(CheckpointJson).describe('Newest first.') }).strict(),
  Health: z.object({ status: z.literal('ok') }).strict(),
  Ready: z.object({ status: z.enum(['ready', 'unready']), store: z.enum(['reachable', 'unreachable']) }).strict().describe('Whether the daemon can serve calls that read its store; 503 with status unready while it cannot reach it.'),
} as const;

export type ResponseName = keyof typeof RESPONSES;
export type ResponseOf<N extends ResponseName> = z.infer<(typeof RESPONSES)[N]>;
