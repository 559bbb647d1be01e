// The client library's connection discipline: negotiation, renegotiation after a reconnect,
// and writes whose outcome is unknown are never replayed.
import { describe, expect, test } from 'vitest';
import { EngramError, ErrorKind, UncertainWriteError } from '../client/index.ts';
import { useDaemonPool, type DaemonProcess } from './fixtures/daemon.ts';

const pool = useDaemonPool();
const newDir = pool.newDir;
const start = (dataDir: string, args: string[] = []): Promise<DaemonProcess> => pool.start({ dataDir, args });

describe('negotiation', () => {
  test('a daemon restarted under a live client is renegotiated before the next call', async () => {
    const dataDir = newDir();
    const legacy = await start(dataDir, ['--compat', 'legacy']);
    const client = await legacy.client();
    expect(client.daemon.capabilities).toEqual([]);
    expect(client.daemon.profile).toBe('legacy');
    const firstInstance = client.daemon.instanceId;
    await client.put('swap', 'written to the legacy daemon');

    await legacy.stop();
    const current = await start(dataDir);
    // The next call reconnects and re-handshakes: it sees the new instance and its capabilities.
    const { facts } = await client.recall('swap', 'legacy daemon');
    expect(facts.map((f) => f.text)).toEqual(['written to the legacy daemon']);
    expect(client.daemon.instanceId).toBe(current.discovery.instanceId);
    expect(client.daemon.instanceId).not.toBe(firstInstance);
    expect(client.daemon.capabilities).toContain('doctor-v1');
    client.close();
  });

  test('a call needing a capability the daemon lacks fails before sending, telling the user to update the daemon', async () => {
    const legacy = await start(newDir(), ['--compat', 'legacy']);
    const client = await legacy.client();
    const run = async () => {
      for await (const _ of client.doctor()) void _;
    };
    await expect(run()).rejects.toThrow(/update Engram and restart the daemon/i);
    expect(legacy.log()).not.toContain('Doctor');
    client.close();
  });

  test('connect() to a data directory no daemon serves throws an EngramError of kind unavailable, as an unreachable address does', async () => {
    const { connect, DaemonNotRunningError } = await import('../client/index.ts');
    const error = await connect({ dataDir: newDir() }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(EngramError);
    expect(error).toBeInstanceOf(DaemonNotRunningError);
    expect(error).toMatchObject({ kind: ErrorKind.Unavailable, message: expect.stringMatching(/^no Engram daemon is serving .*engram start --data-dir/) });
  });
});

describe('uncertain writes', () => {
  test('a write whose deadline passes raises UncertainWriteError and is never replayed (or, if the daemon saw the deadline first, says nothing was written)', async () => {
    const daemon = await start(newDir());
    const client = await daemon.client({ timeoutMs: 1 });
    const error = await client.put('uncertain', 'deadline write').catch((e) => e);
    client.close();
    const checker = await daemon.client();
    await new Promise((r) => setTimeout(r, 300));
    const copies = (await checker.list('uncertain')).facts.filter((f) => f.text === 'deadline write');
    if (!(error instanceof UncertainWriteError)) {
      // The daemon found the deadline passed before writing and answered so, before the client's
      // own deadline timer fired: a certain outcome, and true.
      expect(error).toBeInstanceOf(EngramError);
      expect((error as EngramError).kind).toBe(ErrorKind.DeadlineExceeded);
      expect((error as Error).message).toContain('nothing was written');
      expect(copies).toHaveLength(0);
      checker.close();
      return;
    }
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    // The daemon may have committed it or not, but never twice.
    expect(copies.length).toBeLessThanOrEqual(1);

    // Resending with the same request id settles it: exactly one copy, whatever happened before.
    const resent = await checker.put('uncertain', 'deadline write', { requestId: error.requestId });
    expect(resent.replayed).toBe(copies.length === 1);
    const after = (await checker.list('uncertain')).facts.filter((f) => f.text === 'deadline write');
    expect(after).toHaveLength(1);
    checker.close();
  });

  test('an uncertain write on a daemon without write-status-v1 says how that daemon lets it be finished, not writeStatus', async () => {
    for (const [compat, finish, advice] of [
      ['v0.2', 'resend', /resend it with the same requestId/],
      ['legacy', 'inspect', /look for it \(list or get\) before writing it again/],
    ] as const) {
      const dataDir = newDir();
      const daemon = await start(dataDir, ['--compat', compat]);
      const client = await daemon.client({ timeoutMs: 5000, connectTimeoutMs: 1000 });
      const text = (i: number) => `in flight ${i} ${'y'.repeat(20_000)}`;
      const writes = Array.from({ length: 50 }, (_, i) => client.put('old-uncertain', text(i), { requestId: `old-${i}` }).then(() => 'ok' as const, (e: unknown) => e));
      await new Promise((r) => setTimeout(r, 20));
      await daemon.kill9();
      const uncertain = (await Promise.all(writes)).filter((o) => o instanceof UncertainWriteError) as UncertainWriteError[];
      client.close();
      expect(uncertain.length, compat).toBeGreaterThan(0);
      for (const error of uncertain) {
        expect(error.finish, compat).toBe(finish);
        expect(error.message, compat).toMatch(advice);
        // That daemon has no WriteStatus: advice to call it would only meet a CapabilityError.
        expect(error.message, compat).not.toMatch(/writeStatus/);
      }
      if (finish !== 'resend') continue;
      // Following the advice settles every one: exactly one copy, whatever the killed daemon committed.
      const again = await start(dataDir, ['--compat', compat]);
      const checker = await again.client();
      for (const { requestId } of uncertain) await checker.put('old-uncertain', text(Number(requestId.slice(4))), { requestId });
      const counts = new Map<string, number>();
      for await (const f of checker.listAll('old-uncertain')) counts.set(f.text, (counts.get(f.text) ?? 0) + 1);
      checker.close();
      for (const { requestId } of uncertain) expect(counts.get(text(Number(requestId.slice(4))))).toBe(1);
    }
  });

  test('a daemon killed while writes are in flight yields UncertainWriteError, and each is stored zero or one times', async () => {
    const dataDir = newDir();
    const daemon = await start(dataDir);
    const client = await daemon.client({ timeoutMs: 5000 });
    const writes = Array.from({ length: 300 }, (_, i) => client.put('killed', `in flight ${i}`).then(() => 'ok' as const, (e) => e));
    await new Promise((r) => setTimeout(r, 30));
    await daemon.kill9();
    const outcomes = await Promise.all(writes);
    const uncertain = outcomes.filter((o) => o instanceof UncertainWriteError) as UncertainWriteError[];
    // Every failure after the request may have been sent is uncertain: never a plain error, never silently retried.
    for (const o of outcomes) if (o !== 'ok') expect(o).toBeInstanceOf(UncertainWriteError);
    expect(uncertain.length).toBeGreaterThan(0);
    client.close();

    const again = await start(dataDir);
    const checker = await again.client();
    const counts = new Map<string, number>();
    for await (const f of checker.listAll('killed')) counts.set(f.text, (counts.get(f.text) ?? 0) + 1);
    checker.close();
    for (const count of counts.values()) expect(count).toBe(1);
    outcomes.forEach((o, i) => {
      if (o === 'ok') expect(counts.get(`in flight ${i}`)).toBe(1);
    });
  });
});

describe('option keys', () => {
  /** What a call threw, or a note that it did not. */
  const refusal = (call: Promise<unknown>): Promise<unknown> => call.then(() => 'not refused', (e: unknown) => e);

  test('a misspelt option is refused before sending, naming it and the known ones, and nothing is written; the right key still works', async () => {
    const daemon = await start(newDir());
    const client = await daemon.client();
    const error = await refusal(client.put('typo', 'a tagged fact', { tagz: ['a'] } as never));
    expect(error).toBeInstanceOf(EngramError);
    expect(error).toMatchObject({ kind: ErrorKind.InvalidArgument, field: 'options.tagz', message: expect.stringMatching(/^options\.tagz: unknown option; known: .*\btags\b/) });
    // A batch item's typo refuses the whole batch, naming the item; a recall filter's, the filter.
    const batch = await refusal(client.putBatch([{ agentId: 'typo', text: 'fine' }, { agentId: 'typo', text: 'typo', tagz: ['a'] } as never]));
    expect(batch).toMatchObject({ kind: ErrorKind.InvalidArgument, field: 'items[1].tagz' });
    const filter = await refusal(client.recall('typo', 'fact', { filters: { tagsAnyy: ['a'] } as never }));
    expect(filter).toMatchObject({ kind: ErrorKind.InvalidArgument, field: 'options.filters.tagsAnyy' });
    // A misspelt requestId would have lost the write's replay protection.
    const shared = await refusal(client.putShared('shared typo', { requestID: 'r-1' } as never));
    expect(shared).toMatchObject({ field: 'options.requestID' });
    expect((await client.list('typo')).facts).toEqual([]);
    expect((await client.stats()).factCount).toBe(0);

    const { fact } = await client.put('typo', 'a tagged fact', { tags: ['a'] });
    expect(fact.tags).toEqual(['a']);
    expect((await client.recall('typo', 'tagged fact', { filters: { tagsAny: ['a'] } })).facts.map((f) => f.id)).toEqual([fact.id]);
    client.close();
  });

  test('a meta too large is refused as meta, the option the caller set, and nothing is written', async () => {
    const daemon = await start(newDir());
    const client = await daemon.client();
    const meta = { note: 'm'.repeat(client.daemon.limits.maxTextBytes) };
    const error = await refusal(client.put('big-meta', 'a fact with a large meta', { meta }));
    expect(error).toMatchObject({ kind: ErrorKind.InvalidArgument, field: 'meta', message: expect.stringMatching(/^meta: must be at most \d+ bytes/) });
    expect((await client.list('big-meta')).facts).toEqual([]);
    client.close();
  });
});
