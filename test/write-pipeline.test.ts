// Every mutation goes through one write pipeline: a repeated request id is answered from the
// result recorded with the first write, whatever the mutation, and a rebuild of the derived rows
// holds writes back instead of racing them.
import * as grpc from '@grpc/grpc-js';
import { describe, expect, test } from 'vitest';
import type { DoctorEvent, EngramClient } from '../client/index.ts';
import { useDaemon } from './fixtures/daemon.ts';
import { expectStatus } from './fixtures/errors.ts';

const env = useDaemon();

async function doctorReport(client: EngramClient, rebuild: boolean) {
  let report: DoctorEvent['report'];
  for await (const event of client.doctor({ rebuild })) if (event.report) report = event.report;
  return report!;
}

describe('a repeated request id returns the original result, for every mutation', () => {
  test('Delete: the repeat returns the erased fact\'s identity (its content is erased) instead of NOT_FOUND', async () => {
    const { fact } = await env.client.put('idem-delete', 'a fact to erase once');
    const first = await env.client.delete('idem-delete', fact.id, { requestId: 'delete-1' });
    const again = await env.client.delete('idem-delete', fact.id, { requestId: 'delete-1' });
    expect(first).toMatchObject({ id: fact.id, text: 'a fact to erase once' });
    expect(again).toMatchObject({ id: fact.id, agentId: 'idem-delete', createdAt: fact.createdAt, kind: 'fact', text: '' });
    expect((await env.client.list('idem-delete')).facts).toEqual([]);
    // A new request id for the same fact is a new delete: the fact is gone.
    await expectStatus(env.client.delete('idem-delete', fact.id, { requestId: 'delete-2' }), grpc.status.NOT_FOUND);
  });

  test('SaveCheckpoint: the repeat returns the first checkpoint and stores no second one', async () => {
    const first = await env.client.checkpointSave('idem-checkpoint', { step: 1 }, { requestId: 'checkpoint-1' });
    const again = await env.client.checkpointSave('idem-checkpoint', { step: 1 }, { requestId: 'checkpoint-1' });
    expect(again).toEqual(first);
    expect((await env.client.checkpointList('idem-checkpoint')).map((c) => c.id)).toEqual([first.id]);
  });

  test('UpdateFact: the repeat is answered with the first result, even when it carries other content', async () => {
    const { fact } = await env.client.put('idem-update', 'the original text');
    const first = await env.client.updateFact('idem-update', { ...fact, text: 'the first update' }, { requestId: 'update-1' });
    const again = await env.client.updateFact('idem-update', { ...fact, text: 'a different update' }, { requestId: 'update-1' });
    expect(again.text).toBe('the first update');
    expect(again).toEqual(first);
    expect((await env.client.get('idem-update', fact.id)).text).toBe('the first update');
  });

  test('PatchFact: a repeated pin changes nothing the second time', async () => {
    const { fact } = await env.client.put('idem-patch', 'a fact to pin once');
    const first = await env.client.pin('idem-patch', fact.id, { requestId: 'pin-1' });
    await new Promise((r) => setTimeout(r, 5));
    const again = await env.client.pin('idem-patch', fact.id, { requestId: 'pin-1' });
    expect(again.updatedAt).toBe(first.updatedAt);
    expect(again.pinnedAt).toBe(first.pinnedAt);
  });

  test('Alias: the repeat stores no second alias record', async () => {
    const first = await env.client.alias('idem-alias', 'k8s', ['kubernetes'], { requestId: 'alias-1' });
    const again = await env.client.alias('idem-alias', 'k8s', ['kubernetes'], { requestId: 'alias-1' });
    expect(again).toMatchObject({ replayed: true, fact: first.fact });
    expect((await env.client.list('idem-alias')).facts).toHaveLength(1);
  });

  test('concurrent repeats of one delete all get the original result', async () => {
    const { fact } = await env.client.put('idem-concurrent', 'erased by one of five');
    const results = await Promise.all(Array.from({ length: 5 }, () => env.client.delete('idem-concurrent', fact.id, { requestId: 'delete-many' })));
    expect(results.map((r) => r.id)).toEqual(Array(5).fill(fact.id));
  });

  test('a request id used for another kind of write is refused (FAILED_PRECONDITION), and nothing is written', async () => {
    const { fact } = await env.client.put('idem-kinds', 'written under a reused id', { requestId: 'kinds-1' });
    await expectStatus(env.client.delete('idem-kinds', fact.id, { requestId: 'kinds-1' }), grpc.status.FAILED_PRECONDITION, 'request_id');
    expect((await env.client.get('idem-kinds', fact.id)).text).toBe('written under a reused id');
  });
});

describe('lifecycle patches', () => {
  test('a patch that changes nothing is not an edit: forgetting twice or pinning twice keeps updated_at', async () => {
    const { fact } = await env.client.put('patch-noop', 'the boiler is serviced in October');
    const pinned = await env.client.pin('patch-noop', fact.id);
    await new Promise((r) => setTimeout(r, 20));
    expect((await env.client.pin('patch-noop', fact.id)).updatedAt).toBe(pinned.updatedAt);
    const forgotten = await env.client.forget('patch-noop', fact.id);
    await new Promise((r) => setTimeout(r, 20));
    const again = await env.client.forget('patch-noop', fact.id);
    expect(again.updatedAt).toBe(forgotten.updatedAt);
    expect(again.supersededBy).toBe(forgotten.supersededBy);
  });
});

describe('rebuilds and writers', () => {
  test('doctor --rebuild while clients write: no write loses a derived row, and the check after is clean', async () => {
    const agent = 'rebuild-race';
    const texts = Array.from({ length: 3000 }, (_, i) => `seed fact ${i} about harbour cranes`);
    for (let i = 0; i < texts.length; i += 100) await Promise.all(texts.slice(i, i + 100).map((t) => env.client.put(agent, t)));

    let writing = true;
    const written: string[] = [];
    const writer = async (w: number) => {
      for (let n = 0; writing; n++) {
        const text = `racing write ${w}-${n} zebracrossing${w}x${n}`;
        await env.client.put(agent, text);
        written.push(text);
      }
    };
    const writers = Array.from({ length: 4 }, (_, w) => writer(w));
    await new Promise((r) => setTimeout(r, 100));
    const rebuilt = await doctorReport(env.client, true);
    await new Promise((r) => setTimeout(r, 100));
    writing = false;
    await Promise.all(writers);

    expect(rebuilt.rebuilt).toBe(true);
    expect(written.length).toBeGreaterThan(20);
    const after = await doctorReport(env.client, false);
    expect(after.checks.filter((c) => !c.ok)).toEqual([]);
    // Every racing write is found by a word only it has (its keyword row and recency entry exist).
    for (const text of written) {
      const word = text.split(' ').at(-1)!;
      const { facts } = await env.client.recall(agent, word, { topK: 1 });
      expect(facts[0]?.text).toBe(text);
    }
  });
});
