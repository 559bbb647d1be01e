// `npm run bench:scale [-- --sizes 100000,1000000] [-- --embedder local|none] [-- --cpu-prof DIR]`: recall latency in
// one large namespace (hybrid and keyword-only), daemon restart time and resident memory.
// The store is built through a real daemon with batch writes (as `engram import` builds one),
// stopped cleanly, then served by a new daemon process that is timed from spawn to serving.
// `--keep DIR` builds each store in DIR/<size> and leaves it there; a later run with the same DIR
// reuses it, so restart and latency can be measured again without rebuilding (1M takes several minutes).
// "restart" is a start after a clean stop (the index snapshot is restored); "rebuild" is a start
// as after a crash (every index rebuilt from the store). Prints a report; never asserts.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { connect } from '../client/index.ts';
import { writeAll } from '../client/import/write-all.ts';
import { snapshotSealPath } from '../daemon/index/snapshot.ts';
import { generateFacts, generateQueries } from './corpus.ts';
import { cleanup, installSignalCleanup, startDaemon, tempDir } from './daemon.ts';
import { ms, summarize, table } from './stats.ts';
import { benchArgs, embedderArg, positiveInt } from './args.ts';

const { values } = benchArgs('bench:scale', '[--sizes 30000,100000,1000000] [--embedder local|none] [--queries 300] [--keep DIR] [--cpu-prof DIR]', {
  sizes: { type: 'string', default: '30000,100000,1000000' },
  embedder: { type: 'string', default: 'local' },
  queries: { type: 'string', default: '300' },
  keep: { type: 'string' },
  'cpu-prof': { type: 'string' },
});
const sizes = values.sizes.split(',').map((size) => positiveInt('bench:scale', 'sizes', size));
const embedder = embedderArg('bench:scale', 'embedder', values.embedder);
const queryCount = positiveInt('bench:scale', 'queries', values.queries);
const AGENT = 'scale';
/** Writes the facts through a real daemon in batch writes, as `engram import` does (two batches in
 *  flight), with progress; its clean stop then saves the indexes and the snapshot. */
async function buildStore(dataDir: string, facts: string[]): Promise<{ rate: number; stopSeconds: number; cpu: string }> {
  // --cpu-prof profiles the daemon that builds the store (where the write path's time goes).
  const daemon = await startDaemon(dataDir, { embedder, ...(values['cpu-prof'] ? { cpuProfDir: values['cpu-prof'] } : {}) });
  const client = await connect({ dataDir });
  const before = daemon.threadCpuSeconds();
  const started = performance.now();
  let shown = -1;
  await writeAll(client, facts.map((text) => ({ agentId: AGENT, text })), {
    concurrency: 2,
    onProgress: (done, total) => {
      const pct = Math.floor((done / total) * 20) * 5;
      if (pct !== shown) process.stderr.write(`building ${total} facts: ${pct}%\n`);
      shown = pct;
    },
  });
  const rate = facts.length / ((performance.now() - started) / 1000);
  const after = daemon.threadCpuSeconds();
  // Where the build's CPU went, by the daemon's thread (the graph thread's inserts are its longest task).
  const cpu = (['main', 'graph', 'other'] as const).map((t) => (after[t] - before[t]).toFixed(1)).join(' / ');
  client.close();
  const stopping = performance.now();
  await daemon.stop();
  return { rate, stopSeconds: (performance.now() - stopping) / 1000, cpu };
}

async function timeQueries(dataDir: string, queries: string[], keywordOnly: boolean): Promise<number[]> {
  const client = await connect({ dataDir });
  const options = keywordOnly ? { weights: { vector: 0 } } : {};
  for (const q of queries.slice(0, 30)) await client.recall(AGENT, q, options);
  const times: number[] = [];
  for (const q of queries) {
    const start = performance.now();
    await client.recall(AGENT, q, options);
    times.push(performance.now() - start);
  }
  client.close();
  return times;
}

/** Start-up as after a crash: without the clean stop's seal the snapshot is not trusted, and the
 *  indexes are rebuilt from every fact in LevelDB. */
async function timeRebuild(dataDir: string): Promise<number> {
  rmSync(snapshotSealPath(dataDir), { force: true });
  const spawned = performance.now();
  const daemon = await startDaemon(dataDir, { embedder });
  const seconds = (performance.now() - spawned) / 1000;
  await daemon.stop();
  return seconds;
}

async function main(): Promise<void> {
  installSignalCleanup();
  const rows = [['facts', 'build facts/s', 'build CPU s main / graph / other', 'stop after build s', 'restart s', 'rebuild s', 'RSS MiB', 'RSS/100k', 'hybrid p50', 'hybrid p99', 'keyword p50', 'keyword p99']];
  for (const n of sizes) {
    const dataDir = values.keep ? resolve(values.keep, String(n)) : tempDir(`scale-${n}`);
    const facts = generateFacts(n);
    const reused = existsSync(join(dataDir, 'store'));
    if (!reused) mkdirSync(dataDir, { recursive: true });
    const built = reused ? undefined : await buildStore(dataDir, facts);
    const spawned = performance.now();
    const daemon = await startDaemon(dataDir, { embedder });
    const restart = (performance.now() - spawned) / 1000;
    const queries = generateQueries(facts, queryCount);
    const hybrid = summarize(await timeQueries(dataDir, queries, false));
    const keyword = summarize(await timeQueries(dataDir, queries, true));
    const rss = daemon.rssMiB();
    await daemon.stop();
    const rebuild = await timeRebuild(dataDir);
    rows.push([String(n), built === undefined ? 'reused' : built.rate.toFixed(0), built?.cpu ?? '', built === undefined ? '' : built.stopSeconds.toFixed(1), restart.toFixed(2), rebuild.toFixed(2), rss.toFixed(0), ((rss / n) * 100_000).toFixed(0), ms(hybrid.p50), ms(hybrid.p99), ms(keyword.p50), ms(keyword.p99)]);
    process.stdout.write(`${table(rows)}\n`);
  }
  process.stdout.write(`\nembedder ${embedder}; targets: p50 <= 1 ms / p99 <= 5 ms at 30k, p50 <= 15 ms at 1M, restart <= 10 s at 1M\n`);
}

main().finally(cleanup);
