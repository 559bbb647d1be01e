// Wrong errors found under attack, each refused clearly instead of being accepted or answered
// wrongly: an unknown enum value, and a request id reused for a different write.
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServiceClient, type ClientOf } from '../shared/grpc/bridge.ts';
import { MemoryService } from '../shared/gen/engram/v1/memory_pb.ts';
import type { EngramClient } from '../client/index.ts';
import { removeDir, startDaemon, type DaemonProcess } from './fixtures/daemon.ts';
import { expectStatus } from './fixtures/errors.ts';
import { openStdio } from './fixtures/mcp.ts';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

let daemon: DaemonProcess;
let raw: grpc.Client;
let memory: ClientOf<typeof MemoryService>;
let client: EngramClient;

beforeAll(async () => {
  daemon = await startDaemon({ embedder: 'none' });
  raw = new grpc.Client(daemon.discovery.address, grpc.credentials.createInsecure());
  memory = createServiceClient(MemoryService, raw);
  client = await daemon.client();
});

afterAll(async () => {
  raw?.close();
  client?.close();
  await daemon?.stop();
  if (daemon) removeDir(daemon.dataDir);
});

describe('refused, not guessed', () => {
  test('RecallWithOptions and BatchRecall with a RecallScope value the protocol does not define', async () => {
    await memory.put({ agentId: 'we', text: 'a fact to recall', requestId: '' });
    await expectStatus(memory.recallWithOptions({ agentId: 'we', query: 'fact', scope: 7 as never }), grpc.status.INVALID_ARGUMENT, 'scope');
    await expectStatus(memory.batchRecall({ agentId: 'we', queries: ['fact'], scope: 9 as never }), grpc.status.INVALID_ARGUMENT, 'scope');
    expect((await memory.recallWithOptions({ agentId: 'we', query: 'fact', scope: 1 })).facts).toHaveLength(1);
  });

  test('a request id reused for a different write is a conflict, not a replay of the first; the same write is still a replay', async () => {
    const first = await client.put('we', 'the first write', { requestId: 'req-1' });
    const again = await client.put('we', 'the first write', { requestId: 'req-1' });
    expect(again).toMatchObject({ replayed: true, fact: { id: first.fact.id } });
    await expect(client.put('we', 'a different write', { requestId: 'req-1' })).rejects.toMatchObject({ kind: 'failed_precondition', field: 'request_id' });
    await expect(client.put('we', 'the first write', { requestId: 'req-1', tags: ['other'] })).rejects.toMatchObject({ kind: 'failed_precondition', field: 'request_id' });
    expect((await client.list('we')).facts.map((f) => f.text)).not.toContain('a different write');
    // The same meta with its keys in another order is the same write (re-importing a re-sorted file).
    const withMeta = await client.put('we', 'a fact with meta', { requestId: 'req-3', meta: { a: 1, b: { c: 2, d: 3 } } });
    expect(await client.put('we', 'a fact with meta', { requestId: 'req-3', meta: { b: { d: 3, c: 2 }, a: 1 } })).toMatchObject({ replayed: true, fact: { id: withMeta.fact.id } });

    const pinned = await client.pin('we', first.fact.id, { requestId: 'req-2' });
    expect((await client.pin('we', first.fact.id, { requestId: 'req-2' })).pinned).toBe(pinned.pinned);
    await expect(client.unpin('we', first.fact.id, { requestId: 'req-2' })).rejects.toMatchObject({ kind: 'failed_precondition', field: 'request_id' });
    expect((await client.get('we', first.fact.id)).pinned).toBe(true);
  });

  test('every kind of write compares what a reused request id asks for: touch, observe, relate, link, delete, checkpoint, slot and recipe writes asking for something else are refused, and nothing of them is done', async () => {
    const refused = { kind: 'failed_precondition', field: 'request_id' };
    const [a, b, c] = await Promise.all(['apples are red', 'bananas are yellow', 'cherries are dark'].map(async (text) => (await client.put('rq', text)).fact));
    await client.touch('rq', a!.id, { requestId: 'rq-touch' });
    expect(await client.touch('rq', a!.id, { requestId: 'rq-touch' })).toMatchObject({ replayed: true });
    await expect(client.touch('rq', b!.id, { requestId: 'rq-touch' })).rejects.toMatchObject(refused);
    await expect(client.touch('rq', a!.id, { requestId: 'rq-touch', boostStrength: true })).rejects.toMatchObject(refused);
    expect((await client.get('rq', b!.id)).useCount).toBe(1);

    await client.observeUsage('rq', [a!.id], { requestId: 'rq-observe' });
    await expect(client.observeUsage('rq', [c!.id], { requestId: 'rq-observe' })).rejects.toMatchObject(refused);
    expect((await client.get('rq', c!.id)).useCount).toBe(1);

    await client.relate('rq', a!.id, 'supports', b!.id, { requestId: 'rq-relate' });
    await expect(client.relate('rq', a!.id, 'supports', b!.id, { requestId: 'rq-relate', remove: true })).rejects.toMatchObject(refused);
    expect((await client.get('rq', a!.id)).relations.map((r) => r.targetId)).toEqual([b!.id]);

    await client.linkEntity('rq', c!.id, 'orchard', { requestId: 'rq-link' });
    await expect(client.linkEntity('rq', b!.id, 'market', { requestId: 'rq-link' })).rejects.toMatchObject(refused);
    expect((await client.get('rq', b!.id)).entities).not.toContain('market');

    await client.checkpointSave('rq', { step: 1 }, { requestId: 'rq-checkpoint' });
    await expect(client.checkpointSave('rq', { step: 2 }, { requestId: 'rq-checkpoint' })).rejects.toMatchObject(refused);

    await client.putSlot({ slotName: 'rq-slot', slotValue: 1 }, { requestId: 'rq-slot' });
    await expect(client.putSlot({ slotName: 'rq-slot', slotValue: 2 }, { requestId: 'rq-slot' })).rejects.toMatchObject(refused);
    await client.saveRecipe('rq-recipe', { vectorTopK: 10 }, { requestId: 'rq-recipe' });
    await expect(client.saveRecipe('rq-recipe', { vectorTopK: 20 }, { requestId: 'rq-recipe' })).rejects.toMatchObject(refused);

    await client.delete('rq', c!.id, { requestId: 'rq-delete' });
    await expect(client.delete('rq', b!.id, { requestId: 'rq-delete' })).rejects.toMatchObject(refused);
    expect((await client.get('rq', b!.id)).text).toBe('bananas are yellow');
  });

  test('the library refuses a boolean option given as another type before sending (a "true" string was read as false: a dry run that wrote)', async () => {
    const { fact } = await client.put('rb', 'a fact the library keeps');
    const bad = (field: string) => ({ kind: 'invalid_argument', field, message: expect.stringMatching(/must be a boolean, got string/) });
    await expect(client.consolidate('rb', { dryRun: 'true' as never })).rejects.toMatchObject(bad('dryRun'));
    await expect(client.collectGarbage('rb', { dryRun: 'false' as never })).rejects.toMatchObject(bad('dryRun'));
    await expect(client.touch('rb', fact.id, { boostStrength: 'yes' as never })).rejects.toMatchObject(bad('boostStrength'));
    await expect(client.relate('rb', fact.id, 'supports', fact.id, { remove: 'no' as never })).rejects.toMatchObject(bad('remove'));
    await expect(client.promote('rb', { factId: fact.id, force: 'yes' as never })).rejects.toMatchObject(bad('force'));
    await expect(client.readGraph('rb', { factId: fact.id, entity: 'x' } as never)).rejects.toMatchObject({ kind: 'invalid_argument', field: 'around' });
    expect((await client.get('rb', fact.id)).useCount).toBe(1);
  });

  test("the library refuses a number out of range in the daemon's range, not the wire's (searchUnified's limit and window_days, readGraph's limit)", async () => {
    const { fact } = await client.put('rn', 'a fact for the ranges');
    const range = (field: string, rule: string, value: number) => ({ kind: 'invalid_argument', field, message: `${field}: must be a whole number ${rule}, got ${value}` });
    // -1, 1.5 and 1e20 cannot be carried by the wire's uint32: they said "between 0 and 4294967295", though 0 is refused too.
    for (const limit of [-1, 0, 1.5, 1001, 1e20]) {
      await expect(client.searchUnified('rn', 'fact', { limit }), `unified ${limit}`).rejects.toMatchObject(range('limit', 'between 1 and 1000', limit));
    }
    for (const limit of [-1, 0, 201, 1e20]) {
      await expect(client.readGraph('rn', { factId: fact.id }, { limit }), `graph ${limit}`).rejects.toMatchObject(range('limit', 'between 1 and 200', limit));
    }
    for (const windowDays of [-1, 0, 1e20]) {
      await expect(client.searchUnified('rn', 'fact', { windowDays }), `window ${windowDays}`).rejects.toMatchObject({ kind: 'invalid_argument', field: 'window_days', message: 'window_days: must be a whole number of days between 1 and 36500' });
    }
  });

  test('MCP: an argument a tool does not declare is refused, not dropped; non-object arguments are invalid params (-32602)', async () => {
    const mcp = await openStdio(['--data-dir', daemon.dataDir]);
    try {
      expect(await mcp.fails('memory_search', { agent_id: 'we', query: 'fact', bogus: 1 })).toMatch(/^bogus: not a parameter of memory_search/);
      expect(await mcp.fails('memory_add', { agent_id: 'we', text: 'never stored', tag: 'x' })).toMatch(/^tag: not a parameter/);
      expect((await client.list('we')).facts.map((f) => f.text)).not.toContain('never stored');
      for (const args of ['s', [1, 2], 7]) {
        await expect(mcp.client.request({ method: 'tools/call', params: { name: 'memory_search', arguments: args as never } }, CallToolResultSchema)).rejects.toMatchObject({ code: -32602 });
      }
    } finally {
      await mcp.close();
    }
  });
});

describe('legacy UpdateFact', () => {
  test('superseded_by must name a fact of the same namespace (not a missing one, another namespace\'s, or itself); "agent" still forgets', async () => {
    const { fact } = await client.put('uf', 'a fact to retire');
    const elsewhere = (await client.put('uf-other', 'a fact of another namespace')).fact;
    const current = await client.get('uf', fact.id);
    for (const supersededBy of ['01M8T0G3E49JBEHK7710X6JYZZ', elsewhere.id, fact.id]) {
      await expect(client.updateFact('uf', { ...current, supersededBy })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'fact.superseded_by' });
    }
    expect((await client.get('uf', fact.id)).supersededBy).toBeFalsy();
    const successor = (await client.put('uf', 'its successor')).fact;
    expect((await client.updateFact('uf', { ...current, supersededBy: successor.id })).supersededBy).toBe(successor.id);
    const other = (await client.put('uf', 'a fact to forget')).fact;
    expect((await client.updateFact('uf', { ...(await client.get('uf', other.id)), supersededBy: 'agent' })).supersededBy).toBe('agent');
  });
});
