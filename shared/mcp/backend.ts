// What the MCP tools need from Engram, whatever carries it: `engram mcp` implements it over the
// client library (client/mcp/backend.ts), the daemon's HTTP endpoint over its Memory core
// (daemon/http/mcp-backend.ts). Handlers validate arguments before calling it, so a backend gets
// checked values; it throws on failure and the handler turns the message into a tool error.
import type { AppliedRecipe, ContextAssembly, ContextOptions, Evidence, ClusterReport, ConsolidateResult, ExtractResult, GcResult, GraphView, KgHint, ObserveUsageResult, PromoteResult, Recipe, RecipeFields, RelationType, Slot, SlotWrite, SlotWritten, UnifiedResult, RecallAdvice, RetrievalMetadata, SaveAdvice, WriteFields } from '../model.ts';
import type { ConsolidationRunJson, FactJson, ReceiptJson } from '../schemas/json-shapes.ts';
import type { ConfidenceLabel } from '../validate.ts';

export interface SearchRequest {
  agentId: string;
  query: string;
  /** Already resolved: 1..max (the handler maps omitted and non-positive values to 8). */
  topK: number;
  explain: boolean;
  minConfidence?: ConfidenceLabel;
  confidenceWeight?: number;
  /** Knowledge-graph hints after the facts; undefined: the daemon's --kg. */
  kg?: boolean;
  /** A retrieval recipe by name. */
  recipe?: string;
}

/** A context assembly's settings as the tool takes them (checked again by the daemon). */
export type ContextRequest = ContextOptions;

/** A slot write as the MCP tool takes it (checked again by the daemon). */
export type SlotWriteRequest = SlotWrite;

export interface BatchRequest {
  agentId: string;
  queries: string[];
  topK: number;
  minConfidence?: ConfidenceLabel;
  confidenceWeight?: number;
  recipe?: string;
}

/** The weak-match feedback of a recall, as the daemon computed it. */
export interface WeakMatch {
  queryTerms: number;
  knownTerms: number;
  unknownTerms: string[];
  nearbyTerms: string[];
}

/** The confidence policy a recall ran under, as the daemon reported it. */
export interface RecallPolicy {
  /** Empty when the daemon ranked with no confidence policy (a legacy route). */
  policy: string;
  minConfidence?: string;
  confidenceWeight?: number;
  kg: string;
  /** The recipe the call named, as the daemon resolved it. */
  recipe?: AppliedRecipe;
}

export interface SearchResult {
  /** Fact texts, best first. */
  facts: string[];
  /** Per fact, same order: whether a query signal matched it (false: it only fills top_k).
   *  Undefined when the daemon does not say (before recall-matches-v1). */
  matched?: boolean[];
  /** With explain: one receipt per fact, same order. */
  receipts?: ReceiptJson[];
  feedback?: WeakMatch;
  policy: RecallPolicy;
  /** Knowledge-graph neighbours after the facts (absent or [] when the graph is off for the call). */
  hints?: KgHint[];
  /** Per fact, same order, when the recipe includes evidence: the records supporting it. */
  evidence?: Evidence[][];
}

export interface BatchResult {
  perQuery: { query: string; facts: string[]; error?: string }[];
  merged: string[];
  policy: RecallPolicy;
}

/** A write: the text and every optional field a door accepts. */
export interface WriteRequest extends WriteFields {
  agentId: string;
  text: string;
}

/** A committed fact as the write tools report it. */
export interface WrittenFact {
  factId: string;
  /** The stored label ("" = the legacy empty label). */
  confidence: string;
  /** An identical live fact existed: factId is that fact and nothing was stored. */
  duplicate: boolean;
  /** The fact has a vector (false while its embedding is pending, or with no embedder). */
  hasEmbedding: boolean;
}

/** A search ranked as usual, reporting each fact's decay score (search_memory). */
export interface ScoredSearchRequest {
  agentId: string;
  query: string;
  topK: number;
  /** Facts with any of these tags. */
  tags?: string[];
  windowDays?: number;
  /** Only facts whose decay score is at least this. */
  minScore?: number;
  /** false: keyword and recency only (the vector signal off). */
  useEmbeddings: boolean;
}

export interface ScoredFact {
  fact: FactJson;
  /** Its decay score at the time of the search. */
  score: number;
  /** Its recall score (the fused score that ordered it). */
  relevance: number;
  /** The query matched it (false: it only filled top_k). */
  matched: boolean;
}

export interface TouchReport {
  fact: FactJson;
  oldScore: number;
  newScore: number;
}

export interface GcRequest {
  dryRun: boolean;
  archiveInstead: boolean;
  limit?: number;
}

/** One fact of a batch write: stored (or already remembered), or refused with why. */
/** A refused fact's `error` and `field` are as the write said them, which may name the item in
 *  its own batch ("items[3].text"); the tool names it as its caller sent it (write.ts). */
export type BatchWritten = { factId: string; duplicate: boolean; error?: undefined } | { error: string; field?: string; factId?: undefined };

/** One page of memory slots: nextPageToken is "" on the last. */
export interface SlotPage {
  slots: Slot[];
  nextPageToken: string;
}

export interface FactPage {
  facts: FactJson[];
  nextPageToken: string;
}

export interface StoredCheckpoint {
  id: string;
  /** ms since the epoch. */
  createdAt: number;
  state: Record<string, unknown>;
  messageCount?: number;
}

export interface McpBackend {
  search(req: SearchRequest): Promise<SearchResult>;
  searchBatch(req: BatchRequest): Promise<BatchResult>;
  add(req: WriteRequest): Promise<WrittenFact>;
  /** Several facts of one agent in one call, each stored or refused on its own, in order. */
  addMany(agentId: string, facts: Omit<WriteRequest, 'agentId'>[]): Promise<BatchWritten[]>;
  alias(agentId: string, term: string, equivalents: string[]): Promise<void>;
  /** `stateJson` is a JSON object as text ("" = {}). */
  checkpointSave(agentId: string, stateJson: string): Promise<{ id: string; createdAt: number }>;
  /** The latest checkpoint, or undefined when the agent has none. */
  checkpointResume(agentId: string): Promise<StoredCheckpoint | undefined>;
  /** Replaces the live fact(s) `target` names (a fact id or an exact fact text, see targets.ts)
   *  with a new fact `text`; an omitted label is the daemon's conservative one. */
  reviseByText(agentId: string, target: string, text: string, confidence?: ConfidenceLabel): Promise<WrittenFact>;
  forget(agentId: string, target: string): Promise<void>;
  pin(agentId: string, target: string): Promise<void>;
  unpin(agentId: string, target: string): Promise<void>;
  /** Stores `entity` among the entities of the fact(s) `target` names. */
  link(agentId: string, target: string, entity: string): Promise<void>;
  /** The id of the one live fact `name` names (a fact id, or an exact fact text: see targets.ts);
   *  a refusal names `field`. */
  factIdNamed(agentId: string, name: string, field: string): Promise<string>;
  /** Adds (or removes) `fromId --type--> toId`. The ids go to the daemon as given: it checks
   *  them, naming from_id or to_id, as for every other door. */
  relate(agentId: string, fromId: string, type: RelationType, toId: string, remove: boolean): Promise<{ fact: FactJson; changed: boolean }>;
  readGraph(agentId: string, around: { factId: string } | { entity: string }, limit?: number): Promise<GraphView>;
  /** One consolidation run (Consolidate). */
  consolidateRun(agentId: string, dryRun: boolean): Promise<ConsolidationRunJson>;
  putSlot(write: SlotWriteRequest): Promise<SlotWritten>;
  /** One page of slots; nextPageToken "" on the last. */
  listSlots(options: { projectId?: string; query?: string; archived: boolean; limit: number; pageToken?: string }): Promise<SlotPage>;
  deleteSlot(recordId: string): Promise<Slot>;
  slotContext(options: { projectId?: string; slotNames?: string[] }): Promise<Slot[]>;
  assembleContext(agentId: string, query: string, options: ContextRequest): Promise<ContextAssembly>;
  listRecipes(): Promise<Recipe[]>;
  saveRecipe(name: string, fields: Partial<RecipeFields>): Promise<Recipe>;
  list(agentId: string, pageSize: number, pageToken: string): Promise<FactPage>;
  /** Throws a not-found error naming the fact when the agent has no such fact. */
  get(agentId: string, factId: string): Promise<FactJson>;
  /** Retires one fact by id; returns it as it now is. */
  forgetFact(agentId: string, factId: string): Promise<FactJson>;
  /** Erases one fact by id. */
  deleteFact(agentId: string, factId: string): Promise<void>;
  searchScored(req: ScoredSearchRequest): Promise<ScoredFact[]>;
  touch(agentId: string, factId: string, boostStrength: boolean): Promise<TouchReport>;
  observeUsage(agentId: string, factIds: string[], contextTags: string[]): Promise<ObserveUsageResult>;
  collectGarbage(agentId: string, req: GcRequest): Promise<GcResult>;
  promote(agentId: string, req: { factId?: string; autoDetect: boolean; dryRun: boolean; force: boolean; target: string }): Promise<PromoteResult>;
  searchUnified(agentId: string, query: string, options: { tags?: string[]; limit: number; stmWeight: number; ltmWeight: number; windowDays?: number; minScore?: number }): Promise<UnifiedResult>;
  extract(agentId: string, input: { message: string } | { turns: { speaker?: string; text: string }[] }, remember: boolean): Promise<ExtractResult>;
  cluster(agentId: string, req: { threshold: number; maxClusterSize: number; findDuplicates: boolean; duplicateThreshold: number }): Promise<ClusterReport>;
  consolidate(agentId: string, clusterId: string, mode: 'dry_run' | 'apply'): Promise<ConsolidateResult>;
  analyzeMessage(message: string): Promise<SaveAdvice>;
  analyzeForRecall(message: string): Promise<RecallAdvice>;
}

/** The recall policy an MCP result reports, read from the retrieval metadata (either side's). */
export function policyOf(r: RetrievalMetadata | undefined): RecallPolicy {
  return {
    policy: r?.policy ?? '',
    ...(r?.minConfidence !== undefined ? { minConfidence: r.minConfidence } : {}),
    ...(r?.confidenceWeight !== undefined ? { confidenceWeight: r.confidenceWeight } : {}),
    kg: r?.kg ?? '',
    ...(r?.recipe ? { recipe: r.recipe } : {}),
  };
}

/** The per-fact evidence of a recall, when its recipe included evidence. */
export function evidenceOfMatches(matches: readonly { evidence?: Evidence[] }[] | undefined): { evidence?: Evidence[][] } {
  return matches?.some((m) => m.evidence?.length) ? { evidence: matches.map((m) => m.evidence ?? []) } : {};
}
