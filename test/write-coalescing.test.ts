// Concurrent single puts of one namespace, sent by the client library as one batch
// (batch-write-facts-v1) — a message of the daemon's write stream (write-stream-v1), or a BatchPut
// call to a daemon without one: each put still answers exactly as its own Put would — its fact,
// its error, its request id's replay, its own UncertainWriteError — and the daemon receives fewer
// calls (counted per method at GET /metrics). An older daemon gets single Puts.
import * as grpc from '@grpc/grpc-js';
import { describe, expect, test } from 'vitest';
import { createServiceClient } from '../shared/grpc/bridge.ts';
import { MemoryService } from '../shared/gen/engram/v1/memory_pb.ts';
import { EngramError, ErrorKind, UncertainWriteError, type EngramClient, type WriteResult } from '../client/index.ts';
import { useDaemonPool, type DaemonProcess } from './fixtures/daemon.ts';

const pool = useDaemonPool();

/** The value of one series of the daemon's /metrics (0 when absent). */
async function metric(daemon: DaemonProcess, series: string): Promise<number> {
  const res = await fetch(`http://${daemon.discovery.httpAddress}/metrics`, { headers: { authorization: `Bearer ${daemon.discovery.token}` } });
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** gRPC calls of `method` the daemon answered with `code` so far. */
const okCalls = (daemon: DaemonProcess, method: string, code = 'OK') => metric(daemon, `engram_grpc_calls_total{method="engram.v1.MemoryService/${method}",code="${code}"}`);

/** Requests the daemon answered on streams of `method` so far. */
const streamMessages = (daemon: DaemonProcess, method: string) => metric(daemon, `engram_grpc_stream_messages_total{method="engram.v1.MemoryService/${method}"}`);

const texts = (label: string, n: number) => Array.from({ length: n }, (_, i) => `${label} note ${i} about the quarry`);

describe('concurrent puts go as one batch call', () => {
  test('each put answers as its own Put would; the daemon sees a few write-stream messages, no BatchPut or Put', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0'] });
    const client = await daemon.client();
    const single = await daemon.client({ coalesceWrites: false });
    // What a single Put stores without a label, for comparison.
    const unlabelled = (await single.put('reference', 'a reference fact')).fact.confidence;
    const wanted = texts('coalesced', 16);
    const written = await Promise.all(wanted.map((text, i) => client.put('co', text, { tags: [`t${i}`], confidence: i % 2 ? 'verified' : undefined })));
    expect(written.map((w) => w.fact.text)).toEqual(wanted);
    expect(written.map((w) => w.fact.tags)).toEqual(wanted.map((_, i) => [`t${i}`]));
    expect(written.map((w) => w.fact.confidence)).toEqual(wanted.map((_, i) => (i % 2 ? 'verified' : unlabelled)));
    expect(written.every((w) => !w.replayed && !w.duplicate && w.fact.agentId === 'co')).toBe(true);
    expect(new Set(written.map((w) => w.fact.id)).size).toBe(16);
    const batches = await streamMessages(daemon, 'WriteStream');
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThan(16);
    expect(await okCalls(daemon, 'BatchPut')).toBe(0);
    expect(await okCalls(daemon, 'Put')).toBe(1); // the reference
    // Stored, and recallable, like any put.
    expect((await client.list('co')).facts.map((f) => f.text).sort()).toEqual([...wanted].sort());

    // The same writes with coalescing off: one Put call each.
    await Promise.all(texts('single', 4).map((text) => single.put('co', text)));
    expect(await okCalls(daemon, 'Put')).toBe(5);
  });

  test('a refused put fails alone, with the error its own Put throws; a repeated request id replays', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client();
    const single = await daemon.client({ coalesceWrites: false });
    type Refusal = Error & { field?: string; grpcCode?: number };
    const expected = (await single.put('bad', 'a fact with an empty tag', { tags: ['  '] }).then(() => new Error('the single put was not refused'), (e: unknown) => e)) as Refusal;
    const outcomes = await Promise.allSettled([
      client.put('bad', 'the first good fact'),
      client.put('bad', 'a fact with an empty tag', { tags: ['  '] }),
      client.put('bad', 'the second good fact', { requestId: 'same-request' }),
      client.put('bad', 'the second good fact', { requestId: 'same-request' }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const error = (outcomes[1] as PromiseRejectedResult).reason as Refusal;
    expect({ name: error.name, message: error.message, field: error.field, code: error.grpcCode }).toEqual({ name: expected.name, message: expected.message, field: expected.field, code: expected.grpcCode });
    expect(error.field).toBe('tags[0]');
    const [first, repeat] = [outcomes[2], outcomes[3]].map((o) => (o as PromiseFulfilledResult<WriteResult>).value);
    expect(repeat!.fact.id).toBe(first!.fact.id);
    expect([first!.replayed, repeat!.replayed]).toEqual([false, true]);
    expect((await client.list('bad')).facts.map((f) => f.text).sort()).toEqual(['the first good fact', 'the second good fact']);

    // A request id already used by another write: the same words as a single Put's refusal.
    await single.put('reused', 'the first use of a request id', { requestId: 'used-once' });
    const alone = (await single.put('reused', 'another text', { requestId: 'used-once' }).then(() => new Error('not refused'), (e: unknown) => e)) as Refusal;
    const together = await Promise.allSettled([client.put('reused', 'a good neighbour'), client.put('reused', 'another text', { requestId: 'used-once' })]);
    const reused = (together[1] as PromiseRejectedResult).reason as Refusal;
    expect({ message: reused.message, field: reused.field, code: reused.grpcCode }).toEqual({ message: alone.message, field: alone.field, code: alone.grpcCode });
    expect(reused.message).toMatch(/^request_id used-once was already used/);
  });

  test('a daemon killed mid-batch: each sent put fails with its own UncertainWriteError, an unsent one as unreachable; re-sending stores each once', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client: EngramClient = await daemon.client();
    const wanted = texts('uncertain', 400);
    const ids = wanted.map((_, i) => `uncertain-${i}`);
    const puts: Promise<WriteResult>[] = [];
    for (const [i, text] of wanted.entries()) {
      puts.push(client.put('crash', text, { requestId: ids[i] }));
      // Issued over several turns of the event loop, so several batches form.
      if (i % 20 === 19) await new Promise((r) => setImmediate(r));
    }
    const outcomes = Promise.allSettled(puts);
    // Killed once the first batch is acknowledged: later ones are queued, in flight or committed unanswered.
    await Promise.race(puts);
    await daemon.kill9();
    const settled = await outcomes;
    settled.forEach((o, i) => {
      if (o.status === 'fulfilled') return expect(o.value.fact.text).toBe(wanted[i]);
      // A put whose batch had left is uncertain, and says so with its own request id; one still
      // waiting for the connection when the daemon died was never sent, so it fails plainly.
      if (o.reason instanceof UncertainWriteError) return expect({ ids: o.reason.requestIds, said: o.reason.message.startsWith(`Put request ${ids[i]}: outcome unknown`) }).toEqual({ ids: [ids[i]], said: true });
      expect(o.reason).toBeInstanceOf(EngramError);
      expect({ kind: (o.reason as EngramError).kind, unreachable: /cannot reach/.test((o.reason as Error).message) }).toEqual({ kind: ErrorKind.Unavailable, unreachable: true });
    });
    client.close();

    const again = await pool.start({ dataDir: daemon.dataDir });
    const resumed = await again.client();
    const resent = await Promise.all(wanted.map((text, i) => resumed.put('crash', text, { requestId: ids[i] })));
    settled.forEach((o, i) => {
      if (o.status === 'fulfilled') expect(resent[i]!).toMatchObject({ replayed: true, fact: { id: o.value.fact.id } });
    });
    const stored: string[] = [];
    for await (const fact of resumed.listAll('crash')) stored.push(fact.text);
    expect(stored.sort()).toEqual([...wanted].sort());
  });

  test('puts queued behind a batch still go when the handshake is dropped meanwhile (as every failed call drops it)', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client();
    const first = texts('ahead', 50).map((text) => client.put('queued', text));
    // Two turns: the first 50 leave as one batch, and the next 50 queue behind it.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const behind = texts('behind', 50).map((text) => client.put('queued', text));
    // What a transport error does to the connection while those wait.
    (client as unknown as { connection: { invalidate(): void } }).connection.invalidate();
    const written = await Promise.all([...first, ...behind]);
    expect(written.map((w) => w.fact.text)).toEqual([...texts('ahead', 50), ...texts('behind', 50)]);
    expect((await client.stats('queued')).factCount).toBe(100);
    client.close();
  });

  test('a daemon without the write stream (--compat v0.3) gets the batches as BatchPut calls; a stream opened anyway is refused', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--compat', 'v0.3', '--http', '127.0.0.1:0'] });
    const client = await daemon.client();
    const wanted = texts('v03', 16);
    const written = await Promise.all(wanted.map((text) => client.put('v03', text)));
    expect(written.map((w) => w.fact.text)).toEqual(wanted);
    const batches = await okCalls(daemon, 'BatchPut');
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThan(16);
    expect(await okCalls(daemon, 'Put')).toBe(0);
    expect(await streamMessages(daemon, 'WriteStream')).toBe(0);
    // A stream opened anyway ends UNIMPLEMENTED, as that release did, and nothing is written.
    const raw = new grpc.Client(daemon.discovery.address, grpc.credentials.createInsecure());
    const stream = createServiceClient(MemoryService, raw).writeStream();
    stream.send({ sequence: 1n, batch: { items: [{ agentId: 'v03', text: 'raw streamed batch' }] } });
    stream.end();
    const replies = (async () => {
      for await (const reply of stream.replies) return reply;
    })();
    await expect(replies).rejects.toMatchObject({ grpcCode: grpc.status.UNIMPLEMENTED });
    raw.close();
    expect((await client.stats('v03')).factCount).toBe(16);
    client.close();
  });

  test('an older daemon (--compat v0.2) gets one Put per put', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--compat', 'v0.2', '--http', '127.0.0.1:0'] });
    const client = await daemon.client();
    const written = await Promise.all(texts('old', 6).map((text) => client.put('old', text)));
    expect(written.map((w) => w.fact.text)).toEqual(texts('old', 6));
    expect(await okCalls(daemon, 'Put')).toBe(6);
    expect(await okCalls(daemon, 'BatchPut')).toBe(0);
    // A BatchPut sent anyway is answered UNIMPLEMENTED, as that release did, and counted so.
    const raw = new grpc.Client(daemon.discovery.address, grpc.credentials.createInsecure());
    await expect(createServiceClient(MemoryService, raw).batchPut({ items: [{ agentId: 'old', text: 'raw batch' }] })).rejects.toMatchObject({ grpcCode: grpc.status.UNIMPLEMENTED });
    raw.close();
    expect(await okCalls(daemon, 'BatchPut', 'UNIMPLEMENTED')).toBe(1);
  });
});
