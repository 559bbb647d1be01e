// The objects the library's calls take, each type with the list of its keys beside it: a call
// refuses a key its list lacks (check.knownOptions) before anything is sent, as REST and MCP
// refuse an unknown field, so a misspelt option (tagz) is an error, not a fact stored without it.
import type { EngramError } from '../shared/errors.ts';
import type { ConfidenceLabel, ContextOptions, RecipeFields, Right, SignalWeights, SlotWrite, WriteFields } from '../shared/model.ts';
import type { FactRestore } from '../shared/restore.ts';

/** Every key of T, each once: `satisfies KeysOf<T>` fails tsc when a list lacks a key of its type
 *  or names one the type lacks, so adding an option to a type without its list does not build. */
export type KeysOf<T> = { readonly [K in keyof T]-?: true };

export interface ConnectOptions {
  /** Data dir whose discovery file names the daemon (default, as the CLI finds it: $ENGRAM_HOME, else
   *  the nearest .engram/ from the working directory up, else the per-user data directory). */
  dataDir?: string;
  /** Explicit gRPC target instead of discovery: "unix:/path/engram.sock" or "127.0.0.1:7777". */
  address?: string;
  /** Bearer token (required on TCP); read from the discovery file when not given. */
  token?: string;
  clientName?: string;
  /** Per-call deadline in ms once a call is sent (default 30 s). */
  timeoutMs?: number;
  /** How long a connection attempt may take before a call fails (default 10 s); nothing is sent
   *  meanwhile. An attempt that fails (nothing listens at the address: the daemon stopped, was
   *  killed or never started) fails the call at once with UnreachableError; a daemon back at the
   *  address is found again by the next call. */
  connectTimeoutMs?: number;
  /** Confidence weight for recalls that do not set one; overrides the daemon's advertised default. */
  defaultConfidenceWeight?: number;
  /** Every call carries the highest change number this client's writes committed, so it is
   *  served only once the daemon has applied them: reads see this client's writes through any
   *  daemon of a shared store (read-your-writes-v1; default true). */
  readYourWrites?: boolean;
  /** A change number (another client's `lastChange`) every call waits for, besides this
   *  client's own writes. */
  minChange?: number;
  /** Concurrent puts to one namespace go to the daemon as one batch call, each with its own
   *  request id, result and error, exactly as single puts (batch-write-facts-v1; default true).
   *  false: one Put call per put. */
  coalesceWrites?: boolean;
  /** Called when a call finds the daemon unreachable (nothing was sent), before the call fails. The
   *  hook may start a daemon: the call then waits up to connectTimeoutMs for it and goes on (a
   *  write too, as it never left). Or it throws the error the call fails with (why the daemon
   *  cannot be had, what to do). Calls that find the daemon gone together share one run of it. */
  onUnreachable?: (error: EngramError) => Promise<void>;
}
export const CONNECT_KEYS = {
  dataDir: true, address: true, token: true, clientName: true, timeoutMs: true, connectTimeoutMs: true,
  defaultConfidenceWeight: true, readYourWrites: true, minChange: true, coalesceWrites: true, onUnreachable: true,
} as const satisfies KeysOf<ConnectOptions>;

/** A write's request id, the only option of most writes. */
export interface RequestOptions {
  /** Idempotency key; a fresh UUID when omitted. */
  requestId?: string;
}
export const REQUEST_KEYS = { requestId: true } as const satisfies KeysOf<RequestOptions>;

export interface WriteOptions extends WriteFields, RequestOptions {
  /** What an export carried of the fact that the daemon otherwise assigns a new one: its use
   *  statistics, a summary's kind, the facts it replaced (restore-write-v1; a put's only). */
  restore?: FactRestore;
  /** @deprecated The same as text; `meta` wins when both are given. */
  metaJson?: string;
}
export const WRITE_KEYS = {
  ...REQUEST_KEYS, confidence: true, occurredAt: true, tags: true, entities: true, source: true, context: true, meta: true,
  allowDuplicate: true, strength: true, restore: true, metaJson: true,
} as const satisfies KeysOf<WriteOptions>;

export const RESTORE_KEYS = {
  useCount: true, lastUsedAt: true, reviewCount: true, crossDomainCount: true, kind: true, replaces: true, promotedAt: true,
} as const satisfies KeysOf<FactRestore>;

/** One fact of a batch write. */
export interface BatchItem extends WriteOptions {
  agentId: string;
  text: string;
}
export const BATCH_ITEM_KEYS = { ...WRITE_KEYS, agentId: true, text: true } as const satisfies KeysOf<BatchItem>;

export interface TouchOptions extends RequestOptions {
  /** Also add 0.1 to the fact's strength (at most 2). */
  boostStrength?: boolean;
}
export const TOUCH_KEYS = { ...REQUEST_KEYS, boostStrength: true } as const satisfies KeysOf<TouchOptions>;

export interface ObserveUsageOptions extends RequestOptions {
  /** The conversation's tags: a fact whose tags barely overlap them was used across domains. */
  contextTags?: string[];
}
export const OBSERVE_USAGE_KEYS = { ...REQUEST_KEYS, contextTags: true } as const satisfies KeysOf<ObserveUsageOptions>;

export interface GcOptions extends RequestOptions {
  /** True (the default): report what would be collected, change nothing. */
  dryRun?: boolean;
  /** Retire the facts (kept, listed, not recalled) instead of erasing them. */
  archiveInstead?: boolean;
  /** At most this many, lowest scores first. */
  limit?: number;
}
export const GC_KEYS = { ...REQUEST_KEYS, dryRun: true, archiveInstead: true, limit: true } as const satisfies KeysOf<GcOptions>;

export interface PromoteOptions {
  factId?: string;
  autoDetect?: boolean;
  dryRun?: boolean;
  force?: boolean;
  target?: string;
}
export const PROMOTE_KEYS = { factId: true, autoDetect: true, dryRun: true, force: true, target: true } as const satisfies KeysOf<PromoteOptions>;

export interface UnifiedSearchOptions {
  tags?: string[];
  limit?: number;
  stmWeight?: number;
  ltmWeight?: number;
  windowDays?: number;
  minScore?: number;
}
export const UNIFIED_SEARCH_KEYS = { tags: true, limit: true, stmWeight: true, ltmWeight: true, windowDays: true, minScore: true } as const satisfies KeysOf<UnifiedSearchOptions>;

export interface ExtractOptions extends RequestOptions {
  /** Store the extracted facts (as unverified), not only propose them. */
  remember?: boolean;
}
export const EXTRACT_KEYS = { ...REQUEST_KEYS, remember: true } as const satisfies KeysOf<ExtractOptions>;

export interface ClusterOptions {
  threshold?: number;
  maxClusterSize?: number;
  findDuplicates?: boolean;
  duplicateThreshold?: number;
}
export const CLUSTER_KEYS = { threshold: true, maxClusterSize: true, findDuplicates: true, duplicateThreshold: true } as const satisfies KeysOf<ClusterOptions>;

export interface ConsolidateMemoriesOptions extends RequestOptions {
  mode?: 'dry_run' | 'apply';
  threshold?: number;
  maxClusterSize?: number;
}
export const CONSOLIDATE_MEMORIES_KEYS = { ...REQUEST_KEYS, mode: true, threshold: true, maxClusterSize: true } as const satisfies KeysOf<ConsolidateMemoriesOptions>;

export interface RelateOptions extends RequestOptions {
  /** Remove the relation instead of adding it. */
  remove?: boolean;
}
export const RELATE_KEYS = { ...REQUEST_KEYS, remove: true } as const satisfies KeysOf<RelateOptions>;

export interface LinkEntityOptions extends RequestOptions {
  /** The entity's type, if known. */
  type?: string;
}
export const LINK_ENTITY_KEYS = { ...REQUEST_KEYS, type: true } as const satisfies KeysOf<LinkEntityOptions>;

export interface ReadGraphOptions {
  limit?: number;
}
export const READ_GRAPH_KEYS = { limit: true } as const satisfies KeysOf<ReadGraphOptions>;

export interface ConsolidateOptions extends RequestOptions {
  dryRun?: boolean;
}
export const CONSOLIDATE_KEYS = { ...REQUEST_KEYS, dryRun: true } as const satisfies KeysOf<ConsolidateOptions>;

export const SLOT_WRITE_KEYS = {
  slotName: true, slotValue: true, scope: true, projectId: true, locked: true, status: true, evidenceRefs: true, confidence: true, visibility: true,
} as const satisfies KeysOf<SlotWrite>;

export interface ListSlotsOptions {
  projectId?: string;
  query?: string;
  /** Archived slots instead of live ones. */
  archived?: boolean;
  limit?: number;
  pageToken?: string;
}
export const LIST_SLOTS_KEYS = { projectId: true, query: true, archived: true, limit: true, pageToken: true } as const satisfies KeysOf<ListSlotsOptions>;

export interface SlotContextOptions {
  projectId?: string;
  slotNames?: string[];
}
export const SLOT_CONTEXT_KEYS = { projectId: true, slotNames: true } as const satisfies KeysOf<SlotContextOptions>;

export const CONTEXT_KEYS = { mode: true, recipe: true, tokenBudget: true, projectId: true, slotNames: true, topK: true } as const satisfies KeysOf<ContextOptions>;

export const RECIPE_FIELD_KEYS = {
  vectorTopK: true, lexicalTopK: true, graphDepth: true, reranker: true, tokenBudget: true, preferVerified: true, verifiedOnly: true, includeEvidence: true,
} as const satisfies KeysOf<RecipeFields>;

/** What list() narrows a namespace by (inspector-v1); an unset field is no condition. */
export interface FactFilter {
  /** Every one of these words is in the fact's text or context (case-insensitive). */
  text?: string;
  /** One of these labels (no label counts as inferred). */
  confidence?: ConfidenceLabel[];
  pinned?: boolean;
  retired?: boolean;
  /** Every one of these tags / entities (case-insensitive). */
  tags?: string[];
  entities?: string[];
  /** Time ranges: after is inclusive, before exclusive. */
  createdAfter?: Date | number;
  createdBefore?: Date | number;
  occurredAfter?: Date | number;
  occurredBefore?: Date | number;
}
export const FACT_FILTER_KEYS = {
  text: true, confidence: true, pinned: true, retired: true, tags: true, entities: true,
  createdAfter: true, createdBefore: true, occurredAfter: true, occurredBefore: true,
} as const satisfies KeysOf<FactFilter>;

export interface ListOptions {
  pageSize?: number;
  pageToken?: string;
  /** "newest" first needs inspector-v1 (default "oldest"). */
  order?: 'oldest' | 'newest';
  /** Needs inspector-v1: refused before sending by an older daemon, which would ignore it. */
  filter?: FactFilter;
}
export const LIST_KEYS = { pageSize: true, pageToken: true, order: true, filter: true } as const satisfies KeysOf<ListOptions>;

export interface RecallFilters {
  /** Only facts whose event time (occurred_at, else created_at) is within the last N days. */
  windowDays?: number;
  tagsAny?: string[];
  tagsAll?: string[];
  createdAfter?: number;
  createdBefore?: number;
  occurredAfter?: number;
  occurredBefore?: number;
  /** Only facts whose decay score is at least this now (needs decay-v1). */
  minDecayScore?: number;
}
export const RECALL_FILTER_KEYS = {
  windowDays: true, tagsAny: true, tagsAll: true, createdAfter: true, createdBefore: true, occurredAfter: true, occurredBefore: true, minDecayScore: true,
} as const satisfies KeysOf<RecallFilters>;

export const SIGNAL_WEIGHT_KEYS = { vector: true, keyword: true, recency: true, decay: true, graph: true } as const satisfies KeysOf<SignalWeights>;

/** Options beyond topK need a daemon with recall-options-v1; without them the legacy RPCs are used. */
export interface RecallOptions {
  topK?: number;
  /** Unset weights use the daemon's configured defaults; 0 turns a signal off. */
  weights?: Partial<SignalWeights>;
  /** 0 = no floor; in (0, 1] drops results below that fraction of the top score. */
  minRelevance?: number;
  filters?: RecallFilters;
  /** Only facts at least this confident (needs confidence-recall-v1). */
  minConfidence?: 'verified' | 'inferred' | 'unverified';
  /** final = B · (1 + w · c), w in [0, 0.5]; omitted: the dial option, else the daemon's default, else 0. */
  confidenceWeight?: number;
  /** Knowledge-graph neighbour hints after the facts (true) or none (false); omitted: the
   *  daemon's --kg setting (needs kg-v1). */
  kg?: boolean;
  /** A retrieval recipe by name (needs recipe-recall-v1): its candidate counts, graph depth,
   *  reranker, verified preference or rule and evidence, under any option set here. */
  recipe?: string;
  /** true: ask for weak-match advice (`feedback`: unknown query words, nearby stored ones, an
   *  alias to add), which only RecallWithOptions gives. A daemon without recall-options-v1 has
   *  none to give: the recall is still served, without advice, since advice never changes results. */
  advice?: boolean;
}
export const RECALL_KEYS = {
  topK: true, weights: true, minRelevance: true, filters: true, minConfidence: true, confidenceWeight: true, kg: true, recipe: true, advice: true,
} as const satisfies KeysOf<RecallOptions>;

export interface BatchRecallOptions extends RecallOptions {
  /** Whose facts each query recalls (default "agent"). */
  scope?: 'agent' | 'shared' | 'all';
}
export const BATCH_RECALL_KEYS = { ...RECALL_KEYS, scope: true } as const satisfies KeysOf<BatchRecallOptions>;

export interface DoctorOptions {
  /** Rebuild every derived index, not only check it. */
  rebuild?: boolean;
}
export const DOCTOR_KEYS = { rebuild: true } as const satisfies KeysOf<DoctorOptions>;

/** What a new agent token opens (see createToken). */
export interface TokenGrant {
  agents: string[];
  /** Default read and write. */
  rights?: Right[];
  /** On the shared namespace; default read. */
  shared?: Right[];
  label?: string;
}
export const TOKEN_GRANT_KEYS = { agents: true, rights: true, shared: true, label: true } as const satisfies KeysOf<TokenGrant>;

export interface WriteStatusOptions {
  /** The namespace to look in (default: every one this caller may read or write). */
  agentId?: string;
}
export const WRITE_STATUS_KEYS = { agentId: true } as const satisfies KeysOf<WriteStatusOptions>;
