// The Engram client library's public entry point.
export { connect, EngramClient } from './client.ts';
export type { FactFilter, ListOptions, BatchItem, BatchItemResult, ConnectOptions, WriteOptions, RecallOptions, RecallFilters, RecallResult, ExplainResult, BatchRecallResult, DoctorEvent, ReindexEvent, ReviseResult, WriteResult, FactMatch, TouchResult, ObservedFact, ObserveUsageResult, GcOptions, GcResult, SaveAdvice, RecallAdvice, StorageReport, CompactReport, TableStats, PromoteResult, PromotionCandidate, UnifiedHit, UnifiedResult, ExtractResult, ExtractedFactResult, ClusterReport, ConsolidateResult, DuplicatePair, FactCluster } from './client.ts';
export type { FactRestore } from './restore.ts';
export type { BatchRecallOptions, ClusterOptions, ConsolidateMemoriesOptions, ConsolidateOptions, DoctorOptions, ExtractOptions, LinkEntityOptions, ListSlotsOptions, ObserveUsageOptions, PromoteOptions, ReadGraphOptions, RelateOptions, RequestOptions, SlotContextOptions, TokenGrant, TouchOptions, UnifiedSearchOptions, WriteStatusOptions } from './options.ts';
export type { DaemonInfo } from './connection.ts';
export type { Checkpoint, ConfidenceLabel, ConfidenceRanking, Fact, Receipt, RetrievalMetadata, SignalWeights, Stats, WeakMatchFeedback } from './types.ts';
// The shapes the methods take and return (a fact's relations, a graph, a token, a write's status,
// the daemon's limits): an app names them in its own signatures, so each is exported.
export type { ConsolidationCounters, ConsolidationRun, FactKindName, Grant, GraphEdge, GraphNode, GraphView, KgHint, Relation, RelationType, Right, TokenInfo, WriteStatus } from '../shared/model.ts';
export type { Limits } from '../shared/validate.ts';
export type { AppliedRecipe, ContextAssembly, ContextCut, ContextOptions, ContextItem, Evidence, Recipe, RecipeFields, RerankStep, Slot, SlotChange, SlotWrite, SlotWritten, WriteFields } from '../shared/model.ts';
export { importConversation } from './import/conversation.ts';
export type { ConversationSession, ConversationTurn, ImportOptions, ImportProgress } from './import/conversation.ts';
export { UncertainWriteError, CapabilityError, UnreachableError } from './errors.ts';
export type { UncertainFinish } from './errors.ts';
export { DaemonNotRunningError, DamagedDiscoveryError } from '../shared/discovery.ts';
export { EngramError, ErrorKind } from '../shared/errors.ts';
export { RpcError } from '../shared/grpc/bridge.ts';
export { Capability } from '../shared/capabilities.ts';
