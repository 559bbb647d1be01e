// The composition root: opens the store, loads the embedder and the core, and serves the
// protocol on a unix socket (mode 0600), optionally on loopback TCP behind a bearer token, and
// the HTTP doors (REST, MCP) on their own listeners.
import * as grpc from '@grpc/grpc-js';
import { createServer as createNetServer } from 'node:net';
import { MESSAGE_SIZE_OPTIONS } from '../shared/grpc/message-size.ts';
import { securePrivateDir } from './files/private-dir.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Capability, profileServes, releaseProfile, type ReleaseProfile } from '../shared/capabilities.ts';
import { dataPaths, processAlive, readDiscovery, type Discovery } from '../shared/discovery.ts';
import { StoreLockedError } from './store/store.ts';
import { addService, type Authenticate, type ServerCall } from '../shared/grpc/bridge.ts';
import { CHANGE_KEY, MIN_CHANGE_KEY, parseMinChange } from '../shared/changes.ts';
import { AdminService } from '../shared/gen/engram/v1/admin_pb.ts';
import { CheckpointService } from '../shared/gen/engram/v1/checkpoint_pb.ts';
import { DecayService } from '../shared/gen/engram/v1/decay_pb.ts';
import { AnalysisService } from '../shared/gen/engram/v1/analysis_pb.ts';
import { VaultService } from '../shared/gen/engram/v1/vault_pb.ts';
import { ExtractionService } from '../shared/gen/engram/v1/extract_pb.ts';
import { ClusterService } from '../shared/gen/engram/v1/cluster_pb.ts';
import { GraphService } from '../shared/gen/engram/v1/graph_pb.ts';
import { ConsolidationService } from '../shared/gen/engram/v1/consolidation_pb.ts';
import { MemoryControlsService } from '../shared/gen/engram/v1/controls_pb.ts';
import { HandshakeService } from '../shared/gen/engram/v1/handshake_pb.ts';
import { MemoryService } from '../shared/gen/engram/v1/memory_pb.ts';
import { Health } from '../shared/gen/grpc/health/v1/health_pb.ts';
import { DEFAULT_LIMITS, type Limits } from '../shared/validate.ts';
import { ENGRAM_VERSION } from '../shared/version.ts';
import { EngramError, ErrorKind } from '../shared/errors.ts';
import { BearerAuthenticator } from './auth/bearer.ts';
import { Engram } from './core/engram.ts';
import { createEmbedder, type EmbedderConfig, type EmbedderName } from './embed/index.ts';
import { SENTENCE_MODEL_WEIGHTS, type Embedder } from './embed/provider.ts';
import type { HttpServer, HttpServerOptions } from './http/server.ts';
import { Metrics } from './http/rest/metrics.ts';
import type { RecallDefaults } from './recall/plan.ts';
import type { Weights } from './recall/registry.ts';
import { adminService } from './rpc/admin-service.ts';
import { bearerTokenCaller, unixSocketCaller } from './rpc/auth.ts';
import { checkpointService } from './rpc/checkpoint-service.ts';
import { decayService } from './rpc/decay-service.ts';
import { analysisService } from './rpc/analysis-service.ts';
import { vaultService } from './rpc/vault-service.ts';
import { extractionService } from './rpc/extraction-service.ts';
import { clusterService } from './rpc/cluster-service.ts';
import { graphService } from './rpc/graph-service.ts';
import { consolidationService } from './rpc/consolidation-service.ts';
import { controlsService } from './rpc/controls-service.ts';
import { handshakeService } from './rpc/handshake-service.ts';
import { healthService } from './rpc/health-service.ts';
import { memoryService } from './rpc/memory-service.ts';
import { openStore } from './store/open.ts';
import { redacted } from './store/postgres-url.ts';
import { recordLastStart } from './last-start.ts';
import type { Log } from './log.ts';
import { DEFAULT_DECAY, type DecayConfig } from './lifecycle/decay.ts';
import { createExtractor, type ExtractorName } from './extract/index.ts';
import type { ChatExtractorConfig } from './extract/llm.ts';
import { DEFAULT_CONSOLIDATION, type ConsolidationConfig } from './core/consolidation.ts';
import { createSummarizer, type SummarizerName } from './consolidate/summarize.ts';

export interface DaemonOptions {
  dataDir: string;
  /** "level" (default): the data dir's embedded store; or a PostgreSQL URL (a shared store). */
  store?: string;
  /** Loopback TCP listener, e.g. "127.0.0.1:7777"; absent = unix socket only. */
  listen?: string;
  embedder: EmbedderName;
  /** Settings of a remote embedder (url, model, key variable). */
  embedderConfig?: EmbedderConfig;
  profile?: string;
  defaultConfidenceWeight?: number;
  limits?: Limits;
  /** Configured recall defaults (per-call options override them); absent weights are the
   *  embedder's own, and the confidence weight comes from defaultConfidenceWeight. */
  recallDefaults?: { weights?: Weights; minRelevance: number };
  reconcileIntervalMs?: number;
  /** Checkpoints kept per agent (default 20). */
  checkpointKeep?: number;
  /** Decay, reinforcement and collection settings (default DEFAULT_DECAY). */
  decay?: DecayConfig;
  /** The vault promotion writes notes to; absent: promotion off. */
  vault?: string;
  /** What proposes facts from messages (default rules). */
  extractor?: ExtractorName;
  extractorConfig?: ChatExtractorConfig;
  /** Knowledge graph: entities extracted at write, neighbour hints after recall (--kg). */
  kg?: boolean;
  /** Consolidation policy (default DEFAULT_CONSOLIDATION). */
  consolidation?: ConsolidationConfig;
  /** What writes consolidation summaries (default extractive). */
  summarizer?: SummarizerName;
  /** HTTP listener for REST and MCP ("127.0.0.1:8080"); absent = none. */
  http?: string;
  /** Bearer token for TCP and HTTP (--token / ENGRAM_TOKEN); absent = the data dir's token file. */
  token?: string;
  /** Serve --http without a token (refused unless it is loopback). */
  noAuth?: boolean;
  /** An HTTP listener for MCP alone ("127.0.0.1:8765"); absent = none. Always behind the token. */
  mcpHttp?: string;
  /** The namespace of the MCP tools whose agent_id is optional (the CortexGraph tools). */
  mcpAgent?: string;
  log: Log;
  /** How the daemon was started (its arguments after `engram daemon`, without secrets), for an
   *  older `engram restart`. */
  args?: string[];
  /** Its settings as flags, and the variables of its secrets, with the flags among them that
   *  carried one (start-record.ts). */
  startFlags?: string[];
  secretVariables?: string[];
  secretFlags?: Record<string, string>;
  /** Where the log goes, if to a file (told to clients through the discovery file). */
  logFile?: string;
}

export interface RunningDaemon {
  core: Engram;
  discovery: Discovery;
  /** Drains in-flight calls, persists the indexes, closes the store. */
  close(): Promise<void>;
}

export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const { log } = options;
  const profile = releaseProfile(options.profile ?? 'current');
  const limits = options.limits ?? DEFAULT_LIMITS;
  const paths = dataPaths(options.dataDir);
  securePrivateDir(options.dataDir);

  let extractor;
  try {
    extractor = createExtractor(options.extractor ?? 'rules', options.extractorConfig);
  } catch (error) {
    throw new EngramError(ErrorKind.FailedPrecondition, `cannot use extractor "${options.extractor}": ${(error as Error).message}`);
  }
  let summarizer;
  try {
    summarizer = createSummarizer(options.summarizer ?? 'extractive', options.extractorConfig);
  } catch (error) {
    throw new EngramError(ErrorKind.FailedPrecondition, `cannot use summarizer "${options.summarizer}": ${(error as Error).message}`);
  }
  // An older profile never consolidates on its own, as the release it stands for did not.
  const consolidation = { ...DEFAULT_CONSOLIDATION, ...options.consolidation };
  if (!profile.capabilities.includes(Capability.Consolidate)) consolidation.every = 0;
  // What the flags ask for that may be impossible is checked before anything is opened: a user
  // learns of a port in use or an empty token in a second, not after the indexes load.
  const token = checkedToken(options.token, paths.token, Boolean(options.listen || options.http || options.mcpHttp));
  const wanted = [['gRPC', options.listen], ['HTTP', options.http], ['MCP over HTTP', options.mcpHttp]] as const;
  await Promise.all(wanted.map(([what, address]) => (address ? portIsFree(address, what) : undefined))).catch((error: unknown) => {
    // A second daemon on this directory holds these ports too: say that, not "choose a port".
    if (servedByAnother(options.dataDir)) throw new StoreLockedError(paths.store);
    throw error;
  });
  options = { ...options, token };
  // Then the store: its lock is what refuses a second daemon, before any slow start-up work.
  const store = await openStore(options.store ?? 'level', paths.store);
  const embedder = await createEmbedder(options.embedder, options.embedderConfig).catch((error: Error) => {
    // A provider that is down or misconfigured is the user's to fix: say so, without a stack.
    throw new EngramError(ErrorKind.FailedPrecondition, `cannot use embedder "${options.embedder}": ${error.message}`);
  });
  const recallDefaults: RecallDefaults = {
    weights: { ...(options.recallDefaults?.weights ?? defaultWeights(profile, embedder)) },
    minRelevance: options.recallDefaults?.minRelevance ?? 0,
    decay: options.decay ?? DEFAULT_DECAY,
    // Product default 0; a legacy profile ranks as an old daemon did, with no confidence preference.
    confidenceWeight: profile.advertisesDefaultWeight ? (options.defaultConfidenceWeight ?? 0) : 0,
    kg: (options.kg ?? false) && profile.capabilities.includes(Capability.KnowledgeGraph),
  };
  const core = await Engram.open(
    {
      dataDir: options.dataDir,
      vectorDir: paths.vectors,
      embedder,
      limits,
      recallDefaults,
      reconcileIntervalMs: options.reconcileIntervalMs,
      checkpointKeep: options.checkpointKeep,
      ...(options.vault ? { vault: options.vault } : {}),
      extractor,
      summarizer,
      consolidation,
      kg: (options.kg ?? false) && profile.capabilities.includes(Capability.KnowledgeGraph),
      // An older profile stores every write, as the release it stands for did.
      dedup: profile.capabilities.includes(Capability.WriteDedup),
      log,
    },
    store,
  );
  try {
    return await serve(options, core, profile, limits, log);
  } catch (error) {
    // Leave the store as a clean stop would (the next start restores its indexes), then fail.
    await core.close();
    throw error;
  }
}

/** The embedder's own weights; an older profile ranks as its release did, with the seed's. */
const defaultWeights = (profile: ReleaseProfile, embedder: Embedder): Weights =>
  profile.capabilities.includes(Capability.EmbedderWeights) ? embedder.defaultWeights : SENTENCE_MODEL_WEIGHTS;

async function serve(options: DaemonOptions, core: Engram, profile: ReleaseProfile, limits: Limits, log: Log): Promise<RunningDaemon> {
  const paths = dataPaths(options.dataDir);
  const token = options.token ?? loadOrCreateToken(paths.token);
  // An older release knew only the daemon's own token.
  const authenticator = new BearerAuthenticator(token, profile.capabilities.includes(Capability.AgentTokens) ? core.tokens : undefined);
  const instanceId = randomUUID();
  let serving = true;
  // One set of counters for every door of this daemon, scraped at GET /metrics.
  const metrics = new Metrics();
  // Ends the clients' long-lived write streams when the daemon stops (see ServeOptions.draining).
  const draining = new AbortController();

  const register = (server: grpc.Server, authenticate: Authenticate) => {
    const serve = {
      authenticate,
      serves: (method: string) => profileServes(profile, method),
      onInternalError: (method: string, error: unknown) => log.error(`internal error in ${method}: ${(error as Error)?.stack ?? error}`),
      onDone: (method: string, code: number) => metrics.observeRpc(method, code),
      onStreamMessage: (method: string) => metrics.observeStreamMessage(method),
      onStreamLoad: (method: string, change: number, inProgress: number) => metrics.observeStreamLoad(method, change, inProgress),
      draining: draining.signal,
      // Read-your-writes: a call asking for a change waits until it is applied here; a write's
      // answer says which change it committed. An older profile knew neither.
      ...(profile.capabilities.includes(Capability.ReadYourWrites)
        ? {
            before: (call: Omit<ServerCall, 'caller'>) => core.admit(parseMinChange(call.metadata.get(MIN_CHANGE_KEY)[0]), call.deadline),
            trailers: (call: ServerCall) => (call.changes.wrote > 0 ? { [CHANGE_KEY]: String(call.changes.wrote) } : undefined),
          }
        : {}),
    };
    addService(server, HandshakeService, handshakeService({ instanceId, profile, limits, defaultConfidenceWeight: options.defaultConfidenceWeight, defaultWeights: core.recallDefaults.weights, embedder: () => core.activeEmbedder(), store: core.storeIdentity() }), serve);
    addService(server, MemoryService, memoryService(core, profile), serve);
    addService(server, AdminService, adminService(core), serve);
    addService(server, CheckpointService, checkpointService(core), serve);
    addService(server, DecayService, decayService(core), serve);
    addService(server, GraphService, graphService(core), serve);
    addService(server, ConsolidationService, consolidationService(core), serve);
    addService(server, MemoryControlsService, controlsService(core), serve);
    addService(server, AnalysisService, analysisService(core), serve);
    addService(server, VaultService, vaultService(core), serve);
    addService(server, ExtractionService, extractionService(core), serve);
    addService(server, ClusterService, clusterService(core), serve);
    addService(server, Health, healthService(() => serving), serve);
  };

  // Only this process holds the store lock, so a socket file left here is stale.
  rmSync(paths.socket, { force: true });
  const unixServer = new grpc.Server(MESSAGE_SIZE_OPTIONS);
  register(unixServer, unixSocketCaller(authenticator));
  await bind(unixServer, `unix:${paths.socket}`);
  chmodSync(paths.socket, 0o600);

  let tcpServer: grpc.Server | undefined;
  let tcpAddress: string | undefined;
  if (options.listen) {
    tcpServer = new grpc.Server(MESSAGE_SIZE_OPTIONS);
    register(tcpServer, bearerTokenCaller(authenticator));
    const port = await bind(tcpServer, options.listen);
    tcpAddress = `${options.listen.slice(0, options.listen.lastIndexOf(':'))}:${port}`;
  }

  const http: HttpServer | undefined = options.http
    ? await startHttpServer(core, { listen: options.http, surfaces: profile.capabilities.includes(Capability.Inspector) ? ['rest', 'mcp', 'inspector'] : ['rest', 'mcp'], authenticator, noAuth: options.noAuth, log, mcpAgent: options.mcpAgent, metrics })
    : undefined;
  const mcpHttp: HttpServer | undefined = options.mcpHttp ? await startHttpServer(core, { listen: options.mcpHttp, surfaces: ['mcp'], authenticator, log, mcpAgent: options.mcpAgent, metrics }) : undefined;

  const discovery: Discovery = {
    address: `unix:${paths.socket}`,
    ...(tcpAddress ? { tcpAddress } : {}),
    ...(http ? { httpAddress: http.address } : {}),
    ...(mcpHttp ? { mcpHttpAddress: mcpHttp.address } : {}),
    token,
    pid: process.pid,
    instanceId,
    version: ENGRAM_VERSION,
    startedAt: new Date().toISOString(),
    ...(options.args ? { args: options.args } : {}),
    ...(options.startFlags ? { startFlags: options.startFlags } : {}),
    ...(options.secretVariables?.length ? { secretVariables: options.secretVariables } : {}),
    ...(options.secretFlags && Object.keys(options.secretFlags).length ? { secretFlags: options.secretFlags } : {}),
    ...(options.logFile ? { logFile: options.logFile } : {}),
  };
  writePrivateFile(paths.discovery, JSON.stringify(discovery, null, 2));
  recordLastStart(options);
  const storeName = options.store && options.store !== 'level' ? redacted(options.store) : options.dataDir;
  log.info(`serving ${storeName} on ${discovery.address}${tcpAddress ? ` and ${tcpAddress}` : ''} (profile ${profile.name}, embedder ${options.embedder})`);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      serving = false;
      draining.abort();
      await Promise.all([http?.close(), mcpHttp?.close(), shutdown(unixServer, log), tcpServer ? shutdown(tcpServer, log) : Promise.resolve()]);
      await core.close();
      rmSync(paths.discovery, { force: true });
      rmSync(paths.socket, { force: true });
    })());
  return { core, discovery, close };
}

function bind(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
  );
}

/** How long a stop waits for calls in flight and for clients to let their connections go. */
const DRAIN_GRACE_MS = 5_000;

/** Stops accepting calls and waits for in-flight ones to finish. A client that never lets its
 *  connection go (a paused process, a blocked event loop) would hold the stop forever: after the
 *  grace its connections are closed. */
function shutdown(server: grpc.Server, log: Log): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      log.warn(`calls were still open ${DRAIN_GRACE_MS / 1000} s into the stop; closed their connections`);
      server.forceShutdown();
      resolve();
    }, DRAIN_GRACE_MS);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

/** Whether a live daemon's discovery file is in the directory. */
function servedByAnother(dataDir: string): boolean {
  try {
    const { pid } = readDiscovery(dataDir);
    return processAlive(pid) && pid !== process.pid;
  } catch {
    return false;
  }
}

/** The token TCP and HTTP callers must send; an empty one would open a listener nobody can use. */
function checkedToken(given: string | undefined, path: string, listening: boolean): string {
  const token = given ?? loadOrCreateToken(path);
  if (token === '' && listening) {
    const where = given !== undefined ? '--token / ENGRAM_TOKEN' : path;
    throw new EngramError(ErrorKind.FailedPrecondition, `the bearer token (${where}) is empty, so no caller could use the listener: give a token${given !== undefined ? '' : `, or delete ${path} and the daemon makes a new one`}`);
  }
  // Without a listener no caller presents it; an empty one then only must not stop the daemon.
  return token === '' ? randomBytes(24).toString('base64url') : token;
}

/** Resolves if "host:port" can be listened on now (port 0 always can); else rejects saying what
 *  could not be served where, and why (EADDRINUSE, EACCES). */
function portIsFree(address: string, what: string): Promise<void> {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(at + 1));
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(new EngramError(ErrorKind.FailedPrecondition, `cannot serve ${what} on ${address}: ${error.code ?? error.message}; choose another address or stop what uses it`)),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

function loadOrCreateToken(path: string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  writePrivateFile(path, `${token}\n`);
  return token;
}

/** Written to a temp file then renamed, so a reader never sees half a file; mode 0600. */
function writePrivateFile(path: string, content: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  renameSync(tmp, path);
}

export type { ReleaseProfile };

/** The HTTP doors (REST, MCP, the inspector) load their libraries only when a daemon serves them. */
async function startHttpServer(core: Engram, options: HttpServerOptions): Promise<HttpServer> {
  return (await import('./http/server.ts')).startHttpServer(core, options);
}
