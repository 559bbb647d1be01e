// `npm run bench:consolidate [-- --facts 30000] [-- --runs 100] [-- --sources 20]`: consolidation of
// one large namespace through a real daemon. The store is built with batch writes; the daemon's
// consolidation threshold is set above every fresh fact's decay score, so every unpinned fact is
// a candidate. Then recall latency is measured idle, and again while consolidation runs back to
// back (each run: one summary, then one retirement transaction per source), beside the no-op
// gRPC call (the floor); and the consolidation throughput (facts retired per second).
// Prints a report; never asserts.
import { loadavg } from 'node:os';
import { connect, type EngramClient } from '../client/index.ts';
import { writeAll } from '../client/import/write-all.ts';
import { generateFacts, generateQueries } from './corpus.ts';
import { cleanup, installSignalCleanup, removeTempDir, startDaemon, tempDir } from './daemon.ts';
import { healthClient } from './floor.ts';
import { ms, percentile, table } from './stats.ts';
import { benchArgs, positiveInt } from './args.ts';

const { values } = benchArgs('bench:consolidate', '[--facts 30000] [--runs 100] [--sources 20] [--queries 300]', { facts: { type: 'string', default: '30000' }, runs: { type: 'string', default: '100' }, sources: { type: 'string', default: '20' }, queries: { type: 'string', default: '300' } });
const count = positiveInt('bench:consolidate', 'facts', values.facts);
const runs = positiveInt('bench:consolidate', 'runs', values.runs);
const sources = positiveInt('bench:consolidate', 'sources', values.sources);
const queryCount = positiveInt('bench:consolidate', 'queries', values.queries);
const AGENT = 'bench-consolidate';

const say = (line: string) => process.stderr.write(`${line}\n`);

async function timeRecalls(client: EngramClient, queries: readonly string[]): Promise<number[]> {
  const out: number[] = [];
  for (const q of queries) {
    const started = performance.now();
    await client.recall(AGENT, q, { topK: 8 });
    out.push(performance.now() - started);
  }
  return out;
}

async function main(): Promise<void> {
  installSignalCleanup();
  const dir = tempDir('consolidate');
  const args = ['--consolidate-every', '0', '--consolidate-below', '100', '--consolidate-max-sources', String(sources)];
  const daemon = await startDaemon(dir, { embedder: 'local', args });
  const client = await connect({ dataDir: dir, clientName: 'bench-consolidate', timeoutMs: 120_000 });
  try {
    const texts = generateFacts(count);
    say(`building ${count} facts...`);
    await writeAll(client, texts.map((text) => ({ agentId: AGENT, text })));
    const queries = generateQueries(texts, queryCount);
    const health = healthClient(dir);
    const floor: number[] = [];
    for (let i = 0; i < 50; i++) await health.check(); // warm-up, not measured
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      await health.check();
      floor.push(performance.now() - started);
    }
    health.close();
    await timeRecalls(client, queries.slice(0, 50)); // warm-up
    const idle = await timeRecalls(client, queries);

    // Consolidation back to back on one connection, recalls on another, at the same time.
    const reader = await connect({ dataDir: dir, clientName: 'bench-consolidate-reader', timeoutMs: 120_000 });
    let retired = 0;
    let written = 0;
    let failures = 0;
    const started = performance.now();
    let busy = true;
    const consolidating = (async () => {
      for (let i = 0; i < runs; i++) {
        const run = await client.consolidate(AGENT);
        retired += run.retiredIds.length;
        failures += run.failures.length;
        if (run.summary) written++;
        if (i % 20 === 19) say(`consolidation run ${i + 1} of ${runs}: ${retired} facts retired`);
      }
      busy = false;
    })();
    const during: number[] = [];
    while (busy) during.push(...(await timeRecalls(reader, queries.slice(0, 50))));
    await consolidating;
    const seconds = (performance.now() - started) / 1000;
    reader.close();
    const counters = await client.consolidationStatus();

    const f50 = percentile(floor, 50);
    const f99 = percentile(floor, 99);
    const row = (label: string, xs: number[]) => [label, String(xs.length), ms(percentile(xs, 50)), `${(percentile(xs, 50) / f50).toFixed(1)}x`, ms(percentile(xs, 99)), `${(percentile(xs, 99) / f99).toFixed(1)}x`];
    process.stdout.write(`\nConsolidation of a ${count}-fact namespace (local embedder, ${sources} sources per run; load average ${loadavg()[0]!.toFixed(2)})\n\n`);
    process.stdout.write(`${runs} runs in ${seconds.toFixed(1)} s: ${written} summaries written, ${retired} facts retired (${Math.round(retired / seconds)} facts/s, ${(seconds * 1000 / runs).toFixed(0)} ms per run), ${failures} kept\n`);
    process.stdout.write(`counters: ${counters.runs} runs, ${counters.summariesWritten} summaries, ${counters.factsRetired} retired\n\n`);
    process.stdout.write(`${table([
      ['recall', 'calls', 'p50 ms', 'x floor', 'p99 ms', 'x floor'],
      ['floor (no-op gRPC)', String(floor.length), ms(f50), '1.0x', ms(f99), '1.0x'],
      row('idle', idle),
      row('while consolidating', during),
    ])}\n`);
  } finally {
    client.close();
    await daemon.stop();
    removeTempDir(dir);
    cleanup();
  }
}

await main();
