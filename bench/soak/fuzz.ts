// The fuzz soak: fuzzed inputs on every door of one daemon, one at a time — gRPC requests built
// from every method's descriptor (or raw bytes), REST requests on every route of the daemon's
// OpenAPI document (and some that are not), MCP tool calls over HTTP. Each answer is sorted:
// accepted, refused cleanly (a 4xx, a status naming the problem, a tool error), an internal
// error, a hang (no answer in 10 s). A refused write must leave the store as it was (no partial
// write); the daemon must still be alive at the end, and doctor healthy.
import * as grpc from '@grpc/grpc-js';
import { create, toBinary, type DescService } from '@bufbuild/protobuf';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect, type EngramClient } from '../../client/index.ts';
import { readDiscovery } from '../../shared/discovery.ts';
import { AdminService } from '../../shared/gen/engram/v1/admin_pb.ts';
import { AnalysisService } from '../../shared/gen/engram/v1/analysis_pb.ts';
import { CheckpointService } from '../../shared/gen/engram/v1/checkpoint_pb.ts';
import { ClusterService } from '../../shared/gen/engram/v1/cluster_pb.ts';
import { ConsolidationService } from '../../shared/gen/engram/v1/consolidation_pb.ts';
import { MemoryControlsService } from '../../shared/gen/engram/v1/controls_pb.ts';
import { DecayService } from '../../shared/gen/engram/v1/decay_pb.ts';
import { ExtractionService } from '../../shared/gen/engram/v1/extract_pb.ts';
import { GraphService } from '../../shared/gen/engram/v1/graph_pb.ts';
import { HandshakeService } from '../../shared/gen/engram/v1/handshake_pb.ts';
import { MemoryService } from '../../shared/gen/engram/v1/memory_pb.ts';
import { VaultService } from '../../shared/gen/engram/v1/vault_pb.ts';
import { removeTempDir, startDaemon, tempDir } from '../daemon.ts';
import { Inputs } from './inputs.ts';

const SERVICES: DescService[] = [MemoryService, AdminService, CheckpointService, DecayService, GraphService, ConsolidationService, MemoryControlsService, AnalysisService, VaultService, ExtractionService, ClusterService, HandshakeService];
/** Jobs that rewrite the whole store: correct on fuzzed input too, but minutes of a fuzz run. */
const SKIPPED = new Set(['Reindex', 'Compact', 'Doctor']);
const HANG_MS = 10_000;
const READ_PREFIXES = ['Get', 'List', 'Recall', 'Stats', 'Hello', 'Analyze', 'Search', 'Read', 'Resume', 'Slot', 'Recipe', 'Storage', 'Batch', 'Cluster', 'Consolidation', 'Write'];

export interface DoorReport {
  door: string;
  inputs: number;
  accepted: number;
  refused: number;
  internal: number;
  hangs: number;
  partialWrites: number;
}

export interface FuzzReport {
  seed: number;
  seconds: number;
  doors: DoorReport[];
  crashes: number;
  healthyAfter: boolean;
  samples: string[];
}

type Outcome = 'accepted' | 'refused' | 'internal' | 'hang';

/** One fuzzed input, drawn but not sent yet: whether it may write decides whether the store's
 *  counts are taken first. */
interface Attempt {
  writes: boolean;
  send(): Promise<{ outcome: Outcome; what: string }>;
}

export async function runFuzz(options: { inputs: number; seed: number; onProgress(done: number, total: number): void }): Promise<FuzzReport> {
  const started = Date.now();
  const dataDir = tempDir('soak-fuzz');
  // No automatic consolidation: a background write would look like a refused call's partial write.
  const daemon = await startDaemon(dataDir, { embedder: 'none', args: ['--http', '127.0.0.1:0', '--consolidate-every', '0'] });
  const discovery = readDiscovery(dataDir);
  const admin = await connect({ dataDir, timeoutMs: 60_000 });
  await admin.put('fuzz', 'the harbour crane lifts containers');
  const report: FuzzReport = { seed: options.seed, seconds: 0, doors: [], crashes: 0, healthyAfter: false, samples: [] };
  const perDoor = Math.ceil(options.inputs / 3);
  let done = 0;
  const tick = () => {
    if (++done % 500 === 0 || done === perDoor * 3) options.onProgress(done, perDoor * 3);
  };
  const doors: [string, (inputs: Inputs) => Attempt][] = [
    ['gRPC', grpcDoor(discovery.address, discovery.token)],
    ['REST', await restDoor(`http://${discovery.httpAddress}`, discovery.token)],
    ['MCP (HTTP)', await mcpDoor(`http://${discovery.httpAddress}/mcp`, discovery.token)],
  ];
  for (const [k, [door, send]] of doors.entries()) {
    const inputs = new Inputs(options.seed + k * 7919);
    const r: DoorReport = { door, inputs: 0, accepted: 0, refused: 0, internal: 0, hangs: 0, partialWrites: 0 };
    for (let i = 0; i < perDoor; i++) {
      const attempt = send(inputs);
      const before = attempt.writes ? await fingerprint(admin) : '';
      const { writes } = attempt;
      const { outcome, what } = await attempt.send();
      r.inputs++;
      r[outcome === 'accepted' ? 'accepted' : outcome === 'refused' ? 'refused' : outcome === 'internal' ? 'internal' : 'hangs']++;
      if (outcome === 'internal' || outcome === 'hang') report.samples.push(`${door} ${outcome}: ${what}`);
      if (outcome === 'refused' && writes && (await fingerprint(admin)) !== before) {
        r.partialWrites++;
        report.samples.push(`${door} partial write: ${what}`);
      }
      if (!alive(daemon.pid)) {
        report.crashes++;
        report.samples.push(`${door} crashed the daemon: ${what}`);
        break;
      }
      tick();
    }
    report.doors.push(r);
  }
  for await (const event of admin.doctor()) if (event.report) report.healthyAfter = event.report.healthy;
  admin.close();
  await daemon.stop();
  removeTempDir(dataDir);
  report.seconds = (Date.now() - started) / 1000;
  return report;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** What a refused write must not change: the store's counts. */
async function fingerprint(client: EngramClient): Promise<string> {
  const s = await client.stats();
  return `${s.factCount}/${s.liveCount}/${s.pinnedCount}/${s.retiredCount}/${s.agentCount}`;
}

const clip = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) ?? String(value);
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
};

function grpcDoor(address: string, token: string) {
  const channel = new grpc.Client(address, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 128 * 1024 * 1024 });
  const methods = SERVICES.flatMap((service) => service.methods.filter((m) => m.methodKind === 'unary' && !SKIPPED.has(m.name)).map((method) => ({ service, method })));
  return (inputs: Inputs): Attempt => {
    const { service, method } = inputs.pick(methods);
    let body: Buffer;
    let what: string;
    if (inputs.random() < 0.15) {
      body = inputs.bytes();
      what = `${method.name} raw ${body.length} bytes`;
    } else {
      const init = inputs.message(method.input);
      try {
        body = Buffer.from(toBinary(method.input, create(method.input, init as never)));
      } catch {
        body = inputs.bytes(); // a value the encoder refused: send bytes instead
      }
      what = `${method.name} ${clip(init)}`;
    }
    const metadata = new grpc.Metadata();
    // A header value HTTP/2 can carry (grpc-js refuses others before sending).
    if (inputs.random() < 0.1) metadata.set('authorization', `Bearer ${inputs.random() < 0.5 ? token : inputs.string().replace(/[^\x20-\x7e]/g, '')}`);
    const outcome = () => new Promise<Outcome>((resolve) => {
      channel.makeUnaryRequest(`/${service.typeName}/${method.name}`, (b: Buffer) => b, (b: Buffer) => b, body, metadata, { deadline: Date.now() + HANG_MS }, (error) => {
        if (!error) return resolve('accepted');
        if (error.code === grpc.status.DEADLINE_EXCEEDED) return resolve('hang');
        resolve(error.code === grpc.status.INTERNAL || error.code === grpc.status.UNKNOWN || error.code === grpc.status.UNAVAILABLE ? 'internal' : 'refused');
      });
    });
    return { writes: !READ_PREFIXES.some((p) => method.name.startsWith(p)), send: async () => ({ outcome: await outcome(), what }) };
  };
}

interface OpenApi {
  paths: Record<string, Record<string, { parameters?: { name: string }[]; requestBody?: { content: { 'application/json': { schema: { $ref?: string } } } } }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

async function restDoor(base: string, token: string) {
  const api = (await (await fetch(`${base}/v1/openapi.json`)).json()) as OpenApi;
  const routes = Object.entries(api.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const ref = op.requestBody?.content['application/json'].schema.$ref;
      const bodyKeys = ref ? Object.keys(api.components.schemas[ref.split('/').pop()!]?.properties ?? {}) : [];
      return { path, method: method.toUpperCase(), params: (op.parameters ?? []).map((p) => p.name), bodyKeys };
    }),
  );
  return (inputs: Inputs): Attempt => {
    const route = inputs.random() < 0.05 ? { path: `/v1/${encodeURIComponent(inputs.string().toWellFormed())}`, method: inputs.pick(['GET', 'POST', 'PUT', 'DELETE']), params: [], bodyKeys: [] } : inputs.pick(routes);
    const path = route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(inputs.string().toWellFormed()));
    const query = new URLSearchParams();
    for (const name of route.params) if (inputs.random() < 0.6) query.append(name, String(inputs.value()));
    const rawQuery = inputs.random() < 0.05 ? `&${inputs.pick(['%FF', '%', 'q=%E0%A4', 'top_k=1e999', 'agent_id'])}` : '';
    const body = route.method === 'POST' ? (inputs.random() < 0.1 ? inputs.string() : JSON.stringify(inputs.random() < 0.1 ? inputs.value() : inputs.objectOf(route.bodyKeys))) : undefined;
    const what = `${route.method} ${path}?${query}${rawQuery} ${clip(body ?? '')}`;
    return { writes: route.method !== 'GET', send: () => restCall(`${base}${path}?${query}${rawQuery}`, route.method, token, body, what) };
  };
}

async function restCall(url: string, method: string, token: string, body: string | undefined, what: string): Promise<{ outcome: Outcome; what: string }> {
  try {
    const res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body } : {}),
      signal: AbortSignal.timeout(HANG_MS),
    });
    await res.arrayBuffer();
    const outcome: Outcome = res.status >= 500 ? 'internal' : res.status >= 400 ? 'refused' : 'accepted';
    return { outcome, what: `${what} → ${res.status}` };
  } catch (error) {
    return { outcome: (error as Error).name === 'TimeoutError' ? 'hang' : 'internal', what: `${what} → ${(error as Error).message}` };
  }
}

async function mcpDoor(url: string, token: string) {
  const client = new McpClient({ name: 'engram-soak-fuzz', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const tools = (await client.listTools()).tools.map((t) => ({ name: t.name, keys: Object.keys((t.inputSchema.properties ?? {}) as object), writes: t.annotations?.readOnlyHint !== true }));
  return (inputs: Inputs): Attempt => {
    const tool = inputs.random() < 0.03 ? { name: inputs.string(), keys: [], writes: false } : inputs.pick(tools);
    const args = inputs.random() < 0.05 ? (inputs.value() as Record<string, unknown>) : inputs.objectOf(tool.keys);
    const what = `${tool.name} ${clip(args)}`;
    return { writes: tool.writes, send: () => mcpCall(client, tool.name, args, what) };
  };
}

async function mcpCall(client: McpClient, name: string, args: Record<string, unknown>, what: string): Promise<{ outcome: Outcome; what: string }> {
  try {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: HANG_MS });
    const text = JSON.stringify(result.content ?? '');
    if (result.isError) return { outcome: /internal error/i.test(text) ? 'internal' : 'refused', what: `${what} → ${clip(text)}` };
    return { outcome: 'accepted', what };
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === -32001) return { outcome: 'hang', what };
    return { outcome: code === -32603 || code === undefined ? 'internal' : 'refused', what: `${what} → ${(error as Error).message}` };
  }
}
