// `npm run bench:decay [-- --facts 30000] [-- --queries 400]`: the lifecycle on a real store with
// simulated use. Time runs fast: the daemon's power-law half-life is 3 s, so one second here is
// one day of use. The store is built through a real daemon (batch writes), a fifth of the facts
// are used — some many times, in conversations whose tags match theirs or not — while ~50 "days"
// pass, then gc (dry run, then archive) reports what it collects and how long it takes, and recall
// latency with the decay signal off and on is measured beside the no-op gRPC call (the floor);
// then promotion (auto-detect, dry run and real, into a temporary vault).
// Prints a report; never asserts.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { connect, type EngramClient } from '../client/index.ts';
import { writeAll } from '../client/import/write-all.ts';
import { generateFacts, generateQueries, prng } from './corpus.ts';
import { cleanup, installSignalCleanup, removeTempDir, startDaemon, tempDir } from './daemon.ts';
import { healthClient } from './floor.ts';
import { ms, percentile, table } from './stats.ts';
import { benchArgs, positiveInt } from './args.ts';

const { values } = benchArgs('bench:decay', '[--facts 30000] [--queries 400] [--days 50]', { facts: { type: 'string', default: '30000' }, queries: { type: 'string', default: '400' }, days: { type: 'string', default: '50' } });
const count = positiveInt('bench:decay', 'facts', values.facts);
const queryCount = positiveInt('bench:decay', 'queries', values.queries);
const days = positiveInt('bench:decay', 'days', values.days);
const AGENT = 'bench-decay';
const DAY_S = 1;
const TAGS = ['work', 'home', 'travel', 'health', 'money', 'music'];

const say = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** One simulated day: about 1 % of the facts are used, a few popular ones again and again. */
async function useSome(client: EngramClient, ids: string[], random: () => number): Promise<number> {
  const used = new Set<string>();
  const n = Math.max(1, Math.floor(ids.length * 0.01));
  // Popularity: the first fifth of ids is used, skewed towards its start.
  for (let i = 0; i < n; i++) used.add(ids[Math.floor(random() ** 2 * (ids.length / 5))]!);
  const batch = [...used];
  for (let i = 0; i < batch.length; i += 100) {
    await client.observeUsage(AGENT, batch.slice(i, i + 100), { contextTags: [TAGS[Math.floor(random() * TAGS.length)]!] });
  }
  return batch.length;
}

async function timeRecalls(client: EngramClient, queries: string[], decayWeight: number): Promise<number[]> {
  const out: number[] = [];
  for (const q of queries) {
    const started = performance.now();
    await client.recall(AGENT, q, { topK: 8, ...(decayWeight ? { weights: { decay: decayWeight } } : {}) });
    out.push(performance.now() - started);
  }
  return out;
}

async function main(): Promise<void> {
  installSignalCleanup();
  const dir = tempDir('decay');
  // One second is one day: the half-life and the promotion's minimum age are scaled alike.
  const args = ['--pl-halflife-days', String(3 / 86_400), '--promote-min-age-days', String(1 / 86_400), '--vault', join(dir, 'vault')];
  const daemon = await startDaemon(dir, { embedder: 'local', args });
  const client = await connect({ dataDir: dir, clientName: 'bench-decay' });
  try {
    const texts = generateFacts(count);
    say(`building ${count} facts...`);
    const built = performance.now();
    const results = await writeAll(client, texts.map((text, i) => ({ agentId: AGENT, text, tags: [TAGS[i % TAGS.length]!] })));
    const buildSeconds = (performance.now() - built) / 1000;
    const ids = results.flatMap((r) => (r.error ? [] : [r.factId]));

    const random = prng(7);
    let uses = 0;
    for (let day = 0; day < days; day++) {
      const started = performance.now();
      uses += await useSome(client, ids, random);
      const left = DAY_S - (performance.now() - started) / 1000;
      if (left > 0) await sleep(left);
      if (day % 10 === 9) say(`simulated day ${day + 1} of ${days}: ${uses} uses so far`);
    }

    const health = healthClient(dir);
    const queries = generateQueries(texts, queryCount);
    const floor: number[] = [];
    const off: number[] = [];
    const on: number[] = [];
    // Interleaved in rounds, so a busy moment of the machine falls on all three alike.
    for (let i = 0; i < queries.length; i += 50) {
      const slice = queries.slice(i, i + 50);
      for (let k = 0; k < slice.length; k++) {
        const started = performance.now();
        await health.check();
        floor.push(performance.now() - started);
      }
      off.push(...(await timeRecalls(client, slice, 0)));
      on.push(...(await timeRecalls(client, slice, 1)));
    }
    health.close();

    let started = performance.now();
    const dry = await client.collectGarbage(AGENT);
    const dryMs = performance.now() - started;
    started = performance.now();
    const archived = await client.collectGarbage(AGENT, { dryRun: false, archiveInstead: true });
    const archiveMs = performance.now() - started;
    const stats = await client.stats(AGENT);
    started = performance.now();
    const promoteDry = await client.promote(AGENT, { autoDetect: true, dryRun: true });
    const promoteDryMs = performance.now() - started;
    started = performance.now();
    const promoted = await client.promote(AGENT, { autoDetect: true });
    const promoteMs = performance.now() - started;
    const reasons = new Map<string, number>();
    for (const c of promoted.candidates) reasons.set(c.reason.split(' (')[0]!, (reasons.get(c.reason.split(' (')[0]!) ?? 0) + 1);

    const f50 = percentile(floor, 50);
    const f99 = percentile(floor, 99);
    const row = (label: string, xs: number[]) => [label, ms(percentile(xs, 50)), `${(percentile(xs, 50) / f50).toFixed(1)}x`, ms(percentile(xs, 99)), `${(percentile(xs, 99) / f99).toFixed(1)}x`];
    process.stdout.write(`\nDecay lifecycle on ${count} facts (local embedder, power-law half-life 3 s = 1 day per second; load average ${loadavg()[0]!.toFixed(2)})\n\n`);
    process.stdout.write(`built in ${buildSeconds.toFixed(1)} s (${Math.round(count / buildSeconds)} facts/s); ${days} simulated days, ${uses} observed uses\n\n`);
    process.stdout.write(`${table([
      ['gc', 'facts', 'of', 'ms'],
      ['dry run', String(dry.totalAffected), String(ids.length), ms(dryMs)],
      ['archive', String(archived.archivedCount), String(ids.length), ms(archiveMs)],
      ['promote, dry run', String(promoteDry.candidatesFound), String(stats.liveCount), ms(promoteDryMs)],
      ['promote', String(promoted.promotedCount), String(stats.liveCount), ms(promoteMs)],
    ])}\n\nlive facts after gc: ${stats.liveCount}; retired: ${stats.retiredCount}; promoted by reason: ${[...reasons].map(([r, n]) => `${r} ${n}`).join(', ')}\n\n`);
    process.stdout.write(`${table([
      ['recall at ' + count, 'p50 ms', 'x floor', 'p99 ms', 'x floor'],
      ['floor (no-op gRPC)', ms(f50), '1.0x', ms(f99), '1.0x'],
      row('decay weight 0 (default)', off),
      row('decay weight 1', on),
    ])}\n`);
  } finally {
    client.close();
    await daemon.stop();
    removeTempDir(dir);
    cleanup();
  }
}

await main();
