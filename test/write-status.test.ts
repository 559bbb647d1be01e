// WriteStatus against a real daemon: what became of a write sent with a request id, through the
// library, REST and the CLI; the pattern the README shows for an UncertainWriteError (ask, then
// resend with the same request ids) ends with every item stored exactly once; an agent token sees
// only its own namespaces' writes.
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { UncertainWriteError } from '../client/errors.ts';
import { runEngram } from './fixtures/cli.ts';
import { useDaemonPool } from './fixtures/daemon.ts';

const pool = useDaemonPool();

describe('write status', () => {
  test('a committed write is reported with its fact on every door; an unknown request id is not committed', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0'] });
    const client = await daemon.client();
    const requestId = randomUUID();
    const { fact } = await client.put('alice', 'the spare key is under the mat', { requestId });
    const pinId = randomUUID();
    await client.pin('alice', fact.id, { requestId: pinId });

    expect(await client.writeStatus(requestId)).toMatchObject({ committed: true, agentId: 'alice', op: 'fact', fact: { id: fact.id, text: 'the spare key is under the mat', pinned: true } });
    expect(await client.writeStatus(pinId, { agentId: 'alice' })).toMatchObject({ committed: true, op: 'patch', fact: { id: fact.id, pinned: true } });
    expect(await client.writeStatus(randomUUID())).toEqual({ committed: false, agentId: '', op: '', result: {} });
    expect(await client.writeStatus(requestId, { agentId: 'bob' })).toMatchObject({ committed: false });
    await expect(client.writeStatus('')).rejects.toMatchObject({ kind: 'invalid_argument', field: 'request_id' });

    const rest = await fetch(`http://${daemon.discovery.httpAddress}/v1/writes/${requestId}?agent_id=alice`, { headers: { authorization: `Bearer ${daemon.discovery.token}` } });
    expect(rest.status).toBe(200);
    expect(await rest.json()).toMatchObject({ committed: true, agent_id: 'alice', op: 'fact', fact: { id: fact.id, text: 'the spare key is under the mat' }, result: { fact_id: fact.id } });

    const cli = await runEngram(['write-status', requestId], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(`committed: fact in "alice", fact ${fact.id}`);
    const missing = await runEngram(['write-status', 'no-such-request', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(JSON.parse(missing.stdout)).toEqual({ committed: false, agent_id: null, op: null, fact: null, result: {} });
    client.close();
  });

  test('the result says what the write recorded in snake_case, in the words of its own answer, on every door (never the daemon\'s internal record)', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0', '--consolidate-below', '5', '--consolidate-every', '0'] });
    const client = await daemon.client();
    const { fact } = await client.put('alice', 'the spare key is under the mat');
    const touched = await client.touch('alice', fact.id, { requestId: 'status-touch' });
    const slot = await client.putSlot({ slotName: 'rq', slotValue: 1 }, { requestId: 'status-slot' });
    for (const text of ['Ana moved to Lisbon in 2021.', 'Ana works as a nurse in Lisbon.', 'Ana adopted a cat named Miso.']) await client.put('carol', text);
    const run = await client.consolidate('carol', { requestId: 'status-consolidate' });
    expect(run.summary).toBeDefined();

    const expected: Record<string, unknown> = {
      'status-touch': { fact_id: fact.id, old_score: touched.oldScore, new_score: touched.newScore },
      'status-slot': { record_id: slot.slot.id, version: slot.slot.version, created: true, changed: true },
      'status-consolidate': {
        dry_run: false, faded_count: run.fadedCount, summary_id: run.summary!.id, source_ids: run.sourceIds, retired_ids: run.retiredIds,
        failures: [], summarizer: run.summarizer, rejected: '', message: run.message,
      },
    };
    const headers = { authorization: `Bearer ${daemon.discovery.token}` };
    for (const [requestId, result] of Object.entries(expected)) {
      expect((await client.writeStatus(requestId)).result, requestId).toEqual(result);
      const rest = await fetch(`http://${daemon.discovery.httpAddress}/v1/writes/${requestId}`, { headers });
      expect(((await rest.json()) as { result: unknown }).result, requestId).toEqual(result);
      const cli = await runEngram(['write-status', requestId, '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
      expect(JSON.parse(cli.stdout).result, requestId).toEqual(result);
    }
    client.close();
  });

  test('after an UncertainWriteError, asking and resending with the same request ids stores every item exactly once', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client();
    const items = Array.from({ length: 1000 }, (_, i) => ({ agentId: 'alice', text: `inventory line ${i}: ${i * 7} crates`, requestId: randomUUID() }));
    // A deadline no batch of a thousand meets: the call is sent, and its outcome is unknown.
    const hasty = await daemon.client({ timeoutMs: 1 });
    const error = await hasty.putBatch(items).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UncertainWriteError);
    expect((error as UncertainWriteError).requestIds).toEqual(items.map((i) => i.requestId));
    hasty.close();

    const before = await Promise.all(items.slice(0, 20).map((i) => client.writeStatus(i.requestId)));
    for (const [k, status] of before.entries()) if (status.committed) expect(status.fact?.text).toBe(items[k]!.text);

    const resent = await client.putBatch(items);
    expect(resent.every((r) => 'factId' in r)).toBe(true);
    let stored = 0;
    for await (const _ of client.listAll('alice')) stored++;
    expect(stored).toBe(1000);
    const after = await Promise.all(items.map((i) => client.writeStatus(i.requestId, { agentId: 'alice' })));
    expect(after.every((s, k) => s.committed && s.fact?.text === items[k]!.text)).toBe(true);
    client.close();
  });

  test("an agent token sees only its own namespaces' writes", async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const admin = await daemon.client();
    const requestId = randomUUID();
    await admin.put('bob', 'bob keeps the launch codes in the red binder', { requestId });
    const { token } = await admin.createToken({ agents: ['alice'] });
    const alice = await daemon.client({ token });
    await expect(alice.writeStatus(requestId, { agentId: 'bob' })).rejects.toMatchObject({ kind: 'permission_denied' });
    expect(await alice.writeStatus(requestId)).toMatchObject({ committed: false });
    expect(await admin.writeStatus(requestId)).toMatchObject({ committed: true, agentId: 'bob' });

    // A token that may only write may still ask about its writes; slot writes are found too.
    const { token: writeOnly } = await admin.createToken({ agents: ['carol'], rights: ['write'], shared: ['write'] });
    const carol = await daemon.client({ token: writeOnly });
    const put = randomUUID();
    await carol.put('carol', 'carol logged the tide tables', { requestId: put });
    expect(await carol.writeStatus(put)).toMatchObject({ committed: true, agentId: 'carol', op: 'fact' });
    const slot = randomUUID();
    await carol.putSlot({ slotName: 'user_preferences', slotValue: { tea: 'green' } }, { requestId: slot });
    expect(await carol.writeStatus(slot)).toMatchObject({ committed: true, agentId: '__shared__', op: 'slot' });
    expect(await admin.writeStatus(slot, { agentId: '__shared__' })).toMatchObject({ committed: true, op: 'slot' });
    carol.close();
    alice.close();
    admin.close();
  });
});
