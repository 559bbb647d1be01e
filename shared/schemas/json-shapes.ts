// The JSON shapes the doors print (`engram … --json`, REST, the MCP payloads that carry facts or
// receipts), defined once in zod: the OpenAPI document and the MCP output schemas are made from
// these, and shared/json/shapes.ts builds values of exactly these types. Every object is closed
// (additionalProperties: false), so a key can only arrive through a schema revision.
import { z } from 'zod';
import { CONFIDENCE_LABELS, MAX_CONFIDENCE_WEIGHT } from '../validate.ts';
import { dateTime } from './json-schema.ts';

const count = z.int().min(0);
const strings = z.array(z.string());

// Keys added after release 0.2.0 are optional in the schema (so the release's output schemas
// stay revisions of it), though Engram always sends them.
export const SignalWeightsJson = z.object({ vector: z.number(), keyword: z.number(), recency: z.number(), decay: z.number().optional(), graph: z.number().optional() }).strict();

export const FactJson = z
  .object({
    id: z.string().describe('Time-ordered id: 26 characters, Crockford base32.'),
    agent_id: z.string(),
    text: z.string(),
    kind: z.enum(['fact', 'alias', 'summary']),
    created_at: dateTime(),
    occurred_at: dateTime().nullable(),
    updated_at: dateTime(),
    access_count: z.int(),
    last_accessed_at: dateTime().nullable(),
    confidence: z.string().nullable().describe('verified, inferred or unverified; null: no label (counts as inferred).'),
    pinned: z.boolean(),
    pinned_at: dateTime().nullable(),
    superseded_by: z.string().nullable().describe('null while live; "agent" once forgotten; a fact id once revised.'),
    tags: strings,
    entities: strings,
    source: z.string().nullable(),
    context: z.string().nullable(),
    meta: z.record(z.string(), z.unknown()),
    strength: z.number(),
    use_count: count.describe('Times the fact was used (touch, observed use); its creation is the first. 0 from daemons before decay-v1.'),
    last_used_at: dateTime().nullable().describe('When it was last used; its creation time until then. null from daemons before decay-v1.'),
    review_count: count,
    cross_domain_count: count,
    retired_reason: z.string().nullable().describe('Why the daemon retired it (garbage collection); null otherwise.'),
    promoted_at: dateTime().nullable().describe('When it was promoted to a long-term note; null: never.'),
    relations: z
      .array(z.object({ type: z.string(), target_id: z.string(), created_at: dateTime() }).strict())
      .describe('Typed links to other facts of the namespace (related, causes, supports, contradicts, has_decision, consolidated_from). [] from daemons before kg-v1.'),
    replaces: strings.describe('The facts this one replaced or summarises (each one\'s superseded_by is this id).'),
    entity_types: z.record(z.string(), z.string()).describe('Entity label → its kind (person, place, organization, topic, …), where known.'),
  })
  .strict();

export const EvidenceJson = z
  .object({
    kind: z.string().describe('summary_source (a fact this summary consolidated), supports (a fact linked to it as supporting it) or evidence_ref (a slot\'s reference).'),
    ref: z.string().describe('The supporting fact\'s id, or the reference as written.'),
    text: z.string().describe('The supporting fact\'s text ("" when the reference names no fact of the namespace).'),
    retired: z.boolean(),
  })
  .strict();

/** The recipe a recall ran under, as resolved. */
export const AppliedRecipeJson = z
  .object({
    id: z.string().describe('"{name}@{version}" for a saved recipe, "builtin:{name}" for a built-in.'),
    name: z.string(),
    version: count,
    reranker: z.string().describe('The second stage that ran ("term-coverage-v1"), or "" with the reranker off.'),
    graph_depth: count,
    lexical_top_k: count,
    vector_top_k: count,
    prefer_verified: z.boolean(),
    verified_only: z.boolean(),
    include_evidence: z.boolean(),
    token_budget: count,
  })
  .strict();

export const RerankJson = z
  .object({
    stage: z.string(),
    score_before: z.number(),
    coverage: z.number().describe("The share of the query's distinct terms the fact's text contains."),
    factor: z.number().describe('weight = score_before x factor, factor = 1 + 0.5 x coverage.'),
    rank_before: count,
    rank_after: count,
  })
  .strict();

/** How one recalled fact came to be returned. */
export const MatchJson = z
  .object({
    matched: z.boolean().describe('A query signal matched the fact (a keyword, or a vector similarity at or above the floor); false: it only fills the count.'),
    score: z.number(),
    signals: strings.describe('The signals that ranked it: vector, keyword, recency, decay.'),
    decay_score: z.number().describe('Its decay score at the time of the recall (use_count^beta x f(time since last use) x strength).'),
    evidence: z.array(EvidenceJson).describe("With a recipe that includes evidence: the records supporting it.").optional(),
  })
  .strict();

export const ReceiptJson = z
  .object({
    text: z.string(),
    weight: z.number(),
    age_days: z.number(),
    ranks: z
      .object({
        vector_rank: count,
        keyword_rank: count,
        recency_rank: count,
        decay_rank: count.optional(),
        graph_rank: count.optional(),
        fused_score: z.number(),
        k: z.number(),
        weights: SignalWeightsJson,
      })
      .strict(),
    provenance: z
      .object({
        fact_id: z.string(),
        written_at: dateTime().nullable(),
        superseded_by: z.string(),
        confidence: z.string(),
        pinned: z.boolean(),
        agent_id: z.string(),
      })
      .strict(),
    kg_links: strings,
    ranking: z
      .object({
        base_score: z.number(),
        final_score: z.number(),
        factor: z.number(),
        effective_confidence: z.string(),
        confidence_weight: z.number(),
        policy: z.string(),
      })
      .strict()
      .optional(),
    matched: z.boolean().optional(),
    recipe: z.string().describe('The recipe the call named ("deep@2", "builtin:deep").').optional(),
    rerank: RerankJson.describe("How the recipe's reranker moved this fact.").optional(),
    evidence: z.array(EvidenceJson).describe('With a recipe that includes evidence: the records supporting it.').optional(),
  })
  .strict();

/** How recall ran (the CLI's and REST's `retrieval`). */
export const RetrievalJson = z
  .object({
    weights: SignalWeightsJson,
    signals: strings,
    eligible_count: z.int(),
    keyword_candidates: z.int(),
    vector_candidates: z.int(),
    embedder: z.string(),
    rrf_k: z.int(),
    notes: strings,
    min_relevance: z.number(),
    filtered: z.boolean(),
    expanded_terms: strings,
    vector_searched: z.int(),
    min_confidence: z.enum(CONFIDENCE_LABELS).nullable().optional(),
    confidence_weight: z.number().min(0).max(MAX_CONFIDENCE_WEIGHT).optional(),
    policy: z.string().optional(),
    kg: z.string().optional(),
    recipe: AppliedRecipeJson.describe('The recipe the call named, as resolved.').optional(),
  })
  .strict()
  .describe('How recall ran. The confidence keys are present only when confidence options were in effect.');

export const FeedbackJson = z
  .object({ query_terms: z.int(), known_terms: z.int(), unknown_terms: strings, nearby_terms: strings, advice: z.string() })
  .strict()
  .describe('Present only when the query barely overlaps the namespace vocabulary.');

export const StatsJson = z
  .object({
    agent_id: z.string().nullable().describe('The namespace counted; null = the whole store.'),
    fact_count: z.int(),
    live_count: z.int(),
    retired_count: z.int(),
    pinned_count: z.int(),
    text_bytes: z.int().describe("Bytes of the facts' text in the namespace counted."),
    oldest_created_at: dateTime().nullable(),
    newest_created_at: dateTime().nullable(),
    agent_count: z.int(),
    vector_count: z.int(),
    pending_embeddings: z.int(),
    store_bytes: z.int().describe('Bytes the whole store takes on disk, every namespace together, also when agent_id names one (the store keeps no size per namespace).'),
    embedder: z.string(),
    live_by_confidence: z.object({ verified: z.int(), inferred: z.int(), unverified: z.int() }).strict().describe('Live facts by confidence (no label counts as inferred).'),
  })
  .strict();

export const CheckpointJson = z
  .object({ id: z.string(), created_at: dateTime(), state: z.record(z.string(), z.unknown()), message_count: z.int().describe('Length of state.messages when it is an array.').optional() })
  .strict();

export const CheckpointSavedJson = z.object({ agent_id: z.string(), checkpoint_id: z.string(), created_at: dateTime() }).strict();

export type FactJson = z.infer<typeof FactJson>;
export type ReceiptJson = z.infer<typeof ReceiptJson>;
export type RetrievalJson = z.infer<typeof RetrievalJson>;
export type MatchJson = z.infer<typeof MatchJson>;
export type EvidenceJson = z.infer<typeof EvidenceJson>;
export type AppliedRecipeJson = z.infer<typeof AppliedRecipeJson>;

/** One use of a fact (touch). */
export const TouchJson = z
  .object({
    fact: FactJson,
    old_score: z.number().describe('The decay score just before the touch.'),
    new_score: z.number().describe('The decay score just after it.'),
    replayed: z.boolean(),
  })
  .strict();

/** What observing the use of facts did. */
export const ObserveJson = z
  .object({
    reinforced: z.boolean().describe('false: the daemon runs with auto-reinforce off and nothing was written.'),
    reason: z.string().describe('Why nothing was reinforced ("" when reinforced).'),
    count: count,
    cross_domain_count: count,
    results: z.array(
      z
        .object({
          fact_id: z.string(),
          status: z.string().describe('reinforced, not_found or retired.'),
          cross_domain: z.boolean(),
          use_count: count,
          review_count: count,
          strength: z.number(),
        })
        .strict(),
    ),
    replayed: z.boolean(),
  })
  .strict();

/** What a garbage collection did, or (dry run) would do. */
export const GcJson = z
  .object({
    dry_run: z.boolean(),
    removed_count: count,
    archived_count: count,
    freed_score_sum: z.number(),
    fact_ids: strings.describe('Lowest decay score first.'),
    scores: z.array(z.number()).describe('Their decay scores, in the same order.'),
    total_affected: count,
    threshold: z.number().describe('The forget threshold applied.'),
    message: z.string(),
    replayed: z.boolean(),
  })
  .strict();

export type TouchJson = z.infer<typeof TouchJson>;
export type ObserveJson = z.infer<typeof ObserveJson>;
export type GcJson = z.infer<typeof GcJson>;

const confidenceBand = z.number().min(0).max(1).describe('Above 0.7: act on it; 0.4 to 0.7: ask the user first; below 0.4: do not.');

/** analyze_message: whether a message is worth saving. */
export const SaveAdviceJson = z
  .object({
    should_save: z.boolean(),
    confidence: confidenceBand,
    suggested_entities: strings,
    suggested_tags: strings,
    suggested_strength: z.number().describe('Importance in [0, 2] for save_memory (1 = normal, 1.5 important, 1.8+ critical).'),
    reasoning: z.string(),
  })
  .strict();

/** analyze_for_recall: whether a message asks for something remembered. */
export const RecallAdviceJson = z
  .object({
    should_search: z.boolean(),
    confidence: confidenceBand,
    suggested_query: z.string(),
    suggested_tags: strings,
    suggested_entities: strings,
    reasoning: z.string(),
  })
  .strict();

export type SaveAdviceJson = z.infer<typeof SaveAdviceJson>;
export type RecallAdviceJson = z.infer<typeof RecallAdviceJson>;

/** engram maintenance stats, GET /v1/maintenance/stats. */
export const StorageReportJson = z
  .object({
    store_bytes: count,
    tables: z.array(z.object({ name: z.string(), entries: count, bytes: count.describe("The store's estimate of the bytes the table spans on disk.") }).strict()),
    fact_count: count,
    retired_count: count,
    hints: strings.describe('What to do, if anything, each naming the command that does it.'),
  })
  .strict();

/** engram maintenance compact, POST /v1/maintenance/compact. */
export const CompactReportJson = z.object({ bytes_before: count, bytes_after: count, seconds: z.number() }).strict();

export type StorageReportJson = z.infer<typeof StorageReportJson>;
export type CompactReportJson = z.infer<typeof CompactReportJson>;

/** What a promotion did, or (dry run) would do (promote_memory, engram promote, POST /v1/promotions). */
export const PromoteJson = z
  .object({
    dry_run: z.boolean(),
    candidates_found: count,
    promoted_count: count,
    promoted_ids: strings,
    candidates: z.array(
      z.object({ id: z.string(), content_preview: z.string(), reason: z.string(), score: z.number(), use_count: count, age_days: z.number() }).strict(),
    ),
    message: z.string(),
  })
  .strict();

export type PromoteJson = z.infer<typeof PromoteJson>;

/** A unified search: the store's facts and the vault's notes ranked together. */
export const UnifiedJson = z
  .object({
    count,
    stm_count: count,
    ltm_count: count,
    vault: z.boolean().describe('false: the daemon has no vault; only the store was searched.'),
    results: z.array(
      z
        .object({
          source: z.enum(['stm', 'ltm']),
          id: z.string().describe('The fact id; for a note, its fact id when promoted, else its path.'),
          content: z.string(),
          title: z.string(),
          path: z.string(),
          score: z.number().describe("Within its source (1 = its best), times the source's weight."),
        })
        .strict(),
    ),
  })
  .strict();

export type UnifiedJson = z.infer<typeof UnifiedJson>;

/** memory_extract, engram extract, POST /v1/extractions. */
export const ExtractJson = z
  .object({
    extractor: z.string().describe('"rules" (offline), or the chat model, e.g. "ollama:llama3.2".'),
    count,
    stored: count.describe('New facts stored (remember only).'),
    facts: z.array(
      z
        .object({
          text: z.string(),
          kind: z.string().describe('preference, decision, date, commitment or correction.'),
          entities: strings,
          fact_id: z.string().optional(),
          duplicate: z.boolean().optional(),
          error: z.string().optional(),
        })
        .strict(),
    ),
    rejected: z.string().describe("Why the model's answer was refused; nothing was stored.").optional(),
  })
  .strict();

export type ExtractJson = z.infer<typeof ExtractJson>;

const ClusterJson = z
  .object({ id: z.string(), size: count, cohesion: z.number(), suggested_action: z.string(), memory_ids: strings, content_previews: strings })
  .strict();
const DuplicateJson = z.object({ id1: z.string(), id2: z.string(), content1_preview: z.string(), content2_preview: z.string(), similarity: z.number() }).strict();

/** cluster_memories, engram cluster, POST /v1/clusters: the seed's two payloads in one shape. */
export const ClusterReportJson = z
  .object({
    mode: z.enum(['clustering', 'duplicate_detection']),
    similarity: z.enum(['vector', 'tokens']).describe('How similarity was measured: the facts\' vectors when every one has a vector, else their keyword terms.'),
    threshold: z.number(),
    strategy: z.string().optional(),
    clusters_found: count.optional(),
    clusters: z.array(ClusterJson).optional(),
    duplicates_found: count.optional(),
    duplicates: z.array(DuplicateJson).optional(),
    message: z.string(),
  })
  .strict();

/** consolidate_memories, engram consolidate, POST /v1/clusters/{id}/consolidate. */
export const ConsolidateJson = z
  .object({
    mode: z.enum(['dry_run', 'apply']),
    cluster_id: z.string(),
    merged: z.object({ text: z.string(), tags: strings, entities: strings, use_count: count, strength: z.number(), confidence: z.string() }).strict(),
    retired_ids: strings,
    fact_id: z.string().describe('The merged fact ("" on a dry run).'),
    message: z.string(),
  })
  .strict();

export type ClusterReportJson = z.infer<typeof ClusterReportJson>;
export type ConsolidateJson = z.infer<typeof ConsolidateJson>;

/** A knowledge-graph neighbour appended after the ranked facts. */
export const KgHintJson = z
  .object({
    label: z.string().describe("The neighbour's text (a fact) or label (an entity)."),
    kind: z.enum(['fact', 'entity']),
    fact_id: z.string().describe('The neighbouring fact ("" for an entity).'),
    relation: z.string().describe('The relation type, or "co_mention" for an entity named with one of the returned facts\' entities.'),
    via: z.string().describe('The returned fact it neighbours.'),
  })
  .strict();

export const GraphJson = z
  .object({
    nodes: z.array(
      z
        .object({
          id: z.string().describe('A fact id, or "entity:<label>".'),
          kind: z.enum(['fact', 'entity']),
          label: z.string().describe("A fact's text preview, or the entity's label."),
          type: z.string().describe('A fact\'s kind (fact, summary; "missing" once erased), or the entity\'s type ("" = untyped).'),
          live: z.boolean().describe('A live (recallable) fact; an entity that a live fact names.'),
        })
        .strict(),
    ),
    edges: z.array(
      z
        .object({
          from: z.string(),
          to: z.string(),
          type: z.string().describe('A relation type, "mentions" (fact → entity), "co_mention" (entity → entity) or "consolidated_from" (lineage to a retired fact).'),
          weight: z.number().describe('co_mention: how many live facts name both; 1 otherwise.'),
        })
        .strict(),
    ),
  })
  .strict();

export const RelatedJson = z
  .object({
    fact: FactJson.describe('The fact the relation starts from, as stored now.'),
    changed: z.boolean().describe('false: it already was as asked; nothing was written.'),
    replayed: z.boolean(),
  })
  .strict();

export const ConsolidationRunJson = z
  .object({
    dry_run: z.boolean(),
    faded_count: count.describe('Live facts whose decay score is below the consolidation threshold now (never pinned or promoted ones).'),
    summary: FactJson.nullable().describe('The summary written; null when nothing was (too few faded facts, a refused proposal, a dry run).'),
    source_ids: strings.describe('The facts the summary consumes (in a dry run: would consume).'),
    retired_ids: strings,
    failures: z.array(z.object({ fact_id: z.string(), error: z.string() }).strict()).describe('Sources kept because they changed after the run chose them; the summary is committed all the same.'),
    summarizer: z.string(),
    rejected: z.string().describe('Why the summarizer\'s proposal was refused ("" = it was not); then nothing was written.'),
    text: z.string().describe("The summary's text (also in a dry run)."),
    message: z.string(),
    replayed: z.boolean(),
  })
  .strict();

export const ConsolidationCountersJson = z
  .object({
    runs: count,
    summaries_written: count,
    facts_retired: count,
    failures: count,
    rejected_proposals: count,
    last_run_at: dateTime().nullable(),
    queued: count.describe('Runs waiting or running now.'),
  })
  .strict();

export type KgHintJson = z.infer<typeof KgHintJson>;
export type GraphJson = z.infer<typeof GraphJson>;
export type RelatedJson = z.infer<typeof RelatedJson>;
export type ConsolidationRunJson = z.infer<typeof ConsolidationRunJson>;
export type ConsolidationCountersJson = z.infer<typeof ConsolidationCountersJson>;

export const SlotJson = z
  .object({
    record_id: z.string(),
    slot_name: z.string(),
    slot_value: z.unknown().describe('Any JSON value.'),
    scope: z.string(),
    project_id: z.string().nullable().describe('null: a global slot.'),
    locked: z.boolean(),
    status: z.string().describe('needs_review, approved, promoted, rejected, or archived once deleted.'),
    authority: z.enum(['human_reviewed', 'generated']),
    evidence_refs: strings,
    verification_state: z.enum(['supported', 'unverified']),
    confidence: z.number(),
    visibility: z.string(),
    created_at: dateTime(),
    updated_at: dateTime(),
    version: count,
  })
  .strict();

export const SlotChangeJson = z
  .object({ version: count, at: dateTime(), by: z.string(), op: z.enum(['create', 'update', 'archive']), before: SlotJson.nullable(), after: SlotJson })
  .strict();

export type SlotJson = z.infer<typeof SlotJson>;
export type SlotChangeJson = z.infer<typeof SlotChangeJson>;

export const RecipeJson = z
  .object({
    id: z.string().describe('"builtin:{name}", or "{name}@{version}" for a saved version.'),
    name: z.string(),
    version: count.describe('0 for a built-in.'),
    builtin: z.boolean(),
    saved_at: dateTime().nullable(),
    vector_top_k: count,
    lexical_top_k: count,
    graph_depth: count,
    reranker: z.boolean(),
    token_budget: count,
    prefer_verified: z.boolean(),
    verified_only: z.boolean(),
    include_evidence: z.boolean(),
  })
  .strict();

export type RecipeJson = z.infer<typeof RecipeJson>;

export const ContextItemJson = z
  .object({
    kind: z.enum(['slot', 'pinned', 'recalled']),
    id: z.string().describe("The slot's record id or the fact's id."),
    text: z.string().describe('Its lines as they stand in the block.'),
    tokens: count.describe('Its tokens, counted alone.'),
    confidence: z.number().describe("A slot's confidence in [0, 1].").optional(),
    slot: SlotJson.optional(),
    fact: FactJson.optional(),
    receipt: ReceiptJson.describe('How recall ranked a recalled fact.').optional(),
    evidence: z.array(EvidenceJson).optional(),
  })
  .strict();

export const ContextJson = z
  .object({
    agent_id: z.string(),
    query: z.string(),
    block: z.string().describe('The context to inject: the items under a heading per kind (slots, pinned facts, recalled facts).'),
    tokens: count.describe('The block counted whole with `tokenizer`; never more than token_budget.'),
    token_budget: count,
    tokenizer: z.string(),
    mode: z.string().describe('The mode that set the budget; "" when a recipe did.'),
    recipe: AppliedRecipeJson.describe('The retrieval in effect: the mode\'s built-in recipe, or the named one.'),
    count: count.describe('Items in the block.'),
    items: z.array(ContextItemJson),
    cut: z
      .array(z.object({ kind: z.enum(['slot', 'pinned', 'recalled']), id: z.string(), tokens: count.describe("Its tokens counted alone, as an item's."), reason: z.string().describe("Why; when the heading of its section would have come with it, what it would have cost then.") }).strict())
      .describe('What applied but is not in the block, and why.'),
    retrieval: RetrievalJson,
  })
  .strict();

export type ContextJson = z.infer<typeof ContextJson>;

const rights = z.array(z.enum(['read', 'write', 'admin']));

/** An agent token as listed (never its secret). */
export const TokenJson = z
  .object({
    id: z.string(),
    agents: strings.describe('The namespaces it opens.'),
    rights: rights.describe('Its rights there.'),
    shared: rights.describe('Its rights on the shared namespace, slots and recipes.'),
    label: z.string(),
    created_at: z.string(),
    created_by: z.string(),
    revoked_at: z.string().nullable().describe('null while the token is live.'),
  })
  .strict();

export type TokenJson = z.infer<typeof TokenJson>;

/** What became of a write sent with a request id. */
export const WriteStatusJson = z
  .object({
    committed: z.boolean(),
    agent_id: z.string().nullable().describe('The namespace it went to; null when none committed.'),
    op: z.string().nullable().describe('"fact", "revise", "patch", "delete", "checkpoint", ...; null when none committed.'),
    fact: FactJson.nullable().describe('The fact it produced or changed, as stored now.'),
    result: z.record(z.string(), z.unknown()).describe('What the write recorded (ids, counts), snake_case as its own answer names them: {fact_id} for a fact write, {fact_id, old_score, new_score} for a touch, {record_id} for a slot, a gc or consolidation report; {} when none committed.'),
  })
  .strict();

export type WriteStatusJson = z.infer<typeof WriteStatusJson>;
