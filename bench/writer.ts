// A writer child process for the multi-process write benchmark:
//   node --import tsx bench/writer.ts DATA_DIR IN_FLIGHT SEED
// Connects and prints "ready"; for each timing window (a JSON line on stdin, see Window in
// writes.ts) writes until it ends, or for a floor window makes no-op Health/Check calls, and
// prints its counts as one JSON line; exits when stdin ends.
import { createInterface } from 'node:readline';
import { connect } from '../client/client.ts';
import { generateFacts } from './corpus.ts';
import { healthClient } from './floor.ts';
import { cycling, timedCalls, timedPuts, type Window } from './writes.ts';

const [dataDir, inFlight, seed] = process.argv.slice(2);
if (!dataDir || !inFlight || !seed) {
  process.stderr.write('usage: writer.ts DATA_DIR IN_FLIGHT SEED\n');
  process.exit(2);
}

const nextText = cycling(generateFacts(10_000, Number(seed)));
const client = await connect({ dataDir, clientName: `bench-writer-${seed}` });
const health = healthClient(dataDir);
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const window = JSON.parse(line) as Window;
  const counts = window.floor ? await timedCalls(() => health.check(), Number(inFlight), window) : await timedPuts(client, Number(inFlight), nextText, window);
  process.stdout.write(`${JSON.stringify(counts)}\n`);
}
client.close();
health.close();
