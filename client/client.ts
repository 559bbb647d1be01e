// The Engram client library: connect, negotiate, and one typed method per RPC.
// Writes are never retried (by us or by grpc-js): a write whose outcome is unknown surfaces as
// UncertainWriteError with its request id. Reads retry once after a reconnect.
import { randomUUID } from 'node:crypto';
import { Capability } from '../shared/capabilities.ts';
import { readDiscovery, resolveDataDir } from '../shared/discovery.ts';
import { RpcError } from '../shared/grpc/bridge.ts';
import { ErrorKind } from '../shared/errors.ts';
import * as check from '../shared/validate.ts';
import { SHARED_AGENT_ID } from '../shared/validate.ts';
import { RecallScope } from '../shared/gen/engram/v1/recall_pb.ts';
import { Connection, type DaemonInfo } from './connection.ts';
import { CapabilityError, UNCERTAIN_KINDS, UncertainWriteError } from './errors.ts';
import {
  toFact, toFactMessage, toFeedback, toReceipt, toRetrieval, toStats,
  type Fact, type Receipt, type RetrievalMetadata, type SignalWeights, type Stats, type WeakMatchFeedback,
} from './types.ts';

export interface ConnectOptions {
  /** Data dir whose discovery file names the daemon (default: --data-dir rules: ENGRAM_HOME or ./.engram). */
  dataDir?: string;
  /** Explicit gRPC target instead of discovery: "unix:/path/engram.sock" or "127.0.0.1:7777". */
  address?: string;
  /** Bearer token (required on TCP); read from the discovery file when not given. */
  token?: string;
  clientName?: string;
  /** Per-call deadline in ms once a call is sent (default 30 s). */
  timeoutMs?: number;
  /** How long to wait for an unreachable daemon before failing (default 10 s); nothing is sent meanwhile. */
  connectTimeoutMs?: number;
}

export interface WriteOptions {
  /** Idempotency key; a fresh UUID when omitted. */
  requestId?: string;
  occurredAt?: number;
  tags?: string[];
  entities?: string[];
  source?: string;
  context?: string;
  metaJson?: string;
}

export interface RecallFilters {
  /** Only facts whose event time (occurred_at, else created_at) is within the last N days. */
  windowDays?: number;
  tagsAny?: string[];
  tagsAll?: string[];
  createdAfter?: number;
  createdBefore?: number;
  occurredAfter?: number;
  occurredBefore?: number;
}

/** Options beyond topK need a daemon with recall-options-v1; without them the legacy RPCs are used. */
export interface RecallOptions {
  topK?: number;
  /** Unset weights use the daemon's configured defaults; 0 turns a signal off. */
  weights?: Partial<SignalWeights>;
  /** 0 = no floor; in (0, 1] drops results below that fraction of the top score. */
  minRelevance?: number;
  filters?: RecallFilters;
}

export interface RecallResult {
  facts: Fact[];
  retrieval: RetrievalMetadata;
  /** Present when the query's vocabulary barely overlaps the store's (options path only). */
  feedback?: WeakMatchFeedback;
}

export interface ExplainResult extends RecallResult {
  receipts: Receipt[];
}

export interface BatchRecallResult {
  results: { query: string; facts: Fact[]; error?: string }[];
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
  let { address, token } = options;
  if (!address) {
    const discovery = readDiscovery(resolveDataDir(options.dataDir));
    address = discovery.address;
    token ??= discovery.token;
  }
  const connection = new Connection({
    address,
    token,
    clientName: options.clientName ?? 'engram-client',
    timeoutMs: options.timeoutMs ?? 30_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
  });
  const client = new EngramClient(connection);
  try {
    await connection.ready();
  } catch (error) {
    connection.close();
    throw error;
  }
  return client;
}

export class EngramClient {
  constructor(private readonly connection: Connection) {}

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

  async put(agentId: string, text: string, options: WriteOptions = {}): Promise<{ fact: Fact; replayed: boolean }> {
    const daemon = await this.connection.ready();
    check.agentId(agentId);
    check.factText(text, daemon.limits);
    const requestId = options.requestId ?? randomUUID();
    const res = await this.write('Put', requestId, () =>
      this.connection.memory.put({ requestId, agentId, text, fields: fields(options) }),
    );
    return { fact: toFact(res.fact), replayed: res.replayed };
  }

  async putShared(text: string, options: WriteOptions = {}): Promise<{ fact: Fact; replayed: boolean }> {
    const daemon = await this.connection.ready();
    check.factText(text, daemon.limits);
    const requestId = options.requestId ?? randomUUID();
    const res = await this.write('PutShared', requestId, () =>
      this.connection.memory.putShared({ requestId, text, fields: fields(options) }),
    );
    return { fact: toFact(res.fact), replayed: res.replayed };
  }

  async delete(agentId: string, factId: string, options: { requestId?: string } = {}): Promise<Fact> {
    await this.connection.ready();
    check.agentId(agentId);
    check.factId(factId);
    const requestId = options.requestId ?? randomUUID();
    const res = await this.write('Delete', requestId, () => this.connection.memory.delete({ requestId, agentId, factId }));
    return toFact(res.fact);
  }

  /** Legacy whole-fact replace: send back a fact you read, with your changes. */
  async updateFact(agentId: string, fact: Fact, options: { requestId?: string } = {}): Promise<Fact> {
    await this.connection.ready();
    check.agentId(agentId);
    check.factId(fact.id, 'fact.id');
    const requestId = options.requestId ?? randomUUID();
    const res = await this.write('UpdateFact', requestId, () =>
      this.connection.memory.updateFact({ requestId, agentId, fact: toFactMessage(fact) }),
    );
    return toFact(res.fact);
  }

  /** Retires a fact (superseded_by = "agent"): it stops being recalled but stays in `list`.
   *  Reads the fact, then sends UpdateFact once. */
  async forget(agentId: string, factId: string, options: { requestId?: string } = {}): Promise<Fact> {
    const current = await this.get(agentId, factId);
    if (current.supersededBy !== '') return current;
    return this.updateFact(agentId, { ...current, supersededBy: 'agent' }, options);
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
    if (isLegacyRecall(options)) {
      const res = await this.read(() => this.connection.memory.recall({ agentId, query, topK: options.topK }));
      return { facts: res.facts.map(toFact), retrieval: toRetrieval(res.retrieval) };
    }
    return this.recallWithOptions(agentId, query, RecallScope.AGENT, false, options);
  }

  async recallShared(query: string, options: RecallOptions = {}): Promise<RecallResult> {
    if (isLegacyRecall(options)) {
      const res = await this.read(() => this.connection.memory.recallShared({ query, topK: options.topK }));
      return { facts: res.facts.map(toFact), retrieval: toRetrieval(res.retrieval) };
    }
    return this.recallWithOptions(SHARED_AGENT_ID, query, RecallScope.SHARED, false, options);
  }

  /** The agent's namespace and the shared one, fused by namespace RRF. */
  async recallAll(agentId: string, query: string, options: RecallOptions = {}): Promise<RecallResult> {
    check.agentId(agentId);
    if (isLegacyRecall(options)) {
      const res = await this.read(() => this.connection.memory.recallAll({ agentId, query, topK: options.topK }));
      return { facts: res.facts.map(toFact), retrieval: toRetrieval(res.retrieval) };
    }
    return this.recallWithOptions(agentId, query, RecallScope.ALL, false, options);
  }

  async recallExplain(agentId: string, query: string, options: RecallOptions = {}): Promise<ExplainResult> {
    check.agentId(agentId);
    if (isLegacyRecall(options)) {
      const res = await this.read(() => this.connection.memory.recallExplain({ agentId, query, topK: options.topK }));
      const receipts = res.receipts.map(toReceipt);
      return { facts: receipts.map((r) => r.fact), receipts, retrieval: toRetrieval(res.retrieval) };
    }
    return this.recallWithOptions(agentId, query, RecallScope.AGENT, true, options);
  }

  /** Several queries in one call under one policy; a failing query reports in its own slot. */
  async batchRecall(agentId: string, queries: string[], options: RecallOptions & { scope?: 'agent' | 'shared' | 'all' } = {}): Promise<BatchRecallResult> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.BatchRecall, 'batch recall');
    check.agentId(agentId);
    check.queries(queries, daemon.limits);
    const res = await this.read(() =>
      this.connection.memory.batchRecall({ agentId, queries, scope: SCOPES[options.scope ?? 'agent'], options: recallOptionsMessage(options) }),
    );
    return {
      results: res.results.map((r) => ({ query: r.query, facts: r.facts.map(toFact), ...(r.error ? { error: r.error } : {}) })),
      merged: res.merged.map(toFact),
      retrieval: res.retrieval && toRetrieval(res.retrieval),
    };
  }

  private async recallWithOptions(agentId: string, query: string, scope: RecallScope, explain: boolean, options: RecallOptions): Promise<ExplainResult> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.RecallOptions, 'recall with weights, min_relevance or filters');
    const res = await this.read(() =>
      this.connection.memory.recallWithOptions({ agentId, query, scope, explain, options: recallOptionsMessage(options) }),
    );
    return {
      facts: res.facts.map(toFact),
      receipts: res.receipts.map(toReceipt),
      retrieval: toRetrieval(res.retrieval),
      ...(res.feedback ? { feedback: toFeedback(res.feedback) } : {}),
    };
  }

  /** Stores "term = equivalents": later queries containing the term also match its equivalents. */
  async alias(agentId: string, term: string, equivalents: string[], options: { requestId?: string } = {}): Promise<{ fact: Fact; replayed: boolean }> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Alias, 'alias');
    check.agentId(agentId);
    check.factText(term, daemon.limits, 'term');
    check.tags(equivalents, 'equivalents');
    const requestId = options.requestId ?? randomUUID();
    const res = await this.write('Alias', requestId, () => this.connection.memory.alias({ requestId, agentId, term, equivalents }));
    return { fact: toFact(res.fact), replayed: res.replayed };
  }

  async list(agentId: string, options: { pageSize?: number; pageToken?: string } = {}): Promise<{ facts: Fact[]; nextPageToken: string }> {
    check.agentId(agentId);
    const res = await this.read(() =>
      this.connection.memory.list({ agentId, pageSize: options.pageSize ?? 0, pageToken: options.pageToken ?? '' }),
    );
    return { facts: res.facts.map(toFact), nextPageToken: res.nextPageToken };
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

  /** One namespace's counts, or the whole store's when agentId is omitted. */
  async stats(agentId?: string): Promise<Stats> {
    if (agentId !== undefined) check.agentId(agentId);
    return toStats(await this.read(() => this.connection.memory.stats({ agentId })));
  }

  /** Checks (or rebuilds) every derived index; yields progress, then one report. */
  async *doctor(options: { rebuild?: boolean } = {}): AsyncGenerator<DoctorEvent> {
    const daemon = await this.connection.ready();
    requireCapability(daemon, Capability.Doctor, 'engram doctor');
    // A rebuild can take minutes on a large store: no deadline.
    for await (const res of this.connection.admin.doctor({ rebuild: options.rebuild ?? false }, { timeoutMs: undefined })) {
      if (res.event.case === 'progress') {
        const p = res.event.value;
        yield { progress: { phase: p.phase, done: Number(p.done), total: Number(p.total) } };
      } else if (res.event.case === 'report') {
        const r = res.event.value;
        yield { report: { checks: r.checks.map((c) => ({ name: c.name, ok: c.ok, detail: c.detail })), healthy: r.healthy, rebuilt: r.rebuilt } };
      }
    }
  }

  /** Re-embeds every fact with the daemon's current model (after a model switch); yields progress,
   *  then a report. Interrupting is safe; calling it again resumes. */
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

  close(): void {
    this.connection.close();
  }

  // Call discipline ----------------------------------------------------------------------------

  /** Sends a mutation once. The channel is READY before sending (else nothing is sent and the
   *  error says the daemon is unreachable); after sending, a transport failure is uncertain. */
  private async write<T>(method: string, requestId: string, send: () => Promise<T>): Promise<T> {
    await this.connection.ready();
    try {
      return await send();
    } catch (error) {
      if (error instanceof RpcError && UNCERTAIN_KINDS.has(error.kind)) {
        this.connection.invalidate();
        throw new UncertainWriteError(requestId, method, error);
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
      this.connection.invalidate();
      await this.connection.ready();
      return send();
    }
  }
}

const SCOPES = { agent: RecallScope.AGENT, shared: RecallScope.SHARED, all: RecallScope.ALL } as const;

/** A call that only sets topK is effectively legacy and goes to the old RPCs on any daemon. */
const isLegacyRecall = (o: RecallOptions): boolean =>
  o.weights === undefined && o.minRelevance === undefined && o.filters === undefined;

/** Fails before anything is sent when the daemon lacks what a call needs. */
function requireCapability(daemon: DaemonInfo, capability: string, what: string): void {
  if (!daemon.capabilities.includes(capability)) throw new CapabilityError(capability, what);
}

function recallOptionsMessage(o: RecallOptions) {
  const f = o.filters;
  const ms = (t: number | undefined) => (t === undefined ? undefined : BigInt(t));
  return {
    topK: o.topK,
    signalWeights: o.weights ? { vector: o.weights.vector, keyword: o.weights.keyword, recency: o.weights.recency } : undefined,
    minRelevance: o.minRelevance,
    filters: f && {
      windowDays: f.windowDays,
      tagsAny: f.tagsAny ?? [],
      tagsAll: f.tagsAll ?? [],
      createdAfterMs: ms(f.createdAfter),
      createdBeforeMs: ms(f.createdBefore),
      occurredAfterMs: ms(f.occurredAfter),
      occurredBeforeMs: ms(f.occurredBefore),
    },
  };
}

function fields(options: WriteOptions) {
  return {
    occurredAtMs: options.occurredAt === undefined ? undefined : BigInt(options.occurredAt),
    tags: options.tags ?? [],
    entities: options.entities ?? [],
    source: options.source ?? '',
    context: options.context ?? '',
    metaJson: options.metaJson ?? '',
  };
}
