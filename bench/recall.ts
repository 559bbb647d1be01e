// Section 1: recall latency through a real daemon at growing namespace sizes. One daemon per
// embedder; facts are loaded up to each size in turn (32 puts in flight over 4 clients), then
// queries run one at a time after the daemon settles and a warm-up, alternating with the floor's calls
// and with the same queries in an empty namespace (the recall call's cost without ranking).
import { performance } from 'node:perf_hooks';
import { connect, type EngramClient } from '../client/client.ts';
import { generateFacts, generateQueries } from './corpus.ts';
import { machineCpuSeconds, removeTempDir, settle, startDaemon, tempDir, type BenchDaemon, type ThreadCpu } from './daemon.ts';
import { FLOOR_SLICES, healthClient } from './floor.ts';
import { percentile, summarize, type Summary } from './stats.ts';
import type { BenchEmbedder } from './args.ts';
import { meanMsPerRecall, readStageTotals, type StageTotals } from './recall-stages.ts';

const AGENT = 'bench-agent';
/** Never written: a recall there is the call's fixed cost (protocol, checks, an empty ranking). */
const EMPTY_AGENT = 'bench-empty';
// Note: grpc-js shares one subchannel (one socket) between clients of one process that have the
// same target and options, so these 4 clients are 4 channels over a single connection.
const CONNECTIONS = 4;
const IN_FLIGHT = 32;

export interface RecallOptions {
  embedder: BenchEmbedder;
  sizes: number[];
  queries: number;
  warmup: number;
  cpuProfDir?: string;
}

export interface SizeResult {
  size: number;
  latency: Summary;
  /** Mean keyword / vector candidates the daemon reported per query. */
  keywordCandidates: number;
  vectorCandidates: number;
  /** Health/Check (ms) on the same daemon, in slices alternating with the queries': the transport floor. */
  floor: { p50: number; p99: number; mean: number };
  /** The same recall in a namespace with no facts (ms), in the same slices: what of a recall is
   *  not ranking. */
  empty: { p50: number; p99: number };
  /** Daemon CPU per query (ms), and all processes' CPU use while querying (cores). */
  daemonCpuMs: number;
  /** The daemon's CPU per query (ms) by thread: main (gRPC, keyword, fusion), graph (the vector
   *  search) and the others (LevelDB, libuv, V8's helpers). */
  daemonThreadMs: ThreadCpu;
  machineCores: number;
  /** Mean ms per query the daemon spent in each recall stage, and in each match signal, from its
   *  /metrics: what of the latency is ranking, the rest being the call itself. */
  stagesMs: Map<string, number>;
  signalsMs: Map<string, number>;
}

export interface RecallReport {
  embedder: string;
  results: SizeResult[];
  /** Acknowledged puts per second while loading (32 in flight). */
  loadRate: number;
  /** Daemon VmRSS once the largest size was loaded (before its queries). */
  rssMiB: number;
}

export async function runRecall(options: RecallOptions): Promise<RecallReport> {
  const sizes = [...options.sizes].sort((a, b) => a - b);
  const facts = generateFacts(sizes[sizes.length - 1]!);
  const dir = tempDir(`recall-${options.embedder}`);
  // HTTP for /metrics, where the daemon says how long each recall stage took.
  const daemon = await startDaemon(dir, { embedder: options.embedder, cpuProfDir: options.cpuProfDir, args: ['--http', '127.0.0.1:0'] });
  const clients: EngramClient[] = [];
  try {
    for (let i = 0; i < CONNECTIONS; i++) clients.push(await connect({ dataDir: dir, clientName: `bench-load-${i}` }));
    const results: SizeResult[] = [];
    let loaded = 0;
    let loadMs = 0;
    let rssMiB = NaN;
    for (const size of sizes) {
      const started = performance.now();
      await load(clients, facts, loaded, size, options.embedder);
      loadMs += performance.now() - started;
      loaded = size;
      await settle(daemon);
      rssMiB = daemon.rssMiB();
      results.push(await measure(clients[0]!, daemon, facts.slice(0, size), options));
    }
    return { embedder: options.embedder, results, loadRate: loaded / (loadMs / 1000), rssMiB };
  } finally {
    for (const client of clients) client.close();
    await daemon.stop();
    removeTempDir(dir);
  }
}

async function load(clients: EngramClient[], facts: string[], from: number, to: number, label: string): Promise<void> {
  let next = from;
  let done = from;
  let shown = -1;
  const progress = () => {
    const pct = Math.floor((done / to) * 100);
    if (pct === shown) return;
    shown = pct;
    const line = `loading ${to} facts (${label}): ${pct}%`;
    if (process.stderr.isTTY) process.stderr.write(`\r${line}${done === to ? '\n' : ''}`);
    else if (pct % 10 === 0) process.stderr.write(`${line}\n`);
  };
  const worker = async (w: number) => {
    const client = clients[w % clients.length]!;
    while (next < to) {
      const i = next++;
      await client.put(AGENT, facts[i]!);
      done++;
      progress();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, (_, w) => worker(w)));
}

async function measure(client: EngramClient, daemon: BenchDaemon, stored: string[], options: RecallOptions): Promise<SizeResult> {
  const health = healthClient(daemon.dataDir);
  try {
    for (const q of generateQueries(stored, options.warmup, 1000 + stored.length)) {
      await client.recall(AGENT, q);
      await health.check();
    }
    const latencies: number[] = [];
    const floor: number[] = [];
    const empty: number[] = [];
    let [daemonCpu, machineCpu, wall] = [0, 0, 0];
    const threads: ThreadCpu = { main: 0, graph: 0, other: 0 };
    const staged: [StageTotals, StageTotals][] = [];
    let keyword = 0;
    let vector = 0;
    const queries = generateQueries(stored, options.queries, stored.length);
    const per = Math.ceil(queries.length / FLOOR_SLICES);
    for (let from = 0; from < queries.length; from += per) {
      const slice = queries.slice(from, from + per);
      const stagesBefore = await readStageTotals(daemon.dataDir);
      const before = [daemon.cpuSeconds(), machineCpuSeconds(), performance.now()] as const;
      const threadsBefore = daemon.threadCpuSeconds();
      for (const q of slice) {
        const started = performance.now();
        const { retrieval } = await client.recall(AGENT, q);
        latencies.push(performance.now() - started);
        keyword += retrieval.keywordCandidates;
        vector += retrieval.vectorCandidates;
      }
      const threadsAfter = daemon.threadCpuSeconds();
      for (const k of ['main', 'graph', 'other'] as const) threads[k] += threadsAfter[k] - threadsBefore[k];
      daemonCpu += daemon.cpuSeconds() - before[0];
      machineCpu += machineCpuSeconds() - before[1];
      wall += performance.now() - before[2];
      staged.push([stagesBefore, await readStageTotals(daemon.dataDir)]);
      for (const q of slice) {
        let started = performance.now();
        await health.check();
        floor.push(performance.now() - started);
        started = performance.now();
        await client.recall(EMPTY_AGENT, q);
        empty.push(performance.now() - started);
      }
    }
    const n = latencies.length;
    return {
      size: stored.length,
      latency: summarize(latencies),
      floor: { p50: percentile(floor, 50), p99: percentile(floor, 99), mean: floor.reduce((a, b) => a + b, 0) / floor.length },
      empty: { p50: percentile(empty, 50), p99: percentile(empty, 99) },
      keywordCandidates: keyword / n,
      vectorCandidates: vector / n,
      daemonCpuMs: (daemonCpu * 1000) / n,
      daemonThreadMs: { main: (threads.main * 1000) / n, graph: (threads.graph * 1000) / n, other: (threads.other * 1000) / n },
      machineCores: machineCpu / (wall / 1000),
      stagesMs: meanMsPerRecall(staged, (t) => t.stages),
      signalsMs: meanMsPerRecall(staged, (t) => t.signals),
    };
  } finally {
    health.close();
  }
}
