// The Engram client library's public entry point.
export { connect, EngramClient } from './client.ts';
export type { FactFilter, ListOptions, BatchItem, BatchItemResult, ConnectOptions, WriteOptions, RecallOptions, RecallFilters, RecallResult, ExplainResult, BatchRecallResult, DoctorEvent, ReindexEvent, ReviseResult, WriteResult, FactMatch, TouchResult, ObservedFact, ObserveUsageResult, GcOptions, GcResult, SaveAdvice, RecallAdvice, StorageReport, CompactReport, TableStats, PromoteResult, PromotionCandidate, UnifiedHit, UnifiedResult, ExtractResult, ExtractedFactResult, ClusterReport, ConsolidateResult, DuplicatePair, FactCluster } from './client.ts';
export type { DaemonInfo } from './connection.ts';
export type { Checkpoint, ConfidenceLabel, ConfidenceRanking, Fact, Receipt, RetrievalMetadata, SignalWeights, Stats, WeakMatchFeedback } from './types.ts';
export type { AppliedRecipe, ContextAssembly, ContextCut, ContextOptions, ContextItem, Evidence, Recipe, RecipeFields, RerankStep, Slot, SlotChange, SlotWrite, WriteFields } from '../shared/model.ts';
export { importConversation } from './import/conversation.ts';
export type { ConversationSession, ConversationTurn } from './import/conversation.ts';
export { UncertainWriteError, CapabilityError } from './errors.ts';
export type { UncertainFinish } from './errors.ts';
export { DaemonNotRunningError, DamagedDiscoveryError } from '../shared/discovery.ts';
export { EngramError, ErrorKind } from '../shared/errors.ts';
export { RpcError } from '../shared/grpc/bridge.ts';
export { Capability } from '../shared/capabilities.ts';
