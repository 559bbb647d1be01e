// `npm run bench:inspector [-- --facts 100000 --runs 20]`: whether the inspector stays responsive
// over a large namespace. Builds one namespace through a real daemon (batch writes, as `engram
// import` does), then times the REST calls the page makes — a newest-first page, filtered pages
// (a common tag, a label, a rare word that sends the scan to its budget), the timeline, stats,
// a fact's page — beside GET /healthz measured in the same run (the floor: absolute times move
// with the machine's load). Prints a report; never asserts.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ProgressBar } from '../shared/progress-bar.ts';
import { cleanup, installSignalCleanup, startDaemon, tempDir } from './daemon.ts';
import { ms, percentile, table } from './stats.ts';
import { benchArgs, positiveInt } from './args.ts';

const { values } = benchArgs('bench:inspector', '[--facts 100000] [--runs 20]', { facts: { type: 'string', default: '100000' }, runs: { type: 'string', default: '20' } });
const FACTS = positiveInt('bench:inspector', 'facts', values.facts);
const RUNS = positiveInt('bench:inspector', 'runs', values.runs);
const PORT = 47_000 + (process.pid % 1000);
const AGENT = 'bench-inspector';
const BATCH = 1000;

async function main(): Promise<void> {
  installSignalCleanup();
  const dataDir = tempDir('inspector');
  const daemon = await startDaemon(dataDir, { embedder: 'none', args: ['--http', `127.0.0.1:${PORT}`] });
  const base = `http://127.0.0.1:${PORT}`;
  const headers = { authorization: `Bearer ${readFileSync(join(dataDir, 'token'), 'utf8').trim()}`, 'content-type': 'application/json' };
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, body ? { method: 'POST', headers, body: JSON.stringify(body) } : { headers });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };

  const bar = new ProgressBar();
  const started = performance.now();
  for (let i = 0; i < FACTS; i += BATCH) {
    const items = Array.from({ length: Math.min(BATCH, FACTS - i) }, (_, j) => {
      const n = i + j;
      return { agent_id: AGENT, text: `note ${n} about ${['the garden', 'an invoice', 'the piano', 'a trip'][n % 4]}${n === 7 ? ' and a zebra' : ''}`, tags: [`t${n % 10}`], ...(n % 5 === 0 ? { confidence: 'verified' } : {}) };
    });
    await call('/v1/facts/batch', { items });
    bar.update('writing facts', i + items.length, FACTS);
  }
  bar.done();
  const loadSeconds = (performance.now() - started) / 1000;
  const someFact = (await call(`/v1/facts?agent_id=${AGENT}&order=newest&page_size=1`)).facts[0].id;

  const time = async (path: string): Promise<{ p50: number; p99: number; note: string }> => {
    const times: number[] = [];
    let note = '';
    for (let i = 0; i < RUNS + 2; i++) {
      const t0 = performance.now();
      const answer = await call(path);
      if (i >= 2) times.push(performance.now() - t0);
      if (answer.scanned !== undefined) note = `${answer.facts.length} facts, ${answer.scanned} read`;
    }
    return { p50: percentile(times, 50), p99: percentile(times, 99), note };
  };

  const floor = await time('/healthz');
  const rows = [['call the page makes', 'p50 ms', 'p99 ms', '× floor p50', 'answer']];
  rows.push(['GET /healthz (floor)', ms(floor.p50), ms(floor.p99), '1.0', '']);
  for (const [label, path] of [
    ['facts, newest first (50)', `/v1/facts?agent_id=${AGENT}&order=newest&page_size=50`],
    ['facts, a tag on 1 in 10', `/v1/facts?agent_id=${AGENT}&order=newest&page_size=50&tags=t3`],
    ['facts, verified (1 in 5)', `/v1/facts?agent_id=${AGENT}&order=newest&page_size=50&confidence=verified`],
    ['facts, a word in 1 fact (scan budget)', `/v1/facts?agent_id=${AGENT}&order=newest&page_size=50&text=zebra`],
    ['one fact', `/v1/facts/${someFact}?agent_id=${AGENT}`],
    ['its decay curve', `/v1/facts/${someFact}/decay?agent_id=${AGENT}`],
    ['overview: stats', `/v1/stats?agent_id=${AGENT}`],
    ['overview: timeline', `/v1/timeline?agent_id=${AGENT}`],
  ] as const) {
    const t = await time(path);
    rows.push([label, ms(t.p50), ms(t.p99), (t.p50 / floor.p50).toFixed(1), t.note]);
  }
  await daemon.stop();
  cleanup();
  console.log(`\nInspector over one namespace of ${FACTS.toLocaleString('en')} facts (written in ${loadSeconds.toFixed(1)} s), ${RUNS} runs each, load average ${loadavg()[0]!.toFixed(2)} at the end:\n`);
  console.log(table(rows));
}

main().catch((error) => {
  cleanup();
  console.error(error);
  process.exit(1);
});
