// Section 2: durable write throughput — acknowledged puts per second through a real daemon,
// each scenario against a fresh data dir and daemon. The floor each scenario is compared with is
// measured on that same daemon, in slices alternating with the writes' (writes, floor, writes,
// floor…), so a machine that slows down or speeds up during the run moves both alike; each floor
// slice waits until the daemon is idle (the floor is an idle daemon's). The floor's calls come
// from the processes that write, as many in flight in each: several writing processes are
// compared with what that many processes get from a no-op call. The bench's own process at the
// same total in flight is measured too, beside it.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connect, type EngramClient } from '../client/client.ts';
import { generateFacts } from './corpus.ts';
import { machineCpuSeconds, removeTempDir, settle, startDaemon, tempDir, track, type ThreadCpu } from './daemon.ts';
import { FLOOR_SLICES, healthClient } from './floor.ts';
import type { BenchEmbedder } from './args.ts';

const WRITER = fileURLToPath(new URL('./writer.ts', import.meta.url));
const AGENT = 'bench-writer';

/** Absolute (Date.now()) times that every writer, in any process, runs by. */
export interface Window {
  startAt: number;
  measureFrom: number;
  endAt: number;
  /** Health/Check calls instead of puts (a floor slice). */
  floor?: boolean;
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

/** `inFlight` concurrent put loops on one client, timed by `window`, each put the next text. */
export function timedPuts(client: EngramClient, inFlight: number, nextText: () => string, window: Window): Promise<WriteCounts> {
  return timedCalls(() => client.put(AGENT, nextText()), inFlight, window);
}

/** The texts in turn, carrying on across windows (a text written again would be a duplicate,
 *  which the daemon answers without writing). */
export function cycling(texts: readonly string[]): () => string {
  let next = 0;
  return () => texts[next++ % texts.length]!;
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
  /** false: every put its own call (the library's coalescing of concurrent puts off). */
  coalesce?: boolean;
}

export const SCENARIOS: Scenario[] = [
  { name: '1 client, 1 in flight', processes: 0, inFlight: 1 },
  { name: '16 in flight, 1 process', processes: 0, inFlight: 16 },
  { name: '16 in flight, coalescing off', processes: 0, inFlight: 16, coalesce: false },
  { name: '4 processes x 4 in flight', processes: 4, inFlight: 4 },
];

export interface WriteResult extends WriteCounts {
  scenario: string;
  /** Calls in flight across all writing processes. */
  totalInFlight: number;
  /** Whether the library coalesced concurrent puts (false only in the comparison row). */
  coalesce: boolean;
  embedder: string;
  perSecond: number;
  /** Health/Check calls a second at the same calls in flight, on the same daemon, in the slices
   *  between the writes'. */
  floorPerSecond: number;
  /** With several writing processes: the floor taken from the bench's one process instead, at the
   *  same total in flight (what the floor was before it was taken from the writers). */
  oneProcessFloorPerSecond?: number;
  /** Daemon / writing processes' CPU use during the writes' slices, in cores. */
  daemonCores: number;
  /** The daemon's CPU per acknowledged put (µs) by thread: where a write's time goes. */
  daemonUsPerPut: ThreadCpu;
  /** The daemon's CPU per floor call (µs): what any call costs it, without store work. */
  floorDaemonUsPerCall: number;
  clientCores: number;
  /** Every process on the machine (other work included), in cores. */
  machineCores: number;
}

/** Each slice's first part is not counted: its calls start from nothing. */
const SLICE_WARMUP_MS = 200;

export async function runWrites(
  scenario: Scenario,
  embedder: BenchEmbedder,
  warmupMs: number,
  durationMs: number,
  cpuProfDir?: string,
): Promise<WriteResult> {
  const dir = tempDir('writes');
  const daemon = await startDaemon(dir, { embedder, cpuProfDir });
  const totalInFlight = Math.max(1, scenario.processes) * scenario.inFlight;
  let writers: Writers | undefined;
  let floor: Writers | undefined;
  try {
    writers = scenario.processes === 0 ? await inProcess(dir, scenario.inFlight, scenario.coalesce ?? true) : await inChildren(dir, scenario.processes, scenario.inFlight);
    // Several processes: their own no-op calls are the floor; the bench's are shown beside it.
    floor = scenario.processes === 0 ? healthChecks(dir, totalInFlight) : { run: (window) => writers!.run({ ...window, floor: true }), close: () => {} };
    const oneProcessFloor = scenario.processes === 0 ? undefined : healthChecks(dir, totalInFlight);
    const oneProcessFloors: WriteCounts[] = [];
    await writers.run(windowOf(0, warmupMs)); // the store and the connections warmed up, not counted
    const slice = durationMs / FLOOR_SLICES;
    const written: WriteCounts[] = [];
    const floors: WriteCounts[] = [];
    let [daemonCpu, machineCpu, floorDaemonCpu] = [0, 0, 0];
    const threads: ThreadCpu = { main: 0, graph: 0, other: 0 };
    for (let i = 0; i < FLOOR_SLICES; i++) {
      const window = windowOf(SLICE_WARMUP_MS, slice);
      const [counts, daemonSlice, machineSlice, threadSlice] = await Promise.all([writers.run(window), sampleCpuAt(daemon.cpuSeconds, window), sampleCpuAt(machineCpuSeconds, window), sampleThreadsAt(daemon.threadCpuSeconds, window)]);
      written.push(counts);
      daemonCpu += daemonSlice;
      machineCpu += machineSlice;
      for (const k of THREADS) threads[k] += threadSlice[k];
      // The floor is the idle daemon's: the writes' own work still running (vectors joining
      // the graph, compactions) finishes first, so it does not slow the floor's calls.
      await settle(daemon, { maxMs: 2000, stepMs: 100 });
      const floorWindow = windowOf(SLICE_WARMUP_MS, slice);
      const [floorCounts, floorSlice] = await Promise.all([floor.run(floorWindow), sampleCpuAt(daemon.cpuSeconds, floorWindow)]);
      floors.push(floorCounts);
      floorDaemonCpu += floorSlice;
      if (oneProcessFloor) oneProcessFloors.push(await oneProcessFloor.run(windowOf(SLICE_WARMUP_MS, slice)));
    }
    oneProcessFloor?.close();
    const counts = mergeCounts(written);
    const floorCalls = mergeCounts(floors).count;
    const perPut = (seconds: number) => (counts.count ? (seconds / counts.count) * 1e6 : NaN);
    const seconds = durationMs / 1000;
    return {
      ...counts,
      scenario: scenario.name,
      totalInFlight,
      coalesce: scenario.coalesce ?? true,
      embedder,
      perSecond: counts.count / seconds,
      floorPerSecond: floorCalls / seconds,
      ...(oneProcessFloor ? { oneProcessFloorPerSecond: mergeCounts(oneProcessFloors).count / seconds } : {}),
      daemonCores: daemonCpu / seconds,
      daemonUsPerPut: { main: perPut(threads.main), graph: perPut(threads.graph), other: perPut(threads.other) },
      floorDaemonUsPerCall: floorCalls ? (floorDaemonCpu / floorCalls) * 1e6 : NaN,
      clientCores: counts.clientCpu / seconds,
      machineCores: machineCpu / seconds,
    };
  } finally {
    writers?.close();
    floor?.close();
    await daemon.stop();
    removeTempDir(dir);
  }
}

/** Counts of several runs (slices of one scenario, or its writer processes) as one. */
function mergeCounts(runs: readonly WriteCounts[]): WriteCounts {
  const firstError = runs.find((r) => r.firstError)?.firstError;
  return {
    count: runs.reduce((sum, r) => sum + r.count, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    latencies: runs.flatMap((r) => r.latencies),
    clientCpu: runs.reduce((sum, r) => sum + r.clientCpu, 0),
    ...(firstError ? { firstError } : {}),
  };
}

/** A window starting shortly (children must get it first), counted after `warmupMs` for `ms`. */
function windowOf(warmupMs: number, ms: number): Window {
  const startAt = Date.now() + 100;
  return { startAt, measureFrom: startAt + warmupMs, endAt: startAt + warmupMs + ms };
}

/** CPU seconds (as counted by `cpuSeconds`) used between measureFrom and endAt. */
async function sampleCpuAt(cpuSeconds: () => number, window: Window): Promise<number> {
  await new Promise((r) => setTimeout(r, window.measureFrom - Date.now()));
  const before = cpuSeconds();
  await new Promise((r) => setTimeout(r, window.endAt - Date.now()));
  return cpuSeconds() - before;
}

const THREADS = ['main', 'graph', 'other'] as const;

/** Each thread group's CPU seconds between measureFrom and endAt. */
async function sampleThreadsAt(threadCpu: () => ThreadCpu, window: Window): Promise<ThreadCpu> {
  await new Promise((r) => setTimeout(r, window.measureFrom - Date.now()));
  const before = threadCpu();
  await new Promise((r) => setTimeout(r, window.endAt - Date.now()));
  const after = threadCpu();
  return { main: after.main - before.main, graph: after.graph - before.graph, other: after.other - before.other };
}

/** Connected writers, waiting to be told the window. */
interface Writers {
  run(window: Window): Promise<WriteCounts>;
  close(): void;
}

async function inProcess(dataDir: string, inFlight: number, coalesceWrites: boolean): Promise<Writers> {
  const client = await connect({ dataDir, clientName: 'bench-writes', coalesceWrites });
  const nextText = cycling(generateFacts(20_000, 7));
  return { run: (window) => timedPuts(client, inFlight, nextText, window), close: () => client.close() };
}

function healthChecks(dataDir: string, inFlight: number): Writers {
  const health = healthClient(dataDir);
  return { run: (window) => timedCalls(() => health.check(), inFlight, window), close: () => health.close() };
}

/** Children connect and print "ready", then for each window they get as a JSON line on stdin print
 *  their counts as a JSON line; they exit when stdin ends. */
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
      for (const child of children) child.stdin!.write(`${JSON.stringify(window)}\n`);
      return mergeCounts((await Promise.all(children.map((_, i) => nextLine(i)))).map((line) => JSON.parse(line) as WriteCounts));
    },
    close: () => children.forEach((child) => child.stdin!.end()),
  };
}
