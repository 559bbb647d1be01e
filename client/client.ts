// The Engram client library: connect, negotiate, and one typed method per RPC.
// Writes are never retried (by us or by grpc-js): a write whose outcome is unknown surfaces as
// UncertainWriteError with its request id. Reads retry once after a reconnect.
import { randomUUID } from 'node:crypto';
import { Capability } from '../shared/capabilities.ts';
import { readDiscovery, resolveDataDir } from '../shared/discovery.ts';
import { SUPERSEDED_BY_AGENT } from '../shared/retired.ts';
import { errorStatus, RpcError } from '../shared/grpc/bridge.ts';
import { EngramError, ErrorKind, invalidArgument, itemError, kindFromCode } from '../shared/errors.ts';
import * as check from '../shared/validate.ts';
import { MIN_CHANGE_KEY, parseMinChange } from '../shared/changes.ts';
import { DEFAULT_TOP_K, SHARED_AGENT_ID, type Limits } from '../shared/validate.ts';
import { RecallScope } from '../shared/gen/engram/v1/recall_pb.ts';
import { checkFactFilter } from '../shared/fact-filter.ts';
import { checkRecipeFields, MAX_TOKEN_BUDGET } from '../shared/recipe-rules.ts';
import { Connection, type DaemonInfo } from './connection.ts';
import { finishFor, UNCERTAIN_KINDS, UncertainWriteError } from './errors.ts';
import { BATCH_BYTES, itemBytes, WriteCoalescer, type ItemOutcome } from './write-coalescer.ts';
import { requireRestore, restoreMessage } from './restore.ts';
import { callConfidenceWeight, requireCapability, routeRecall, timeBoundsMessage } from './negotiate.ts';
import {
  toCheckpoint, toContextAssembly, toEvidence, toFact, toFactMessage, toFeedback, toHint, toRecipe, toSlot, toReceipt, toRetrieval, toStats, toTokenInfo, type Checkpoint,
  type Fact, type Receipt, type RetrievalMetadata, type Stats, type WeakMatchFeedback,
} from './types.ts';
import * as known from './options.ts';
import type {
  BatchItem, BatchRecallOptions, ClusterOptions, ConnectOptions, ConsolidateMemoriesOptions, ConsolidateOptions, DoctorOptions, ExtractOptions, FactFilter, GcOptions, LinkEntityOptions, ListOptions, ListSlotsOptions,
  ObserveUsageOptions, PromoteOptions, ReadGraphOptions, RecallOptions, RelateOptions, RequestOptions, SlotContextOptions, TokenGrant, TouchOptions, UnifiedSearchOptions, WriteOptions, WriteStatusOptions,
} from './options.ts';

export type { BatchItem, BatchRecallOptions, ClusterOptions, ConnectOptions, ConsolidateMemoriesOptions, ConsolidateOptions, DoctorOptions, ExtractOptions, FactFilter, GcOptions, LinkEntityOptions, ListOptions, ListSlotsOptions, ObserveUsageOptions, PromoteOptions, ReadGraphOptions, RecallFilters, RecallOptions, RelateOptions, RequestOptions, SlotContextOptions, TokenGrant, TouchOptions, UnifiedSearchOptions, WriteOptions, WriteStatusOptions } from './options.ts';
import type { CompactReport, GcResult, ObserveUsageResult, PromoteResult, RecallAdvice, SaveAdvice, StorageReport, UnifiedResult, ExtractResult, ClusterReport, ConsolidateResult, ConsolidationCounters, ConsolidationRun, GraphView, KgHint, ContextAssembly, ContextOptions, Evidence, Recipe, RecipeFields, RelationType, Slot, SlotChange, SlotWrite, SlotWritten, TokenInfo, WriteStatus } from '../shared/model.ts';
export type { Right, TokenInfo, WriteStatus } from '../shared/model.ts';
export type { ClusterReport, ConsolidateResult, DuplicatePair, FactCluster } from '../shared/model.ts';
export type { ExtractResult, ExtractedFactResult } from '../shared/model.ts';
export type { UnifiedHit, UnifiedResult } from '../shared/model.ts';
export type { PromoteResult, PromotionCandidate } from '../shared/model.ts';
export type { CompactReport, GcResult, ObservedFact, ObserveUsageResult, RecallAdvice, SaveAdvice, StorageReport, TableStats } from '../shared/model.ts';

export interface ReviseResult {
  replacement: Fact;
  retiredIds: string[];
  /** Targets whose retirement failed after the replacement committed. */
  failures: { factId: string; error: string }[];
  replayed: boolean;
}

export type { SlotWrite } from '../shared/model.ts';

/** The strength a write sends. Every fact starts at strength 1, so a write asking for 1 asks for
 *  nothing an older daemon lacks (a caller copying facts carries it): it is sent only to a daemon
 *  that knows strengths. Another strength needs decay-v1, refused before sending. */
function strengthFor(daemon: DaemonInfo, strength: number | undefined): number | undefined {
  if (strength === undefined) return undefined;
  if (daemon.capabilities.includes(Capability.Decay)) return strength;
  if (strength === check.DEFAULT_STRENGTH) return undefined;
  requireCapability(daemon, Capability.Decay, 'a write with a strength');
  return strength;
}

/** A boolean option as the caller gave it: a caller's "true" string is refused before anything is
 *  sent rather than read as false (a dry run that wrote). */
const option = (value: unknown, name: string, absent = false): boolean => (value === undefined ? absent : check.boolean(value, name));

/** A cluster size (clusterMemories, consolidateMemories) checked here, as the daemon checks it:
 *  the wire's uint32 would refuse a size outside its own range (0 to 4294967295), in words that
 *  are not the range accepted (1 to 1000). */
function clusterSize(value: number | undefined): void {
  if (value !== undefined) check.count(value, 'max_cluster_size', check.MAX_CLUSTER_SIZE);
}

/** What one item of a batch write came to: stored (or replayed, or already there), or refused. */
export type BatchItemResult =
  | { requestId: string; factId: string; replayed: boolean; duplicate: boolean; error?: undefined }
  | { requestId: string; error: EngramError; factId?: undefined };

/** A write's outcome. */
export interface WriteResult {
  fact: Fact;
  /** The request id had been committed before: `fact` is that write, nothing was written now. */
  replayed: boolean;
  /** An identical live fact existed (same text after Unicode and whitespace normalisation, same
   *  occurredAt and context): `fact` is it, nothing was written. Always false on daemons without
   *  write-dedup-v1. */
  duplicate: boolean;
}

/** One use of a fact (reinforce-v1). */
export interface TouchResult {
  fact: Fact;
  /** The decay score just before and just after. */
  oldScore: number;
  newScore: number;
  replayed: boolean;
}

/** How one recalled fact came to be returned (daemons with recall-matches-v1). */
export interface FactMatch {
  /** A query signal matched it; false: it only fills topK (the library keeps exactly topK). */
  matched: boolean;
  score: number;
  /** The signals that ranked it: "vector", "keyword", "recency", "decay". */
  signals: string[];
  /** Its decay score at the time of the recall; undefined from daemons before decay-v1 and on explain. */
  decayScore?: number;
  /** The records supporting it (a summary's sources, facts linked as "supports"), when the
   *  call's recipe includes evidence (recipe-recall-v1). */
  evidence?: Evidence[];
}

export interface RecallResult {
  facts: Fact[];
  /** One per fact, same order; absent from daemons without recall-matches-v1. */
  matches?: FactMatch[];
  retrieval: RetrievalMetadata;
  /** Present when the query's vocabulary barely overlaps the store's (options path only). */
  feedback?: WeakMatchFeedback;
  /** Knowledge-graph neighbours after the facts (the daemon's --kg, or options.kg); never with
   *  explain or min_confidence. [] from daemons before kg-v1. */
  hints: KgHint[];
}

export interface ExplainResult extends RecallResult {
  receipts: Receipt[];
}

export interface BatchRecallResult {
  /** Each query's facts; `matches` (daemons with recall-matches-v1) says which really matched it. */
  results: { query: string; facts: Fact[]; matches?: FactMatch[]; error?: string }[];
  merged: Fact[];
  retrieval?: RetrievalMetadata;
}

export interface DoctorEvent {
  progress?: { phase: string; done: number; total: number };
  report?: { checks: { name: string; ok: boolean; detail: string }[]; healthy: boolean; rebuilt: boolean };
}

export interface ReindexEvent {
  progress?: { phase: string; done: number; total: number };
  report?: { embedded: number; alreadyDone: number; embedder: string };
}

export async function connect(options: ConnectOptions = {}): Promise<EngramClient> {
  check.knownOptions(options, known.CONNECT_KEYS);
  if (options.onUnreachable !== undefined && typeof options.onUnreachable !== 'function') throw invalidArgument('onUnreachable', 'must be a function (or omitted)');
  let { address, token } = options;
  if (!address) {
    const discovery = readDiscovery(resolveDataDir(options.dataDir));
    address = discovery.address;
    token ??= discovery.token;
  }
  check.dialAddress(address);
  const connection = new Connection({
    address,
    token,
    clientName: options.clientName ?? 'engram-client',
    timeoutMs: options.timeoutMs ?? 30_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    readYourWrites: options.readYourWrites ?? true,
    ...(options.minChange ? { minChange: parseMinChange(options.minChange) } : {}),
    ...(options.onUnreachable ? { onUnreachable: options.onUnreachable } : {}),
  });
  if (options.defaultConfidenceWeight !== undefined) check.confidenceWeight(options.defaultConfidenceWeight, 'defaultConfidenceWeight');
  const client = new EngramClient(connection, options.defaultConfidenceWeight, options.coalesceWrites ?? true);
  try {
    await connection.ready();
  } catch (error) {
    connection.close();
    throw error;
  }
  return client;
}

export class EngramClient {
  /** Concurrent puts of one namespace, sent together (see write-coalescer.ts). */
  private readonly coalescer = new WriteCoalescer<CoalescedItem, PutReply>(
    (items, requestIds) => this.sendCoalesced(items, requestIds),
    // Named as the caller's own call: it called put(), whatever carried the batch.
    (error, requestId) => (error instanceof UncertainWriteError ? new UncertainWriteError([requestId], 'Put', error.cause, error.finish) : error),
  );

  constructor(
    private readonly connection: Connection,
    /** The dial option: weight for recalls that set none (before the daemon's advertised default). */
    private readonly dialConfidenceWeight?: number,
    private readonly coalesceWrites = true,
  ) {}

  /** The highest change number this client's writes committed (0: none yet). A process that
   *  must see them through another client sends it as `engram-min-change` metadata. */
  get lastChange(): number {
    return this.connection.lastChange;
  }

  /** What the daemon said at the last handshake (renewed after every reconnect). */
  get daemon(): DaemonInfo {
    const info = this.connection.daemon;
    if (!info) throw new Error('not connected yet');
    return info;
  }

  /** Renegotiates if needed and returns the current daemon info. */
  hello(): Promise<DaemonInfo> {
    return this.connection.ready();
  }

  // Writes -------------------------------------------------------------------------------------

  /** Stores a fact. With `confidence` it needs confidence-write-v1 (PutWithOptions); without, the
   *  historical Put works on any daemon. */
  async put(agentId: string, text: string, options: WriteOptions = {}): Promise<WriteResult> {
    check.agentId(agentId);
    const memory = this.connection.memory;
    return this.putVia(text, options, {
      legacy: ['Put', (base) => memory.put({ ...base, agentId })],
      labelled: ['PutWithOptions', Capability.ConfidenceWrite, (base, writeOptions) => memory.putWithOptions({ ...base, agentId, options: writeOptions })],
      coalesced: (base, writeOptions, daemon) =>
        this.coalescer.put(agentId, { ...base, agentId, options: writeOptions }, base.requestId, itemBytes({ text, ...base.fields, ...(writeOptions.restore ? { restore: writeOptions.restore } : {}) }), { maxItems: daemon.limits.maxWriteBatch, maxBytes: BATCH_BYTES }),
    });
  }

  /** One BatchPut of coalesced puts: each slot answered as its single put would have been. */
  private async sendCoalesced(items: CoalescedItem[], requestIds: string[]): Promise<ItemOutcome<PutReply>[]> {
    // Over the daemon's write stream when it has one: the same batch without a call of its own.
    // Asked once write() has the handshake: a reconnect may have found another daemon.
    const batch = { items, returnFacts: true };
    const streamed = () => this.connection.daemon?.capabilities.includes(Capability.WriteStream) ?? false;
    const res = await this.write('BatchPut', requestIds, () => (streamed() ? this.connection.writeStream.send(batch) : this.connection.memory.batchPut(batch)));
    return res.results.map((r) => (r.error ? { error: slotError(r.error) } : { ok: { fact: r.fact, replayed: r.replayed, duplicate: r.duplicate } }));
  }

  /** Stores many facts in one call (batch-write-v1; at most `daemon.limits.maxWriteBatch`). Each
   *  item has its own request id (a fresh UUID when omitted), dedup and result; a refused item
   *  fails only its own slot, and nothing of it is written. If the call's outcome is uncertain it
   *  throws UncertainWriteError with every request id: resend the same items to finish. */
  async putBatch(items: readonly BatchItem[]): Promise<BatchItemResult[]> {
    batchShape(items);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.BatchWrite, 'a batch write');
    if (items.length === 0) return [];
    if (items.length > daemon.limits.maxWriteBatch) throw invalidArgument('items', `at most ${daemon.limits.maxWriteBatch} items per batch, got ${items.length}`);
    // Before anything is sent, and outside the per-item refusals: a strength the daemon cannot
    // take refuses the whole call, as for a single put.
    const strengths = items.map((item) => strengthFor(daemon, item.strength));
    requireRestore(daemon, items.map((item) => item.restore));
    // Fields the library turns into the protocol's form are checked here, as REST's batch checks
    // them: a value of the wrong type (a caller's bug) refuses the whole batch before anything
    // is sent; a value a rule refuses (an empty tag) fails in its own slot, as the daemon's
    // refusals do, and the others are still sent.
    const prepared = items.map((item, at) => {
      const requestId = itemRequestId(item.requestId, at);
      try {
        const restore = item.restore === undefined ? {} : { restore: restoreMessage(item.restore) };
        return { requestId, item: { requestId, agentId: item.agentId, text: item.text, fields: fields(item, daemon.limits), options: { confidence: item.confidence, ...(item.allowDuplicate ? { allowDuplicate: true } : {}), strength: strengths[at], ...restore } } };
      } catch (error) {
        if (hasWrongType(item)) throw itemError(error, at);
        return { requestId, error: itemError(error, at) };
      }
    });
    const sent = prepared.flatMap((p) => (p.item ? [p.item] : []));
    const res = sent.length ? await this.write('BatchPut', sent.map((s) => s.requestId), () => this.connection.memory.batchPut({ items: sent })) : { results: [] };
    let answered = 0;
    return prepared.map(({ requestId, error }, at): BatchItemResult => {
      if (error) return { requestId, error };
      const sentAt = answered++;
      const r = res.results[sentAt]!;
      if (!r.error) return { requestId, factId: r.factId, replayed: r.replayed, duplicate: r.duplicate };
      // The daemon numbers the items it was sent; the caller's numbering counts the refused ones too.
      const renumber = (text: string) => text.replace(`items[${sentAt}]`, `items[${at}]`);
      return { requestId, error: new EngramError(kindFromCode(r.error.code), renumber(r.error.message), r.error.field ? renumber(r.error.field) : undefined) };
    });
  }

  /** Stores a fact in the shared namespace (confidence needs confidence-shared-write-v1). */
  async putShared(text: string, options: WriteOptions = {}): Promise<WriteResult> {
    const memory = this.connection.memory;
    return this.putVia(text, options, {
      legacy: ['PutShared', (base) => memory.putShared(base)],
      labelled: ['PutSharedWithOptions', Capability.ConfidenceSharedWrite, (base, writeOptions) => memory.putSharedWithOptions({ ...base, options: writeOptions })],
    });
  }

  /** One write path for both namespaces: the historical RPC without a label, the options RPC
   *  (checked against the daemon's capabilities before sending) with one. */
  private async putVia(
    text: string,
    options: WriteOptions,
    rpcs: {
      legacy: [string, (base: PutBase) => Promise<PutReply>];
      labelled: [string, string, (base: PutBase, options: PutOptions) => Promise<PutReply>];
      /** The same write sent with concurrent others as one batch (a namespace's puts only). */
      coalesced?: (base: PutBase, options: PutOptions, daemon: DaemonInfo) => Promise<PutReply>;
    },
  ): Promise<WriteResult> {
    check.knownOptions(options, known.WRITE_KEYS);
    const daemon = await this.connection.ready();
    check.factText(text, daemon.limits);
    const base: PutBase = { requestId: requestIdOf(options.requestId), text, fields: fields(options, daemon.limits) };
    let res: PutReply;
    // A daemon without write dedup stores every write anyway: allowDuplicate is honoured as is.
    const allowDuplicate = option(options.allowDuplicate, 'allowDuplicate') && daemon.capabilities.includes(Capability.WriteDedup);
    if (options.strength !== undefined) check.strength(options.strength);
    const strength = strengthFor(daemon, options.strength);
    const confidence = options.confidence === undefined ? undefined : check.confidenceLabel(options.confidence);
    requireRestore(daemon, [options.restore]);
    const restore = options.restore === undefined ? undefined : restoreMessage(options.restore);
    const writeOptions: PutOptions = { confidence, ...(allowDuplicate ? { allowDuplicate: true } : {}), strength, ...(restore ? { restore } : {}) };
    if (rpcs.coalesced && this.coalesceWrites && daemon.capabilities.includes(Capability.BatchWriteFacts)) {
      res = await rpcs.coalesced(base, writeOptions, daemon);
    } else if (confidence === undefined && !allowDuplicate && strength === undefined && !restore) {
      const [method, send] = rpcs.legacy;
      res = await this.write(method, base.requestId, () => send(base));
    } else {
      const [method, capability, send] = rpcs.labelled;
      if (confidence !== undefined) requireCapability(daemon, capability, 'a write with a confidence label');
      requireCapability(daemon, capability, 'a write with options');
      res = await this.write(method, base.requestId, () => send(base, writeOptions));
    }
    return { fact: toFact(res.fact), replayed: res.replayed, duplicate: res.duplicate ?? false };
  }

  /** Replaces live facts by a new one. Needs confidence-write-v1 even without a label: the
   *  conservative label and the transactional target checks are daemon semantics. */
  async revise(agentId: string, targetIds: string[], text: string, options: WriteOptions = {}): Promise<ReviseResult> {
    check.knownOptions(options, known.WRITE_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.ConfidenceWrite, 'revise');
    // A revision's lineage is its targets: what it would restore is a put's (the daemon agrees).
    if (options.restore !== undefined) throw invalidArgument('options.restore', 'a revision takes no restore (only a put does)');
    check.agentId(agentId);
    check.factText(text, daemon.limits);
    targetIds.forEach((id, i) => check.factId(id, `target_ids[${i}]`));
    const confidence = options.confidence === undefined ? undefined : check.confidenceLabel(options.confidence);
    const requestId = requestIdOf(options.requestId);
    const res = await this.write('Revise', requestId, () =>
      this.connection.memory.revise({ requestId, agentId, targetIds, text, fields: fields(options, daemon.limits), options: { confidence } }),
    );
    return {
      replacement: toFact(res.replacement),
      retiredIds: [...res.retiredIds],
      failures: res.failures.map((f) => ({ factId: f.factId, error: f.error })),
      replayed: res.replayed,
    };
  }

  /** Pins a fact. Uses PatchFact (confidence-lifecycle-v1), else reads it and sends UpdateFact once. */
  pin(agentId: string, factId: string, options: RequestOptions = {}): Promise<Fact> {
    return this.lifecycle(agentId, factId, { pinned: true }, (f) => ({ ...f, pinned: true }), options);
  }

  unpin(agentId: string, factId: string, options: RequestOptions = {}): Promise<Fact> {
    return this.lifecycle(agentId, factId, { pinned: false }, (f) => ({ ...f, pinned: false }), options);
  }

  /** Retires a fact (superseded_by = "agent"): it stops being recalled but stays in `list`. */
  forget(agentId: string, factId: string, options: RequestOptions = {}): Promise<Fact> {
    return this.lifecycle(agentId, factId, { forget: true }, (f) => (f.supersededBy ? f : { ...f, supersededBy: SUPERSEDED_BY_AGENT }), options);
  }

  /** Changes a fact's confidence label (needs confidence-lifecycle-v1). */
  async setConfidence(agentId: string, factId: string, confidence: string, options: RequestOptions = {}): Promise<Fact> {
    const label = check.confidenceLabel(confidence);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.ConfidenceLifecycle, 'changing a confidence label');
    return this.lifecycle(agentId, factId, { confidence: label }, (f) => f, options);
  }

  /** A lifecycle change: one PatchFact on a daemon with confidence-lifecycle-v1; on an older
   *  daemon, read the fact and send the changed whole fact with UpdateFact, once. Either way the
   *  mutation is sent exactly once: an error after sending surfaces, it never switches to the other
   *  endpoint or replays. */
  private async lifecycle(
    agentId: string,
    factId: string,
    patch: { pinned?: boolean; forget?: boolean; confidence?: string },
    legacy: (current: Fact) => Fact,
    options: RequestOptions,
  ): Promise<Fact> {
    check.knownOptions(options, known.REQUEST_KEYS);
    const daemon = await this.connection.ready();
    check.agentId(agentId);
    check.factId(factId);
    const requestId = requestIdOf(options.requestId);
    if (daemon.capabilities.includes(Capability.ConfidenceLifecycle)) {
      const res = await this.write('PatchFact', requestId, () => this.connection.memory.patchFact({ requestId, agentId, factId, ...patch }));
      return toFact(res.fact);
    }
    const current = await this.get(agentId, factId);
    return this.updateFact(agentId, legacy(current), { requestId });
  }

  /** One use of a fact: use count + 1, last used now; `boostStrength` also adds 0.1 to its
   *  strength (at most 2). Needs reinforce-v1. */
  async touch(agentId: string, factId: string, options: TouchOptions = {}): Promise<TouchResult> {
    check.knownOptions(options, known.TOUCH_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Reinforce, 'reinforcing a fact (touch)');
    check.agentId(agentId);
    check.factId(factId);
    const requestId = requestIdOf(options.requestId);
    const res = await this.write('Touch', requestId, () => this.connection.decay.touch({ requestId, agentId, factId, boostStrength: option(options.boostStrength, 'boostStrength') }));
    return { fact: toFact(res.fact), oldScore: res.oldScore, newScore: res.newScore, replayed: res.replayed };
  }

  /** Facts used in a conversation, with the conversation's tags: each live one gets a use and a
   *  review, and a cross-domain use (tags barely overlapping) raises its strength. Needs reinforce-v1. */
  async observeUsage(agentId: string, factIds: string[], options: ObserveUsageOptions = {}): Promise<ObserveUsageResult> {
    check.knownOptions(options, known.OBSERVE_USAGE_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Reinforce, 'observing memory usage');
    check.agentId(agentId);
    check.factIds(factIds, 'fact_ids', check.MAX_OBSERVED_FACTS);
    const contextTags = options.contextTags === undefined ? [] : check.tags(options.contextTags, 'context_tags');
    const requestId = requestIdOf(options.requestId);
    const res = await this.write('ObserveUsage', requestId, () => this.connection.decay.observeUsage({ requestId, agentId, factIds, contextTags }));
    const results = res.results.map((r) => ({ factId: r.factId, status: r.status, crossDomain: r.crossDomain, useCount: r.useCount, reviewCount: r.reviewCount, strength: r.strength }));
    return { reinforced: res.reinforced, reason: res.reason, results, count: res.count, crossDomainCount: res.crossDomainCount, replayed: res.replayed };
  }

  /** Garbage collection of a namespace's faded facts (score below the daemon's forget
   *  threshold; pinned facts never). A dry run unless `dryRun: false`. Needs gc-v1. */
  async collectGarbage(agentId: string, options: GcOptions = {}): Promise<GcResult> {
    check.knownOptions(options, known.GC_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Gc, 'garbage collection');
    check.agentId(agentId);
    if (options.limit !== undefined) check.count(options.limit, 'limit', check.MAX_GC_LIMIT);
    const requestId = requestIdOf(options.requestId);
    const req = { requestId, agentId, dryRun: option(options.dryRun, 'dryRun', true), archiveInstead: option(options.archiveInstead, 'archiveInstead'), limit: options.limit };
    // A dry run changes nothing, so it may be retried like a read.
    const send = () => this.connection.decay.collectGarbage(req);
    const res = req.dryRun ? await this.read(send) : await this.write('CollectGarbage', requestId, send);
    const { $typeName: _t, ...result } = res;
    return { ...result, factIds: [...res.factIds], scores: [...res.scores] };
  }

  /** Promotes a fact (`factId`) or every qualifying fact (`autoDetect`) to a long-term note in
   *  the daemon's vault, and marks it promoted (promote-v1). Promoting again changes nothing. */
  async promote(agentId: string, options: PromoteOptions = {}): Promise<PromoteResult> {
    check.knownOptions(options, known.PROMOTE_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Promote, 'promotion to notes');
    check.agentId(agentId);
    if (options.factId !== undefined) check.factId(options.factId, 'memory_id');
    const req = { agentId, factId: options.factId ?? '', autoDetect: option(options.autoDetect, 'autoDetect'), dryRun: option(options.dryRun, 'dryRun'), force: option(options.force, 'force'), target: options.target ?? '' };
    // Promotion is idempotent (a promoted fact is left as it is), so a lost answer may be resent.
    const r = await this.read(() => this.connection.decay.promote(req));
    return {
      dryRun: r.dryRun,
      candidatesFound: r.candidatesFound,
      promotedCount: r.promotedCount,
      promotedIds: [...r.promotedIds],
      candidates: r.candidates.map((c) => ({ id: c.factId, contentPreview: c.contentPreview, reason: c.reason, score: c.score, useCount: c.useCount, ageDays: c.ageDays })),
      message: r.message,
    };
  }

  /** The store's facts and the daemon's vault notes ranked together (unified-search-v1). */
  async searchUnified(agentId: string, query: string, options: UnifiedSearchOptions = {}): Promise<UnifiedResult> {
    check.knownOptions(options, known.UNIFIED_SEARCH_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.UnifiedSearch, 'unified search');
    check.agentId(agentId);
    check.query(query, daemon.limits);
    // Checked here, as the daemon checks them: the wire's uint32 would refuse a negative or too
    // large number first, as "between 0 and 4294967295", which is not the range accepted.
    if (options.limit !== undefined) check.count(options.limit, 'limit', daemon.limits.maxTopK);
    if (options.windowDays !== undefined) check.windowDays(options.windowDays);
    const r = await this.read(() => this.connection.vault.searchUnified({ agentId, query, tags: options.tags ?? [], limit: options.limit, stmWeight: options.stmWeight, ltmWeight: options.ltmWeight, windowDays: options.windowDays, minScore: options.minScore }));
    return { hits: r.hits.map((h) => ({ source: h.source === 'ltm' ? 'ltm' : 'stm', id: h.id, content: h.content, title: h.title, path: h.path, score: h.score })), stmCount: r.stmCount, ltmCount: r.ltmCount, vault: r.vault };
  }

  /** The durable facts of a message or conversation, proposed by the daemon's extractor; with
   *  `remember`, stored as unverified facts (extract-v1). A remembering call is a write: never
   *  replayed when its outcome is uncertain (resend with the same requestId). */
  async extract(agentId: string, input: { message: string } | { turns: { speaker?: string; text: string }[] }, options: ExtractOptions = {}): Promise<ExtractResult> {
    check.knownOptions(options, known.EXTRACT_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Extract, 'fact extraction');
    check.agentId(agentId);
    const requestId = requestIdOf(options.requestId);
    const req = { requestId, agentId, ...('message' in input ? { message: input.message } : { turns: input.turns.map((t) => ({ speaker: t.speaker ?? '', text: t.text })) }), remember: option(options.remember, 'remember') };
    const send = () => this.connection.extraction.extract(req);
    const r = options.remember ? await this.write('Extract', requestId, send) : await this.read(send);
    return {
      extractor: r.extractor,
      facts: r.facts.map((f) => ({ text: f.text, kind: f.kind, entities: [...f.entities], ...(f.factId ? { factId: f.factId, duplicate: f.duplicate } : {}), ...(f.error ? { error: f.error } : {}) })),
      ...(r.rejected ? { rejected: r.rejected } : {}),
      stored: r.stored,
    };
  }

  /** Clusters of similar live facts (or, with findDuplicates, duplicate pairs); ids are stable
   *  across calls (clusters-v1). */
  async clusterMemories(agentId: string, options: ClusterOptions = {}): Promise<ClusterReport> {
    check.knownOptions(options, known.CLUSTER_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Clusters, 'clustering');
    check.agentId(agentId);
    clusterSize(options.maxClusterSize);
    const r = await this.read(() => this.connection.clusters.cluster({ agentId, strategy: '', threshold: options.threshold, maxClusterSize: options.maxClusterSize, findDuplicates: option(options.findDuplicates, 'findDuplicates'), duplicateThreshold: options.duplicateThreshold }));
    return {
      mode: r.mode === 'duplicate_detection' ? 'duplicate_detection' : 'clustering',
      similarity: r.similarity === 'vector' ? 'vector' : 'tokens',
      threshold: r.threshold,
      clusters: r.clusters.map((c) => ({ id: c.id, size: c.size, cohesion: c.cohesion, suggestedAction: c.suggestedAction, memoryIds: [...c.memoryIds], contentPreviews: [...c.contentPreviews] })),
      duplicates: r.duplicates.map((d) => ({ id1: d.id1, id2: d.id2, content1Preview: d.content1Preview, content2Preview: d.content2Preview, similarity: d.similarity })),
      message: r.message,
    };
  }

  /** Merges a cluster's members into one fact that replaces them (mode "apply"; "dry_run" shows
   *  the merge). A stale cluster id is refused (clusters-v1). */
  async consolidateMemories(agentId: string, clusterId: string, options: ConsolidateMemoriesOptions = {}): Promise<ConsolidateResult> {
    check.knownOptions(options, known.CONSOLIDATE_MEMORIES_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Clusters, 'consolidation');
    check.agentId(agentId);
    clusterSize(options.maxClusterSize);
    const requestId = requestIdOf(options.requestId);
    const req = { requestId, agentId, clusterId, mode: options.mode ?? 'dry_run', threshold: options.threshold, maxClusterSize: options.maxClusterSize };
    const send = () => this.connection.clusters.consolidate(req);
    const r = req.mode === 'apply' ? await this.write('Consolidate', requestId, send) : await this.read(send);
    const m = r.merged;
    return {
      mode: r.mode === 'apply' ? 'apply' : 'dry_run',
      clusterId: r.clusterId,
      merged: { text: m?.text ?? '', tags: [...(m?.tags ?? [])], entities: [...(m?.entities ?? [])], useCount: m?.useCount ?? 0, strength: m?.strength ?? 0, confidence: m?.confidence ?? '' },
      retiredIds: [...r.retiredIds],
      factId: r.factId,
      message: r.message,
    };
  }

  /** Adds (or with `remove`, removes) the typed relation from → to between two live facts of a
   *  namespace (kg-v1). A write: never replayed when its outcome is uncertain. */
  async relate(agentId: string, fromId: string, type: RelationType, toId: string, options: RelateOptions = {}): Promise<{ fact: Fact; changed: boolean; replayed: boolean }> {
    check.knownOptions(options, known.RELATE_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.KnowledgeGraph, 'a relation');
    check.agentId(agentId);
    const requestId = requestIdOf(options.requestId);
    const r = await this.write('Relate', requestId, () => this.connection.graph.relate({ requestId, agentId, fromId, toId, type, remove: option(options.remove, 'remove') }));
    return { fact: toFact(r.fact), changed: r.changed, replayed: r.replayed };
  }

  /** Attaches an entity (with its type, if known) to a live fact as one transactional patch
   *  (kg-v1); against older daemons the MCP and CLI doors fall back to a whole-fact UpdateFact. */
  async linkEntity(agentId: string, factId: string, entity: string, options: LinkEntityOptions = {}): Promise<Fact> {
    check.knownOptions(options, known.LINK_ENTITY_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.KnowledgeGraph, 'an entity link');
    check.agentId(agentId);
    const requestId = requestIdOf(options.requestId);
    const r = await this.write('LinkEntity', requestId, () => this.connection.graph.linkEntity({ requestId, agentId, factId, entity, entityType: options.type ?? '' }));
    return toFact(r.fact);
  }

  /** The graph around a fact (its entities, relations both ways, lineage) or an entity (the
   *  facts naming it, the entities named with it) (kg-v1). */
  async readGraph(agentId: string, around: { factId: string } | { entity: string }, options: ReadGraphOptions = {}): Promise<GraphView> {
    check.knownOptions(options, known.READ_GRAPH_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.KnowledgeGraph, 'a graph read');
    check.agentId(agentId);
    if ('factId' in around && 'entity' in around) throw invalidArgument('around', 'name exactly one of factId and entity');
    // As searchUnified's limit: the daemon's range, not the wire's.
    if (options.limit !== undefined) check.count(options.limit, 'limit', check.MAX_GRAPH_LIMIT);
    const r = await this.read(() => this.connection.graph.readGraph({ agentId, factId: 'factId' in around ? around.factId : '', entity: 'entity' in around ? around.entity : '', limit: options.limit }));
    return {
      nodes: r.nodes.map((n) => ({ id: n.id, kind: n.kind === 'entity' ? 'entity' : 'fact', label: n.label, type: n.type, live: n.live })),
      edges: r.edges.map((e) => ({ from: e.from, to: e.to, type: e.type, weight: e.weight })),
    };
  }

  /** One consolidation run over a namespace: its faded facts summarised into one summary fact
   *  that replaces them (consolidate-v1). A real run is a write: never replayed when its outcome
   *  is uncertain (resend with the same requestId). */
  async consolidate(agentId: string, options: ConsolidateOptions = {}): Promise<ConsolidationRun> {
    check.knownOptions(options, known.CONSOLIDATE_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Consolidate, 'consolidation');
    check.agentId(agentId);
    const requestId = requestIdOf(options.requestId);
    const req = { requestId, agentId, dryRun: option(options.dryRun, 'dryRun') };
    const send = () => this.connection.consolidation.consolidate(req);
    const r = req.dryRun ? await this.read(send) : await this.write('Consolidate', requestId, send);
    return {
      dryRun: r.dryRun,
      fadedCount: r.fadedCount,
      ...(r.summary ? { summary: toFact(r.summary) } : {}),
      sourceIds: [...r.sourceIds],
      retiredIds: [...r.retiredIds],
      failures: r.failures.map((f) => ({ factId: f.factId, error: f.error })),
      summarizer: r.summarizer,
      rejected: r.rejected,
      text: r.text,
      message: r.message,
      replayed: r.replayed,
    };
  }

  /** Lifetime consolidation totals of the daemon's store (consolidate-v1). */
  async consolidationStatus(): Promise<ConsolidationCounters> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Consolidate, 'consolidation counters');
    const { counters: c } = await this.read(() => this.connection.consolidation.consolidationStatus({}));
    return { runs: Number(c?.runs ?? 0), summariesWritten: Number(c?.summariesWritten ?? 0), factsRetired: Number(c?.factsRetired ?? 0), failures: Number(c?.failures ?? 0), rejectedProposals: Number(c?.rejectedProposals ?? 0), lastRunAt: Number(c?.lastRunAtMs ?? 0), queued: c?.queued ?? 0 };
  }

  /** Creates or updates the slot of (project, scope, name): an agent writing the same slot on
   *  every boot keeps one record. Fields left out keep the stored slot's (a lock comes off only
   *  with locked: false). A write: never replayed when its outcome is uncertain (slots-v1). */
  async putSlot(slot: SlotWrite, options: RequestOptions = {}): Promise<SlotWritten> {
    check.knownOptions(slot, known.SLOT_WRITE_KEYS, 'slot');
    check.knownOptions(options, known.REQUEST_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Slots, 'memory slots');
    const requestId = requestIdOf(options.requestId);
    const req = {
      requestId,
      slotName: slot.slotName,
      // Checked first: JSON.stringify runs out of stack on a value nested thousands deep, and would
      // quietly turn NaN into null.
      ...(slot.slotValue !== undefined ? { slotValueJson: JSON.stringify(check.jsonValue(slot.slotValue, 'slot_value')) } : {}),
      scope: slot.scope,
      projectId: slot.projectId ?? '',
      locked: slot.locked,
      status: slot.status,
      evidenceRefs: slot.evidenceRefs ?? [],
      setEvidenceRefs: slot.evidenceRefs !== undefined,
      confidence: slot.confidence,
      visibility: slot.visibility,
    };
    const r = await this.write('PutSlot', requestId, () => this.connection.controls.putSlot(req));
    return { slot: toSlot(r.slot), created: r.created, changed: !r.unchanged, replayed: r.replayed };
  }

  async getSlot(recordId: string): Promise<Slot> {
    requireCapability(await this.connection.ready(), Capability.Slots, 'memory slots');
    return toSlot((await this.read(() => this.connection.controls.getSlot({ recordId }))).slot);
  }

  /** Slots by project and substring (archived ones with archived: true), paged (slots-v1). */
  async listSlots(options: ListSlotsOptions = {}): Promise<{ slots: Slot[]; nextPageToken: string }> {
    check.knownOptions(options, known.LIST_SLOTS_KEYS);
    // Checked as the daemon checks them, before sending: encoding would coerce "5", and NaN or
    // -1 would only come back refused.
    if (options.limit !== undefined) check.count(options.limit, 'limit', check.MAX_SLOT_PAGE);
    if (options.pageToken !== undefined && options.pageToken !== '') check.pageToken(options.pageToken);
    requireCapability(await this.connection.ready(), Capability.Slots, 'memory slots');
    const r = await this.read(() => this.connection.controls.listSlots({ projectId: options.projectId, query: options.query ?? '', archived: option(options.archived, 'archived'), limit: options.limit, pageToken: options.pageToken ?? '' }));
    return { slots: r.slots.map(toSlot), nextPageToken: r.nextPageToken };
  }

  /** Archives a slot; a locked one is refused (failed_precondition "slot is locked"). */
  async deleteSlot(recordId: string, options: RequestOptions = {}): Promise<Slot> {
    check.knownOptions(options, known.REQUEST_KEYS);
    requireCapability(await this.connection.ready(), Capability.Slots, 'memory slots');
    const requestId = requestIdOf(options.requestId);
    return toSlot((await this.write('DeleteSlot', requestId, () => this.connection.controls.deleteSlot({ requestId, recordId }))).slot);
  }

  /** Every change of a slot: when, by whom, before and after (slots-v1). */
  async slotHistory(recordId: string): Promise<SlotChange[]> {
    requireCapability(await this.connection.ready(), Capability.Slots, 'memory slots');
    const r = await this.read(() => this.connection.controls.slotHistory({ recordId }));
    return r.changes.map((c) => ({ recordId, version: c.version, at: Number(c.atMs), by: c.by, op: c.op as SlotChange['op'], before: c.before ? toSlot(c.before) : null, after: toSlot(c.after) }));
  }

  /** The slots that apply (a project's and the global ones; a project slot shadows a global one
   *  of the same scope and name), optionally only the named ones (slots-v1). */
  async slotContext(options: SlotContextOptions = {}): Promise<Slot[]> {
    check.knownOptions(options, known.SLOT_CONTEXT_KEYS);
    requireCapability(await this.connection.ready(), Capability.Slots, 'memory slots');
    return (await this.read(() => this.connection.controls.slotContext({ projectId: options.projectId ?? '', slotNames: options.slotNames ?? [] }))).slots.map(toSlot);
  }

  /** Slots, pinned facts and the facts recalled for `query`, packed to a token budget counted
   *  with a real tokenizer (context-v1). `mode` (cheap, balanced, deep, forensic) or `recipe`. */
  async assembleContext(agentId: string, query: string, options: ContextOptions = {}): Promise<ContextAssembly> {
    check.knownOptions(options, known.CONTEXT_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Context, 'context assembly');
    check.agentId(agentId);
    // Checked here too: a negative or fractional number cannot even be encoded as the protocol's uint32.
    if (options.tokenBudget !== undefined) check.count(options.tokenBudget, 'token_budget', MAX_TOKEN_BUDGET);
    if (options.topK !== undefined) check.topK(options.topK, daemon.limits, 'top_k');
    const res = await this.read(() =>
      this.connection.controls.assembleContext({
        agentId,
        query,
        mode: options.mode,
        recipe: options.recipe,
        tokenBudget: options.tokenBudget,
        projectId: options.projectId,
        slotNames: options.slotNames ?? [],
        topK: options.topK,
      }),
    );
    return toContextAssembly(res, daemon.capabilities.includes(Capability.RecallMatches));
  }

  /** Saves a new version of a retrieval recipe: the given fields over its latest version, else
   *  over the built-in of that name (else balanced). A write (recipes-v1). */
  async saveRecipe(name: string, fields: Partial<RecipeFields>, options: RequestOptions = {}): Promise<Recipe> {
    check.knownOptions(fields, known.RECIPE_FIELD_KEYS, 'fields');
    check.knownOptions(options, known.REQUEST_KEYS);
    requireCapability(await this.connection.ready(), Capability.Recipes, 'retrieval recipes');
    checkRecipeFields(fields);
    const requestId = requestIdOf(options.requestId);
    return toRecipe((await this.write('SaveRecipe', requestId, () => this.connection.controls.saveRecipe({ requestId, name, ...fields }))).recipe);
  }

  /** Saved recipes (latest versions), then the built-ins not overridden (builtin: true). */
  async listRecipes(): Promise<Recipe[]> {
    requireCapability(await this.connection.ready(), Capability.Recipes, 'retrieval recipes');
    return (await this.read(() => this.connection.controls.listRecipes({}))).recipes.map(toRecipe);
  }

  async getRecipe(name: string): Promise<Recipe> {
    requireCapability(await this.connection.ready(), Capability.Recipes, 'retrieval recipes');
    return toRecipe((await this.read(() => this.connection.controls.getRecipe({ name }))).recipe);
  }

  /** Every saved version of a recipe, oldest first. */
  async recipeHistory(name: string): Promise<Recipe[]> {
    requireCapability(await this.connection.ready(), Capability.Recipes, 'retrieval recipes');
    return (await this.read(() => this.connection.controls.recipeHistory({ name }))).versions.map(toRecipe);
  }

  /** Whether a message is worth saving: advice only, nothing is stored (analysis-v1). */
  async analyzeMessage(message: string): Promise<SaveAdvice> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Analysis, 'message analysis');
    check.factText(message, daemon.limits, 'message');
    const { $typeName: _t, ...advice } = await this.read(() => this.connection.analysis.analyzeMessage({ message }));
    return { ...advice, suggestedEntities: [...advice.suggestedEntities], suggestedTags: [...advice.suggestedTags] };
  }

  /** Whether a message asks for something remembered, and what to search for (analysis-v1). */
  async analyzeForRecall(message: string): Promise<RecallAdvice> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Analysis, 'message analysis');
    check.factText(message, daemon.limits, 'message');
    const { $typeName: _t, ...advice } = await this.read(() => this.connection.analysis.analyzeForRecall({ message }));
    return { ...advice, suggestedEntities: [...advice.suggestedEntities], suggestedTags: [...advice.suggestedTags] };
  }

  async delete(agentId: string, factId: string, options: RequestOptions = {}): Promise<Fact> {
    check.knownOptions(options, known.REQUEST_KEYS);
    await this.connection.ready();
    check.agentId(agentId);
    check.factId(factId);
    const requestId = requestIdOf(options.requestId);
    const res = await this.write('Delete', requestId, () => this.connection.memory.delete({ requestId, agentId, factId }));
    return toFact(res.fact);
  }

  /** Legacy whole-fact replace: send back a fact you read, with your changes. */
  async updateFact(agentId: string, fact: Fact, options: RequestOptions = {}): Promise<Fact> {
    check.knownOptions(options, known.REQUEST_KEYS);
    await this.connection.ready();
    check.agentId(agentId);
    check.factId(fact.id, 'fact.id');
    const requestId = requestIdOf(options.requestId);
    const res = await this.write('UpdateFact', requestId, () =>
      this.connection.memory.updateFact({ requestId, agentId, fact: toFactMessage(fact) }),
    );
    return toFact(res.fact);
  }

  // Reads --------------------------------------------------------------------------------------

  async get(agentId: string, factId: string): Promise<Fact> {
    check.agentId(agentId);
    check.factId(factId);
    const res = await this.read(() => this.connection.memory.get({ agentId, factId }));
    return toFact(res.fact);
  }

  async recall(agentId: string, query: string, options: RecallOptions = {}): Promise<RecallResult> {
    check.agentId(agentId);
    return this.recallIn(agentId, query, RecallScope.AGENT, false, options);
  }

  async recallShared(query: string, options: RecallOptions = {}): Promise<RecallResult> {
    return this.recallIn(SHARED_AGENT_ID, query, RecallScope.SHARED, false, options);
  }

  /** The agent's namespace and the shared one, fused by namespace RRF. */
  async recallAll(agentId: string, query: string, options: RecallOptions = {}): Promise<RecallResult> {
    check.agentId(agentId);
    return this.recallIn(agentId, query, RecallScope.ALL, false, options);
  }

  async recallExplain(agentId: string, query: string, options: RecallOptions = {}): Promise<ExplainResult> {
    check.agentId(agentId);
    return this.recallIn(agentId, query, RecallScope.AGENT, true, options);
  }

  /** Several queries in one call under one policy (the weight is resolved once, before the call);
   *  a failing query reports in its own slot. */
  async batchRecall(agentId: string, queries: string[], options: BatchRecallOptions = {}): Promise<BatchRecallResult> {
    check.knownOptions(options, known.BATCH_RECALL_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.BatchRecall, 'batch recall');
    check.agentId(agentId);
    check.queries(queries, daemon.limits);
    check.batchBudget(queries, options.topK ?? DEFAULT_TOP_K, daemon.limits);
    const weight = this.confidenceWeight(options, daemon);
    recallOptions(options);
    if (options.topK !== undefined) check.optionsTopK(options.topK, daemon.limits, 'top_k');
    const route = routeRecall(daemon, options, weight, true);
    if (route.kind !== 'options') throw new Error('unreachable: batch recall always uses its own RPC');
    const res = await this.read(() =>
      this.connection.memory.batchRecall({ agentId, queries, scope: SCOPES[options.scope ?? 'agent'], options: route.message }),
    );
    return {
      results: res.results.map((r) => ({ query: r.query, facts: r.facts.map(toFact), ...matchesOf(r, daemon), ...(r.error ? { error: r.error } : {}) })),
      merged: res.merged.map(toFact),
      retrieval: res.retrieval && toRetrieval(res.retrieval),
    };
  }

  private confidenceWeight(options: RecallOptions, daemon: DaemonInfo): number | undefined {
    const weight = callConfidenceWeight(options, this.dialConfidenceWeight, daemon);
    if (options.confidenceWeight !== undefined) check.confidenceWeight(options.confidenceWeight, 'confidenceWeight');
    if (options.minConfidence !== undefined) check.confidenceLabel(options.minConfidence, 'minConfidence');
    return weight;
  }

  /** One recall: the historical RPC when the call is effectively legacy, else RecallWithOptions. */
  private async recallIn(agentId: string, query: string, scope: RecallScope, explain: boolean, options: RecallOptions): Promise<ExplainResult> {
    check.knownOptions(options, known.RECALL_KEYS);
    const daemon = await this.connection.ready();
    check.query(query, daemon.limits);
    const weight = this.confidenceWeight(options, daemon);
    recallOptions(options);
    // Explain of the shared or merged scopes has no historical RPC.
    const route = routeRecall(daemon, options, weight, explain && scope !== RecallScope.AGENT);
    // A legacy recall refuses a topK of 0; the options RPC reads it as the default.
    if (options.topK !== undefined) (route.kind === 'legacy' ? check.topK : check.optionsTopK)(options.topK, daemon.limits, 'top_k');
    if (route.kind === 'legacy') return this.legacyRecall(agentId, query, scope, explain, options.topK);
    const res = await this.read(() => this.connection.memory.recallWithOptions({ agentId, query, scope, explain, options: route.message }));
    return {
      facts: res.facts.map(toFact),
      ...matchesOf(res, daemon),
      receipts: res.receipts.map((r) => toReceipt(r, daemon.capabilities.includes(Capability.RecallMatches))),
      retrieval: toRetrieval(res.retrieval),
      ...(res.feedback ? { feedback: toFeedback(res.feedback) } : {}),
      hints: res.kgHints.map(toHint),
    };
  }

  private async legacyRecall(agentId: string, query: string, scope: RecallScope, explain: boolean, topK: number | undefined): Promise<ExplainResult> {
    const memory = this.connection.memory;
    if (explain) {
      const res = await this.read(() => memory.recallExplain({ agentId, query, topK }));
      const receipts = res.receipts.map((r) => toReceipt(r, this.daemon.capabilities.includes(Capability.RecallMatches)));
      return { facts: receipts.map((r) => r.fact), receipts, retrieval: toRetrieval(res.retrieval), ...matchesFromReceipts(receipts, this.daemon), hints: [] };
    }
    const res =
      scope === RecallScope.SHARED
        ? await this.read(() => memory.recallShared({ query, topK }))
        : scope === RecallScope.ALL
          ? await this.read(() => memory.recallAll({ agentId, query, topK }))
          : await this.read(() => memory.recall({ agentId, query, topK }));
    return { facts: res.facts.map(toFact), ...matchesOf(res, this.daemon), receipts: [], retrieval: toRetrieval(res.retrieval), hints: 'kgHints' in res ? res.kgHints.map(toHint) : [] };
  }

  /** Stores "term = equivalents": later queries containing the term also match its equivalents.
   *  `duplicate`: the agent already had this alias (the fact is that one and nothing was written;
   *  an older daemon never says so). */
  async alias(agentId: string, term: string, equivalents: string[], options: RequestOptions = {}): Promise<{ fact: Fact; replayed: boolean; duplicate: boolean }> {
    check.knownOptions(options, known.REQUEST_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Alias, 'alias');
    check.agentId(agentId);
    check.factText(term, daemon.limits, 'term');
    check.tags(equivalents, 'equivalents');
    const requestId = requestIdOf(options.requestId);
    const res = await this.write('Alias', requestId, () => this.connection.memory.alias({ requestId, agentId, term, equivalents }));
    return { fact: toFact(res.fact), replayed: res.replayed, duplicate: res.duplicate };
  }

  /** One page of a namespace, oldest first; or newest first and filtered (inspector-v1), when
   *  a page may hold fewer facts than asked and `scanned` says how many it read. */
  async list(agentId: string, options: ListOptions = {}): Promise<{ facts: Fact[]; nextPageToken: string; scanned?: number }> {
    check.knownOptions(options, known.LIST_KEYS);
    check.agentId(agentId);
    listOptions(options);
    const filter = options.filter === undefined ? undefined : filterMessage(options.filter);
    const browsing = options.order === 'newest' || options.filter !== undefined;
    if (browsing) requireCapability(await this.connection.ready(), Capability.Inspector, 'a filtered or newest-first list');
    const res = await this.read(() =>
      this.connection.memory.list({ agentId, pageSize: options.pageSize ?? 0, pageToken: options.pageToken ?? '', newestFirst: options.order === 'newest', filter }),
    );
    return { facts: res.facts.map(toFact), nextPageToken: res.nextPageToken, ...(browsing ? { scanned: Number(res.scanned) } : {}) };
  }

  /** Every fact of a namespace, oldest first, page by page. */
  async *listAll(agentId: string, pageSize = 500): AsyncGenerator<Fact> {
    let pageToken = '';
    do {
      const page = await this.list(agentId, { pageSize, pageToken });
      yield* page.facts;
      pageToken = page.nextPageToken;
    } while (pageToken);
  }

  async listAgents(): Promise<string[]> {
    const res = await this.read(() => this.connection.memory.listAgents({}));
    return [...res.agentIds];
  }

  /** One namespace's counts, or the whole store's when agentId is omitted. storeBytes is the
   *  whole store's size on disk either way (there is none per namespace). */
  async stats(agentId?: string): Promise<Stats> {
    if (agentId !== undefined) check.agentId(agentId);
    return toStats(await this.read(() => this.connection.memory.stats({ agentId })));
  }

  /** Checks (or rebuilds) every derived index; yields progress, then one report. */
  async *doctor(options: DoctorOptions = {}): AsyncGenerator<DoctorEvent> {
    check.knownOptions(options, known.DOCTOR_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Doctor, 'engram doctor');
    // A rebuild can take minutes on a large store: no deadline.
    for await (const res of this.connection.admin.doctor({ rebuild: option(options.rebuild, 'rebuild') }, { timeoutMs: undefined })) {
      if (res.event.case === 'progress') {
        const p = res.event.value;
        yield { progress: { phase: p.phase, done: Number(p.done), total: Number(p.total) } };
      } else if (res.event.case === 'report') {
        const r = res.event.value;
        yield { report: { checks: r.checks.map((c) => ({ name: c.name, ok: c.ok, detail: c.detail })), healthy: r.healthy, rebuilt: r.rebuilt } };
      }
    }
  }

  /** The store table by table, with hints on compaction and collection (maintenance-v1). */
  async storageStats(): Promise<StorageReport> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Maintenance, 'engram maintenance stats');
    const r = await this.read(() => this.connection.admin.storageStats({}, { timeoutMs: undefined }));
    const n = Number;
    return { storeBytes: n(r.storeBytes), tables: r.tables.map((t) => ({ name: t.name, entries: n(t.entries), bytes: n(t.bytes) })), factCount: n(r.factCount), retiredCount: n(r.retiredCount), hints: [...r.hints] };
  }

  /** Compacts the daemon's store (maintenance-v1): harmless to repeat, so a lost answer may be resent. */
  async compact(): Promise<CompactReport> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Maintenance, 'engram maintenance compact');
    const r = await this.read(() => this.connection.admin.compact({}, { timeoutMs: undefined }));
    return { bytesBefore: Number(r.bytesBefore), bytesAfter: Number(r.bytesAfter), seconds: r.seconds };
  }

  /** A new agent token opening `agents` with `rights` (default read and write) and the shared
   *  namespace with `shared` (default read). The token is in the answer and nowhere else. Only a
   *  caller with the whole daemon may make one (agent-tokens-v1). Not resent if the answer is lost:
   *  list the tokens and revoke a stray one. */
  async createToken(grant: TokenGrant): Promise<{ token: string; info: TokenInfo }> {
    check.knownOptions(grant, known.TOKEN_GRANT_KEYS, 'grant');
    // The protocol cannot tell an empty list from none (which means read and write): an empty
    // list must not widen the grant, so it is refused here, as REST refuses it.
    if (grant.rights !== undefined && grant.rights.length === 0) throw invalidArgument('rights', 'must hold at least one right (omit it for read and write)');
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.AgentTokens, 'agent tokens');
    const res = await this.write('CreateToken', [], () =>
      this.connection.admin.createToken({ agents: grant.agents, rights: grant.rights ?? [], ...(grant.shared ? { shared: { rights: grant.shared } } : {}), label: grant.label ?? '' }),
    );
    return { token: res.token, info: toTokenInfo(res.info!) };
  }

  async listTokens(): Promise<TokenInfo[]> {
    requireCapability(await this.connection.ready(), Capability.AgentTokens, 'agent tokens');
    return (await this.read(() => this.connection.admin.listTokens({}))).tokens.map(toTokenInfo);
  }

  /** Revokes a token: the next call presenting it is refused. Harmless to repeat. */
  async revokeToken(id: string): Promise<TokenInfo> {
    requireCapability(await this.connection.ready(), Capability.AgentTokens, 'agent tokens');
    return toTokenInfo((await this.read(() => this.connection.admin.revokeToken({ id }))).info!);
  }

  /** Whether the write sent with `requestId` committed, and what it wrote (write-status-v1): the
   *  answer to an UncertainWriteError. Without `agentId` every namespace this caller may read or
   *  write is looked in (and slots and recipes, as "__shared__"); a request id found in several
   *  is refused as ambiguous. A write still running on the daemon is waited for. Not committed: sending it again
   *  with the same request id is safe (should the first attempt still arrive, they are one write). */
  async writeStatus(requestId: string, options: WriteStatusOptions = {}): Promise<WriteStatus<Fact>> {
    check.knownOptions(options, known.WRITE_STATUS_KEYS);
    requireCapability(await this.connection.ready(), Capability.WriteStatus, 'write status');
    requestIdOf(requestId);
    if (options.agentId !== undefined) check.agentId(options.agentId);
    const res = await this.read(() => this.connection.memory.writeStatus({ requestId, agentId: options.agentId ?? '' }));
    return { committed: res.committed, agentId: res.agentId, op: res.op, ...(res.fact ? { fact: toFact(res.fact) } : {}), result: JSON.parse(res.resultJson || '{}') as Record<string, unknown> };
  }

  async *reindex(): AsyncGenerator<ReindexEvent> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Reindex, 'engram reindex');
    for await (const res of this.connection.admin.reindex({}, { timeoutMs: undefined })) {
      if (res.event.case === 'progress') {
        const p = res.event.value;
        yield { progress: { phase: p.phase, done: Number(p.done), total: Number(p.total) } };
      } else if (res.event.case === 'report') {
        const r = res.event.value;
        yield { report: { embedded: Number(r.embedded), alreadyDone: Number(r.alreadyDone), embedder: r.embedder } };
      }
    }
  }

  // Checkpoints --------------------------------------------------------------------------------

  /** Saves an agent's working state (a JSON object); the daemon keeps the newest ones. */
  async checkpointSave(agentId: string, state: Record<string, unknown> | string = {}, options: RequestOptions = {}): Promise<Checkpoint> {
    check.knownOptions(options, known.REQUEST_KEYS);
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Checkpoint, 'checkpoints');
    check.agentId(agentId);
    // Checked before JSON.stringify, which runs out of stack on a state nested thousands deep.
    const stateJson = typeof state === 'string' ? state : JSON.stringify(check.jsonValue(state, 'state_json'));
    const requestId = requestIdOf(options.requestId);
    const res = await this.write('SaveCheckpoint', requestId, () => this.connection.checkpoints.saveCheckpoint({ requestId, agentId, stateJson }));
    return toCheckpoint(res.checkpoint!);
  }

  /** The agent's latest checkpoint, or undefined when it has none. */
  async checkpointResume(agentId: string): Promise<Checkpoint | undefined> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Checkpoint, 'checkpoints');
    check.agentId(agentId);
    const res = await this.read(() => this.connection.checkpoints.resumeCheckpoint({ agentId }));
    return res.found && res.checkpoint ? toCheckpoint(res.checkpoint) : undefined;
  }

  /** The agent's checkpoints, newest first. */
  async checkpointList(agentId: string): Promise<Checkpoint[]> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Checkpoint, 'checkpoints');
    check.agentId(agentId);
    const res = await this.read(() => this.connection.checkpoints.listCheckpoints({ agentId }));
    return res.checkpoints.map(toCheckpoint);
  }

  close(): void {
    this.connection.close();
  }

  // Call discipline ----------------------------------------------------------------------------

  /** Sends a mutation once. The channel is READY before sending (else nothing is sent and the
   *  error says the daemon is unreachable); after sending, a transport failure is uncertain. */
  private async write<T>(method: string, requestId: string | readonly string[], send: () => Promise<T>): Promise<T> {
    // The daemon the write goes to decides how its uncertain outcome can be settled.
    const daemon = await this.connection.ready();
    try {
      return await send();
    } catch (error) {
      if (error instanceof RpcError && UNCERTAIN_KINDS.has(error.kind)) {
        this.connection.invalidate();
        throw new UncertainWriteError(typeof requestId === 'string' ? [requestId] : requestId, method, error, finishFor(daemon.capabilities));
      }
      throw error;
    }
  }

  /** Reads are side-effect free at the protocol level, so one retry after a reconnect is safe. */
  private async read<T>(send: () => Promise<T>): Promise<T> {
    await this.connection.ready();
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof RpcError && error.kind === ErrorKind.Unavailable)) throw error;
      // A daemon that answered it has not yet applied the change asked for: it already waited.
      if (error.field === MIN_CHANGE_KEY) throw error;
      this.connection.invalidate();
      await this.connection.ready();
      return send();
    }
  }
}

const SCOPES = { agent: RecallScope.AGENT, shared: RecallScope.SHARED, all: RecallScope.ALL } as const;

interface PutBase {
  requestId: string;
  text: string;
  fields: ReturnType<typeof fields>;
}

type PutReply = { fact?: Parameters<typeof toFact>[0]; replayed: boolean; duplicate?: boolean };
type PutOptions = { confidence?: string; allowDuplicate?: boolean; strength?: number; restore?: ReturnType<typeof restoreMessage> };
type CoalescedItem = PutBase & { agentId: string; options: PutOptions };

/** A slot's error as its single put would have thrown it: the same class and code, its field
 *  named as in a Put ("text", not "items[3].text"). */
function slotError(error: { code: number; message: string; field: string }): RpcError {
  const inItem = /^items\[\d+\]\.?/;
  const field = error.field.replace(inItem, '');
  return new RpcError(errorStatus(error.code, error.message.replace(inItem, '').replace(/^: /, ''), field));
}

/** The request id a write is sent with: the caller's, checked before anything is sent, else a
 *  fresh UUID. An empty one is refused: the daemon reads "" as no request id at all, so the write
 *  would lose its replay protection, and an uncertain outcome could be neither asked about
 *  (writeStatus refuses "") nor safely resent. A number would be sent as its digits. */
function requestIdOf(value: unknown, field = 'request_id'): string {
  if (value === undefined) return randomUUID();
  const id = check.requestId(value, field);
  if (id === '') throw invalidArgument(field, 'must not be empty (omit it and the library makes one)');
  return id;
}

/** An item's request id; a bad one refuses the whole batch, as a value of the wrong type does. */
function itemRequestId(value: unknown, at: number): string {
  try {
    return requestIdOf(value);
  } catch (error) {
    throw itemError(error, at);
  }
}

/** A batch the library can read: a list of objects whose agentId and text are strings (and
 *  strength, when given, a finite number). Checked
 *  before anything is sent, for the whole batch: encoding would turn an agentId of 5 into the
 *  namespace "5" (and a text of 5 into the fact "5") and crash on a null item. */
function batchShape(items: unknown): void {
  if (!Array.isArray(items)) throw invalidArgument('items', `must be a list of {agentId, text} items, got ${check.kindOf(items)}`);
  items.forEach((item: unknown, at) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw invalidArgument(`items[${at}]`, `must be an object with agentId and text, got ${check.kindOf(item)}`);
    check.knownOptions(item, known.BATCH_ITEM_KEYS, `items[${at}]`);
    const { agentId, text } = item as Record<string, unknown>;
    if (typeof agentId !== 'string') throw itemError(invalidArgument('agent_id', `must be a string, got ${check.kindOf(agentId)}`), at);
    if (typeof text !== 'string') throw itemError(invalidArgument('text', `must be a string, got ${check.kindOf(text)}`), at);
    // NaN, Infinity or "1" is no strength at all (a caller's bug, which no JSON door could even
    // send), unlike a finite number out of range, which the daemon refuses in the item's slot,
    // naming it options.strength as here.
    const { strength, confidence } = item as Record<string, unknown>;
    if (strength !== undefined && !Number.isFinite(strength)) throw itemError(invalidArgument('options.strength', `must be a finite number in [0, 2], got ${typeof strength === 'number' ? strength : check.kindOf(strength)}`), at);
    // A label that is not a string would be coerced by encoding; a string that is no label is a
    // value the daemon refuses in the item's slot, as for the other items' rules.
    if (confidence !== undefined && typeof confidence !== 'string') throw itemError(invalidArgument('options.confidence', `must be a string (a confidence label), got ${check.kindOf(confidence)}`), at);
  });
}

/** Whether a write's fields include a value of the wrong JavaScript type, or a non-finite number
 *  (not a wrong value). */
function hasWrongType(options: WriteOptions): boolean {
  const { tags, entities, meta, occurredAt, source, context, metaJson } = options as Record<string, unknown>;
  const notList = (v: unknown) => v !== undefined && !Array.isArray(v);
  const notText = (v: unknown) => v !== undefined && typeof v !== 'string';
  const notObject = meta !== undefined && (meta === null || typeof meta !== 'object' || Array.isArray(meta));
  // A time of NaN or Infinity is no number of ms at all; 1.5 is a number a rule refuses.
  const notTime = occurredAt !== undefined && (typeof occurredAt === 'number' ? !Number.isFinite(occurredAt) : typeof occurredAt !== 'string' && !(occurredAt instanceof Date));
  return notList(tags) || notList(entities) || notObject || notTime || notText(source) || notText(context) || notText(metaJson);
}

function fields(options: WriteOptions, limits: Limits) {
  return {
    occurredAtMs: options.occurredAt === undefined ? undefined : BigInt(check.timestampMs(options.occurredAt, 'occurred_at')),
    tags: options.tags === undefined ? [] : check.tags(options.tags),
    entities: options.entities === undefined ? [] : check.tags(options.entities, 'entities'),
    // A number here crashed the encoder (context) or was stored as text (source).
    source: options.source === undefined ? '' : check.source(options.source),
    context: options.context === undefined ? '' : check.string(options.context, 'context', Number.POSITIVE_INFINITY),
    metaJson: options.meta !== undefined ? metaText(options.meta, limits) : (options.metaJson ?? ''),
  };
}

/** `meta` as the protocol carries it: JSON text of an object ("" for none). Checked here, its
 *  size too, because the daemon only sees the text, and would name \`meta_json\`, a field the
 *  caller never set. */
function metaText(meta: unknown, limits: Limits): string {
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) throw invalidArgument('meta', `must be an object, got ${check.kindOf(meta)}`);
  return Object.keys(meta).length ? check.metaJson(JSON.stringify(check.jsonValue(meta, 'meta')), limits, 'meta') : '';
}

/** A recall's options (but topK, whose rule depends on the RPC), checked as the daemon checks
 *  them and named as it names them (the protocol's field path), before anything is sent: encoding
 *  coerced a kg of "yes" or tags_any of "x", crashed on a time of NaN (a RangeError), and sent the
 *  rest only for the daemon to refuse. window_days keeps the name it had as an encoding error. */
function recallOptions(o: RecallOptions): void {
  if (o.minRelevance !== undefined) check.minRelevance(o.minRelevance, 'options.min_relevance');
  if (o.weights !== undefined) {
    if (o.weights === null || typeof o.weights !== 'object') throw invalidArgument('options.signal_weights', `must be an object, got ${check.kindOf(o.weights)}`);
    check.knownOptions(o.weights, known.SIGNAL_WEIGHT_KEYS, 'options.signal_weights');
    for (const [name, value] of Object.entries(o.weights)) if (value !== undefined) check.signalWeight(value, `options.signal_weights.${name}`);
  }
  if (o.kg !== undefined) check.boolean(o.kg, 'options.kg');
  if (o.advice !== undefined) check.boolean(o.advice, 'advice');
  if (o.recipe !== undefined) check.string(o.recipe, 'options.recipe', Number.POSITIVE_INFINITY);
  const f = o.filters;
  if (f === undefined) return;
  const at = 'options.filters.';
  if (f === null || typeof f !== 'object') throw invalidArgument('options.filters', `must be an object, got ${check.kindOf(f)}`);
  check.knownOptions(f, known.RECALL_FILTER_KEYS, 'options.filters');
  if (f.windowDays !== undefined) check.windowDays(f.windowDays);
  if (f.tagsAny !== undefined) check.tags(f.tagsAny, `${at}tags_any`);
  if (f.tagsAll !== undefined) check.tags(f.tagsAll, `${at}tags_all`);
  for (const [key, field] of [['createdAfter', 'created_after_ms'], ['createdBefore', 'created_before_ms'], ['occurredAfter', 'occurred_after_ms'], ['occurredBefore', 'occurred_before_ms']] as const) {
    if (f[key] !== undefined) check.timestampMs(f[key], at + field);
  }
  if (f.minDecayScore !== undefined) check.minScore(f.minDecayScore, `${at}min_decay_score`);
}

/** The per-fact matches of a recall answer, when the daemon sent them (recall-matches-v1). */
function matchesOf(res: { facts: unknown[]; matches: { matched: boolean; score: number; signals: string[]; decayScore: number; evidence?: Evidence[] }[] }, daemon: DaemonInfo): { matches?: FactMatch[] } {
  if (!daemon.capabilities.includes(Capability.RecallMatches) || res.matches.length !== res.facts.length) return {};
  const decay = daemon.capabilities.includes(Capability.Decay);
  const evidence = daemon.capabilities.includes(Capability.RecipeRecall);
  return {
    matches: res.matches.map((m) => ({
      matched: m.matched,
      score: m.score,
      signals: [...m.signals],
      ...(decay ? { decayScore: m.decayScore } : {}),
      ...(evidence && m.evidence?.length ? { evidence: m.evidence.map(toEvidence) } : {}),
    })),
  };
}

/** An explain answer carries the same per fact in its receipts. */
function matchesFromReceipts(receipts: Receipt[], daemon: DaemonInfo): { matches?: FactMatch[] } {
  if (!daemon.capabilities.includes(Capability.RecallMatches)) return {};
  const signals = (r: Receipt) => (['vector', 'keyword', 'recency', 'decay'] as const).filter((s) => r.ranks[`${s}Rank`] > 0);
  return { matches: receipts.map((r) => ({ matched: r.matched ?? false, score: r.weight, signals: signals(r) })) };
}

/** A list's paging and order, checked as the daemon checks them and named as it names them,
 *  before anything is sent: a pageSize of NaN or -1 went out for the daemon to refuse, while "5"
 *  and an order of "sideways" (read as oldest) were taken silently. */
function listOptions(o: ListOptions): void {
  if (o.pageSize !== undefined) check.pageSize(o.pageSize, 'page_size');
  if (o.pageToken !== undefined && o.pageToken !== '') check.pageToken(o.pageToken, 'page_token');
  if (o.order !== undefined && o.order !== 'oldest' && o.order !== 'newest') throw invalidArgument('order', `must be "oldest" or "newest", got ${JSON.stringify(o.order) ?? check.kindOf(o.order)}`);
  // The filter is checked where filterMessage reads it, which list calls next, still before sending.
}

/** A list filter as the protocol carries it, checked by the rules the daemon checks it by (a
 *  time may be a Date or a whole number of ms), named as the filter's fields. */
function filterMessage(f: FactFilter) {
  if (f === null || typeof f !== 'object' || Array.isArray(f)) throw invalidArgument('filter', `must be an object, got ${check.kindOf(f)}`);
  check.knownOptions(f, known.FACT_FILTER_KEYS, 'filter');
  const ms = (value: Date | number | undefined) => (value instanceof Date ? value.getTime() : value);
  const c = checkFactFilter({ ...f, createdAfter: ms(f.createdAfter), createdBefore: ms(f.createdBefore), occurredAfter: ms(f.occurredAfter), occurredBefore: ms(f.occurredBefore) }, 'filter.');
  return { text: c.text ?? '', confidence: c.confidence ?? [], pinned: c.pinned, retired: c.retired, tags: c.tags ?? [], entities: c.entities ?? [], ...timeBoundsMessage(c) };
}
