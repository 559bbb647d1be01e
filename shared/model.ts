// The shapes both sides of the protocol speak in plain TypeScript (numbers for times, no bigint):
// the daemon's core produces them, the client library hands them to apps, and the JSON front
// doors print them. One definition each, so the three cannot drift apart.

export type FactKindName = 'fact' | 'alias' | 'summary';

/** A fact's fields as the store and the protocol carry them: absence is "" or 0. The daemon's
 *  stored record adds how it keeps its vector and its meta (as JSON text). Apps see `Fact`. */
export interface FactFields {
  /** Time-ordered, monotonic (ULID-like). */
  id: string;
  agentId: string;
  text: string;
  createdAt: number;
  /** When the remembered thing happened, if the writer said so. */
  occurredAt?: number;
  updatedAt: number;
  accessCount: number;
  lastAccessedAt: number;
  /** "verified", "inferred", "unverified", or "" (legacy: effectively inferred). */
  confidence: string;
  pinned: boolean;
  pinnedAt: number;
  /** Non-empty when retired: the replacement's id, or "agent" when forgotten. */
  supersededBy: string;
  kind: FactKindName;
  tags: string[];
  entities: string[];
  source: string;
  /** Text indexed with the fact but not returned as its text. */
  context: string;
  /** Importance in [0, 2]; 1 is neutral. */
  strength: number;
  /** The embedding model of the fact's vector ("" = none yet). */
  embedder: string;
  /** Times the fact was used (reinforced by touch or observed use); its creation is the first. */
  useCount: number;
  /** When it was last used (epoch ms); 0: not since it was written (its creation is its last use). */
  lastUsedAt: number;
  /** Observed uses (spaced-repetition reviews). */
  reviewCount: number;
  /** Observed uses in a conversation whose tags barely overlap the fact's. */
  crossDomainCount: number;
  /** Why a retired fact was retired by the daemon itself ("gc: score … below …"); "" otherwise. */
  retiredReason: string;
  /** When it was promoted to a long-term note (epoch ms); 0: never. */
  promotedAt: number;
  /** Typed links to other facts of the namespace (Relate; moved when a fact is retired). */
  relations: Relation[];
  /** The facts this one replaced or summarises (each one's superseded_by is this id). */
  replaces: string[];
  /** Entity label → what kind of thing it is, where known. */
  entityTypes: Record<string, string>;
}

/** The relation types a fact can have to another. */
export const RELATION_TYPES = ['related', 'causes', 'supports', 'contradicts', 'has_decision', 'consolidated_from'] as const;
export type RelationType = (typeof RELATION_TYPES)[number];

/** A knowledge-graph neighbour of the returned facts, appended after them (never one of them,
 *  never a retired fact; it has no confidence receipt). */
export interface KgHint {
  /** The neighbour's text (a fact) or label (an entity). */
  label: string;
  kind: 'fact' | 'entity';
  /** The neighbouring fact's id ("" for an entity). */
  factId: string;
  /** The relation type, or "co_mention". */
  relation: string;
  /** The returned fact it neighbours. */
  via: string;
}

/** A memory slot: a typed, scoped fact injected into every prompt (slots-v1). */
export interface Slot {
  id: string;
  slotName: string;
  /** Any JSON value. */
  slotValue: unknown;
  scope: string;
  /** "" = global. */
  projectId: string;
  locked: boolean;
  /** needs_review, approved, promoted, rejected, or archived once deleted. */
  status: string;
  /** human_reviewed (approved, promoted) or generated. */
  authority: string;
  evidenceRefs: string[];
  /** supported (it has evidence) or unverified. */
  verificationState: string;
  confidence: number;
  /** private, shared, organization or published. */
  visibility: string;
  createdAt: number;
  updatedAt: number;
  /** 1 at creation, + 1 on every change. */
  version: number;
}

/** What a slot write answers: the slot as it is after it; `changed` false when the write left it
 *  as it was (no version recorded); `replayed` when its request id was used before (the answer
 *  is then the first write's). An archive never creates (created: false). */
export interface SlotWritten {
  slot: Slot;
  created: boolean;
  changed: boolean;
  replayed: boolean;
}

/** What a slot write gives: slot_name always; a new slot needs slot_value too. Fields left out
 *  keep the stored slot's. */
export interface SlotWrite {
  slotName: string;
  slotValue?: unknown;
  scope?: string;
  projectId?: string;
  locked?: boolean;
  status?: 'needs_review' | 'approved' | 'promoted' | 'rejected';
  evidenceRefs?: string[];
  confidence?: number;
  visibility?: 'private' | 'shared' | 'organization' | 'published';
}

/** What a retrieval recipe sets. */
export interface RecipeFields {
  vectorTopK: number;
  lexicalTopK: number;
  graphDepth: number;
  reranker: boolean;
  tokenBudget: number;
  preferVerified: boolean;
  verifiedOnly: boolean;
  includeEvidence: boolean;
}

/** A retrieval recipe: a built-in (id "builtin:{name}", version 0) or a saved version. */
export interface Recipe extends RecipeFields {
  id: string;
  name: string;
  version: number;
  builtin: boolean;
  /** When this version was saved (0 for a built-in). */
  savedAt: number;
}

/** One change of a slot, as its history lists it. */
export interface SlotChange {
  recordId: string;
  version: number;
  at: number;
  /** Who made it: the caller's principal. */
  by: string;
  op: 'create' | 'update' | 'archive';
  before: Slot | null;
  after: Slot;
}

/** Lifetime consolidation totals of every namespace, kept in the store's meta. */
export interface ConsolidationCounters {
  runs: number;
  summariesWritten: number;
  factsRetired: number;
  /** Sources kept because they changed (pinned, used, retired) after the run chose them. */
  failures: number;
  /** Summaries a model proposed that failed validation (nothing was written). */
  rejectedProposals: number;
  /** When the last run ended (epoch ms); 0: never. */
  lastRunAt: number;
  /** Runs waiting or running now. */
  queued: number;
}

/** What one consolidation run did (or, dry, would do); `F` is how its summary fact is shaped. */
export interface ConsolidationRun<F = Fact> {
  dryRun: boolean;
  /** Live facts whose decay score is below the consolidation threshold now. */
  fadedCount: number;
  /** The summary written; undefined when nothing was (too few faded facts, a refused proposal, a dry run). */
  summary?: F;
  sourceIds: string[];
  retiredIds: string[];
  /** Sources kept, each with why (the summary is committed all the same). */
  failures: { factId: string; error: string }[];
  summarizer: string;
  /** Why the summarizer's proposal was refused ("" = it was not). */
  rejected: string;
  /** The summary's text (also in a dry run). */
  text: string;
  message: string;
  replayed: boolean;
}

/** A node of a graph neighbourhood: a fact (id = its fact id) or an entity (id "entity:<label>"). */
export interface GraphNode {
  id: string;
  kind: 'fact' | 'entity';
  /** A fact's text preview, or the entity's label. */
  label: string;
  /** A fact's kind ("fact", "summary"; "missing" when it is gone), or the entity's type ("" = untyped). */
  type: string;
  /** A fact: live (recallable); false once retired. An entity: named by a live fact. */
  live: boolean;
}

/** An edge: a relation type between facts, "mentions" (fact → entity), "co_mention" (entity ↔
 *  entity, weight = facts naming both) or "consolidated_from" (lineage, to a retired fact). */
export interface GraphEdge {
  from: string;
  to: string;
  type: string;
  weight: number;
}

export interface GraphView {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** A typed link from one fact to another of its namespace. */
export interface Relation {
  type: string;
  targetId: string;
  createdAt: number;
}

export type ConfidenceLabel = 'verified' | 'inferred' | 'unverified';

/** What a writer gives beside the text, at every door (the library's WriteOptions, the MCP and
 *  REST write fields). */
export interface WriteFields {
  /** Your own declaration of how sure you are (needs confidence-write-v1). */
  confidence?: ConfidenceLabel;
  /** When the remembered thing happened (epoch ms). */
  occurredAt?: number;
  tags?: string[];
  entities?: string[];
  source?: string;
  /** Text indexed with the fact but not returned as its text. */
  context?: string;
  /** A JSON object stored with the fact. */
  meta?: Record<string, unknown>;
  /** Store a copy even when an identical live fact exists. Daemons without write-dedup-v1
   *  never deduplicate, so there it changes nothing. */
  allowDuplicate?: boolean;
  /** Importance in [0, 2], 1 neutral: it multiplies the decay score (needs decay-v1). */
  strength?: number;
}

/** A fact as the library returns it and the JSON front doors print it: absent values are
 *  undefined (printed as null), meta is an object, times are milliseconds since the epoch. */
export interface Fact {
  /** Time-ordered, monotonic (ULID-like). */
  id: string;
  agentId: string;
  text: string;
  kind: FactKindName;
  createdAt: number;
  updatedAt: number;
  /** When the remembered thing happened, if the writer said so. */
  occurredAt?: number;
  accessCount: number;
  /** When a recall last returned it; undefined: never. */
  lastAccessedAt?: number;
  /** The writer's label; undefined: none (counts as inferred). A label written by another
   *  version that this one does not know is kept as it is (and counts as unverified). */
  confidence?: ConfidenceLabel | (string & {});
  pinned: boolean;
  pinnedAt?: number;
  /** Set when retired: the replacement's id, or "agent" when forgotten. */
  supersededBy?: string;
  tags: string[];
  entities: string[];
  source?: string;
  /** Text indexed with the fact but not returned as its text. */
  context?: string;
  meta: Record<string, unknown>;
  /** Importance in [0, 2]; 1 is neutral. */
  strength: number;
  /** The embedding model of the fact's vector; undefined: none yet. */
  embedder?: string;
  /** Times the fact was used (touch, observed use); its creation is the first, so a new fact
   *  has 1. 0 from daemons before decay-v1. */
  useCount: number;
  /** When it was last used; its creation time until then. Undefined from daemons before decay-v1. */
  lastUsedAt?: number;
  reviewCount: number;
  crossDomainCount: number;
  /** Why the daemon retired it (garbage collection); undefined otherwise. */
  retiredReason?: string;
  /** When it was promoted to a long-term note; undefined: never. */
  promotedAt?: number;
  /** Typed links to other facts of the namespace. [] from daemons before kg-v1. */
  relations: Relation[];
  /** The facts this one replaced or summarises. */
  replaces: string[];
  /** Entity label → what kind of thing it is, where known. */
  entityTypes: Record<string, string>;
}

export interface SignalWeights {
  vector: number;
  keyword: number;
  recency: number;
  /** The decay score as a ranking signal (0 unless asked for; daemons before decay-v1 have none). */
  decay: number;
  /** Facts linked to the query's entities (kg-v1; 0 unless asked for). */
  graph: number;
}

/** How a recall was made: returned with every recall so a caller can see why results came back. */
export interface RetrievalMetadata {
  weights: SignalWeights;
  /** Signals that ran, in fixed order: vector, keyword, recency. */
  signals: string[];
  eligibleCount: number;
  keywordCandidates: number;
  vectorCandidates: number;
  /** Vector neighbours searched in the end (after widening for filters). */
  vectorSearched: number;
  embedder: string;
  rrfK: number;
  /** Why a signal did not run. */
  notes: string[];
  minRelevance: number;
  filtered: boolean;
  /** Query terms added by aliases. */
  expandedTerms: string[];
  /** The effective confidence options; absent on legacy calls. */
  minConfidence?: string;
  confidenceWeight?: number;
  /** "confidence-v1" when confidence options were in effect, else "". */
  policy: string;
  kg: string;
  /** The recipe the call named, as resolved (recipe-recall-v1). */
  recipe?: AppliedRecipe;
}

/** The recipe a recall ran under: which version, and the settings it applied. */
export interface AppliedRecipe extends RecipeFields {
  /** "{name}@{version}", or "builtin:{name}". */
  id: string;
  name: string;
  version: number;
  /** The second stage that ran ("term-coverage-v1"), or "" with the reranker off. */
  rerankerStage: string;
}

/** What the reranker did to one fact: final = scoreBefore · factor. */
export interface RerankStep {
  stage: string;
  scoreBefore: number;
  /** The share of the query's distinct terms in the fact's text, in [0, 1]. */
  coverage: number;
  factor: number;
  rankBefore: number;
  rankAfter: number;
}

/** A record supporting a returned fact or slot. */
export interface Evidence {
  /** summary_source | supports | evidence_ref */
  kind: string;
  /** The supporting fact's id, or a slot's evidence reference as written. */
  ref: string;
  /** The supporting fact's text ("" when the reference names no fact of the namespace). */
  text: string;
  retired: boolean;
}

/** The weak-match block: advice only, it never changes the returned facts or their order. */
export interface WeakMatchFeedback {
  queryTerms: number;
  knownTerms: number;
  unknownTerms: string[];
  nearbyTerms: string[];
  advice: string;
}

/** An explain receipt: everything needed to recompute a returned fact's score, and where the
 *  fact came from. The ranks are the protocol's fixed fields, one per signal. */
export interface Receipt<F = Fact> {
  text: string;
  /** The final score that decided selection and order. */
  weight: number;
  ageDays: number;
  ranks: { vectorRank: number; keywordRank: number; recencyRank: number; decayRank: number; graphRank: number; fusedScore: number; k: number; weights: SignalWeights };
  provenance: { factId: string; writtenAt: number; supersededBy: string; confidence: string; pinned: boolean; agentId: string };
  kgLinks: string[];
  fact: F;
  /** Present when confidence options were in effect: how the final score was made. */
  ranking?: ConfidenceRanking;
  /** A query signal matched the fact; false: it only fills top_k. Absent from daemons before
   *  recall-matches-v1. */
  matched?: boolean;
  /** The recipe's id when the call named one. */
  recipe?: string;
  /** How the recipe's reranker moved this fact, when it ran. */
  rerank?: RerankStep;
  /** The records supporting it, when the recipe includes evidence. */
  evidence?: Evidence[];
}

/** How a receipt's final score was made when confidence options were in effect. */
export interface ConfidenceRanking {
  baseScore: number;
  finalScore: number;
  factor: number;
  effectiveConfidence: string;
  confidenceValue: number;
  confidenceWeight: number;
  policy: string;
}

export interface Stats {
  factCount: number;
  liveCount: number;
  retiredCount: number;
  pinnedCount: number;
  /** Bytes of the facts' text: the namespace's, or the whole store's. */
  textBytes: number;
  oldestCreatedAt: number;
  newestCreatedAt: number;
  agentCount: number;
  vectorCount: number;
  pendingEmbeddings: number;
  /** Bytes the whole store takes on disk, every namespace together, also in one namespace's stats
   *  (the store keeps no size per namespace; textBytes is the namespace's own). */
  storeBytes: number;
  embedder: string;
  /** Live facts by their confidence (no label counts as inferred); zeros from daemons before inspector-v1. */
  liveByConfidence: { verified: number; inferred: number; unverified: number };
}

/** What an observed use did to one named fact. */
export interface ObservedFact {
  factId: string;
  /** "reinforced", "not_found" (no such fact in the namespace) or "retired" (not reinforced). */
  status: string;
  /** The fact's tags barely overlap the conversation's: its strength was raised by 0.1. */
  crossDomain: boolean;
  useCount: number;
  reviewCount: number;
  strength: number;
}

/** What observing the use of facts did. */
export interface ObserveUsageResult {
  /** False when the daemon runs with auto-reinforce off: nothing was written (see `reason`). */
  reinforced: boolean;
  reason: string;
  /** One per named id, in order. */
  results: ObservedFact[];
  /** Facts reinforced, and of those how many were cross-domain. */
  count: number;
  crossDomainCount: number;
  replayed: boolean;
}

/** What a garbage collection did, or (dry run) would do. */
export interface GcResult {
  dryRun: boolean;
  removedCount: number;
  archivedCount: number;
  /** The sum of the collected facts' scores. */
  freedScoreSum: number;
  /** Lowest score first; `scores` in the same order. */
  factIds: string[];
  scores: number[];
  totalAffected: number;
  /** The forget threshold applied. */
  threshold: number;
  message: string;
  replayed: boolean;
}

/** Whether a message is worth saving (advice only; nothing is stored). Confidence above 0.7:
 *  save it; 0.4 to 0.7: ask the user first; below 0.4: do not. */
export interface SaveAdvice {
  shouldSave: boolean;
  confidence: number;
  suggestedEntities: string[];
  suggestedTags: string[];
  /** Importance in [0, 2] for the write. */
  suggestedStrength: number;
  reasoning: string;
}

/** Whether a message asks for something remembered, and what to search for. */
export interface RecallAdvice {
  shouldSearch: boolean;
  confidence: number;
  suggestedQuery: string;
  suggestedTags: string[];
  suggestedEntities: string[];
  reasoning: string;
}

/** One table of the store: entries and the bytes they span on disk (an estimate). */
export interface TableStats {
  name: string;
  entries: number;
  bytes: number;
}

/** `engram maintenance stats`: the store table by table, with what to do about it. */
export interface StorageReport {
  storeBytes: number;
  tables: TableStats[];
  factCount: number;
  retiredCount: number;
  /** What to do, if anything, each naming the command that does it. */
  hints: string[];
}

/** `engram maintenance compact`: the store's size before and after. */
export interface CompactReport {
  bytesBefore: number;
  bytesAfter: number;
  seconds: number;
}

/** A fact that qualifies for promotion (or was named and forced). */
export interface PromotionCandidate {
  id: string;
  contentPreview: string;
  /** "High score (0.82 >= 0.65)", "Frequently used (7 uses in 5.2 days)" or "Forced". */
  reason: string;
  score: number;
  useCount: number;
  ageDays: number;
}

/** What a promotion did, or (dry run) would do. */
export interface PromoteResult {
  dryRun: boolean;
  candidatesFound: number;
  promotedCount: number;
  promotedIds: string[];
  candidates: PromotionCandidate[];
  message: string;
}

/** One result of a unified search: a fact of the store (short-term) or a note of the vault (long-term). */
export interface UnifiedHit {
  source: 'stm' | 'ltm';
  /** The fact id; for a note, its fact id when Engram promoted it, else its path. */
  id: string;
  /** The fact's text, or the note's body. */
  content: string;
  /** The note's title ("" for a fact). */
  title: string;
  /** The note's path in the vault ("" for a fact). */
  path: string;
  /** Its score within its source (1 = that source's best), times the source's weight. */
  score: number;
}

export interface UnifiedResult {
  hits: UnifiedHit[];
  stmCount: number;
  ltmCount: number;
  /** False when the daemon has no vault (only the store was searched). */
  vault: boolean;
}

/** One fact an extractor proposed; with remember, what storing it came to. */
export interface ExtractedFactResult {
  text: string;
  /** preference, decision, date, commitment or correction. */
  kind: string;
  entities: string[];
  /** Stored (or already remembered: duplicate) as this fact. */
  factId?: string;
  duplicate?: boolean;
  /** Why storing it was refused. */
  error?: string;
}

export interface ExtractResult {
  /** "rules", or the chat model ("ollama:llama3.2"). */
  extractor: string;
  facts: ExtractedFactResult[];
  /** Set when the model's answer was refused (not valid JSON of the expected shape): nothing was stored. */
  rejected?: string;
  /** New facts stored (remember only). */
  stored: number;
}

/** A cluster of similar live facts (cluster_memories). Its id is derived from its sorted member
 *  ids: the same members, the same id. */
export interface FactCluster {
  id: string;
  size: number;
  /** The mean pairwise similarity of its members. */
  cohesion: number;
  /** "auto-merge" (cohesion >= 0.9), "llm-review" (>= 0.75) or "keep-separate". */
  suggestedAction: string;
  memoryIds: string[];
  contentPreviews: string[];
}

export interface DuplicatePair {
  id1: string;
  id2: string;
  content1Preview: string;
  content2Preview: string;
  similarity: number;
}

export interface ClusterReport {
  mode: 'clustering' | 'duplicate_detection';
  /** How similarity was measured: "vector" (every fact has one) or "tokens" (keyword terms). */
  similarity: 'vector' | 'tokens';
  threshold: number;
  clusters: FactCluster[];
  duplicates: DuplicatePair[];
  message: string;
}

/** consolidate_memories: the merged fact (dry run: what it would be) and what it retired. */
export interface ConsolidateResult {
  mode: 'dry_run' | 'apply';
  clusterId: string;
  merged: { text: string; tags: string[]; entities: string[]; useCount: number; strength: number; confidence: string };
  /** The members retired (superseded_by = factId); empty on a dry run. */
  retiredIds: string[];
  /** The merged fact ("" on a dry run). */
  factId: string;
  message: string;
}

/** What a context assembly is asked for (every door takes these). */
export interface ContextOptions {
  /** cheap | balanced | deep | forensic: a built-in's retrieval and a budget of 1,800 / 3,500 /
   *  8,000 / 14,000 tokens. Omitted (and no recipe): balanced. */
  mode?: 'cheap' | 'balanced' | 'deep' | 'forensic';
  /** A recipe by name instead: its retrieval and token_budget. */
  recipe?: string;
  /** Overrides the mode's or recipe's budget. */
  tokenBudget?: number;
  /** The project's slots and the global ones (a project slot shadows a global one). */
  projectId?: string;
  slotNames?: string[];
  /** Facts recall offers the packer (default: budget / 100, at least 8). */
  topK?: number;
}

/** One item of an assembled context. */
export interface ContextItem<F = Fact> {
  kind: 'slot' | 'pinned' | 'recalled';
  /** The slot's record id or the fact's id. */
  id: string;
  /** Its lines as they stand in the block. */
  text: string;
  /** Its tokens, counted alone. */
  tokens: number;
  /** A slot's confidence in [0, 1] (facts carry their label in fact.confidence). */
  confidence?: number;
  slot?: Slot;
  fact?: F;
  /** How recall ranked a recalled fact. */
  receipt?: Receipt<F>;
  evidence?: Evidence[];
}

/** Something that applied but is not in the block, and why. */
export interface ContextCut {
  kind: 'slot' | 'pinned' | 'recalled';
  id: string;
  /** Its tokens, counted alone (the reason adds what its section's heading would have cost). */
  tokens: number;
  reason: string;
}

/** An injection-ready context: slots, pinned facts, recalled facts, packed to a token budget. */
export interface ContextAssembly<F = Fact> {
  block: string;
  /** The block's tokens, counted whole; never more than tokenBudget. */
  tokens: number;
  tokenBudget: number;
  tokenizer: string;
  /** The mode that set the budget; "" when a recipe did. */
  mode: string;
  recipe: AppliedRecipe;
  items: ContextItem<F>[];
  cut: ContextCut[];
  retrieval: RetrievalMetadata;
}

/** What an agent token may do. read: recall, list, get, export; write: remember, revise, pin,
 *  forget, checkpoints; admin: erase, collect, consolidate, promote. Separate: admin is not write. */
export const RIGHTS = ['read', 'write', 'admin'] as const;
export type Right = (typeof RIGHTS)[number];

/** What a token opens: agent namespaces with rights, and the shared namespace (with slots and
 *  recipes) with its own rights. */
export interface Grant {
  /** The namespaces the token opens, sorted. */
  readonly agents: readonly string[];
  readonly rights: readonly Right[];
  /** Rights on the shared namespace and on what belongs to no agent (slots, recipes). */
  readonly shared: readonly Right[];
}

/** An agent token as listed: everything but its secret. */
export interface TokenInfo extends Grant {
  readonly id: string;
  readonly label: string;
  readonly createdAt: number;
  /** Who made it (a principal id). */
  readonly createdBy: string;
  /** 0 while it is live. */
  readonly revokedAt: number;
}

/** What became of a write sent with a request id. */
export interface WriteStatus<F> {
  committed: boolean;
  /** The namespace it went to ("" when none committed). */
  agentId: string;
  /** The kind of write ("fact", "revise", "patch", "delete", "checkpoint", …); "" when none committed. */
  op: string;
  /** The fact the write produced or changed, as stored now. */
  fact?: F;
  /** What the write recorded (ids, counts), snake_case as the write's own answer names them:
   *  {fact_id}, {fact_id, old_score, new_score} (touch), {record_id} (slot), a gc's or
   *  consolidation's report…; {} when none committed. */
  result: Record<string, unknown>;
}
