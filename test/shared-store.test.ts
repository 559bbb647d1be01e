// Several daemons serving one PostgreSQL database: what a team running agents on several
// machines relies on. Each daemon is a real `engram daemon --store postgres://…` process with
// its own data dir; the database is a real server (the suite's, or one of a test's own when the
// test restarts it).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connect, type EngramClient } from '../client/index.ts';
import { removeDir, startDaemon, useDaemonPool, waitFor, type DaemonProcess } from './fixtures/daemon.ts';
import { startPostgres, testDatabase, type PostgresServer } from './fixtures/postgres.ts';
import { runEngram } from './fixtures/cli.ts';

const pool = useDaemonPool();
const clients: EngramClient[] = [];
afterAll(() => clients.forEach((c) => c.close()));

/** `n` daemons on a fresh database of the suite's server. */
async function daemons(n: number, extra: string[] = [], url?: string): Promise<{ url: string; daemons: DaemonProcess[] }> {
  const store = url ?? (await testDatabase(`shared_${randomUUID().replace(/-/g, '').slice(0, 16)}`));
  const started = await Promise.all(Array.from({ length: n }, () => pool.start({ dataDir: pool.newDir(), args: ['--store', store, ...extra] })));
  return { url: store, daemons: started };
}

/** Three daemons (with REST) on one fresh database, shared by the tests that neither stop nor kill
 *  a daemon: each test keeps to namespaces of its own, and the changes it waits for are its own. */
const trio = { url: '', daemons: [] as DaemonProcess[] };
beforeAll(async () => {
  trio.url = await testDatabase(`shared_${randomUUID().replace(/-/g, '').slice(0, 16)}`);
  trio.daemons = await Promise.all([0, 1, 2].map(() => startDaemon({ args: ['--store', trio.url, '--http', '127.0.0.1:0'] })));
});
afterAll(async () => {
  for (const daemon of trio.daemons) {
    await daemon.stop();
    removeDir(daemon.dataDir);
  }
});

async function clientOf(daemon: DaemonProcess, options: Parameters<DaemonProcess['client']>[0] = {}): Promise<EngramClient> {
  const client = await daemon.client(options);
  clients.push(client);
  return client;
}

describe('several daemons on one PostgreSQL store', () => {
  test('writes through each of three daemons are recalled through each, at once when the reader names the writer\'s change', async () => {
    const [a, b, c] = trio.daemons;
    const writers = await Promise.all([a!, b!, c!].map((d) => clientOf(d)));
    expect(writers[0]!.daemon.store).toBe('postgres');
    expect(new Set(writers.map((w) => w.daemon.storeId)).size).toBe(1);
    const status = await runEngram(['status', '--json'], { dataDir: a!.dataDir, cwd: a!.dataDir });
    expect(JSON.parse(status.stdout).daemon).toMatchObject({ store: 'postgres', store_id: writers[0]!.daemon.storeId });
    const words = ['amber', 'cobalt', 'saffron'];
    const written = await Promise.all(writers.map(async (w, i) => {
      const fact = (await w.put('team', `the ${words[i]} badge opens door ${i}`)).fact;
      return { fact, change: w.lastChange };
    }));
    for (const { change } of written) expect(change).toBeGreaterThan(0);
    // Each reader asks for the others' changes: no waiting on a timer, no stale answer.
    for (const [i, daemon] of [a!, b!, c!].entries()) {
      for (const [j, { fact, change }] of written.entries()) {
        const reader = await clientOf(daemon, { minChange: change });
        const found = await reader.recall('team', `${words[j]} badge`);
        expect(found.facts[0]?.id, `daemon ${i} recalling the write through daemon ${j}`).toBe(fact.id);
      }
    }
    // Ids are unique across daemons and every daemon ranks the same applied state the same way.
    const all = await Promise.all(writers.map((w) => w.recall('team', 'badge opens door', { topK: 10 })));
    expect(new Set(written.map((w) => w.fact.id)).size).toBe(3);
    for (const result of all) expect(result.facts.map((f) => f.id)).toEqual(all[0]!.facts.map((f) => f.id));
  });

  test('doctor checks what this store has: no LevelDB write-ahead log on PostgreSQL', async () => {
    const [a] = trio.daemons;
    const client = await clientOf(a!);
    await client.put('doc', 'a fact for doctor to check');
    let names: string[] = [];
    for await (const event of client.doctor({ rebuild: false })) if (event.report) names = event.report.checks.map((c) => c.name);
    expect(names).toContain('keyword postings');
    expect(names).not.toContain('write-ahead log');
  });

  test('a client reads its own writes through whichever daemon it reaches next', async () => {
    const [a, b] = trio.daemons;
    const viaA = await clientOf(a!);
    await viaA.put('notes', 'the parking permit is renewed every March');
    // The same process moves to daemon B (a round-robin pool would): it carries its change.
    const viaB = await clientOf(b!, { minChange: viaA.lastChange });
    expect((await viaB.recall('notes', 'parking permit')).facts.map((f) => f.text)).toEqual(['the parking permit is renewed every March']);
    // A change no daemon has reached is refused with the reason, not answered stale.
    const ahead = await clientOf(b!, { minChange: viaA.lastChange + 1000, timeoutMs: 2000 });
    // The refusal names the change it was asked for, which tells the library not to retry it at
    // once (it retried it as if the daemon were unreachable, doubling the wait).
    await expect(ahead.recall('notes', 'parking')).rejects.toMatchObject({ kind: 'unavailable', field: 'engram-min-change', message: expect.stringMatching(/has applied changes up to \d+, not yet \d+/) });
  });

  // The README promises at most 10 s of waiting for a change the daemon has not applied: a caller
  // with a long deadline must get the reason then, not hang until its deadline (60 s here; the
  // test's own limit, 30 s, fails a daemon that waits for the whole deadline).
  test('a read asking for a change no daemon has reached is refused after the 10 s wait, also under a long deadline', async () => {
    const [a, b] = trio.daemons;
    const writer = await clientOf(a!);
    await writer.put('deadline', 'the boiler is serviced every October');
    const ahead = await clientOf(b!, { minChange: writer.lastChange + 1000, timeoutMs: 60_000 });
    await expect(ahead.recall('deadline', 'boiler')).rejects.toMatchObject({ kind: 'unavailable', field: 'engram-min-change', message: expect.stringMatching(/has applied changes up to \d+, not yet \d+/) });
  }, 30_000);

  test('over REST: a write answers with Engram-Change, a read through another daemon carrying it as Engram-Min-Change sees it, a bad one is a 400', async () => {
    const [a, b] = trio.daemons;
    const rest = (d: DaemonProcess, path: string, init: RequestInit = {}) =>
      fetch(`http://${d.discovery.httpAddress}${path}`, { ...init, headers: { authorization: `Bearer ${d.discovery.token}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
    const wrote = await rest(a!, '/v1/facts', { method: 'POST', body: JSON.stringify({ agent_id: 'web', text: 'the staging server restarts at noon' }) });
    expect(wrote.status).toBe(201);
    const change = Number(wrote.headers.get('engram-change'));
    expect(change).toBeGreaterThan(0);
    const read = await rest(b!, '/v1/recall?agent_id=web&q=staging+server', { headers: { 'engram-min-change': String(change) } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { facts: { text: string }[] }).facts.map((f) => f.text)).toEqual(['the staging server restarts at noon']);
    const bad = await rest(b!, '/v1/recall?agent_id=web&q=x', { headers: { 'engram-min-change': 'soon' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()) as object).toMatchObject({ error: { code: 'invalid_argument', field: 'engram-min-change' } });
  });

  test('a request id replayed through another daemon is answered from the first write, also when both race', async () => {
    const [a, b] = trio.daemons;
    const [viaA, viaB] = [await clientOf(a!), await clientOf(b!)];
    const requestId = randomUUID();
    const first = await viaA.put('ledger', 'invoice 1042 was paid', { requestId });
    const again = await viaB.put('ledger', 'invoice 1042 was paid', { requestId });
    expect(again).toMatchObject({ replayed: true, fact: { id: first.fact.id } });
    for (let round = 0; round < 5; round++) {
      const raced = randomUUID();
      const both = await Promise.all([viaA.put('ledger', `payment ${round} cleared`, { requestId: raced }), viaB.put('ledger', `payment ${round} cleared`, { requestId: raced })]);
      expect(both[0].fact.id).toBe(both[1].fact.id);
      expect(both.filter((r) => r.replayed).length).toBe(1);
    }
    const listed = await viaA.list('ledger', { pageSize: 100 });
    expect(listed.facts.map((f) => f.text).sort()).toEqual(['invoice 1042 was paid', ...[0, 1, 2, 3, 4].map((r) => `payment ${r} cleared`)].sort());
  });

  test('the same text written through two daemons at the same moment is stored once, singly or in batches; once forgotten it is stored again', async () => {
    const [a, b] = trio.daemons;
    const [viaA, viaB] = [await clientOf(a!), await clientOf(b!)];
    for (let round = 0; round < 8; round++) {
      const text = `the backup rotates on disk ${round}`;
      const both = await Promise.all([viaA.put('ops', text), viaB.put('ops', text)]);
      expect(both[0].fact.id, `round ${round}`).toBe(both[1].fact.id);
      expect(both.map((r) => r.duplicate).sort()).toEqual([false, true]);
    }
    const texts = Array.from({ length: 40 }, (_, i) => `batch line ${i} of the nightly report`);
    const [batchA, batchB] = await Promise.all([viaA.putBatch(texts.map((text) => ({ agentId: 'ops', text }))), viaB.putBatch([...texts].reverse().map((text) => ({ agentId: 'ops', text })))]);
    const idsA = batchA.map((slot) => slot.factId ?? slot.error.message);
    const idsB = batchB.map((slot) => slot.factId ?? slot.error.message).reverse();
    expect(idsB).toEqual(idsA);
    const reader = await clientOf(a!, { minChange: Math.max(viaA.lastChange, viaB.lastChange) });
    const listed = await reader.list('ops', { pageSize: 100 });
    expect(listed.facts.length).toBe(8 + 40);
    expect(new Set(listed.facts.map((f) => f.text)).size).toBe(8 + 40);
    // A forgotten fact no longer holds its words: a later write through the other daemon stores them anew.
    const old = (await viaA.put('ops', 'the backup rotates on disk 0')).fact;
    await viaA.forget('ops', old.id);
    const later = await clientOf(b!, { minChange: viaA.lastChange });
    const again = await later.put('ops', 'the backup rotates on disk 0');
    expect(again).toMatchObject({ duplicate: false });
    expect(again.fact.id).not.toBe(old.id);
  });

  test('changes of one fact through two daemons at once both land: the later one plans again on the stored version', async () => {
    const [a, b] = trio.daemons;
    const [viaA, viaB] = [await clientOf(a!), await clientOf(b!)];
    const facts = await Promise.all(Array.from({ length: 10 }, (_, i) => viaA.put('ops-changes', `runbook step ${i}`).then((r) => r.fact)));
    const readerB = await clientOf(b!, { minChange: viaA.lastChange });
    await readerB.list('ops-changes');
    await Promise.all(facts.flatMap((f) => [viaA.pin('ops-changes', f.id), viaB.setConfidence('ops-changes', f.id, 'verified')]));
    const reader = await clientOf(a!, { minChange: Math.max(viaA.lastChange, viaB.lastChange) });
    for (const f of facts) expect(await reader.get('ops-changes', f.id)).toMatchObject({ pinned: true, confidence: 'verified' });
  });

  test('agent tokens made or revoked through one daemon hold on every daemon', async () => {
    const [a, b] = trio.daemons;
    const adminA = await clientOf(a!);
    const { token, info } = await adminA.createToken({ agents: ['alice'] });
    const onB = await waitFor(async () => {
      const c = await connect({ dataDir: b!.dataDir, token, minChange: adminA.lastChange }).catch(() => undefined);
      return c;
    }, 10_000);
    clients.push(onB);
    await onB.put('alice', 'alice keeps her keys in the blue bowl');
    await expect(onB.put('bob', 'not allowed')).rejects.toMatchObject({ kind: 'permission_denied' });
    await adminA.revokeToken(info.id);
    // Refused at the handshake or, should B not have followed yet, at the first call (which
    // waits until B has applied the revocation).
    const refused = await clientOf(b!, { token, minChange: adminA.lastChange }).then((c) => c.recall('alice', 'keys')).then(() => null, (error: unknown) => error);
    expect(refused).toMatchObject({ kind: 'unauthenticated' });
  });

  test('a daemon killed -9 mid-storm loses nothing it acknowledged; its replacement catches up and recalls every fact', async () => {
    const { url, daemons: [a, b] } = await daemons(2);
    const viaA = await clientOf(a!);
    const acked: string[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          acked.push((await viaA.put('storm', `storm fact ${w}-${i} about the harbour`)).fact.id);
        } catch {
          return; // the daemon is gone: the rest are unacknowledged
        }
      }
    };
    const writers = Array.from({ length: 6 }, (_, w) => writer(w));
    await waitFor(async () => (acked.length >= 150 ? true : undefined), 60_000);
    await a!.kill9();
    stop = true;
    await Promise.all(writers);
    const viaB = await clientOf(b!);
    const stored = await Promise.all(acked.map((id) => viaB.get('storm', id).then(() => true, () => false)));
    expect(stored.filter((s) => !s).length).toBe(0);
    // The replacement starts on the killed daemon's data dir (no clean snapshot) and catches up.
    const replacement = await pool.start({ dataDir: a!.dataDir, args: ['--store', url] });
    const viaReplacement = await clientOf(replacement);
    const listed: string[] = [];
    for (let page = ''; ; ) {
      const res = await viaReplacement.list('storm', { pageSize: 500, pageToken: page });
      listed.push(...res.facts.map((f) => f.id));
      if (!res.nextPageToken) break;
      page = res.nextPageToken;
    }
    expect(new Set(listed)).toEqual(new Set([...listed, ...acked]));
    const recalled = await viaReplacement.recall('storm', 'harbour', { topK: 5 });
    expect(recalled.facts.length).toBe(5);
    expect((await viaReplacement.stats()).liveCount).toBe(listed.length);
  });

  test('a daemon stopped cleanly restarts from its snapshot and catches up with what the others wrote meanwhile', async () => {
    const { url, daemons: [a, b] } = await daemons(2);
    const viaA = await clientOf(a!);
    await viaA.put('diary', 'monday: the boiler was serviced');
    await clientOf(b!, { minChange: viaA.lastChange }).then((c) => c.recall('diary', 'boiler'));
    await b!.stop();
    await viaA.put('diary', 'tuesday: the roof was inspected');
    const restarted = await pool.start({ dataDir: b!.dataDir, args: ['--store', url] });
    expect(restarted.log()).toMatch(/from the index snapshot of the last clean shutdown/);
    expect(restarted.log()).toMatch(/caught up with the shared store from change \d+ to \d+/);
    const viaB = await clientOf(restarted, { minChange: viaA.lastChange });
    expect((await viaB.recall('diary', 'roof inspected')).facts[0]?.text).toBe('tuesday: the roof was inspected');
  });
});

describe('PostgreSQL restarted under load', () => {
  let server: PostgresServer | undefined;
  afterAll(() => server?.destroy());

  test('under a write storm: writes fail clearly while the server is down, then succeed again; every acknowledged one is there and the daemons follow each other again', async () => {
    server = await startPostgres();
    const url = await server.createDatabase('restart');
    const { daemons: [a, b] } = await daemons(2, [], url);
    const viaA = await clientOf(a!);
    const acked: string[] = [];
    const refusals: string[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          acked.push((await viaA.put('plant', `reading ${w}-${i} of pump 3`)).fact.id);
        } catch (error) {
          refusals.push((error as Error).message);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    const writers = Array.from({ length: 4 }, (_, w) => writer(w));
    await waitFor(async () => (acked.length >= 40 ? true : undefined), 30_000);
    server.stop();
    await waitFor(async () => (refusals.length >= 8 ? true : undefined), 30_000);
    server.start();
    const restartedAt = acked.length;
    await waitFor(async () => (acked.length >= restartedAt + 20 ? true : undefined), 60_000);
    stop = true;
    await Promise.all(writers);
    // Each refusal says what is wrong, in one line, with no stack.
    for (const message of refusals) {
      expect(message).toMatch(/PostgreSQL store .* is unreachable|outcome unknown/);
      expect(message).not.toMatch(/\n\s+at /);
      // A write refused on the read it starts with is told nothing was done, not "nothing was read".
      expect(message).not.toMatch(/nothing was read/);
    }
    const reader = await clientOf(b!, { minChange: viaA.lastChange });
    const stored = new Set<string>();
    for (let page = ''; ; ) {
      const res = await reader.list('plant', { pageSize: 1000, pageToken: page });
      for (const f of res.facts) stored.add(f.id);
      if (!res.nextPageToken) break;
      page = res.nextPageToken;
    }
    for (const id of acked) expect(stored.has(id)).toBe(true);
    expect((await reader.recall('plant', 'pump 3 reading', { topK: 3 })).facts).toHaveLength(3);
  }, 180_000);
});
