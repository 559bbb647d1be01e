// The core every front door calls: one method per operation, each taking the call's context.
// Inputs are checked here (or by the part a method hands them to) before anything runs; the
// doors only translate their wire format. The parts behind it each do one job: the store keeps
// everything durable, the write pipeline changes it, the indexer keeps the in-memory indexes in
// step, the recall engine ranks, the jobs repair and re-embed.
import { makeDirectory } from '../../shared/make-directory.ts';
import { EngramError, ErrorKind, invalidArgument, noFact } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import { SHARED_AGENT_ID, type Limits } from '../../shared/validate.ts';
import type { Embedder } from '../embed/provider.ts';
import { Indexer } from '../index/indexer.ts';
import { VectorSpace } from '../index/vector-space.ts';
import { doctor, type DoctorEvent } from '../jobs/doctor.ts';
import { EmbeddingReconciler } from '../jobs/reconciler.ts';
import { Reindexer, type ReindexEvent } from '../jobs/reindex.ts';
import { AccessTracker } from '../lifecycle/access.ts';
import { DEFAULT_CHECKPOINT_KEEP } from '../lifecycle/checkpoints.ts';
import type { PatchInput } from '../lifecycle/patch.ts';
import type { FactPatch } from '../lifecycle/update.ts';
import { RecallEngine, type BatchOutcome, type SearchOutcome } from '../recall/engine.ts';
import type { RecallTimesSnapshot } from '../recall/stages.ts';
import { defaultPlan, planFromOptions, type RecallDefaults, type RecallOptionsInput, type RecallPlan, type Scope } from '../recall/plan.ts';
import type { FactRecord } from '../store/record.ts';
import { isShared, RECORDS_CHANGED, type CheckpointRecord, type FactKey, type MemoryStore } from '../store/store.ts';
import { ChangeFollower } from './follower.ts';
import { applyStoredState } from './follow-apply.ts';
import { WriteBarrier } from '../write/barrier.ts';
import { WritePipeline } from '../write/pipeline.ts';
import { FactStaging } from '../write/staging.ts';
import { Relinker } from '../write/relink.ts';
import { callContext, checkAlive, DAEMON, type CallContext } from './context.ts';
import { computeStats, type Stats } from './stats.ts';
import { browse, checkBrowse, type BrowseInput, type BrowsePage } from './browse.ts';
import { decayCurve, factLineage, factTimeline, type DecayCurve, type Lineage, type TimelineDay } from './inspect.ts';
import { loadIndexes, saveIndexSnapshot, sealSnapshot } from './startup.ts';
import type { Log } from '../log.ts';
import type { DecayConfig } from '../lifecycle/decay.ts';
import { analyzeForRecall, analyzeMessage } from '../analysis/analyze.ts';
import { entityNamer } from '../analysis/entities.ts';
import { loadNlp } from '../analysis/nlp.ts';
import type { ContextAssembly, RecallAdvice, SaveAdvice } from '../../shared/model.ts';
import { Collector, type GcInput, type GcResult } from './collect.ts';
import { Promoter, type PromoteInput, type PromoteResult } from './promote.ts';
import { checkUnified, mergeUnified, type UnifiedInput, type UnifiedResult } from './unified.ts';
import { VaultIndex } from '../vault/vault-index.ts';
import { extractFacts, rulesExtractor, type ExtractInput, type ExtractResult } from './extraction.ts';
import type { Extractor } from '../extract/llm.ts';
import { Clusters, type ClusterInput, type ClusterReport, type ConsolidateResult } from './clusters.ts';
import { compactStore, storageReport, type CompactReport, type StorageReport } from './maintenance.ts';
import { Usage, type ObserveResult, type TouchResult } from './usage.ts';
import { Recipes, type Recipe, type RecipeInput, type RecipeSaved } from './recipes.ts';
import { Assembler, type ContextInput } from './assemble.ts';
import { Slots, type SlotChange, type SlotInput, type SlotListInput, type SlotRecord, type SlotWritten } from './slots.ts';
import { Graph, type GraphInput, type GraphView, type RelateInput, type RelateResult } from './graph.ts';
import { Consolidator, DEFAULT_CONSOLIDATION, type ConsolidationConfig, type ConsolidationCounters, type ConsolidationRun } from './consolidation.ts';
import { extractiveSummarizer, type Summarizer } from '../consolidate/summarize.ts';
import { writeStatus, type WriteStatus } from './write-status.ts';
import { AgentTokens, type TokenInfo, type TokenInput } from '../auth/tokens.ts';
import { authorize, authorizeDaemon, authorizeInput, mayRead, permitted, seenBy, slotSeenBy } from '../auth/grant.ts';
import { Writes, type BatchSlot, type PutResult, type ReviseInput, type ReviseResult, type WriteInput } from './writes.ts';

// The shapes the operations take and return: the front doors import them from here only.
export type { BatchItemInput, BatchSlot, PutResult, ReviseInput, ReviseResult, WriteInput } from './writes.ts';
export type { BatchOutcome, FactMatch, SearchOutcome } from '../recall/engine.ts';
export type { RecallOptionsInput, Scope } from '../recall/plan.ts';
export type { RecallTimesSnapshot } from '../recall/stages.ts';
export type { FactPatch } from '../lifecycle/update.ts';
export type { PatchInput } from '../lifecycle/patch.ts';
export type { FactRecord } from '../store/record.ts';
export type { CheckpointRecord } from '../store/store.ts';
export type { DoctorEvent } from '../jobs/doctor.ts';
export type { ReindexEvent } from '../jobs/reindex.ts';
export type { Stats } from './stats.ts';
export type { GcInput, GcResult } from './collect.ts';
export type { CompactReport, StorageReport } from './maintenance.ts';
export type { PromoteInput, PromoteResult } from './promote.ts';
export type { UnifiedInput, UnifiedResult } from './unified.ts';
export type { ExtractInput, ExtractResult } from './extraction.ts';
export type { ClusterInput, ClusterReport, ConsolidateResult } from './clusters.ts';
export type { ObserveResult, ObservedFact, TouchResult } from './usage.ts';
export type { GraphInput, GraphView, RelateInput, RelateResult } from './graph.ts';
export type { SlotChange, SlotInput, SlotListInput, SlotRecord, SlotWritten } from './slots.ts';
export type { Recipe, RecipeInput, RecipeSaved } from './recipes.ts';
export type { ContextInput } from './assemble.ts';
export type { ConsolidationConfig, ConsolidationCounters, ConsolidationRun } from './consolidation.ts';
export type { DecayConfig } from '../lifecycle/decay.ts';
export type { TokenInfo, TokenInput } from '../auth/tokens.ts';
export type { WriteStatus } from './write-status.ts';

export interface EngramOptions {
  dataDir: string;
  /** Folder of the saved vector indexes. */
  vectorDir: string;
  embedder: Embedder;
  limits: Limits;
  recallDefaults: RecallDefaults;
  /** Checkpoints kept per agent (default 20). */
  checkpointKeep?: number;
  /** How often pending embeddings are retried (default 5 s). */
  reconcileIntervalMs?: number;
  /** Whether a write identical to a live fact returns that fact instead of storing a copy. */
  dedup?: boolean;
  /** The markdown vault promotion writes notes to; absent: promotion off. */
  vault?: string;
  /** What proposes facts from messages (default: the offline rules). */
  extractor?: Extractor;
  /** When and what consolidation summarises (default: every 20 writes, below 0.1). */
  consolidation?: ConsolidationConfig;
  /** What writes consolidation summaries (default: extractive, offline). */
  summarizer?: Summarizer;
  /** The knowledge graph: entities extracted at write, neighbour hints after recall. */
  kg?: boolean;
  log: Log;
}

/** What the in-memory indexes hold now, for metrics. */
export interface IndexGauges {
  liveFacts: number;
  namespaces: number;
  pendingEmbeddings: number;
}

const ACCESS_FLUSH_MS = 1000;

const VECTOR_SAVE_MS = 60_000;

/** Changes a shared store's log keeps behind the applied ones (a daemon restarting from an older
 *  snapshot catches up through them; ~60 bytes each). */
const SHARED_LOG_KEPT = 1_000_000;

/** How long a call asking for a change not yet applied waits when it set no deadline. */
const MIN_CHANGE_WAIT_MS = 10_000;

/** A list page's size in bytes, besides its count: a page of large facts ends early (its next
 *  page token says where to go on), so no answer grows with the size of the facts. */
export const PAGE_BYTES = 4 * 1024 * 1024;

/** The longest prefix of `facts` within PAGE_BYTES (at least one fact). */
function withinPageBytes(facts: FactRecord[]): FactRecord[] {
  let bytes = 0;
  for (let i = 0; i < facts.length; i++) {
    bytes += Buffer.byteLength(JSON.stringify(facts[i])); // what the record weighs, near enough its message
    if (bytes > PAGE_BYTES && i > 0) return facts.slice(0, i);
  }
  return facts;
}

/** A fresh write answers with what the caller sent; a duplicate or a replay answers with a fact
 *  already stored, which a caller without read on its namespace sees only as its state. */
function seenAsWritten(ctx: CallContext, result: PutResult): PutResult {
  return result.duplicate || result.replayed ? { ...result, fact: seenBy(ctx, result.fact) } : result;
}

export class Engram {
  private readonly indexer: Indexer;
  private readonly access = new AccessTracker();
  private readonly pipeline: WritePipeline;
  private readonly writes: Writes;
  private readonly usage: Usage;
  private readonly collector: Collector;
  private readonly promoter: Promoter;
  private readonly clusters: Clusters;
  private readonly graph: Graph;
  private readonly consolidator: Consolidator;
  private readonly slots: Slots;
  private readonly recipes: Recipes;
  private readonly assembler: Assembler;
  /** The agent tokens; the front doors' authenticator looks presented tokens up here. */
  readonly tokens: AgentTokens;
  /** The vault's notes, for unified search; undefined without a vault. */
  private readonly vault: VaultIndex | undefined;
  readonly decay: DecayConfig;
  private readonly recallEngine: RecallEngine;
  private readonly reconciler: EmbeddingReconciler;
  private readonly reindexer: Reindexer;
  private readonly timers: NodeJS.Timeout[] = [];

  private constructor(
    private readonly options: EngramOptions,
    private readonly store: MemoryStore,
  ) {
    this.indexer = new Indexer(new VectorSpace(options.embedder, options.vectorDir, options.log));
    this.pipeline = new WritePipeline(store, new WriteBarrier(), () => this.caughtUp());
    const staging = new FactStaging(store, this.indexer, this.access);
    const relinker = new Relinker(store, this.indexer, staging);
    const nameEntities = entityNamer(options.kg ?? false);
    this.writes = new Writes(store, this.pipeline, staging, this.access, options.limits, options.checkpointKeep ?? DEFAULT_CHECKPOINT_KEEP, this.indexer, options.dedup ?? true, relinker, nameEntities);
    this.decay = options.recallDefaults.decay;
    this.usage = new Usage(store, this.pipeline, staging, this.access, this.decay);
    this.graph = new Graph(store, this.pipeline, staging, this.indexer, this.access);
    this.slots = new Slots(store, this.pipeline);
    this.recipes = new Recipes(store, this.pipeline);
    this.tokens = new AgentTokens(store, this.pipeline);
    this.consolidator = new Consolidator(store, this.pipeline, staging, this.indexer, relinker, this.decay, options.consolidation ?? DEFAULT_CONSOLIDATION, options.summarizer ?? extractiveSummarizer, options.limits, options.log, nameEntities);
    this.collector = new Collector(store, this.pipeline, staging, this.indexer, this.decay, relinker);
    this.clusters = new Clusters(store, (ctx, input, carried) => this.writes.revise(ctx, input, carried), options.limits);
    this.vault = options.vault ? new VaultIndex(options.vault, options.log) : undefined;
    this.promoter = new Promoter(store, this.pipeline, staging, this.indexer, this.decay, options.vault, (path) => this.vault?.written(path));
    this.recallEngine = new RecallEngine(this.indexer, store, this.access);
    this.assembler = new Assembler({ store, indexer: this.indexer, slots: this.slots, recipes: this.recipes, recall: this.recallEngine, limits: options.limits, recallDefaults: options.recallDefaults });
    const daemon = callContext(DAEMON);
    const attach = (agentId: string, factId: string, vector: Float32Array | null, embedder: string, withinExclusive?: boolean) =>
      this.writes.attachVector(daemon, agentId, factId, vector, embedder, withinExclusive);
    this.reconciler = new EmbeddingReconciler(this.indexer, store, attach, options.log, options.reconcileIntervalMs);
    this.reindexer = new Reindexer({ store, indexer: this.indexer, attach, exclusive: (work) => this.pipeline.exclusive(work), saveVectors: () => this.saveVectors(true) });
  }

  /** Builds the core over an open store (the caller opens it: that is where a second daemon is
   *  refused), loads the indexes and starts the background work. */
  static async open(options: EngramOptions, store: MemoryStore): Promise<Engram> {
    makeDirectory(options.vectorDir);
    const loss = store.openedWithLoss;
    if (loss) options.log.error(`the store's write-ahead log was damaged: LevelDB skipped ${loss.droppedBytes} bytes of it while opening, and the writes in them are lost (${loss.reasons.join('; ')}). The log as it was is kept in ${loss.keptIn}; restore what is missing from an export, and see engram doctor`);
    // Entity extraction at write is synchronous: its tagger must be there before the first write.
    if (options.kg) await loadNlp();
    const core = new Engram(options, store);
    const covered = await loadIndexes(store, core.indexer, options.dataDir, options.log);
    await core.access.load(store);
    await core.consolidator.open();
    await core.slots.open();
    await core.tokens.open();
    await core.follow(covered);
    core.vault?.open();
    core.startBackgroundWork();
    return core;
  }

  private get limits(): Limits {
    return this.options.limits;
  }

  // ------------------------------------------------------------------------------------------
  // Writes

  async put(ctx: CallContext, input: WriteInput): Promise<PutResult> {
    authorizeInput(ctx, 'write', input.agentId);
    return seenAsWritten(ctx, this.wrote(await this.writes.put(ctx, input)));
  }

  /** Many puts in one call, each answered in its own slot. */
  async putBatch(ctx: CallContext, input: { items: unknown }): Promise<BatchSlot[]> {
    // Every namespace the batch names is checked before any item is written; an item that names
    // none validly fails its own slot, as for any caller.
    if (ctx.principal.grant && Array.isArray(input.items)) {
      for (const item of input.items as unknown[]) {
        const agentId = (item as { agentId?: unknown } | null)?.agentId;
        if (check.isAgentId(agentId)) authorize(ctx, 'write', agentId);
      }
    }
    const slots = await this.writes.putBatch(ctx, input);
    for (const slot of slots) if (slot.result) this.wrote(slot.result);
    return slots.map((slot) => (slot.result ? { result: seenAsWritten(ctx, slot.result) } : slot));
  }

  /** RememberShared schedules no consolidation (a generic put to the shared namespace does). */
  async putShared(ctx: CallContext, input: Omit<WriteInput, 'agentId'>): Promise<PutResult> {
    authorize(ctx, 'write', SHARED_AGENT_ID);
    return seenAsWritten(ctx, await this.writes.putShared(ctx, input));
  }

  /** Whether a write sent with a request id committed, and what it wrote. */
  async writeStatus(ctx: CallContext, input: { agentId?: unknown; requestId: unknown }): Promise<WriteStatus> {
    const status = await writeStatus({ store: this.store, pipeline: this.pipeline }, ctx, input);
    // A write-only token may ask what became of a write; it sees the fact's state, not its text.
    return status.fact ? { ...status, fact: seenBy(ctx, status.fact) } : status;
  }

  /** Counts a new fact towards its namespace's next automatic consolidation. */
  private wrote(result: PutResult): PutResult {
    if (!result.replayed && !result.duplicate) this.consolidator.noteWrite(result.fact.agentId);
    return result;
  }

  /** Consolidate: the namespace's faded facts summarised into one summary that replaces them. */
  async consolidate(ctx: CallContext, input: { agentId: unknown; dryRun?: unknown }): Promise<ConsolidationRun> {
    authorizeInput(ctx, input.dryRun === true ? 'read' : 'admin', input.agentId);
    const run = await this.consolidator.run(ctx, input);
    // An admin token without read runs it, but is not shown what the summary says.
    if (mayRead(ctx, check.agentId(input.agentId))) return run;
    return { ...run, text: '', ...(run.summary ? { summary: seenBy(ctx, run.summary) } : {}) };
  }

  /** A memory slot written: an upsert on project, scope and slot name. */
  async putSlot(ctx: CallContext, input: SlotInput): Promise<SlotWritten> {
    authorize(ctx, 'write', SHARED_AGENT_ID);
    const written = await this.slots.put(ctx, input);
    return { ...written, slot: slotSeenBy(ctx, written.slot) };
  }

  getSlot(ctx: CallContext, recordId: unknown): Promise<SlotRecord> {
    authorize(ctx, 'read', SHARED_AGENT_ID);
    return this.slots.get(ctx, recordId);
  }

  listSlots(ctx: CallContext, input: SlotListInput): Promise<{ slots: SlotRecord[]; nextPageToken: string }> {
    authorize(ctx, 'read', SHARED_AGENT_ID);
    return this.slots.list(ctx, input);
  }

  /** Archives a slot; a locked one refuses ("slot is locked"). */
  async deleteSlot(ctx: CallContext, recordId: unknown): Promise<SlotWritten> {
    authorize(ctx, 'write', SHARED_AGENT_ID);
    const archived = await this.slots.delete(ctx, recordId);
    return { ...archived, slot: slotSeenBy(ctx, archived.slot) };
  }

  slotHistory(ctx: CallContext, recordId: unknown): Promise<SlotChange[]> {
    authorize(ctx, 'read', SHARED_AGENT_ID);
    return this.slots.history(ctx, recordId);
  }

  /** The slots that apply to a project (or the global ones), ready to inject. */
  slotContext(ctx: CallContext, input: { projectId?: unknown; slotNames?: unknown }): Promise<SlotRecord[]> {
    authorize(ctx, 'read', SHARED_AGENT_ID);
    return this.slots.context(ctx, input);
  }

  /** A new version of a retrieval recipe: the given fields over its latest version or built-in. */
  saveRecipe(ctx: CallContext, input: RecipeInput): Promise<RecipeSaved> {
    // A recipe changes every agent's recall that names it. A save merges over the latest version
    // and answers the result, so it needs read too: an admin token without it would read any
    // recipe by saving nothing over it.
    authorize(ctx, 'admin', SHARED_AGENT_ID);
    authorize(ctx, 'read', SHARED_AGENT_ID);
    return this.recipes.save(ctx, input);
  }

  /** Saved recipes (latest versions) and the built-ins not overridden. */
  listRecipes(ctx: CallContext): Promise<Recipe[]> {
    authorize(ctx, 'read', SHARED_AGENT_ID);
    return this.recipes.list(ctx);
  }

  getRecipe(ctx: CallContext, name: unknown): Promise<Recipe> {
    authorize(ctx, 'read', SHARED_AGENT_ID);
    return this.recipes.get(ctx, name);
  }

  recipeHistory(ctx: CallContext, name: unknown): Promise<Recipe[]> {
    authorize(ctx, 'read', SHARED_AGENT_ID);
    return this.recipes.history(ctx, name);
  }

  /** Slots, pinned facts and recalled facts packed to a token budget, ready to inject. */
  assembleContext(ctx: CallContext, input: ContextInput): Promise<ContextAssembly<FactRecord>> {
    authorizeInput(ctx, 'read', input.agentId);
    authorize(ctx, 'read', SHARED_AGENT_ID); // the slots that apply
    return this.assembler.assemble(ctx, input);
  }

  /** Where recall time has gone since the daemon started (/metrics). */
  recallTimes(): RecallTimesSnapshot {
    return this.recallEngine.times.snapshot();
  }

  /** Lifetime consolidation totals (status, doctor, /metrics). */
  consolidationCounters(): ConsolidationCounters {
    return this.consolidator.counters();
  }

  alias(ctx: CallContext, input: { agentId: unknown; term: unknown; equivalents: unknown }): Promise<PutResult> {
    authorizeInput(ctx, 'write', input.agentId);
    return this.writes.alias(ctx, input);
  }

  revise(ctx: CallContext, input: ReviseInput): Promise<ReviseResult> {
    authorizeInput(ctx, 'write', input.agentId);
    return this.writes.revise(ctx, input);
  }

  async patchFact(ctx: CallContext, input: PatchInput): Promise<FactRecord> {
    authorizeInput(ctx, 'write', input.agentId);
    return seenBy(ctx, await this.writes.patch(ctx, input));
  }

  async updateFact(ctx: CallContext, agentId: unknown, patch: FactPatch): Promise<FactRecord> {
    authorizeInput(ctx, 'write', agentId);
    return seenBy(ctx, await this.writes.update(ctx, agentId, patch));
  }

  /** Erases a fact (Delete); forgetting is patchFact's `forget`. */
  async deleteFact(ctx: CallContext, agentId: unknown, factId: unknown): Promise<FactRecord> {
    authorizeInput(ctx, 'admin', agentId);
    const erased = await this.writes.delete(ctx, agentId, factId);
    this.promoter.erased(erased, (message) => this.options.log.warn(message));
    return seenBy(ctx, erased);
  }

  saveCheckpoint(ctx: CallContext, input: { agentId: unknown; state: unknown }): Promise<CheckpointRecord> {
    authorizeInput(ctx, 'write', input.agentId);
    return this.writes.saveCheckpoint(ctx, input);
  }

  /** One use of a fact (touch_memory). */
  async touch(ctx: CallContext, input: { agentId: unknown; factId: unknown; boostStrength?: unknown }): Promise<TouchResult> {
    authorizeInput(ctx, 'write', input.agentId);
    const touched = await this.usage.touch(ctx, input);
    return { ...touched, fact: seenBy(ctx, touched.fact) };
  }

  /** Facts used in a conversation with these tags (observe_memory_usage). */
  observeUsage(ctx: CallContext, input: { agentId: unknown; factIds: unknown; contextTags?: unknown }): Promise<ObserveResult> {
    authorizeInput(ctx, 'write', input.agentId);
    return this.usage.observe(ctx, input);
  }

  /** Garbage collection of faded facts; a dry run unless dryRun is false. */
  collectGarbage(ctx: CallContext, input: GcInput): Promise<GcResult> {
    authorizeInput(ctx, input.dryRun === false ? 'admin' : 'read', input.agentId);
    return this.collector.collect(ctx, input);
  }

  /** Promotion of valuable facts to long-term notes (promote_memory). */
  async promote(ctx: CallContext, input: PromoteInput): Promise<PromoteResult> {
    authorizeInput(ctx, input.dryRun === true ? 'read' : 'admin', input.agentId);
    const result = await this.promoter.promote(ctx, input);
    // An admin that may not read the namespace learns which facts went, not what they say.
    if (mayRead(ctx, check.agentId(input.agentId))) return result;
    return { ...result, candidates: result.candidates.map((c) => ({ ...c, contentPreview: '' })) };
  }

  /** The store's facts and the vault's notes ranked together (search_unified). */
  async searchUnified(ctx: CallContext, input: UnifiedInput): Promise<UnifiedResult> {
    if (this.vault) authorize(ctx, 'read', SHARED_AGENT_ID); // the vault holds every namespace's notes
    const q = checkUnified(input, this.limits);
    const filters = { ...(q.tags.length ? { tagsAny: q.tags } : {}), ...(q.windowDays !== undefined ? { windowDays: q.windowDays } : {}), ...(q.minScore !== undefined ? { minDecayScore: q.minScore } : {}) };
    const outcome = await this.recallWithOptions(ctx, { agentId: q.agentId, query: q.query, scope: 'agent', explain: false, options: { topK: q.limit, filters } });
    // A query keeps what it matched; without one, the most recent facts are the answer.
    const facts = outcome.facts.map((fact, i) => ({ fact, score: outcome.matches[i]!.score, matched: outcome.matches[i]!.matched })).filter((f) => f.matched || !q.query);
    return mergeUnified(q, facts, this.vault);
  }

  /** Clusters of similar facts, or duplicate pairs (cluster_memories). */
  clusterFacts(ctx: CallContext, input: ClusterInput): Promise<ClusterReport> {
    authorizeInput(ctx, 'read', input.agentId);
    return this.clusters.cluster(ctx, input);
  }

  /** A cluster merged into one fact that replaces its members (consolidate_memories). */
  async consolidateCluster(ctx: CallContext, input: ClusterInput & { clusterId: unknown; mode?: unknown }): Promise<ConsolidateResult> {
    authorizeInput(ctx, 'admin', input.agentId);
    const result = await this.clusters.consolidate(ctx, input);
    if (mayRead(ctx, check.agentId(input.agentId))) return result;
    return { ...result, merged: { ...result.merged, text: '', tags: [], entities: [] } };
  }

  /** Relate: a typed relation between two live facts (or its removal). */
  async relate(ctx: CallContext, input: RelateInput): Promise<RelateResult> {
    authorizeInput(ctx, 'write', input.agentId);
    const related = await this.graph.relate(ctx, input);
    return { ...related, fact: seenBy(ctx, related.fact) };
  }

  /** An entity attached to a live fact, as one transactional patch. */
  async linkEntity(ctx: CallContext, input: { agentId: unknown; factId: unknown; entity: unknown; type?: unknown }): Promise<FactRecord> {
    authorizeInput(ctx, 'write', input.agentId);
    return seenBy(ctx, await this.graph.linkEntity(ctx, input));
  }

  /** The graph around a fact or an entity (read_graph). */
  readGraph(ctx: CallContext, input: GraphInput): Promise<GraphView> {
    authorizeInput(ctx, 'read', input.agentId);
    return this.graph.neighbourhood(ctx, input);
  }

  /** The durable facts a message or conversation states, proposed and optionally remembered. */
  extract(ctx: CallContext, input: ExtractInput): Promise<ExtractResult> {
    authorizeInput(ctx, input.remember === true ? 'write' : 'read', input.agentId);
    return extractFacts(ctx, input, { extractor: this.options.extractor ?? rulesExtractor, limits: this.limits, putBatch: (c, i) => this.writes.putBatch(c, i) });
  }

  /** Whether a message is worth saving (advice; nothing is stored). */
  async analyzeMessage(_ctx: CallContext, input: { message: unknown }): Promise<SaveAdvice> {
    const message = check.factText(input.message, this.limits, 'message');
    await loadNlp();
    return analyzeMessage(message);
  }

  /** Whether a message asks for something remembered, and what to search for. */
  async analyzeForRecall(_ctx: CallContext, input: { message: unknown }): Promise<RecallAdvice> {
    const message = check.factText(input.message, this.limits, 'message');
    await loadNlp();
    return analyzeForRecall(message);
  }

  /** Retires every fact a query matches (up to top_k); what was retired, and what failed. Only
   *  matched facts: the facts a recall adds to fill top_k share nothing with the query, and a
   *  blank query matches nothing, so it is refused rather than answered with nothing retired. */
  async forgetMatching(ctx: CallContext, input: { agentId: unknown; query: unknown; topK: unknown }): Promise<{ forgotten: string[]; failures: { id: string; error: string }[] }> {
    authorizeInput(ctx, 'write', input.agentId);
    if (typeof input.query === 'string' && input.query.trim() === '') throw invalidArgument('query', 'must name what to forget; a blank query matches no fact');
    const { facts, matches } = await this.recall(ctx, input);
    const forgotten: string[] = [];
    const failures: { id: string; error: string }[] = [];
    for (const fact of facts.filter((_, i) => matches[i]!.matched)) {
      try {
        await this.patchFact({ ...ctx, requestId: '' }, { agentId: fact.agentId, factId: fact.id, forget: true });
        forgotten.push(fact.id);
      } catch (error) {
        if (error instanceof EngramError && error.kind === ErrorKind.NotFound) continue; // deleted meanwhile: nothing to forget
        // Earlier retirements have committed: report them with the failure rather than a bare error.
        if (!(error instanceof EngramError) || error.kind === ErrorKind.Internal) throw error;
        failures.push({ id: fact.id, error: error.message });
      }
    }
    return { forgotten, failures };
  }

  // ------------------------------------------------------------------------------------------
  // Reads

  async getFact(ctx: CallContext, agentIdInput: unknown, factIdInput: unknown): Promise<FactRecord> {
    const agentId = check.agentId(agentIdInput);
    authorize(ctx, 'read', agentId);
    const factId = check.factId(factIdInput);
    const [fact] = await this.store.getFacts([{ agentId, factId }]);
    if (!fact) throw noFact('fact_id', factId, agentId);
    return this.access.overlay(fact);
  }

  async listFacts(ctx: CallContext, agentIdInput: unknown, pageSizeInput: unknown, pageTokenInput: unknown): Promise<{ facts: FactRecord[]; nextPageToken: string }> {
    const agentId = check.agentId(agentIdInput);
    authorize(ctx, 'read', agentId);
    const pageSize = check.pageSize(pageSizeInput);
    const token = pageTokenInput === undefined || pageTokenInput === '' ? '' : check.pageToken(pageTokenInput);
    const rows = await this.store.listFacts(agentId, token, pageSize + 1);
    const facts = withinPageBytes(rows.slice(0, pageSize)).map((f) => this.access.overlay(f));
    return { facts, nextPageToken: rows.length > facts.length ? facts[facts.length - 1]!.id : '' };
  }

  /** A page of a namespace narrowed by a filter, oldest or newest first (see browse.ts). */
  async browseFacts(ctx: CallContext, agentIdInput: unknown, input: BrowseInput): Promise<BrowsePage> {
    const agentId = check.agentId(agentIdInput);
    authorize(ctx, 'read', agentId);
    const plan = checkBrowse(input);
    const page = await browse((after, limit, order) => this.store.listFacts(agentId, after, limit, order), plan);
    const facts = withinPageBytes(page.facts);
    const cut = facts.length < page.facts.length;
    return { facts: facts.map((f) => this.access.overlay(f)), nextPageToken: cut ? facts[facts.length - 1]!.id : page.nextPageToken, scanned: page.scanned };
  }

  /** Facts created per day in a namespace. */
  async factTimeline(ctx: CallContext, agentIdInput: unknown): Promise<TimelineDay[]> {
    const agentId = check.agentId(agentIdInput);
    authorize(ctx, 'read', agentId);
    return factTimeline(this.store, agentId);
  }

  /** Where a fact came from and what replaced it. */
  async factLineage(ctx: CallContext, agentIdInput: unknown, factIdInput: unknown): Promise<Lineage> {
    const fact = await this.getFact(ctx, agentIdInput, factIdInput);
    const lineage = await factLineage(this.store, fact);
    return { ...lineage, sources: lineage.sources.map((f) => this.access.overlay(f)), successors: lineage.successors.map((f) => this.access.overlay(f)) };
  }

  /** A fact's decay score now and its fall ahead if nothing uses it. */
  async factDecay(ctx: CallContext, agentIdInput: unknown, factIdInput: unknown): Promise<DecayCurve> {
    return decayCurve(this.decay, await this.getFact(ctx, agentIdInput, factIdInput), Date.now());
  }

  /** Every namespace with at least one fact (live or retired) that the caller may read, sorted. */
  async listAgents(ctx: CallContext): Promise<string[]> {
    return permitted(ctx, await this.store.namespaces());
  }

  stats(ctx: CallContext, agentIdInput: unknown): Promise<Stats> {
    const agentId = agentIdInput === undefined ? undefined : check.agentId(agentIdInput);
    if (agentId === undefined) authorizeDaemon(ctx, 'read the statistics of every namespace (name one of yours: agent_id)');
    else authorize(ctx, 'read', agentId);
    return computeStats(this.store, this.indexer.vectors, agentId);
  }

  /** The legacy recall RPCs: default options, one scope, optionally explained. Weak-match
   *  feedback costs a vocabulary scan, so it is computed only for callers that return it. */
  recall(
    ctx: CallContext,
    input: { agentId: unknown; query: unknown; topK: unknown; scope?: Scope; explain?: boolean; feedback?: boolean },
  ): Promise<SearchOutcome> {
    const scope = input.scope ?? 'agent';
    const agentId = this.recallable(ctx, scope, input.agentId);
    const query = check.query(input.query, this.limits);
    const plan = defaultPlan(check.topK(input.topK, this.limits), this.options.recallDefaults, Date.now());
    return this.recallEngine.search({ agentId, query, scope, plan, explain: input.explain ?? false, feedback: input.feedback ?? false });
  }

  /** RecallWithOptions: per-call weights, relevance floor, filters and confidence options. */
  async recallWithOptions(ctx: CallContext, input: { agentId: unknown; query: unknown; scope: Scope; explain: boolean; options?: RecallOptionsInput }): Promise<SearchOutcome> {
    const agentId = this.recallable(ctx, input.scope, input.agentId);
    const query = check.query(input.query, this.limits);
    const plan = await this.recallPlan(input.options);
    return this.recallEngine.search({ agentId, query, scope: input.scope, plan, explain: input.explain, feedback: true });
  }

  /** Several queries under one policy, one after another; a bad query fails only its own slot. */
  async batchRecall(ctx: CallContext, input: { agentId: unknown; queries: unknown; scope: Scope; options?: RecallOptionsInput }): Promise<BatchOutcome> {
    const agentId = this.recallable(ctx, input.scope, input.agentId);
    const queries = check.queries(input.queries, this.limits);
    const plan = await this.recallPlan(input.options);
    check.batchBudget(queries, plan.topK, this.limits);
    const checkQuery = (q: unknown, i: number) => check.query(q, this.limits, `queries[${i}]`);
    return this.recallEngine.batch({ agentId, queries, scope: input.scope, plan, checkQuery, alive: () => checkAlive(ctx) });
  }

  /** The namespace a recall of `scope` ranks, once the caller may read every namespace it reads
   *  (scope all: the agent's and the shared one). */
  private recallable(ctx: CallContext, scope: Scope, agentIdInput: unknown): string {
    const agentId = scope === 'shared' ? SHARED_AGENT_ID : check.agentId(agentIdInput);
    authorize(ctx, 'read', agentId);
    if (scope === 'all') authorize(ctx, 'read', SHARED_AGENT_ID);
    return agentId;
  }

  /** Options → plan, with the recipe they name resolved first (its latest saved version). */
  private async recallPlan(options: RecallOptionsInput | undefined, recipe?: Recipe): Promise<RecallPlan> {
    const named = options?.recipe === undefined ? recipe : await this.recipes.resolve(options.recipe, 'options.recipe');
    return planFromOptions(options, this.options.recallDefaults, this.limits, Date.now(), named);
  }

  async resumeCheckpoint(ctx: CallContext, agentIdInput: unknown): Promise<CheckpointRecord | undefined> {
    const agentId = check.agentId(agentIdInput);
    authorize(ctx, 'read', agentId);
    const [latest] = await this.store.checkpoints(agentId, 1);
    return latest;
  }

  listCheckpoints(ctx: CallContext, agentIdInput: unknown): Promise<CheckpointRecord[]> {
    const agentId = check.agentId(agentIdInput);
    authorize(ctx, 'read', agentId);
    return this.store.checkpoints(agentId);
  }

  // ------------------------------------------------------------------------------------------
  // Admin

  /** Checks (or rebuilds) every derived index against the facts; writes wait while it runs. */
  doctor(ctx: CallContext, rebuild: boolean): AsyncGenerator<DoctorEvent> {
    authorizeDaemon(ctx, 'run doctor');
    return doctor(
      { store: this.store, indexer: this.indexer, holdWrites: () => this.pipeline.holdWrites(), saveVectors: () => this.saveVectors(true), consolidation: () => this.consolidator.counters() },
      rebuild,
    );
  }

  /** The store table by table, with hints on compaction and collection. */
  async storageReport(ctx: CallContext): Promise<StorageReport> {
    authorizeDaemon(ctx, 'read the storage report');
    return storageReport(this.store);
  }

  /** Compacts the store's files; writes go on meanwhile. */
  async compact(ctx: CallContext): Promise<CompactReport> {
    authorizeDaemon(ctx, 'compact the store');
    return compactStore(this.store);
  }

  /** Re-embeds every recallable fact with the running embedder (after a model switch). */
  reindex(ctx: CallContext): AsyncGenerator<ReindexEvent> {
    authorizeDaemon(ctx, 'reindex');
    return this.reindexer.run();
  }

  /** A new agent token (its secret is shown only in this answer). */
  createToken(ctx: CallContext, input: TokenInput): Promise<{ token: string; info: TokenInfo }> {
    return this.tokens.create(ctx, input);
  }

  async listTokens(ctx: CallContext): Promise<TokenInfo[]> {
    return this.tokens.list(ctx);
  }

  /** Revokes a token: the next call that presents it is refused. */
  revokeToken(ctx: CallContext, id: unknown): Promise<TokenInfo> {
    return this.tokens.revoke(ctx, id);
  }

  /** Embeds one batch of pending facts now (instead of at the next interval). */
  reconcileNow(): Promise<number> {
    return this.reconciler.runOnce();
  }

  /** What a recall uses for what it does not set itself. */
  get recallDefaults(): RecallDefaults {
    return this.options.recallDefaults;
  }

  /** The embedder recall uses now ("none" while the vector signal is off). */
  activeEmbedder(): string {
    return this.indexer.vectors.activeEmbedder;
  }

  /** Whether the store answers a read now (GET /readyz): one whose PostgreSQL server is down does
   *  not, while the daemon itself still serves. */
  async storeReachable(): Promise<boolean> {
    try {
      await this.store.getMeta('readiness-probe');
      return true;
    } catch (error) {
      if (error instanceof EngramError && error.kind === ErrorKind.Unavailable) return false;
      throw error;
    }
  }

  gauges(): IndexGauges {
    let liveFacts = 0;
    let namespaces = 0;
    for (const ns of this.indexer.catalog.all()) {
      liveFacts += ns.size;
      if (ns.size > 0) namespaces++;
    }
    return { liveFacts, namespaces, pendingEmbeddings: this.indexer.pending.size };
  }

  // ------------------------------------------------------------------------------------------
  // Background work and shutdown

  private startBackgroundWork(): void {
    this.reconciler.start();
    this.timers.push(setInterval(() => void this.flushAccess(), ACCESS_FLUSH_MS).unref());
    const save = () => this.saveVectors(false).catch((error: Error) => this.options.log.warn(`saving the vector indexes failed (the next save tries again; the store has every vector): ${error.message}`));
    this.timers.push(setInterval(() => void save(), VECTOR_SAVE_MS).unref());
  }

  private async flushAccess(): Promise<void> {
    try {
      await this.access.flush(this.store);
    } catch (error) {
      this.options.log.warn(`access bookkeeping write failed (will not retry these counts): ${(error as Error).message}`);
    }
  }

  /** Saves the vector indexes that changed (all of them when `force`), then lets the store forget
   *  the changes they cover. Every committed change is applied by then: writers apply theirs
   *  synchronously after their commit resolves, and this runs from a timer or a job. */
  private saveVectors(force: boolean): Promise<void> {
    // One save at a time: a save yields between namespaces, and a timer or job may ask meanwhile.
    const next = this.vectorSave.then(() => this.saveVectorsNow(force));
    this.vectorSave = next.catch(() => undefined);
    return next;
  }

  private vectorSave: Promise<unknown> = Promise.resolve();

  private async saveVectorsNow(force: boolean): Promise<void> {
    if (force) this.indexer.vectors.saveAllNext();
    const seq = this.appliedSeq;
    if (!(await this.indexer.vectors.saveChanged(this.indexer.catalog, seq))) return;
    // Other daemons, and this one's next start from an older snapshot, catch up from a shared
    // store's log: it keeps the last SHARED_LOG_KEPT changes.
    const prunable = isShared(this.store) ? seq - SHARED_LOG_KEPT : seq;
    if (prunable > 0) await this.store.pruneChanges(prunable).catch((error: Error) => this.options.log.warn(`could not prune the change log: ${error.message}`));
  }

  /** The change number up to which every commit (this daemon's and, on a shared store, every
   *  other daemon's) is in the in-memory indexes. */
  get appliedSeq(): number {
    return this.follower ? this.follower.applied : this.store.lastSeq;
  }

  /** Resolves once the change `minChange` (a number a write returned) is applied here, so the
   *  call sees that write; refuses after MIN_CHANGE_WAIT_MS, or short of the call's deadline if
   *  that comes first (a long deadline must not turn a lagging follower into a long hang). An
   *  embedded store has every change of its own applied at once (a number past them comes from
   *  another store and is ignored). */
  async admit(minChange: number, deadline?: number): Promise<void> {
    if (!this.follower || minChange <= this.follower.applied) return;
    // Short of the deadline, so the caller gets the reason rather than its own timeout.
    const timeoutMs = deadline === undefined ? MIN_CHANGE_WAIT_MS : Math.min(MIN_CHANGE_WAIT_MS, Math.max(0, deadline - Date.now() - 250));
    await this.follower.waitFor(minChange, timeoutMs);
  }

  /** Resolves once every commit the store holds now is applied here (at once on an embedded
   *  store: its only writer is this process). */
  private async caughtUp(): Promise<void> {
    if (!this.follower || !isShared(this.store)) return;
    await this.follower.waitFor(await this.store.currentSeq(), MIN_CHANGE_WAIT_MS);
  }

  /** What Hello says of the store: its kind and, for a shared one, its identity. */
  storeIdentity(): { store: string; storeId: string } {
    return isShared(this.store) ? { store: 'postgres', storeId: this.store.storeId } : { store: 'level', storeId: '' };
  }

  private follower: ChangeFollower | null = null;

  /** On a shared store: applies other daemons' commits from `covered` on, now and from then on. */
  private async follow(covered: number): Promise<void> {
    if (!isShared(this.store)) return;
    const parts = { store: this.store, indexer: this.indexer, access: this.access, pipeline: this.pipeline };
    const target = {
      apply: (keys: readonly FactKey[]) => applyStoredState(parts, keys),
      recordsChanged: async (table: string) => {
        if (table === 'slots') await this.slots.open();
        if (table === 'tokens') await this.tokens.open();
      },
    };
    this.follower = new ChangeFollower(this.store, target, RECORDS_CHANGED, covered, this.options.log);
    const started = Date.now();
    await this.follower.wake();
    this.options.log.info(`caught up with the shared store from change ${covered} to ${this.follower.applied} in ${Date.now() - started} ms`);
    this.follower.start();
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.vault?.close();
    await this.consolidator.close();
    await this.reconciler.stop();
    await this.flushAccess();
    await this.store.drain();
    await this.follower?.stop();
    await this.saveVectors(false);
    const snapshot = saveIndexSnapshot(this.appliedSeq, this.indexer, this.options.dataDir, this.options.log);
    const token = await this.store.close();
    if (snapshot) sealSnapshot(this.options.dataDir, snapshot, token);
    await this.options.embedder.close?.();
  }
}
