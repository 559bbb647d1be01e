// Every store implementation runs the one compliance suite (test/store/compliance.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { openTables } from '../daemon/store/level/tables.ts';
import { ContentClaimed, isShared, RequestAlreadyRecorded, StoreFormatError, StoreLockedError, WriteConflict, type MemoryStore } from '../daemon/store/store.ts';
import type { FactRecord } from '../daemon/store/record.ts';
import pg from 'pg';
import { PostgresStore } from '../daemon/store/postgres/postgres-store.ts';
import { testDatabase } from './fixtures/postgres.ts';
import { newFact } from './store/facts.ts';
import { ENGRAM_BIN } from './fixtures/daemon.ts';
import { BACKENDS } from './store/backends.ts';
import { describeStoreCompliance } from './store/compliance.ts';

for (const backend of Object.values(BACKENDS)) describeStoreCompliance(backend);

describe('LevelDB store', () => {
  test('a second open of the same store is refused while the first holds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-store-lock-'));
    try {
      const first = await BACKENDS.level!.open(dir);
      await expect(BACKENDS.level!.open(dir)).rejects.toBeInstanceOf(StoreLockedError);
      await first.close();
      await (await BACKENDS.level!.open(dir)).close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a store written by a newer format is refused whole and left untouched, and the daemon says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-store-format-'));
    try {
      await (await BACKENDS.level!.open(dir)).close();
      const tables = await openTables(join(dir, 'store'));
      await tables.meta.put('format', { version: 99 });
      await tables.db.close();
      await expect(BACKENDS.level!.open(dir)).rejects.toBeInstanceOf(StoreFormatError);
      const daemon = spawnSync(process.execPath, [ENGRAM_BIN, 'daemon', '--data-dir', dir, '--embedder', 'none'], { encoding: 'utf8', timeout: 60_000 });
      expect(daemon.status).toBe(1);
      expect(daemon.stderr).toMatch(/written by a newer Engram \(store format 99; this version reads up to \d+\)/);
      expect(daemon.stderr).not.toMatch(/\n\s+at /);
      // LevelDB touches its log on every open; nothing of ours was written.
      const after = await openTables(join(dir, 'store'));
      expect(await after.meta.get('format')).toEqual({ version: 99 });
      expect(await after.facts.keys().all()).toEqual([]);
      await after.db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('PostgreSQL store shared by two processes', () => {
  const twoOn = async (name: string): Promise<[PostgresStore, PostgresStore]> => {
    const url = await testDatabase(name);
    return [await PostgresStore.open(url), await PostgresStore.open(url)];
  };
  const close = (...stores: MemoryStore[]) => Promise.all(stores.map((s) => s.close()));

  test('a request id recorded by one is refused to the other, with nothing of that mutation written', async () => {
    const [a, b] = await twoOn('shared_requests');
    try {
      const fa = newFact(a, 'x', 'first');
      const fb = newFact(b, 'x', 'second');
      await a.commit([{ type: 'putFact', fact: fa, derived: null }, { type: 'recordRequest', agentId: 'x', requestId: 'r', result: { op: 'fact', factId: fa.id } }]);
      await expect(b.commit([{ type: 'putFact', fact: fb, derived: null }, { type: 'recordRequest', agentId: 'x', requestId: 'r', result: { op: 'fact', factId: fb.id } }])).rejects.toBeInstanceOf(RequestAlreadyRecorded);
      expect(await b.getFacts([{ agentId: 'x', factId: fb.id }])).toEqual([undefined]);
      expect(await b.requestResult('x', 'r')).toEqual({ op: 'fact', factId: fa.id });
    } finally {
      await close(a, b);
    }
  });

  test('a change over a version the other has replaced is a conflict and writes nothing; ids and vector keys never collide', async () => {
    const [a, b] = await twoOn('shared_conflicts');
    try {
      const fact = newFact(a, 'x', 'the original', { vectorKey: a.nextVectorKey() });
      await a.commit([{ type: 'putFact', fact, derived: { terms: { length: 1, terms: [['original', 1]] }, vector: Float32Array.of(1, 0) } }]);
      const [read] = await b.getFacts([{ agentId: 'x', factId: fact.id }]);
      await a.commit([{ type: 'putFact', fact: { ...fact, pinned: true }, before: fact, derived: 'unchanged' }]);
      await expect(b.commit([{ type: 'putFact', fact: { ...read!, text: 'a stale edit' }, before: read, derived: 'unchanged' }, { type: 'putMeta', name: 'with it', value: {} }])).rejects.toBeInstanceOf(WriteConflict);
      expect((await b.getFacts([{ agentId: 'x', factId: fact.id }]))[0]).toMatchObject({ text: 'the original', pinned: true });
      expect(await b.getMeta('with it')).toBeUndefined();
      await expect(b.commit([{ type: 'deleteFact', fact: read! }])).rejects.toBeInstanceOf(WriteConflict);
      const keys = new Set([...Array.from({ length: 50 }, () => a.nextVectorKey()), ...Array.from({ length: 50 }, () => b.nextVectorKey())]);
      expect(keys.size).toBe(100);
    } finally {
      await close(a, b);
    }
  });

  test('two mutations taking the same rows in opposite orders never fail with a database error: the one PostgreSQL picks as the deadlock victim is a conflict', async () => {
    const [a, b] = await twoOn('shared_deadlocks');
    try {
      const x = newFact(a, 'x', 'fact x');
      const y = newFact(a, 'x', 'fact y');
      await a.commit([{ type: 'putFact', fact: x, derived: null }, { type: 'putFact', fact: y, derived: null }]);
      const outcomes: PromiseSettledResult<unknown>[] = [];
      for (let round = 0; round < 10; round++) {
        const xs = { ...x, text: `fact x ${round}` };
        const ys = { ...y, text: `fact y ${round}` };
        outcomes.push(
          ...(await Promise.allSettled([
            a.commit([{ type: 'putFact', fact: xs, derived: null }, { type: 'putFact', fact: ys, derived: null }]),
            b.commit([{ type: 'putFact', fact: ys, derived: null }, { type: 'putFact', fact: xs, derived: null }]),
          ])),
        );
      }
      for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(WriteConflict);
    } finally {
      await close(a, b);
    }
  });

  test('a content claim is held by one live fact: the other is refused with nothing written, until that fact is retired, erased, or retired without its claim let go', async () => {
    const [a, b] = await twoOn('shared_claims');
    const indexed = (fact: FactRecord) => ({ type: 'putFact' as const, fact, derived: { terms: { length: 1, terms: [['tide', 1]] as [string, number][] } }, claim: 'K' });
    try {
      const first = newFact(a, 'x', 'the tide turns at six');
      await a.commit([indexed(first)]);
      const second = newFact(b, 'x', 'the tide turns at six');
      await expect(b.commit([indexed(second), { type: 'putMeta', name: 'with it', value: {} }])).rejects.toBeInstanceOf(ContentClaimed);
      expect(await b.getFacts([{ agentId: 'x', factId: second.id }])).toEqual([undefined]);
      expect(await b.getMeta('with it')).toBeUndefined();
      // Another namespace's same words are its own.
      await b.commit([indexed(newFact(b, 'y', 'the tide turns at six'))]);
      // Retired: the words are free again.
      await a.commit([{ type: 'putFact', fact: { ...first, supersededBy: 'agent' }, before: first, derived: null }]);
      await b.commit([indexed(second)]);
      // Erased: free again, and nothing derived from its text (the claim's key) stays.
      await b.commit([{ type: 'deleteFact', fact: second }]);
      const pool = new pg.Pool({ connectionString: await testDatabase('shared_claims') });
      expect((await pool.query(`SELECT 1 FROM engram.claims WHERE fact_id = $1`, [second.id])).rowCount).toBe(0);
      const third = newFact(a, 'x', 'the tide turns at six');
      await a.commit([indexed(third)]);
      // Retired by a daemon that kept no claims (an older version): the claim is stale and passes on.
      await pool.query(`UPDATE engram.facts SET record = $1 WHERE fact_id = $2`, [JSON.stringify({ ...third, supersededBy: 'agent' }), third.id]);
      await pool.end();
      const fourth = newFact(b, 'x', 'the tide turns at six');
      await b.commit([indexed(fourth)]);
      // A mutation refused for its claim leaves no claim of its own behind.
      const fifth = newFact(a, 'x', 'the tide turns at seven');
      await expect(a.commit([{ ...indexed(fifth), claim: 'K7' }, indexed(newFact(a, 'x', 'copy'))])).rejects.toBeInstanceOf(ContentClaimed);
      await b.commit([{ ...indexed(newFact(b, 'x', 'the tide turns at seven')), claim: 'K7' }]);
    } finally {
      await close(a, b);
    }
  });

  test("one sees the other's commits in its change log, and is woken for them", async () => {
    const [a, b] = await twoOn('shared_follow');
    try {
      expect(isShared(b)).toBe(true);
      let woken = 0;
      const stop = b.watch(() => woken++);
      await new Promise((r) => setTimeout(r, 300)); // listening
      const before = woken;
      const fact = newFact(a, 'x', 'announced');
      const { seq } = await a.commit([{ type: 'putFact', fact, derived: null }]);
      for (let i = 0; i < 50 && woken === before; i++) await new Promise((r) => setTimeout(r, 20));
      stop();
      expect(woken).toBeGreaterThan(before);
      expect(await b.currentSeq()).toBe(seq);
      const changes = [];
      for await (const change of b.changesSince(seq - 1)) changes.push(change);
      expect(changes).toEqual([{ seq, agentId: 'x', factId: fact.id }]);
      expect(b.takeOwn(seq)).toBe(false);
      expect(a.takeOwn(seq)).toBe(true);
    } finally {
      await close(a, b);
    }
  });
});
