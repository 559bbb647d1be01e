// Capability names and the release profiles that advertise them.
// A capability is additive: a daemon either has it (and every method it names works) or
// answers UNIMPLEMENTED for those methods. `engram daemon --compat <profile>` serves an older
// profile exactly, so every client can be tested against every older daemon.

export const Capability = {
  /** PutWithOptions, Revise: writes that carry a confidence label. */
  ConfidenceWrite: 'confidence-write-v1',
  ConfidenceRecall: 'confidence-recall-v1',
  ConfidenceLifecycle: 'confidence-lifecycle-v1',
  ConfidenceSharedWrite: 'confidence-shared-write-v1',
  /** A repeated write request_id returns the original result instead of writing twice. */
  IdempotentWrite: 'idempotent-write-v1',
  /** AdminService.Doctor: index checks and rebuilds with progress. */
  Doctor: 'doctor-v1',
  /** RecallWithOptions: per-call signal weights, min_relevance, filters, scope, explain. */
  RecallOptions: 'recall-options-v1',
  BatchRecall: 'batch-recall-v1',
  Alias: 'alias-v1',
  /** AdminService.Reindex: re-embed after a model switch, resumable. */
  Reindex: 'reindex-v1',
  /** CheckpointService: save and resume an agent's working state. */
  Checkpoint: 'checkpoint-v1',
  /** Recall says of each returned fact whether the query matched it (FactMatch). */
  RecallMatches: 'recall-matches-v1',
  /** A write identical to a live fact returns that fact (duplicate: true); allow_duplicate stores a copy. */
  WriteDedup: 'write-dedup-v1',
  /** Default signal weights belong to the embedder (the offline one weights vectors lightly) and
   *  Hello advertises the effective ones (default_signal_weights). */
  EmbedderWeights: 'embedder-weights-v1',
  /** BatchPut: many facts in one call, each with its own request id and result. */
  BatchWrite: 'batch-write-v1',
  /** Facts fade unless used: every fact carries use_count, last_used and strength; recall has the
   *  decay signal (weight 0 unless asked for) and the min_decay_score filter. */
  Decay: 'decay-v1',
  /** DecayService.Touch and ObserveUsage: durable reinforcement of used facts. */
  Reinforce: 'reinforce-v1',
  /** DecayService.CollectGarbage: retire or erase faded facts. */
  Gc: 'gc-v1',
  /** AnalysisService: whether a message is worth saving, or asks for something remembered. */
  Analysis: 'analysis-v1',
  /** AdminService.StorageStats and Compact: storage statistics with hints, and compaction. */
  Maintenance: 'maintenance-v1',
  /** DecayService.Promote: valuable facts become long-term notes in a markdown vault. */
  Promote: 'promote-v1',
  /** VaultService.SearchUnified: the store and the vault's notes ranked together. */
  UnifiedSearch: 'unified-search-v1',
  /** ExtractionService.Extract: durable facts proposed from a message or conversation. */
  Extract: 'extract-v1',
  /** ClusterService: clusters of similar facts with stable ids, duplicates, consolidation. */
  Clusters: 'clusters-v1',
  /** ConsolidationService: faded facts summarised into summaries that replace them, on request
   *  and after every N writes; lifetime counters. Summaries are recallable. */
  Consolidate: 'consolidate-v1',
  /** GraphService (Relate, LinkEntity, ReadGraph); facts carry relations; recall's kg option
   *  (neighbour hints), kg_links in receipts and the graph signal. */
  KnowledgeGraph: 'kg-v1',
  /** MemoryControlsService: typed, scoped, lockable memory slots with governance and history. */
  Slots: 'slots-v1',
  /** Retrieval recipes: the six built-ins, saved versions merged over them, their history. */
  Recipes: 'recipes-v1',
  /** Recall and context under a named recipe (options.recipe): candidate counts, graph depth,
   *  reranker, verified preference or rule, evidence. */
  RecipeRecall: 'recipe-recall-v1',
  /** AssembleContext / POST /v1/context: slots, pinned and recalled facts packed to a token budget. */
  Context: 'context-v1',
  /** Agent tokens scoped to namespaces with rights (read, write, admin): AdminService.CreateToken,
   *  ListTokens, RevokeToken; every operation refuses what the caller's token does not grant. */
  AgentTokens: 'agent-tokens-v1',
  /** MemoryService.WriteStatus: whether a write sent with a request id committed, and its result. */
  WriteStatus: 'write-status-v1',
  /** Every write's answer carries the change number it committed (trailing metadata
   *  engram-change, HTTP header Engram-Change); a call carrying engram-min-change is served once
   *  the daemon has applied that change, so a read through any daemon of a shared store sees
   *  the caller's writes. Hello names the store and its identity. */
  ReadYourWrites: 'read-your-writes-v1',
  /** The web inspector at /inspector/ on the HTTP server (--http), with its REST reads: list
   *  filters and newest-first order, /v1/timeline, a fact's lineage and decay curve, setting a
   *  fact's confidence, and live facts by confidence in stats. */
  Inspector: 'inspector-v1',
  /** BatchPut's return_facts: each stored item answered with its whole fact, as Put is — so the
   *  client library sends concurrent single puts of one namespace as one batch call. */
  BatchWriteFacts: 'batch-write-facts-v1',
  /** WriteStream: BatchPut calls as messages of one long-lived stream, so the client library's
   *  coalesced puts pay gRPC's per-call work once per connection, not once per batch. */
  WriteStream: 'write-stream-v1',
  /** A put's restore fields (WriteOptions.restore): use statistics and their time, a summary's
   *  kind and the facts it replaced, as an export carried them — so an import is a full restore. */
  RestoreWrite: 'restore-write-v1',
  /** A restore's promoted_at (FactRestore.promoted_at_ms): a promoted fact comes back promoted,
   *  so gc never collects it. A daemon without it ignores the field. */
  RestorePromotion: 'restore-promotion-v1',
} as const;
export type Capability = (typeof Capability)[keyof typeof Capability];

export interface ReleaseProfile {
  readonly name: string;
  readonly capabilities: readonly Capability[];
  /** Whether the profile may advertise a default confidence weight at handshake. */
  readonly advertisesDefaultWeight: boolean;
}

const legacy: ReleaseProfile = {
  name: 'legacy',
  capabilities: [],
  advertisesDefaultWeight: false,
};

/** The first recall-engine release: options, batch, aliases — no confidence semantics yet. */
const v01: ReleaseProfile = {
  name: 'v0.1',
  capabilities: [Capability.IdempotentWrite, Capability.Doctor, Capability.RecallOptions, Capability.BatchRecall, Capability.Alias, Capability.Reindex],
  advertisesDefaultWeight: false,
};

/** Releases 0.1.0 and 0.2.0: confidence semantics and checkpoints. */
const v02: ReleaseProfile = {
  name: 'v0.2',
  capabilities: [
    ...v01.capabilities,
    Capability.ConfidenceWrite,
    Capability.ConfidenceRecall,
    Capability.ConfidenceLifecycle,
    Capability.ConfidenceSharedWrite,
    Capability.Checkpoint,
  ],
  advertisesDefaultWeight: true,
};

/** Release 0.3.0: the lifecycle, consolidation, the knowledge graph, memory controls, tokens. */
const v03: ReleaseProfile = {
  name: 'v0.3',
  capabilities: [...v02.capabilities, Capability.RecallMatches, Capability.WriteDedup, Capability.EmbedderWeights, Capability.BatchWrite, Capability.Decay, Capability.Reinforce, Capability.Gc, Capability.Analysis, Capability.Maintenance, Capability.Promote, Capability.UnifiedSearch, Capability.Extract, Capability.Clusters, Capability.Consolidate, Capability.KnowledgeGraph, Capability.Slots, Capability.Recipes, Capability.RecipeRecall, Capability.Context, Capability.AgentTokens, Capability.WriteStatus, Capability.ReadYourWrites, Capability.Inspector, Capability.BatchWriteFacts],
  advertisesDefaultWeight: true,
};

const current: ReleaseProfile = {
  name: 'current',
  capabilities: [...v03.capabilities, Capability.WriteStream, Capability.RestoreWrite, Capability.RestorePromotion],
  advertisesDefaultWeight: true,
};

export const RELEASE_PROFILES: Readonly<Record<string, ReleaseProfile>> = { legacy, 'v0.1': v01, 'v0.2': v02, 'v0.3': v03, current };
export const DEFAULT_PROFILE = current.name;

export function releaseProfile(name: string): ReleaseProfile {
  const profile = RELEASE_PROFILES[name];
  if (!profile) {
    throw new Error(`unknown release profile "${name}"; known: ${Object.keys(RELEASE_PROFILES).join(', ')}`);
  }
  return profile;
}

/** Methods (by "Service/Method") that exist only when a capability is served. */
export const METHOD_CAPABILITY: Readonly<Record<string, Capability>> = {
  'engram.v1.AdminService/Doctor': Capability.Doctor,
  'engram.v1.MemoryService/RecallWithOptions': Capability.RecallOptions,
  'engram.v1.MemoryService/BatchRecall': Capability.BatchRecall,
  'engram.v1.MemoryService/Alias': Capability.Alias,
  'engram.v1.AdminService/Reindex': Capability.Reindex,
  'engram.v1.MemoryService/PutWithOptions': Capability.ConfidenceWrite,
  'engram.v1.MemoryService/Revise': Capability.ConfidenceWrite,
  'engram.v1.MemoryService/PutSharedWithOptions': Capability.ConfidenceSharedWrite,
  'engram.v1.MemoryService/PatchFact': Capability.ConfidenceLifecycle,
  'engram.v1.CheckpointService/SaveCheckpoint': Capability.Checkpoint,
  'engram.v1.CheckpointService/ResumeCheckpoint': Capability.Checkpoint,
  'engram.v1.CheckpointService/ListCheckpoints': Capability.Checkpoint,
  'engram.v1.MemoryService/BatchPut': Capability.BatchWrite,
  'engram.v1.MemoryService/WriteStream': Capability.WriteStream,
  'engram.v1.DecayService/Touch': Capability.Reinforce,
  'engram.v1.DecayService/ObserveUsage': Capability.Reinforce,
  'engram.v1.DecayService/CollectGarbage': Capability.Gc,
  'engram.v1.AnalysisService/AnalyzeMessage': Capability.Analysis,
  'engram.v1.AnalysisService/AnalyzeForRecall': Capability.Analysis,
  'engram.v1.DecayService/Promote': Capability.Promote,
  'engram.v1.VaultService/SearchUnified': Capability.UnifiedSearch,
  'engram.v1.ExtractionService/Extract': Capability.Extract,
  'engram.v1.ClusterService/Cluster': Capability.Clusters,
  'engram.v1.ClusterService/Consolidate': Capability.Clusters,
  'engram.v1.AdminService/StorageStats': Capability.Maintenance,
  'engram.v1.AdminService/Compact': Capability.Maintenance,
  'engram.v1.ConsolidationService/Consolidate': Capability.Consolidate,
  'engram.v1.ConsolidationService/ConsolidationStatus': Capability.Consolidate,
  'engram.v1.GraphService/Relate': Capability.KnowledgeGraph,
  'engram.v1.GraphService/LinkEntity': Capability.KnowledgeGraph,
  'engram.v1.GraphService/ReadGraph': Capability.KnowledgeGraph,
  'engram.v1.MemoryControlsService/PutSlot': Capability.Slots,
  'engram.v1.MemoryControlsService/GetSlot': Capability.Slots,
  'engram.v1.MemoryControlsService/ListSlots': Capability.Slots,
  'engram.v1.MemoryControlsService/DeleteSlot': Capability.Slots,
  'engram.v1.MemoryControlsService/SlotHistory': Capability.Slots,
  'engram.v1.MemoryControlsService/SlotContext': Capability.Slots,
  'engram.v1.MemoryControlsService/AssembleContext': Capability.Context,
  'engram.v1.MemoryControlsService/SaveRecipe': Capability.Recipes,
  'engram.v1.MemoryControlsService/ListRecipes': Capability.Recipes,
  'engram.v1.MemoryControlsService/GetRecipe': Capability.Recipes,
  'engram.v1.MemoryControlsService/RecipeHistory': Capability.Recipes,
  'engram.v1.MemoryService/WriteStatus': Capability.WriteStatus,
  'engram.v1.AdminService/CreateToken': Capability.AgentTokens,
  'engram.v1.AdminService/ListTokens': Capability.AgentTokens,
  'engram.v1.AdminService/RevokeToken': Capability.AgentTokens,
};

/** Whether a profile serves a method ("package.Service/Method"); methods without a capability always are. */
export function profileServes(profile: ReleaseProfile, method: string): boolean {
  const needed = METHOD_CAPABILITY[method];
  return needed === undefined || profile.capabilities.includes(needed);
}
