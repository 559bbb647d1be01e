// BatchPut (batch-write-v1) against a real daemon: each item answered in its own slot, checked on
// its own (a bad item fails alone and writes nothing), replay-protected by its own request id,
// deduplicated; the batch's facts stored in item order and recallable by keyword and vector; an
// over-sized batch refused before anything is written; and a daemon killed with kill -9 in the
// middle of a batch import loses no acknowledged item, while a re-run stores nothing twice.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { createServiceClient, type ClientOf } from '../shared/grpc/bridge.ts';
import { MemoryService } from '../shared/gen/engram/v1/memory_pb.ts';
import { CapabilityError, EngramError, type BatchItem, type EngramClient } from '../client/index.ts';
import { removeDir, startDaemon, useDaemon, useDaemonPool, type DaemonProcess } from './fixtures/daemon.ts';
import { expectStatus, rejectionOf } from './fixtures/errors.ts';

const env = useDaemon({ embedder: 'local' });

const items = (agentId: string, texts: string[], prefix = agentId): BatchItem[] => texts.map((text, i) => ({ agentId, text, requestId: `${prefix}-${i}` }));

async function listTexts(client: EngramClient, agent: string): Promise<string[]> {
  const texts: string[] = [];
  for await (const f of client.listAll(agent)) texts.push(f.text);
  return texts;
}

describe('a batch', () => {
  test('stores every item in item order, each answered in its slot, recallable by keyword and vector', async () => {
    const WORDS = ['garden', 'invoice', 'piano', 'router', 'hiking', 'tax', 'coffee', 'deploy', 'budget', 'kitchen', 'printer', 'holiday', 'lunch'];
    const texts = Array.from({ length: 300 }, (_, i) => `note ${i}: the ${WORDS[i % 13]} and the ${WORDS[(i * 7 + 3) % 13]} need a ${WORDS[(i * 5 + 1) % 13]} check`);
    texts.push('Mia prefers window seats on long flights');
    const results = await env.client.putBatch(items('b-order', texts));
    expect(results).toHaveLength(texts.length);
    expect(results.every((r) => !r.error && !r.replayed && !r.duplicate)).toBe(true);
    const facts = await Promise.all(results.map((r) => env.client.get('b-order', r.factId!)));
    expect(facts.map((f) => f.text)).toEqual(texts);
    // Ids (and so created_at and recency ties) follow the item order.
    const ids = results.map((r) => r.factId!);
    expect([...ids].sort()).toEqual(ids);
    const { receipts } = await env.client.recallExplain('b-order', 'window seat flight');
    expect(receipts[0]!.text).toBe('Mia prefers window seats on long flights');
    expect(receipts[0]!.ranks.vectorRank).toBe(1);
    expect(facts.every((f) => f.embedder === env.client.daemon.embedder)).toBe(true);
  });

  test('a bad item fails only its own slot, naming its field; nothing of it is written', async () => {
    const batch: BatchItem[] = [
      { agentId: 'b-bad', text: 'the first good item' },
      { agentId: 'b-bad', text: '' },
      { agentId: 'b-bad', text: 'has a bad label', confidence: 'certain' as never },
      { agentId: 'bad agent id with \u0000', text: 'a bad namespace' },
      { agentId: 'b-bad', text: 'the last good item', tags: ['ok'] },
    ];
    const results = await env.client.putBatch(batch);
    expect(results.map((r) => r.error?.field)).toEqual([undefined, 'items[1].text', 'items[2].options.confidence', 'items[3].agent_id', undefined]);
    for (const r of results.filter((r) => r.error)) {
      expect(r.error).toBeInstanceOf(EngramError);
      expect(r.error!.kind).toBe('invalid_argument');
      expect(r.error!.message.startsWith(`${r.error!.field}: `), r.error!.message).toBe(true);
    }
    expect((await listTexts(env.client, 'b-bad')).sort()).toEqual(['the first good item', 'the last good item']);

    // A field the library checks (an empty tag, meta nested too deep) fails its own slot too, as
    // REST's batch does, and the daemon's refusals after it keep the caller's numbering.
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 70; i++) at = (at.next = {}) as Record<string, unknown>;
    const mixed = await env.client.putBatch([
      { agentId: 'b-bad2', text: 'kept one' },
      { agentId: 'b-bad2', text: 'an empty tag', tags: [''] },
      { agentId: 'b-bad2', text: 'too deep', meta: deep },
      { agentId: 'b-bad2', text: '' },
      { agentId: 'b-bad2', text: 'kept two' },
    ]);
    expect(mixed.map((r) => r.error?.field)).toEqual([undefined, 'items[1].tags[0]', 'items[2].meta', 'items[3].text', undefined]);
    expect(mixed[3]!.error!.message).toMatch(/^items\[3\]\.text: /);
    expect((await listTexts(env.client, 'b-bad2')).sort()).toEqual(['kept one', 'kept two']);
  });

  test('a re-sent batch replays each item by its request id; identical text is a duplicate unless allowed', async () => {
    const texts = ['alpha fact', 'beta fact', 'gamma fact'];
    const first = await env.client.putBatch(items('b-replay', texts));
    const again = await env.client.putBatch(items('b-replay', texts));
    expect(again.map((r) => !r.error && r.replayed)).toEqual([true, true, true]);
    expect(again.map((r) => r.factId)).toEqual(first.map((r) => r.factId));
    const copies = await env.client.putBatch([
      { agentId: 'b-replay', text: 'alpha fact' },
      { agentId: 'b-replay', text: 'alpha fact', allowDuplicate: true },
      { agentId: 'b-replay', text: 'delta fact' },
      { agentId: 'b-replay', text: 'delta fact' },
    ]);
    expect(copies.map((r) => (r.error ? r.error : [r.replayed, r.duplicate]))).toEqual([[false, true], [false, false], [false, false], [false, true]]);
    expect(copies[0]!.factId).toBe(first[0]!.factId);
    expect(copies[3]!.factId).toBe(copies[2]!.factId);
    expect((await env.client.stats('b-replay')).factCount).toBe(5);
  });

  test('a batch larger than the daemon writes at a time: a later item repeating an earlier one is its duplicate, ids follow item order', async () => {
    const texts = Array.from({ length: 130 }, (_, i) => `long batch item ${i} about topic ${i % 17}`);
    texts[120] = texts[3]!;
    const results = await env.client.putBatch(items('b-long', texts));
    expect(results.every((r) => !r.error)).toBe(true);
    expect(results[120]).toMatchObject({ duplicate: true, factId: results[3]!.factId });
    const stored = results.filter((r) => !r.error && !r.duplicate).map((r) => r.factId!);
    expect(stored).toHaveLength(129);
    expect([...stored].sort()).toEqual(stored);
    expect((await env.client.stats('b-long')).factCount).toBe(129);
  });

  test('a request id twice in one batch, or in two batches at once, stores one fact; every slot answers with it', async () => {
    const twice = await env.client.putBatch([
      { agentId: 'b-claim', text: 'claimed once', requestId: 'b-claim-same' },
      { agentId: 'b-claim', text: 'claimed once', requestId: 'b-claim-same' },
      { agentId: 'b-claim', text: 'another item', requestId: 'b-claim-other' },
    ]);
    expect(twice.map((r) => (r.error ? r.error : r.replayed))).toEqual([false, true, false]);
    expect(twice[1]!.factId).toBe(twice[0]!.factId);
    // Two calls racing with the same ids: each id is written by one of them, and the other's
    // slot waits for that write, then answers with its fact.
    const texts = Array.from({ length: 120 }, (_, i) => `raced item ${i}`);
    const [a, b] = await Promise.all([env.client.putBatch(items('b-claim', texts, 'race')), env.client.putBatch(items('b-claim', texts, 'race'))]);
    expect([...a, ...b].every((r) => !r.error)).toBe(true);
    expect(b.map((r) => r.factId)).toEqual(a.map((r) => r.factId));
    const replayed = (r: (typeof a)[number]) => (r.error ? r.error : r.replayed);
    expect(a.map((r, i) => replayed(r) !== replayed(b[i]!))).toEqual(texts.map(() => true));
    expect((await env.client.stats('b-claim')).factCount).toBe(122);
  });

  test('one batch may write to several namespaces, the shared one included', async () => {
    const results = await env.client.putBatch([
      { agentId: 'b-multi-a', text: 'lives in namespace a' },
      { agentId: '__shared__', text: 'batch shared office fact' },
      { agentId: 'b-multi-b', text: 'lives in namespace b' },
    ]);
    expect(results.every((r) => !r.error)).toBe(true);
    expect(await listTexts(env.client, 'b-multi-a')).toEqual(['lives in namespace a']);
    expect(await listTexts(env.client, 'b-multi-b')).toEqual(['lives in namespace b']);
    expect((await env.client.recallShared('batch shared office')).facts[0]!.text).toBe('batch shared office fact');
  });

  test('more items than the advertised limit are refused before sending; by the daemon too, writing nothing', async () => {
    const max = env.client.daemon.limits.maxWriteBatch;
    expect(max).toBe(1000);
    const tooMany = items('b-limit', Array.from({ length: max + 1 }, (_, i) => `over the limit ${i}`));
    const refused = await rejectionOf(env.client.putBatch(tooMany), EngramError);
    expect(refused.field).toBe('items');
    const raw = new grpc.Client(env.daemon.discovery.address, grpc.credentials.createInsecure());
    const memory: ClientOf<typeof MemoryService> = createServiceClient(MemoryService, raw);
    await expectStatus(memory.batchPut({ items: tooMany.map((i) => ({ requestId: i.requestId!, agentId: i.agentId, text: i.text })) }), grpc.status.INVALID_ARGUMENT, 'items');
    await expectStatus(memory.batchPut({ items: [] }), grpc.status.INVALID_ARGUMENT, 'items');
    raw.close();
    expect((await env.client.stats('b-limit')).factCount).toBe(0);
  });
});

describe('against an older daemon', () => {
  let old: DaemonProcess;
  let client: EngramClient;
  beforeAll(async () => {
    old = await startDaemon({ embedder: 'none', args: ['--compat', 'v0.2'] });
    client = await old.client();
  });
  afterAll(async () => {
    client?.close();
    await old?.stop();
    if (old) removeDir(old.dataDir);
  });

  test('putBatch is refused before sending, and the daemon advertises no batch size', async () => {
    expect(client.daemon.limits.maxWriteBatch).toBe(0);
    await rejectionOf(client.putBatch(items('b-old', ['never sent'])), CapabilityError);
    expect((await client.stats('b-old')).factCount).toBe(0);
  });
});

describe('kill -9 in the middle of a batch import', () => {
  const pool = useDaemonPool();

  test('every acknowledged item survives, and re-sending every batch stores nothing twice', async () => {
    const dataDir = pool.newDir();
    const daemon = await pool.start({ dataDir, embedder: 'local' });
    const client = await daemon.client();
    const batches = Array.from({ length: 40 }, (_, b) => items('b-crash', Array.from({ length: 500 }, (_, i) => `crash batch ${b} item ${i}`), `crash-${b}`));
    const acknowledged: { text: string; factId: string }[] = [];
    let sent = 0;
    const writing = (async () => {
      for (const batch of batches) {
        sent++;
        const results = await client.putBatch(batch);
        results.forEach((r, i) => acknowledged.push({ text: batch[i]!.text, factId: r.factId! }));
        if (acknowledged.length >= 3000) void daemon.kill9();
      }
    })().catch((error: unknown) => error);
    const stoppedBy = await writing;
    client.close();
    expect(stoppedBy, 'the daemon was killed before every batch was sent').toBeInstanceOf(EngramError);
    expect(sent).toBeLessThan(batches.length);

    const restarted = await pool.start({ dataDir, embedder: 'local' });
    const after = await restarted.client();
    for (const { text, factId } of acknowledged) expect((await after.get('b-crash', factId)).text).toBe(text);
    for (const batch of batches) await after.putBatch(batch);
    const texts = await listTexts(after, 'b-crash');
    expect(texts).toHaveLength(batches.length * 500);
    expect(new Set(texts).size).toBe(texts.length);
    after.close();
    // 20,000 facts embedded twice and 3,000 reads: on a busy two-core machine this is minutes' work.
  }, 240_000);
});
