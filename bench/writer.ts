// A writer child process for the multi-process write benchmark:
//   node --import tsx bench/writer.ts DATA_DIR IN_FLIGHT SEED
// Connects and prints "ready"; reads the timing window (JSON, see Window in writes.ts) from
// stdin; writes until it ends; prints its counts as one JSON line.
import { createInterface } from 'node:readline';
import { connect } from '../client/client.ts';
import { generateFacts } from './corpus.ts';
import { timedPuts, type Window } from './writes.ts';

const [dataDir, inFlight, seed] = process.argv.slice(2);
if (!dataDir || !inFlight || !seed) {
  process.stderr.write('usage: writer.ts DATA_DIR IN_FLIGHT SEED\n');
  process.exit(2);
}

const texts = generateFacts(10_000, Number(seed));
const client = await connect({ dataDir, clientName: `bench-writer-${seed}` });
process.stdout.write('ready\n');
const { value: line } = await createInterface({ input: process.stdin })[Symbol.asyncIterator]().next();
const counts = await timedPuts(client, Number(inFlight), texts, JSON.parse(line as string) as Window);
client.close();
process.stdout.write(`${JSON.stringify(counts)}\n`);
