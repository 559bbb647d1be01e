// `npm run bench:scale-out [-- --facts 3000 --seconds 8 --queries 300 --lag 200 --join 1000000]`:
// one embedded daemon, one PostgreSQL daemon and three PostgreSQL daemons behind round-robin
// clients, side by side in one run on one PostgreSQL server it starts: durable write throughput,
// recall p50/p99 (with the transport floor, a no-op health call, measured alongside), the
// catch-up lag (a write acknowledged by A → a read through B that asked for it answered), and
// the time a fresh daemon takes to join a store of --join facts. Prints a report; asserts nothing.
import * as grpc from '@grpc/grpc-js';
import { MIN_CHANGE_KEY } from '../shared/changes.ts';
import { connect, type EngramClient } from '../client/client.ts';
import { startPostgres } from '../test/fixtures/postgres.ts';
import { generateFacts, generateQueries } from './corpus.ts';
import { cleanup, installSignalCleanup, startDaemon, tempDir, type BenchDaemon } from './daemon.ts';
import { healthClient } from './floor.ts';
import { bulkLoad } from './scale-out/bulk-load.ts';
import { ms, summarize, table, type Summary } from './stats.ts';
import { benchArgs, positiveInt } from './args.ts';

const { values } = benchArgs('bench:scale-out', '[--facts 3000] [--seconds 8] [--queries 300] [--lag 200] [--join 1000000] [--only setups,join] [--in-flight 32]', {
  facts: { type: 'string', default: '3000' },
  seconds: { type: 'string', default: '8' },
  queries: { type: 'string', default: '300' },
  lag: { type: 'string', default: '200' },
  join: { type: 'string', default: '1000000' },
  only: { type: 'string', default: 'setups,join' },
  'in-flight': { type: 'string', default: '32' },
});
const facts = positiveInt('bench:scale-out', 'facts', values.facts);
const seconds = positiveInt('bench:scale-out', 'seconds', values.seconds);
const queries = positiveInt('bench:scale-out', 'queries', values.queries);
const lagSamples = positiveInt('bench:scale-out', 'lag', values.lag);
const joinFacts = positiveInt('bench:scale-out', 'join', values.join);
const inFlight = Number(values['in-flight']);
installSignalCleanup();

const log = (line: string) => process.stderr.write(`${line}\n`);
const now = () => performance.now();

interface SetupResult {
  name: string;
  writesPerSecond: number;
  recall: Summary;
  floor: Summary;
}

const postgres = await startPostgres();
const results: SetupResult[] = [];
let lag: { raw: Summary; read: Summary } | undefined;
let join: { wallMs: number; loadedLine: string; rssMiB: number } | undefined;
try {
  const texts = generateFacts(facts + 50_000, 7);
  const probe = generateQueries(texts.slice(0, facts), queries, 8);
  for (const setup of !values.only.includes('setups') ? [] : [{ name: 'embedded (LevelDB), 1 daemon', daemons: 1, postgres: false }, { name: 'PostgreSQL, 1 daemon', daemons: 1, postgres: true }, { name: 'PostgreSQL, 3 daemons', daemons: 3, postgres: true }]) {
    log(`== ${setup.name}`);
    const store = setup.postgres ? await postgres.createDatabase(`bench_${setup.daemons}`) : undefined;
    const daemons: BenchDaemon[] = await Promise.all(Array.from({ length: setup.daemons }, (_, i) => startDaemon(tempDir(`scale-out-${i}`), { embedder: 'local', args: store ? ['--store', store] : [] })));
    const clients = await Promise.all(daemons.map((d) => connect({ dataDir: d.dataDir, clientName: 'bench-scale-out' })));
    const pick = (i: number) => clients[i % clients.length]!;
    log(`loading ${facts} facts`);
    for (let i = 0; i < facts; i += 500) await pick(i / 500).putBatch(texts.slice(i, i + 500).map((text) => ({ agentId: 'bench', text })));
    // Every daemon has applied the load before recall is timed.
    const caughtUp = await Promise.all(daemons.map((d) => connect({ dataDir: d.dataDir, minChange: Math.max(...clients.map((c) => c.lastChange)) })));
    await Promise.all(caughtUp.map((c) => c.stats()));
    caughtUp.forEach((c) => c.close());
    log('timing writes');
    results.push({ name: setup.name, writesPerSecond: await writeThroughput(pick, texts.slice(facts)), ...(await recallLatency(pick, daemons, probe)) });
    const r = results[results.length - 1]!;
    log(`   ${r.writesPerSecond.toFixed(0)} writes/s, recall p50 ${ms(r.recall.p50)} p99 ${ms(r.recall.p99)} ms, floor p50 ${ms(r.floor.p50)} p99 ${ms(r.floor.p99)} ms`);
    if (setup.daemons === 3) {
      lag = await catchUpLag(clients[0]!, daemons[1]!);
      log(`   catch-up lag p50 ${ms(lag.raw.p50)} p99 ${ms(lag.raw.p99)} ms (the call alone: p50 ${ms(lag.read.p50)} p99 ${ms(lag.read.p99)} ms)`);
    }
    clients.forEach((c) => c.close());
    for (const d of daemons) await d.stop();
  }
  if (joinFacts > 0 && values.only.includes('join')) join = await joinTime(await postgres.createDatabase('bench_join'), joinFacts);
} finally {
  cleanup();
  postgres.destroy();
}

async function writeThroughput(pick: (i: number) => EngramClient, texts: string[]): Promise<number> {
  let written = 0;
  let next = 0;
  const until = now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, w) => {
      while (now() < until) {
        await pick(w).put('bench-writes', texts[next++ % texts.length]!, { allowDuplicate: true });
        written++;
      }
    }),
  );
  return written / seconds;
}

async function recallLatency(pick: (i: number) => EngramClient, daemons: BenchDaemon[], probe: string[]): Promise<{ recall: Summary; floor: Summary }> {
  const floors = daemons.map((d) => healthClient(d.dataDir));
  const recall: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < probe.length; i++) {
    let t = now();
    await pick(i).recall('bench', probe[i]!, { topK: 10 });
    recall.push(now() - t);
    t = now();
    await floors[i % floors.length]!.check();
    floor.push(now() - t);
  }
  floors.forEach((f) => f.close());
  return { recall: summarize(recall), floor: summarize(floor) };
}

/** A write acknowledged through A, then the cheapest call through B (a health check) carrying
 *  its change number: the time until B answers, and the same call once B has the change. */
async function catchUpLag(writer: EngramClient, reader: BenchDaemon): Promise<{ raw: Summary; read: Summary }> {
  const health = healthClient(reader.dataDir);
  const raw: number[] = [];
  const read: number[] = [];
  for (let i = 0; i < lagSamples; i++) {
    await writer.put('bench-lag', `lag probe ${i} ${Math.random()}`);
    const metadata = new grpc.Metadata();
    metadata.set(MIN_CHANGE_KEY, String(writer.lastChange));
    let t = now();
    await health.check(metadata);
    raw.push(now() - t);
    t = now();
    await health.check(metadata);
    read.push(now() - t);
  }
  health.close();
  return { raw: summarize(raw), read: summarize(read) };
}

async function joinTime(store: string, n: number): Promise<{ wallMs: number; loadedLine: string; rssMiB: number }> {
  log(`bulk-loading ${n} facts into PostgreSQL (the bench's own loader)`);
  await bulkLoad(store, n, (done) => log(`  ${done} / ${n}`));
  log('starting a fresh daemon on it');
  const t = now();
  const daemon = await startDaemon(tempDir('scale-out-join'), { embedder: 'local', args: ['--store', store], startTimeoutMs: 30 * 60_000 });
  const wallMs = now() - t;
  log(`   serving after ${(wallMs / 1000).toFixed(1)} s`);
  const client = await connect({ dataDir: daemon.dataDir });
  const stats = await client.stats();
  client.close();
  const rssMiB = daemon.rssMiB();
  // The daemon's own account: the load from the store and the catch-up after it.
  const said = daemon.log().split('\n').filter((l) => /loaded \d+ facts|caught up/.test(l)).map((l) => (JSON.parse(l) as { msg: string }).msg);
  await daemon.stop();
  return { wallMs, loadedLine: `${stats.liveCount} live facts served; it said: ${said.join('; ')}`, rssMiB };
}

const rows = [['setup', 'writes/s', 'recall p50 ms', 'recall p99 ms', 'floor p50 / p99 ms', 'p50 × floor', 'p99 × floor']];
for (const r of results) rows.push([r.name, r.writesPerSecond.toFixed(0), ms(r.recall.p50), ms(r.recall.p99), `${ms(r.floor.p50)} / ${ms(r.floor.p99)}`, (r.recall.p50 / r.floor.p50).toFixed(1), (r.recall.p99 / r.floor.p99).toFixed(1)]);
process.stdout.write(`\nScale-out (${facts} facts preloaded, local embedder, ${inFlight} writes in flight for ${seconds} s, ${queries} recalls round-robin; one machine: PostgreSQL, every daemon and the clients share its cores)\n`);
process.stdout.write(`${table(rows)}\n`);
if (lag) process.stdout.write(`catch-up lag, write acknowledged on A → a call on B that asked for its change answered (${lagSamples} samples): p50 ${ms(lag.raw.p50)} ms, p99 ${ms(lag.raw.p99)} ms; the same read once applied: p50 ${ms(lag.read.p50)} ms, p99 ${ms(lag.read.p99)} ms\n`);
if (join) process.stdout.write(`a fresh daemon joining a ${joinFacts}-fact PostgreSQL store: serving after ${(join.wallMs / 1000).toFixed(1)} s (${join.loadedLine}), RSS ${join.rssMiB.toFixed(0)} MiB\n`);
