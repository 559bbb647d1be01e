// The write stream (write-stream-v1): the client library sends its coalesced puts as messages of
// one long-lived stream. What a user relies on beyond what single puts give (write-coalescing
// covers those): a stopping daemon answers every write it took and does not wait for its clients
// to hang up; a write the daemon never answers fails as uncertain within the call timeout instead
// of waiting forever; a program that never closes its client still exits; a batch refused as
// a whole leaves the stream working; and a client that sends (or leaves replies unread) without
// limit is held back at a few batches in progress, never refused, and a held stream still ends
// on a stop or a cancel.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect as connectHttp2, constants as http2Constants } from 'node:http2';
import { connect as connectSocket } from 'node:net';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { describe, expect, test } from 'vitest';
import { createServiceClient, STREAM_REQUESTS_IN_PROGRESS } from '../shared/grpc/bridge.ts';
import { create, toBinary } from '@bufbuild/protobuf';
import { MemoryService, WriteStreamRequestSchema, type WriteStreamResponse } from '../shared/gen/engram/v1/memory_pb.ts';
import { EngramError, ErrorKind, UncertainWriteError, type WriteResult } from '../client/index.ts';
import { ROOT, useDaemonPool, waitFor, type DaemonProcess } from './fixtures/daemon.ts';

const pool = useDaemonPool();

/** The value of one WriteStream series of the daemon's /metrics (0 when absent). */
async function streamMetric(daemon: DaemonProcess, name: string): Promise<number> {
  const res = await fetch(`http://${daemon.discovery.httpAddress}/metrics`, { headers: { authorization: `Bearer ${daemon.discovery.token}` } });
  const series = `${name}{method="engram.v1.MemoryService/WriteStream"} `;
  const line = (await res.text()).split('\n').find((l) => l.startsWith(series));
  return line ? Number(line.slice(series.length)) : 0;
}
const inProgress = (daemon: DaemonProcess) => streamMetric(daemon, 'engram_grpc_stream_requests_in_progress');
const peakInProgress = (daemon: DaemonProcess) => streamMetric(daemon, 'engram_grpc_stream_requests_in_progress_peak');

/** A raw gRPC write stream (no client library, so nothing limits what is in flight) that sends
 *  `count` one-fact batches at once, without waiting for a reply, and collects the replies. */
function flood(daemon: DaemonProcess, agentId: string, count: number) {
  const raw = new grpc.Client(daemon.discovery.address, grpc.credentials.createInsecure());
  const stream = createServiceClient(MemoryService, raw).writeStream();
  const replies: WriteStreamResponse[] = [];
  const ended = (async () => {
    for await (const reply of stream.replies) replies.push(reply);
  })().finally(() => raw.close());
  for (let i = 1; i <= count; i++) stream.send({ sequence: BigInt(i), batch: { items: [{ agentId, text: `${agentId} fact ${i}` }] } });
  return { stream, replies, ended };
}

/** Runs `body` as a program of an app using the built library (`client` connected to `dataDir`
 *  with `options`): its output so far, its stdin, and its exit code once it exits. */
function program(dataDir: string, name: string, options: string, body: string) {
  const script = join(dataDir, `${name}.mjs`);
  writeFileSync(script, `const { connect } = await import(${JSON.stringify(join(ROOT, 'dist', 'index.js'))});\nconst client = await connect({ dataDir: ${JSON.stringify(dataDir)}, ${options} });\n${body}`);
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { stdin: child.stdin, out: () => out.trim().split('\n'), exited };
}

describe('the write stream', () => {
  test('a daemon stopping under busy writers answers every write it took, ends open streams at once, and a resend stores nothing twice', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client();
    // A stream another program holds open without writing: the stop must not wait for it.
    const raw = new grpc.Client(daemon.discovery.address, grpc.credentials.createInsecure());
    const held = createServiceClient(MemoryService, raw).writeStream();
    held.send({ sequence: 1n, batch: { items: [{ agentId: 'held', text: 'written through a stream held open' }] } });
    const heldReplies: WriteStreamResponse[] = [];
    const heldEnded = (async () => {
      for await (const reply of held.replies) heldReplies.push(reply);
    })();
    type Attempt = { id: string; text: string; outcome?: PromiseSettledResult<WriteResult> };
    const attempts: Attempt[] = [];
    let acknowledged = 0;
    // Eight writers that never pause, so the stream never idles: only the stop can end it.
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; ; i++) {
        const attempt: Attempt = { id: `busy-${w}-${i}`, text: `writer ${w} fact ${i} about the lighthouse` };
        attempts.push(attempt);
        try {
          attempt.outcome = { status: 'fulfilled', value: await client.put('busy', attempt.text, { requestId: attempt.id }) };
          acknowledged++;
        } catch (error) {
          attempt.outcome = { status: 'rejected', reason: error };
          return;
        }
      }
    });
    await waitFor(async () => (acknowledged >= 200 ? true : undefined), 60_000);
    expect(await daemon.stop()).toBe(0);
    await Promise.all(writers);
    client.close();
    // The held stream was answered, then ended with OK by the stop.
    await heldEnded;
    raw.close();
    expect(heldReplies.map((r) => r.batch?.results[0]?.factId !== '')).toEqual([true]);
    // Without the stream ending on stop, the stop waits out its grace and closes connections.
    expect(daemon.log()).not.toMatch(/still open .* into the stop/);
    // A put begun once the daemon had gone is refused before sending (UnreachableError): it was
    // not written, and nothing says otherwise.
    for (const { outcome } of attempts) {
      if (outcome?.status === 'rejected') expect((outcome.reason as Error).name).toMatch(/UncertainWriteError|UnreachableError|EngramError|RpcError/);
    }

    const again = await pool.start({ dataDir: daemon.dataDir });
    const resumed = await again.client();
    const resent = await Promise.all(attempts.map((a) => resumed.put('busy', a.text, { requestId: a.id })));
    attempts.forEach((a, i) => {
      if (a.outcome?.status === 'fulfilled') expect(resent[i]).toMatchObject({ replayed: true, fact: { id: a.outcome.value.fact.id } });
    });
    expect((await resumed.stats('busy')).factCount).toBe(attempts.length);
    resumed.close();
  });

  test('a write the daemon never answers fails as uncertain within the call timeout; resent once the daemon runs again, it is stored once', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client({ timeoutMs: 1500 });
    await Promise.all([client.put('frozen', 'written before the freeze'), client.put('frozen', 'also before the freeze')]);
    daemon.child.kill('SIGSTOP');
    try {
      const error = await client.put('frozen', 'sent while the daemon was frozen', { requestId: 'frozen-1' }).then(
        () => new Error('the write was answered'),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UncertainWriteError);
      expect((error as UncertainWriteError).requestIds).toEqual(['frozen-1']);
      // Named as the call the caller made (a put), whatever carried it.
      expect((error as Error).message).toMatch(/^Put request frozen-1: outcome unknown \(no answer to the write within 1500 ms\)/);
      // A read that times out says so in a caller's words, not grpc-js's internals.
      const read = await client.recall('frozen', 'before the freeze').then(() => new Error('the recall was answered'), (e: unknown) => e as Error);
      expect(read.message).toMatch(/^the daemon did not answer within \d+(\.\d)? s \(busy, paused or stopped\)$/);
    } finally {
      daemon.child.kill('SIGCONT');
    }
    const resent = await client.put('frozen', 'sent while the daemon was frozen', { requestId: 'frozen-1' });
    const stored = (await client.list('frozen')).facts.filter((f) => f.text === 'sent while the daemon was frozen');
    expect(stored.map((f) => f.id)).toEqual([resent.fact.id]);
    client.close();
  });

  test('a token revoked while its stream is open stops at the next batch: refused (not uncertain), and nothing after it is stored', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const admin = await daemon.client();
    const { token, info } = await admin.createToken({ agents: ['alice'], label: 'stream writer' });
    const alice = await daemon.client({ token });
    let acknowledged = 0;
    let revoked = false;
    let afterRevocation = 0;
    // Four writers that never pause: the stream stays open across the revocation.
    const outcome = await Promise.any(
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; afterRevocation < 2000; i++) {
          if (revoked) afterRevocation++;
          try {
            await alice.put('alice', `alice writer ${w} fact ${i}`);
            acknowledged++;
          } catch (error) {
            return error;
          }
          if (acknowledged === 50 && !revoked) {
            await admin.revokeToken(info.id);
            revoked = true;
          }
        }
        throw new Error('still writing 2000 puts after the revocation');
      }),
    );
    expect(outcome).toBeInstanceOf(EngramError);
    expect(outcome).not.toBeInstanceOf(UncertainWriteError);
    expect((outcome as EngramError).kind).toBe(ErrorKind.Unauthenticated);
    await new Promise((resolve) => setTimeout(resolve, 500)); // the other writers' last answers
    expect((await admin.stats('alice')).factCount).toBe(acknowledged);
    alice.close();
    admin.close();
  });

  test('close() right after puts lets the puts already issued finish: each is answered and stored', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client();
    const wanted = Array.from({ length: 10 }, (_, i) => `issued just before close ${i}`);
    const puts = wanted.map((text) => client.put('closing', text));
    await new Promise((resolve) => setTimeout(resolve, 3)); // the stream is opening
    client.close();
    expect((await Promise.all(puts)).map((w) => w.fact.text)).toEqual(wanted);
    const reader = await daemon.client();
    expect((await reader.list('closing')).facts.map((f) => f.text).sort()).toEqual([...wanted].sort());
    reader.close();
  });

  test('a program that never closes its client exits once its writes are answered', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const app = program(daemon.dataDir, 'never-closes', '', `
      const written = await Promise.all([1, 2, 3].map((i) => client.put('open', 'fact ' + i + ' of a program that never closes')));
      console.log(written.length);`);
    app.stdin.end();
    expect({ code: await app.exited, out: app.out() }).toEqual({ code: 0, out: ['3'] });
  });

  test('a program whose write the daemon never answers (frozen) still exits after the uncertain error, without close()', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const app = program(daemon.dataDir, 'frozen-daemon', 'timeoutMs: 1500', `
      await Promise.all([client.put('frozen', 'a first fact'), client.put('frozen', 'a second fact')]);
      console.log('ready');
      await new Promise((resolve) => process.stdin.once('data', resolve));
      process.stdin.pause();
      const outcome = await client.put('frozen', 'sent to a frozen daemon').then(() => 'answered', (e) => e.name);
      console.log(outcome);`);
    await waitFor(async () => (app.out().includes('ready') ? true : undefined), 30_000);
    daemon.child.kill('SIGSTOP');
    try {
      app.stdin.write('go\n');
      expect({ code: await app.exited, out: app.out() }).toEqual({ code: 0, out: ['ready', 'UncertainWriteError'] });
    } finally {
      daemon.child.kill('SIGCONT');
    }
  });

  test('many streams open at once share one drain listener: no listener leak warning, and each ends when its client goes away', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const raws = Array.from({ length: 12 }, () => new grpc.Client(daemon.discovery.address, grpc.credentials.createInsecure()));
    const streams = raws.map((raw) => createServiceClient(MemoryService, raw).writeStream());
    const firstReplies = await Promise.all(
      streams.map(async (stream, i) => {
        stream.send({ sequence: 1n, batch: { items: [{ agentId: 'many', text: `through stream ${i}` }] } });
        for await (const reply of stream.replies) return reply;
      }),
    );
    expect(firstReplies.every((r) => r?.batch?.results[0]?.factId)).toBe(true);
    streams.forEach((stream) => stream.cancel());
    raws.forEach((raw) => raw.close());
    expect(await daemon.stop()).toBe(0);
    expect(daemon.log()).not.toMatch(/MaxListenersExceeded|still open .* into the stop/);
  });

  test('a batch refused as a whole answers with its error, writes nothing, and the stream goes on', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const raw = new grpc.Client(daemon.discovery.address, grpc.credentials.createInsecure());
    const stream = createServiceClient(MemoryService, raw).writeStream();
    const replies: WriteStreamResponse[] = [];
    const read = (async () => {
      for await (const reply of stream.replies) replies.push(reply);
    })();
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ agentId: 'refused', text: `item ${i}` }));
    stream.send({ sequence: 7n, batch: { items: tooMany } });
    stream.send({ sequence: 8n, batch: { items: [{ agentId: 'refused', text: 'a good fact after a refused batch' }, { agentId: 'refused', text: ' ' }] } });
    stream.end();
    await read;
    raw.close();
    const bySequence = new Map(replies.map((r) => [r.sequence, r]));
    expect(bySequence.get(7n)!.error).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, field: 'items' });
    expect(bySequence.get(7n)!.batch).toBeUndefined();
    const good = bySequence.get(8n)!;
    expect(good.error).toBeUndefined();
    expect(good.batch!.results[0]!.factId).not.toBe('');
    expect(good.batch!.results[1]!.error).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, field: 'items[1].text' });
    expect(good.change).toBeGreaterThan(0n);
    const client = await daemon.client();
    expect((await client.list('refused')).facts.map((f) => f.text)).toEqual(['a good fact after a refused batch']);
    client.close();
  });

  test('a client that sends 200 batches without waiting is held to the per-stream bound, not refused: each batch is answered once and stored once', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0'] });
    const { stream, replies, ended } = flood(daemon, 'flood', 200);
    stream.end();
    await ended;
    // Without the bound every request is started as it arrives: the peak is most of the 200.
    expect(await peakInProgress(daemon)).toBe(STREAM_REQUESTS_IN_PROGRESS);
    expect(await inProgress(daemon)).toBe(0);
    const wanted = Array.from({ length: 200 }, (_, i) => i + 1);
    expect(replies.map((r) => Number(r.sequence)).sort((a, b) => a - b)).toEqual(wanted);
    expect(replies.filter((r) => r.error !== undefined || !r.batch?.results[0]?.factId)).toEqual([]);
    const client = await daemon.client();
    const stored = (await client.list('flood', { pageSize: 1000 })).facts.map((f) => f.text);
    expect(stored.sort()).toEqual(wanted.map((i) => `flood fact ${i}`).sort());
    client.close();
  });

  test('a stream held at the bound still ends when its client cancels, and does not hold up a stop: what it answered is stored, nothing else', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0'] });
    const cancelled = flood(daemon, 'cancelled', 1000);
    await waitFor(async () => ((await peakInProgress(daemon)) === STREAM_REQUESTS_IN_PROGRESS ? true : undefined), 30_000);
    cancelled.stream.cancel();
    await cancelled.ended.catch(() => {}); // CANCELLED, as the client asked
    // Its requests in progress are released, answered or not (a cancelled stream's last replies
    // are dropped by grpc-js without a word).
    await waitFor(async () => ((await inProgress(daemon)) === 0 ? true : undefined), 30_000);

    const stopped = flood(daemon, 'stopped', 3000);
    await waitFor(async () => (stopped.replies.length > 0 ? true : undefined), 30_000);
    expect(await daemon.stop()).toBe(0);
    await stopped.ended;
    expect(daemon.log()).not.toMatch(/still open .* into the stop/);
    // The stop came while the stream was held (3000 take seconds): it ended with OK before all
    // were answered, and the requests it never took were never handled.
    expect(stopped.replies.length).toBeLessThan(3000);
    const again = await pool.start({ dataDir: daemon.dataDir });
    const client = await again.client();
    const stored: string[] = [];
    for await (const fact of client.listAll('stopped')) stored.push(fact.text);
    expect(stored.sort()).toEqual(stopped.replies.map((r) => `stopped fact ${r.sequence}`).sort());
    client.close();
  });

  test('a client that never reads its replies is held too: once its unread replies fill the HTTP/2 window, 8 batches wait to be answered and the daemon takes no more', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0'] });
    // Plain HTTP/2, not grpc-js, whose client reads and buffers every reply whether asked or not.
    const session = connectHttp2('http://localhost', { createConnection: () => connectSocket(daemon.discovery.address.replace(/^unix:/, '')) });
    const stream = session.request({ ':method': 'POST', ':path': '/engram.v1.MemoryService/WriteStream', 'content-type': 'application/grpc', te: 'trailers' });
    stream.on('error', () => {}); // the cancel below
    stream.pause();
    // Each reply carries its fact (4 KB): a few fill the window the client never opens again.
    for (let i = 1; i <= 1000; i++) {
      const request = { sequence: BigInt(i), batch: { returnFacts: true, items: [{ agentId: 'unread', text: `unread ${i} ${'x'.repeat(4000)}` }] } };
      const message = toBinary(WriteStreamRequestSchema, create(WriteStreamRequestSchema, request));
      const frame = Buffer.alloc(5 + message.length); // gRPC framing: uncompressed, 4-byte length
      frame.writeUInt32BE(message.length, 1);
      frame.set(message, 5);
      stream.write(frame);
    }
    const client = await daemon.client();
    const stored = async () => (await client.stats('unread')).factCount;
    // Held: 8 in progress, and nothing more stored from one look to the next.
    let before = -1;
    const held = await waitFor(async () => {
      const now = await stored();
      const still = now === before && (await inProgress(daemon)) === STREAM_REQUESTS_IN_PROGRESS;
      before = now;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return still ? now : undefined;
    }, 30_000);
    expect(held).toBeLessThan(100);
    expect(await peakInProgress(daemon)).toBe(STREAM_REQUESTS_IN_PROGRESS);
    stream.close(http2Constants.NGHTTP2_CANCEL);
    await waitFor(async () => ((await inProgress(daemon)) === 0 ? true : undefined), 30_000);
    session.destroy();
    client.close();
  });
});
