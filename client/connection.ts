// One channel to one daemon, and what the last handshake said about it. The handshake is
// redone whenever the channel has left READY since it was made (a reconnect), so a restarted or
// swapped daemon is always renegotiated before the next call.
import * as grpc from '@grpc/grpc-js';
import { MESSAGE_SIZE_OPTIONS } from '../shared/grpc/message-size.ts';
import { createServiceClient, RpcError, type ClientOf, type CallOptions } from '../shared/grpc/bridge.ts';
import { AdminService } from '../shared/gen/engram/v1/admin_pb.ts';
import { HandshakeService } from '../shared/gen/engram/v1/handshake_pb.ts';
import { MemoryService } from '../shared/gen/engram/v1/memory_pb.ts';
import { Health } from '../shared/gen/grpc/health/v1/health_pb.ts';
import { CheckpointService } from '../shared/gen/engram/v1/checkpoint_pb.ts';
import { toWeights } from './types.ts';
import { DecayService } from '../shared/gen/engram/v1/decay_pb.ts';
import { AnalysisService } from '../shared/gen/engram/v1/analysis_pb.ts';
import { VaultService } from '../shared/gen/engram/v1/vault_pb.ts';
import { ExtractionService } from '../shared/gen/engram/v1/extract_pb.ts';
import { ClusterService } from '../shared/gen/engram/v1/cluster_pb.ts';
import { GraphService } from '../shared/gen/engram/v1/graph_pb.ts';
import { ConsolidationService } from '../shared/gen/engram/v1/consolidation_pb.ts';
import { MemoryControlsService } from '../shared/gen/engram/v1/controls_pb.ts';
import { EngramError, ErrorKind } from '../shared/errors.ts';
import { CHANGE_KEY, MIN_CHANGE_KEY } from '../shared/changes.ts';
import { WriteStream } from './write-stream.ts';
import { UnreachableError } from './errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../shared/validate.ts';
import { ENGRAM_VERSION } from '../shared/version.ts';
import type { SignalWeights } from '../shared/model.ts';

export interface DaemonInfo {
  protocol: string;
  daemonVersion: string;
  instanceId: string;
  capabilities: string[];
  /** Absent when the daemon does not advertise one. */
  defaultConfidenceWeight?: number;
  limits: Limits;
  profile: string;
  embedder: string;
  /** The weights a recall gets for the signals it does not weight; absent from daemons that
   *  predate embedder-weights-v1 (they use vector 1, keyword 1, recency 0.5). */
  defaultWeights?: SignalWeights;
  /** "level" or "postgres"; "" from daemons before read-your-writes-v1. */
  store: string;
  /** A shared store's identity ("" for an embedded one). */
  storeId: string;
}

/** The longest grpc-js waits between two connection attempts to a daemon that is not there. */
const MAX_RECONNECT_BACKOFF_MS = 1000;
/** How long a channel that failed an earlier attempt may take to make its next one: the backoff
 *  (with grpc-js's 20 % jitter) and the attempt itself. */
const NEXT_ATTEMPT_MS = MAX_RECONNECT_BACKOFF_MS * 1.2 + 300;

/** What a daemon that predates the handshake (UNIMPLEMENTED) is assumed to be. */
const OLDEST_BASELINE: DaemonInfo = {
  protocol: 'engram.v1',
  daemonVersion: 'unknown',
  instanceId: '',
  capabilities: [],
  limits: { ...DEFAULT_LIMITS, maxWriteBatch: 0, maxSlotValueBytes: 0, maxBatchResults: 0, maxBatchQueryBytes: 0 },
  profile: 'legacy',
  embedder: 'unknown',
  store: '',
  storeId: '',
};

export interface ConnectionOptions {
  address: string;
  token?: string;
  clientName: string;
  /** Deadline of each call once sent. */
  timeoutMs: number;
  /** How long a connection attempt may take before a call (nothing is sent meanwhile): one that
   *  fails (nothing listens) fails the call at once; this bounds one that hangs. */
  connectTimeoutMs: number;
  /** Send every call the highest change number this connection's writes committed, so reads see
   *  them through any daemon of a shared store (default true). */
  readYourWrites?: boolean;
  /** A change number to wait for from the start (another client's writes). */
  minChange?: number;
  /** What to do when the daemon cannot be reached before a call (see ConnectOptions). */
  onUnreachable?: (error: EngramError) => Promise<void>;
}

export class Connection {
  /** The highest change number a write through this connection committed (0: none yet). */
  private highestChange = 0;
  /** The store those change numbers belong to (null before the first handshake). */
  private storeId: string | null = null;
  readonly grpcClient: grpc.Client;
  readonly memory: ClientOf<typeof MemoryService>;
  readonly admin: ClientOf<typeof AdminService>;
  readonly health: ClientOf<typeof Health>;
  readonly checkpoints: ClientOf<typeof CheckpointService>;
  readonly decay: ClientOf<typeof DecayService>;
  readonly analysis: ClientOf<typeof AnalysisService>;
  readonly vault: ClientOf<typeof VaultService>;
  readonly extraction: ClientOf<typeof ExtractionService>;
  readonly clusters: ClientOf<typeof ClusterService>;
  readonly graph: ClientOf<typeof GraphService>;
  readonly consolidation: ClientOf<typeof ConsolidationService>;
  readonly controls: ClientOf<typeof MemoryControlsService>;
  /** Coalesced puts to a daemon with write-stream-v1. */
  readonly writeStream: WriteStream;
  private readonly handshake: ClientOf<typeof HandshakeService>;
  private info: DaemonInfo | null = null;
  private handshaking: Promise<DaemonInfo> | null = null;
  /** The onUnreachable hook under way: the calls that find the daemon gone together share it. */
  private reviving: Promise<void> | null = null;
  /** Called after every handshake that found a different daemon instance than before. */
  onNewInstance?: (info: DaemonInfo, previous: DaemonInfo | null) => void;

  constructor(readonly options: ConnectionOptions) {
    this.highestChange = options.minChange ?? 0;
    this.grpcClient = new grpc.Client(options.address, grpc.credentials.createInsecure(), {
      // Never let grpc-js replay a call: a write's outcome must stay the caller's to judge.
      'grpc.enable_retries': 0,
      // Reconnect quickly to a restarted local daemon.
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': MAX_RECONNECT_BACKOFF_MS,
      ...MESSAGE_SIZE_OPTIONS,
    });
    const defaults = (): CallOptions => ({ metadata: this.metadata(), timeoutMs: options.timeoutMs, onTrailers: (trailers) => this.noteChange(trailers) });
    this.memory = createServiceClient(MemoryService, this.grpcClient, defaults);
    this.admin = createServiceClient(AdminService, this.grpcClient, defaults);
    this.health = createServiceClient(Health, this.grpcClient, defaults);
    this.checkpoints = createServiceClient(CheckpointService, this.grpcClient, defaults);
    this.decay = createServiceClient(DecayService, this.grpcClient, defaults);
    this.analysis = createServiceClient(AnalysisService, this.grpcClient, defaults);
    this.vault = createServiceClient(VaultService, this.grpcClient, defaults);
    this.extraction = createServiceClient(ExtractionService, this.grpcClient, defaults);
    this.clusters = createServiceClient(ClusterService, this.grpcClient, defaults);
    this.graph = createServiceClient(GraphService, this.grpcClient, defaults);
    this.consolidation = createServiceClient(ConsolidationService, this.grpcClient, defaults);
    this.controls = createServiceClient(MemoryControlsService, this.grpcClient, defaults);
    this.writeStream = new WriteStream(() => this.memory.writeStream(), options.timeoutMs, (change) => this.noteCommitted(change));
    // The handshake never waits for a change: it is what tells whether the numbers still apply.
    this.handshake = createServiceClient(HandshakeService, this.grpcClient, () => ({ metadata: this.metadata(false), timeoutMs: options.timeoutMs }));
  }

  private metadata(withChange = true): grpc.Metadata {
    const metadata = new grpc.Metadata();
    if (this.options.token) metadata.set('authorization', `Bearer ${this.options.token}`);
    if (withChange && this.options.readYourWrites !== false && this.highestChange > 0) metadata.set(MIN_CHANGE_KEY, String(this.highestChange));
    return metadata;
  }

  /** A write's answer named the change it committed. */
  private noteChange(trailers: grpc.Metadata): void {
    this.noteCommitted(Number(trailers.get(CHANGE_KEY)[0]));
  }

  private noteCommitted(change: number): void {
    if (Number.isSafeInteger(change) && change > this.highestChange) this.highestChange = change;
  }

  /** The highest change number this connection's writes committed (0: none, or another store). */
  get lastChange(): number {
    return this.highestChange;
  }

  /** The daemon as of the last handshake (null before the first). */
  get daemon(): DaemonInfo | null {
    return this.info;
  }

  /** Waits until the channel is READY and the handshake is current; throws if the daemon is unreachable.
   *  Nothing has been sent when this throws, so a caller may safely try again. */
  async ready(): Promise<DaemonInfo> {
    const channel = this.grpcClient.getChannel();
    if (this.info && channel.getConnectivityState(false) === grpc.connectivityState.READY) return this.info;
    await this.reachable();
    this.handshaking ??= this.hello().finally(() => (this.handshaking = null));
    return this.handshaking;
  }

  /** Forget the handshake: the next call renegotiates (used after a transport error). */
  invalidate(): void {
    this.info = null;
  }

  /** Waits until the channel is READY. A failed connection attempt is the answer at once (nothing
   *  listens: waiting would only give the same answer later, and a call on a daemon that went away
   *  must not sit out its deadline). With onUnreachable the hook then runs (it may start a daemon,
   *  or throws why not), and the channel gets connectTimeoutMs to reach the daemon, reconnecting
   *  by itself. */
  private async reachable(): Promise<void> {
    const revive = this.options.onUnreachable;
    try {
      await this.waitForReady(true);
    } catch (error) {
      if (!revive) throw error;
      this.reviving ??= revive(error as EngramError).finally(() => (this.reviving = null));
      await this.reviving;
      await this.waitForReady(false);
    }
  }

  /** grpc-js's own Client.waitForReady, for at most connectTimeoutMs, except that with `failFast`
   *  a connection attempt that fails (TRANSIENT_FAILURE) ends the wait: gRPC's fail-fast rule.
   *  A channel already in TRANSIENT_FAILURE when the wait begins failed an earlier attempt, and
   *  stays so while grpc-js retries (with backoff, at most MAX_RECONNECT_BACKOFF_MS apart): it gets
   *  until its next attempt, so a daemon restarted meanwhile is found. This only watches the
   *  channel's state; grpc-js reconnects either way. */
  private waitForReady(failFast: boolean): Promise<void> {
    const channel = this.grpcClient.getChannel();
    const deadline = Date.now() + this.options.connectTimeoutMs;
    const nextAttempt = Math.min(deadline, Date.now() + NEXT_ATTEMPT_MS);
    let failedBefore = channel.getConnectivityState(false) === grpc.connectivityState.TRANSIENT_FAILURE;
    return new Promise((resolve, reject) => {
      const unreachable = (why: string) => reject(new UnreachableError(this.options.address, why));
      const look = (timedOut?: Error) => {
        try {
          const state = channel.getConnectivityState(true);
          if (state === grpc.connectivityState.READY) return resolve();
          const failed = failFast && state === grpc.connectivityState.TRANSIENT_FAILURE;
          if (failed && !failedBefore) return unreachable('nothing accepted the connection');
          if (timedOut) return unreachable(failed ? 'nothing accepted the connection' : `no connection within ${this.options.connectTimeoutMs} ms`);
          if (!failed) failedBefore = false; // a new attempt is under way: its failure is the answer
          channel.watchConnectivityState(state, failed ? nextAttempt : deadline, look);
        } catch {
          unreachable('the channel has been closed');
        }
      };
      look();
    });
  }

  private async hello(): Promise<DaemonInfo> {
    let info: DaemonInfo;
    try {
      const res = await this.handshake.hello(
        { clientName: this.options.clientName, clientVersion: ENGRAM_VERSION },
        { timeoutMs: this.options.connectTimeoutMs },
      );
      info = {
        protocol: res.protocol,
        daemonVersion: res.daemonVersion,
        instanceId: res.instanceId,
        capabilities: [...res.capabilities],
        defaultConfidenceWeight: res.defaultConfidenceWeight,
        limits: res.limits
          ? { maxTextBytes: res.limits.maxTextBytes, maxTopK: res.limits.maxTopK, maxBatch: res.limits.maxBatch, maxWriteBatch: res.limits.maxWriteBatch, maxSlotValueBytes: res.limits.maxSlotValueBytes, maxBatchResults: res.limits.maxBatchResults, maxBatchQueryBytes: res.limits.maxBatchQueryBytes }
          : { ...DEFAULT_LIMITS, maxWriteBatch: 0, maxSlotValueBytes: 0, maxBatchResults: 0, maxBatchQueryBytes: 0 },
        profile: res.profile,
        embedder: res.embedder,
        ...(res.defaultSignalWeights ? { defaultWeights: toWeights(res.defaultSignalWeights) } : {}),
        store: res.store,
        storeId: res.storeId,
      };
    } catch (error) {
      if (!(error instanceof RpcError && error.kind === ErrorKind.Unimplemented)) throw error;
      info = OLDEST_BASELINE;
    }
    const previous = this.info;
    this.info = info;
    // Change numbers of another store mean nothing here.
    if (this.storeId !== null && info.storeId !== this.storeId) this.highestChange = 0;
    this.storeId = info.storeId;
    this.watchForReconnect();
    if (previous?.instanceId !== info.instanceId) this.onNewInstance?.(info, previous);
    return info;
  }

  /** Any departure from READY invalidates the handshake. */
  private watchForReconnect(): void {
    const channel = this.grpcClient.getChannel();
    const state = channel.getConnectivityState(false);
    if (state !== grpc.connectivityState.READY) {
      this.info = null;
      return;
    }
    channel.watchConnectivityState(state, Infinity, () => {
      this.info = null;
    });
  }

  close(): void {
    // The channel goes once the write stream has ended with its batches answered: closed first,
    // it refuses a stream still opening, and the puts on it would be lost as uncertain.
    this.writeStream.close();
    void this.writeStream.ended().then(() => this.grpcClient.close());
  }
}
