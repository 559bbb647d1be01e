// A client process for the load soak: one call at a time, recall and (20 % by default) remember over a
// few namespaces, until the end time it reads on stdin; every WINDOW_MS it prints one JSON line
// with the window's latencies (ms) and errors.
//   node --import tsx bench/soak/load-client.ts DATA_DIR SEED [WRITE_SHARE]
import { createInterface } from 'node:readline';
import { connect } from '../../client/index.ts';
import { prng } from '../corpus.ts';
import { AGENTS, WINDOW_MS } from './load-shape.ts';

const [dataDir, seedArg, writeShareArg] = process.argv.slice(2);
const writeShare = Number(writeShareArg ?? 0.2);
const random = prng(Number(seedArg));
const WORDS = ['harbour', 'crane', 'container', 'ship', 'pilot', 'tide', 'berth', 'cargo', 'manifest', 'customs', 'quay', 'tug'];
const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');

const client = await connect({ dataDir, timeoutMs: 30_000, clientName: `soak-load-${seedArg}` });
process.stdout.write('ready\n');
const { value: line } = await createInterface({ input: process.stdin })[Symbol.asyncIterator]().next();
const { startAt, endAt } = JSON.parse(line as string) as { startAt: number; endAt: number };

let latencies: number[] = [];
let errors = 0;
let windowEnd = startAt + WINDOW_MS; // windows line up across clients
let n = 0;
while (Date.now() < endAt) {
  const agent = `load-${Math.floor(random() * AGENTS)}`;
  const began = performance.now();
  try {
    if (random() >= writeShare) await client.recall(agent, words(3), { topK: 8 });
    else await client.put(agent, `load ${seedArg}-${n++}: the ${words(6)}`);
    latencies.push(performance.now() - began);
  } catch {
    errors++;
  }
  if (Date.now() >= windowEnd) {
    process.stdout.write(`${JSON.stringify({ latencies, errors })}\n`);
    latencies = [];
    errors = 0;
    windowEnd += WINDOW_MS;
  }
}
if (latencies.length || errors) process.stdout.write(`${JSON.stringify({ latencies, errors })}\n`);
client.close();
process.exit(0);
