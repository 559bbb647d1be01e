// Section 2: durable write throughput — acknowledged puts per second through a real daemon,
// each scenario against a fresh data dir and daemon, for a fixed window after a warm-up.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connect, type EngramClient } from '../client/client.ts';
import { generateFacts } from './corpus.ts';
import { machineCpuSeconds, removeTempDir, startDaemon, tempDir, track } from './daemon.ts';
import { healthClient } from './floor.ts';

const WRITER = fileURLToPath(new URL('./writer.ts', import.meta.url));
const AGENT = 'bench-writer';

/** Absolute (Date.now()) times that every writer, in any process, runs by. */
export interface Window {
  startAt: number;
  measureFrom: number;
  endAt: number;
}

export interface WriteCounts {
  /** Puts acknowledged inside [measureFrom, endAt]. */
  count: number;
  errors: number;
  /** Latency (ms) of each counted put that also started inside the window. */
  latencies: number[];
  /** CPU seconds the writing process used inside the window. */
  clientCpu: number;
  /** The first failed put's message, if any failed. */
  firstError?: string;
}

/** `inFlight` concurrent put loops on one client, timed by `window`. */
export function timedPuts(client: EngramClient, inFlight: number, texts: string[], window: Window): Promise<WriteCounts> {
  let next = 0;
  return timedCalls(() => client.put(AGENT, texts[next++ % texts.length]!), inFlight, window);
}

/** `inFlight` concurrent loops of `call`, timed by `window`. */
export async function timedCalls(call: () => Promise<unknown>, inFlight: number, window: Window): Promise<WriteCounts> {
  const out: WriteCounts = { count: 0, errors: 0, latencies: [], clientCpu: 0 };
  const cpu = sampleCpuAt(() => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }, window).then((seconds) => (out.clientCpu = seconds));
  await new Promise((r) => setTimeout(r, Math.max(0, window.startAt - Date.now())));
  const loop = async () => {
    while (Date.now() < window.endAt) {
      const started = performance.now();
      const startedAt = Date.now();
      try {
        await call();
      } catch (error) {
        out.errors++;
        out.firstError ??= (error as Error).message;
        continue;
      }
      const now = Date.now();
      if (now < window.measureFrom || now > window.endAt) continue;
      out.count++;
      if (startedAt >= window.measureFrom) out.latencies.push(performance.now() - started);
    }
  };
  await Promise.all([cpu, ...Array.from({ length: inFlight }, loop)]);
  return out;
}

export interface Scenario {
  name: string;
  processes: number;
  inFlight: number;
  /** 'health': grpc.health.v1 Check instead of put — the transport floor at this moment. */
  call?: 'health';
  /** false: every put its own call (the library's coalescing of concurrent puts off). */
  coalesce?: boolean;
}

export const SCENARIOS: Scenario[] = [
  { name: '1 client, 1 in flight', processes: 0, inFlight: 1 },
  { name: '16 in flight, 1 process', processes: 0, inFlight: 16 },
  { name: '16 in flight, coalescing off', processes: 0, inFlight: 16, coalesce: false },
  { name: '4 processes x 4 in flight', processes: 4, inFlight: 4 },
];

export const FLOOR_SCENARIOS: Scenario[] = [
  { name: 'floor: Health/Check, 1 in flight', processes: 0, inFlight: 1, call: 'health' },
  { name: 'floor: Health/Check, 16 in flight', processes: 0, inFlight: 16, call: 'health' },
];

export interface WriteResult extends WriteCounts {
  scenario: string;
  /** Calls in flight across all writing processes. */
  totalInFlight: number;
  floor: boolean;
  embedder: string;
  perSecond: number;
  /** Daemon / writing processes' CPU use during the window, in cores. */
  daemonCores: number;
  clientCores: number;
  /** Every process on the machine (other work included), in cores. */
  machineCores: number;
}

export async function runWrites(
  scenario: Scenario,
  embedder: 'local' | 'none',
  warmupMs: number,
  durationMs: number,
  cpuProfDir?: string,
): Promise<WriteResult> {
  const dir = tempDir('writes');
  const daemon = await startDaemon(dir, { embedder, cpuProfDir });
  let writers: Writers | undefined;
  try {
    writers =
      scenario.call === 'health'
        ? healthChecks(dir, scenario.inFlight)
        : scenario.processes === 0
          ? await inProcess(dir, scenario.inFlight, scenario.coalesce ?? true)
          : await inChildren(dir, scenario.processes, scenario.inFlight);
    const startAt = Date.now() + 200;
    const window: Window = { startAt, measureFrom: startAt + warmupMs, endAt: startAt + warmupMs + durationMs };
    const [counts, cpu, machine] = await Promise.all([
      writers.run(window),
      sampleCpuAt(daemon.cpuSeconds, window),
      sampleCpuAt(machineCpuSeconds, window),
    ]);
    return {
      ...counts,
      scenario: scenario.name,
      totalInFlight: Math.max(1, scenario.processes) * scenario.inFlight,
      floor: scenario.call === 'health',
      embedder,
      perSecond: counts.count / (durationMs / 1000),
      daemonCores: cpu / (durationMs / 1000),
      clientCores: counts.clientCpu / (durationMs / 1000),
      machineCores: machine / (durationMs / 1000),
    };
  } finally {
    writers?.close();
    await daemon.stop();
    removeTempDir(dir);
  }
}

/** CPU seconds (as counted by `cpuSeconds`) used between measureFrom and endAt. */
async function sampleCpuAt(cpuSeconds: () => number, window: Window): Promise<number> {
  await new Promise((r) => setTimeout(r, window.measureFrom - Date.now()));
  const before = cpuSeconds();
  await new Promise((r) => setTimeout(r, window.endAt - Date.now()));
  return cpuSeconds() - before;
}

/** Connected writers, waiting to be told the window. */
interface Writers {
  run(window: Window): Promise<WriteCounts>;
  close(): void;
}

async function inProcess(dataDir: string, inFlight: number, coalesceWrites: boolean): Promise<Writers> {
  const client = await connect({ dataDir, clientName: 'bench-writes', coalesceWrites });
  const texts = generateFacts(20_000, 7);
  return { run: (window) => timedPuts(client, inFlight, texts, window), close: () => client.close() };
}

function healthChecks(dataDir: string, inFlight: number): Writers {
  const health = healthClient(dataDir);
  return { run: (window) => timedCalls(() => health.check(), inFlight, window), close: () => health.close() };
}

/** Children connect and print "ready", then get the window as JSON on stdin and print their counts as JSON. */
async function inChildren(dataDir: string, processes: number, inFlight: number): Promise<Writers> {
  const children = Array.from({ length: processes }, (_, i) =>
    track(spawn(process.execPath, ['--import', 'tsx', WRITER, dataDir, String(inFlight), String(100 + i)], { stdio: ['pipe', 'pipe', 'inherit'] })),
  );
  const lines = children.map((child) => createInterface({ input: child.stdout! })[Symbol.asyncIterator]());
  const nextLine = async (i: number) => {
    const { value, done } = await lines[i]!.next();
    if (done) throw new Error(`writer ${i} exited early (code ${children[i]!.exitCode})`);
    return value as string;
  };
  await Promise.all(children.map((_, i) => nextLine(i))); // "ready"
  return {
    async run(window) {
      for (const child of children) child.stdin!.end(`${JSON.stringify(window)}\n`);
      const results = (await Promise.all(children.map((_, i) => nextLine(i)))).map((line) => JSON.parse(line) as WriteCounts);
      return {
        count: results.reduce((sum, r) => sum + r.count, 0),
        errors: results.reduce((sum, r) => sum + r.errors, 0),
        latencies: results.flatMap((r) => r.latencies),
        clientCpu: results.reduce((sum, r) => sum + r.clientCpu, 0),
        firstError: results.find((r) => r.firstError)?.firstError,
      };
    },
    close: () => children.forEach((child) => child.kill()),
  };
}
