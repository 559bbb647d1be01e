// `npm run bench [-- --quick] [-- --sizes 1000,10000,30000]`: recall latency and durable write
// throughput, measured through real daemon processes over their unix socket. Prints a report;
// it never asserts. The targets are TARGET below.
import { cpus, loadavg } from 'node:os';
import { cleanup, installSignalCleanup } from './daemon.ts';
import { FLOOR_SLICES } from './floor.ts';
import { runRecall, type RecallReport } from './recall.ts';
import { ms, summarize as summarizeLatency, table } from './stats.ts';
import { runWrites, SCENARIOS, type WriteResult } from './writes.ts';
import { benchArgs, embedderArg, positiveInt } from './args.ts';

/** As ratios to the floor measured in the same run, since absolute times move with the machine's load. */
const TARGET = { recallSize: 30_000, p50Ratio: 2.0, p99Ratio: 3.0, writesOfFloor: 0.6 };

const USAGE = `[--quick] [--sizes 1000,10000,30000] [--queries 300] [--seconds 5]
                     [--embedders local,none] [--skip-recall] [--skip-writes] [--cpu-prof DIR]
  --quick      sizes 1000,5000, 200 queries, 2 s write runs (a smoke test)
  --cpu-prof   write V8 CPU profiles of every daemon to DIR (one file per daemon)`;
const { values } = benchArgs('bench', USAGE, {
  quick: { type: 'boolean', default: false },
  sizes: { type: 'string' },
  queries: { type: 'string' },
  seconds: { type: 'string' },
  embedders: { type: 'string', default: 'local,none' },
  'skip-recall': { type: 'boolean', default: false },
  'skip-writes': { type: 'boolean', default: false },
  'cpu-prof': { type: 'string' },
});

const quick = values.quick;
const sizes = (values.sizes ?? (quick ? '1000,5000' : '1000,10000,30000')).split(',').map((size) => positiveInt('bench', 'sizes', size));
const queries = positiveInt('bench', 'queries', values.queries ?? (quick ? '200' : '300'));
const seconds = positiveInt('bench', 'seconds', values.seconds ?? (quick ? '2' : '5'));
const embedders = values.embedders.split(',').map((e) => embedderArg('bench', 'embedders', e));

const mark = (ok: boolean) => (ok ? 'meets' : 'MISSES');

function recallTable(reports: RecallReport[]): string {
  const rows = [['embedder', 'facts', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'floor p50/p99', 'p50 × floor', 'p99 × floor', 'empty ns p50/p99', 'kw cand', 'vec cand', 'daemon CPU/query (main / graph / other)', 'machine CPU', `target (30k: p50 <= ${TARGET.p50Ratio}×, p99 <= ${TARGET.p99Ratio}×)`]];
  for (const report of reports) {
    for (const r of report.results) {
      const l = r.latency;
      const [p50Ratio, p99Ratio] = [l.p50 / r.floor.p50, l.p99 / r.floor.p99];
      const target = r.size === TARGET.recallSize ? `p50 ${mark(p50Ratio <= TARGET.p50Ratio)}, p99 ${mark(p99Ratio <= TARGET.p99Ratio)}` : '';
      rows.push([report.embedder, String(r.size), ms(l.p50), ms(l.p90), ms(l.p99), ms(l.max), `${ms(r.floor.p50)} / ${ms(r.floor.p99)}`, p50Ratio.toFixed(1), p99Ratio.toFixed(1), `${ms(r.empty.p50)} / ${ms(r.empty.p99)}`, r.keywordCandidates.toFixed(0), r.vectorCandidates.toFixed(0), `${ms(r.daemonCpuMs)} ms (${ms(r.daemonThreadMs.main)} / ${ms(r.daemonThreadMs.graph)} / ${ms(r.daemonThreadMs.other)})`, `${r.machineCores.toFixed(2)} cores`, target]);
    }
  }
  const extra = reports.map((r) => {
    const n = r.results[r.results.length - 1]!.size;
    return `  ${r.embedder}: loading ${Math.round(r.loadRate)} puts/s (32 in flight); daemon RSS after ${n} facts ${r.rssMiB.toFixed(0)} MiB`;
  });
  return `${table(rows)}\n${extra.join('\n')}\n${stagesTable(reports)}`;
}

/** Where the mean recall's time goes: the daemon's stages (from its /metrics) and the rest. */
function stagesTable(reports: RecallReport[]): string {
  const stages = reports[0]?.results[0]?.stagesMs.keys() ?? [];
  const rows = [['embedder', 'facts', 'mean ms', ...[...stages].map((s) => `${s} ms`), 'ranking ms', 'rest of the call ms', 'floor mean ms', 'signals ms (each from the start of the signals)']];
  for (const report of reports) {
    for (const r of report.results) {
      const ranking = [...r.stagesMs.values()].reduce((a, b) => a + b, 0);
      const signals = [...r.signalsMs].map(([name, value]) => `${name} ${ms(value)}`).join(', ');
      rows.push([report.embedder, String(r.size), ms(r.latency.mean), ...[...r.stagesMs.values()].map(ms), ms(ranking), ms(r.latency.mean - ranking), ms(r.floor.mean), signals]);
    }
  }
  return `\n   where a recall's time goes, mean per query: the daemon's stages (its /metrics; signals and fuse per namespace), and the rest of the call (transport, serialisation, the client's decoding, scheduling)\n${table(rows)}`;
}

const us = (micros: number) => (Number.isFinite(micros) ? micros.toFixed(0) : '-');

function writesTable(results: WriteResult[]): string {
  const rows = [['scenario', 'embedder', 'calls/s', 'floor calls/s', 'vs floor', 'p50 ms', 'p99 ms', 'daemon CPU', 'client CPU', 'machine CPU', 'daemon µs/put main/graph/other', 'floor daemon µs/call', 'client µs/put', 'errors', `target (16 in flight: >= ${TARGET.writesOfFloor * 100}% of floor)`]];
  for (const r of results) {
    const l = r.latencies.length ? summarizeLatency(r.latencies) : { p50: NaN, p99: NaN };
    const ofFloor = r.perSecond / r.floorPerSecond;
    rows.push([
      r.scenario,
      r.embedder,
      Math.round(r.perSecond).toString(),
      Math.round(r.floorPerSecond).toString(),
      `${Math.round(ofFloor * 100)}%`,
      ms(l.p50),
      ms(l.p99),
      `${r.daemonCores.toFixed(2)} cores`,
      `${r.clientCores.toFixed(2)} cores`,
      `${r.machineCores.toFixed(2)} cores`,
      `${us(r.daemonUsPerPut.main)} / ${us(r.daemonUsPerPut.graph)} / ${us(r.daemonUsPerPut.other)}`,
      us(r.floorDaemonUsPerCall),
      us(r.count ? (r.clientCpu / r.count) * 1e6 : NaN),
      String(r.errors),
      // The row without coalescing shows what coalescing gains; it is no configuration a user runs.
      r.totalInFlight === 16 && r.coalesce ? mark(ofFloor >= TARGET.writesOfFloor) : r.totalInFlight === 16 ? '(comparison)' : '',
    ]);
  }
  const errors = results.filter((r) => r.firstError).map((r) => `  ${r.scenario} (${r.embedder}): first error: ${r.firstError}`);
  const oneProcess = results
    .filter((r) => r.oneProcessFloorPerSecond !== undefined)
    .map((r) => `  ${r.scenario} (${r.embedder}): its floor above is its own processes' no-op calls; against the no-op floor of the bench's one process at ${r.totalInFlight} in flight (${Math.round(r.oneProcessFloorPerSecond!)} calls/s), its ${Math.round(r.perSecond)} writes/s are ${Math.round((r.perSecond / r.oneProcessFloorPerSecond!) * 100)}%`);
  return [table(rows), ...oneProcess, ...errors].join('\n');
}

async function main(): Promise<void> {
  installSignalCleanup();
  const started = Date.now();
  // Each section is printed as soon as it is done, so a failure later keeps what was measured.
  const print = (...lines: string[]) => process.stdout.write(`${lines.join('\n')}\n`);
  print(
    `Engram benchmark — ${new Date().toISOString()}, node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
    `measured through a real daemon over its unix socket${quick ? ' (--quick)' : ''}; "machine CPU" counts every process, other work included`,
  );
  try {
    if (!values['skip-recall']) {
      const reports: RecallReport[] = [];
      for (const embedder of embedders) {
        process.stderr.write(`recall: embedder ${embedder}, sizes ${sizes.join(', ')}\n`);
        reports.push(await runRecall({ embedder, sizes, queries, warmup: 50, cpuProfDir: values['cpu-prof'] }));
      }
      print(
        '',
        `1. Recall latency — one namespace, default top_k, ${queries} queries of 2–6 words, one in flight, after 50 warm-up queries`,
        '   floor: Health/Check (no store work) on the same daemon, one in flight, in slices alternating with the queries; empty ns: the same queries in a namespace with no facts (the call without ranking), in the same slices; kw/vec cand: mean candidates per query',
        recallTable(reports),
      );
    }
    if (!values['skip-writes']) {
      const results: WriteResult[] = [];
      for (const embedder of embedders) {
        for (const scenario of SCENARIOS) {
          process.stderr.write(`writes: ${scenario.name}, embedder ${embedder}, ${seconds} s\n`);
          results.push(await runWrites(scenario, embedder, 1000, seconds * 1000, values['cpu-prof']));
        }
      }
      print('', `2. Durable write throughput — acknowledged puts, fresh data dir and daemon per run, ${seconds} s in ${FLOOR_SLICES} slices after 1 s warm-up`,
        '   floor: grpc.health.v1 Check (no store work) on the same daemon and socket, from the writing processes at the same calls in flight, in slices alternating with the writes\'',
        '   CPU per acknowledged put: the daemon\'s main thread (gRPC, planning, keyword index), its graph thread (USearch inserts) and its other threads (LevelDB, libuv, V8 helpers); beside it what one floor call costs the daemon, and the writing processes\' CPU per put',
        writesTable(results));
    }
    print('', `total ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    cleanup();
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error)?.stack ?? error}\n`);
  process.exitCode = 1;
}
