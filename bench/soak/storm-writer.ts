// A writer child process for the crash soak: a mixed storm of writes (puts, batch puts, revisions,
// pins, erasures, checkpoint saves, and reads) into one namespace, until the daemon goes away.
//   node --import tsx bench/soak/storm-writer.ts DATA_DIR AGENT PREFIX SEED
// Prints {"ready":true} once connected, then one JSON line per outcome the soak checks afterwards:
//   {"ack":"put","text","id","rid"}  {"ack":"revise","target","text","id"}  {"ack":"pin","id"}
//   {"ack":"delete","id"}  {"ack":"checkpoint","id"}  {"uncertain":[texts],"erasing"?:id}
// A write the daemon refused cleanly (a target consolidation retired meanwhile) is not printed.
import { randomUUID } from 'node:crypto';
import { connect, EngramError, UncertainWriteError, type EngramClient } from '../../client/index.ts';
import { prng } from '../corpus.ts';

const [dataDir, agent, prefix, seedArg] = process.argv.slice(2);
if (!dataDir || !agent || !prefix || !seedArg) {
  process.stderr.write('usage: storm-writer.ts DATA_DIR AGENT PREFIX SEED\n');
  process.exit(2);
}

// Deterministic, so a cycle's mix can be replayed from its seed.
const random = prng(Number(seedArg));

const emit = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const live: string[] = []; // acknowledged facts of this writer that are still live
let next = 0;
const text = () => `${prefix}-${next++} the harbour crane moved container ${Math.floor(random() * 1e6)}`;
const takeLive = (): string | undefined => (live.length ? live.splice(Math.floor(random() * live.length), 1)[0] : undefined);

async function step(client: EngramClient): Promise<void> {
  const roll = random();
  if (roll < 0.45) {
    const t = text();
    const rid = randomUUID();
    const { fact } = await write([t], () => client.put(agent!, t, { requestId: rid }));
    live.push(fact.id);
    emit({ ack: 'put', text: t, id: fact.id, rid });
  } else if (roll < 0.55) {
    const items = Array.from({ length: 5 }, () => ({ agentId: agent!, text: text(), requestId: randomUUID() }));
    const results = await write(items.map((i) => i.text), () => client.putBatch(items));
    results.forEach((r, i) => {
      if ('factId' in r && r.factId) {
        live.push(r.factId);
        emit({ ack: 'put', text: items[i]!.text, id: r.factId, rid: items[i]!.requestId });
      }
    });
  } else if (roll < 0.65) {
    const target = takeLive();
    if (!target) return;
    const t = text();
    const { replacement } = await write([t], () => client.revise(agent!, [target], t));
    live.push(replacement.id);
    emit({ ack: 'revise', target, text: t, id: replacement.id });
  } else if (roll < 0.75) {
    const target = live[Math.floor(random() * live.length)];
    if (!target) return;
    await write([], () => client.pin(agent!, target));
    emit({ ack: 'pin', id: target });
  } else if (roll < 0.8) {
    const target = takeLive();
    if (!target) return;
    await write([], () => client.delete(agent!, target), target);
    emit({ ack: 'delete', id: target });
  } else if (roll < 0.9) {
    const saved = await write([], () => client.checkpointSave(agent!, { step: next, prefix }));
    emit({ ack: 'checkpoint', id: saved.id });
  } else {
    await client.recall(agent!, 'harbour crane container', { topK: 5 });
  }
}

/** Runs a write; an uncertain one is reported with the texts it carried (and the fact an erasure
 *  named: it may be gone) and the storm goes on. */
async function write<T>(texts: string[], send: () => Promise<T>, erasing?: string): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof UncertainWriteError) emit({ uncertain: texts, ...(erasing ? { erasing } : {}) });
    throw error;
  }
}

async function worker(client: EngramClient): Promise<void> {
  for (;;) {
    try {
      await step(client);
    } catch (error) {
      if (error instanceof UncertainWriteError) continue;
      const kind = error instanceof EngramError ? error.kind : '';
      // A clean refusal (a target retired by consolidation, or erased) is part of the storm.
      if (kind === 'failed_precondition' || kind === 'not_found') continue;
      return; // the daemon is gone
    }
  }
}

let client: EngramClient;
try {
  client = await connect({ dataDir, timeoutMs: 5_000, connectTimeoutMs: 5_000, clientName: `soak-${prefix}` });
} catch {
  process.exit(0); // killed before this writer connected
}
emit({ ready: true });
await Promise.all(Array.from({ length: 4 }, () => worker(client)));
client.close();
process.exit(0);
