// The store compliance suite: one set of tests every MemoryStore implementation runs (see
// store-compliance.test.ts). It pins down what the rest of the daemon relies on: a mutation is
// atomic and durable once its commit resolves (also across kill -9), reads come in a fixed
// order, every commit takes the next change number and the change log replays it, and a
// request's recorded result survives restarts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { FactRecord } from '../../daemon/store/record.ts';
import type { Change, MemoryStore, StoredTerms } from '../../daemon/store/store.ts';
import { ROOT } from '../fixtures/daemon.ts';
import type { StoreBackend } from './backends.ts';
import { newFact } from './facts.ts';

const terms = (...words: string[]): StoredTerms => ({ length: words.length, terms: words.map((w): [string, number] => [w, 1]) });
const vector = (...values: number[]) => Float32Array.from(values);
const put = (fact: FactRecord, extra: Partial<Extract<Change, { type: 'putFact' }>> = {}): Change => ({ type: 'putFact', fact, derived: { terms: terms('w') }, ...extra });

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export function describeStoreCompliance(backend: StoreBackend): void {
  describe(`store compliance: ${backend.name}`, () => {
    const dirs: string[] = [];
    const open: MemoryStore[] = [];
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close().catch(() => {});
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    });
    const newDir = () => {
      const dir = mkdtempSync(join(tmpdir(), `engram-store-${backend.name}-`));
      dirs.push(dir);
      return dir;
    };
    const openStore = async (dir: string) => {
      const store = await backend.open(dir);
      open.push(store);
      return store;
    };
    const reopen = async (dir: string, store: MemoryStore) => {
      open.splice(open.indexOf(store), 1);
      await store.close();
      return openStore(dir);
    };

    describe('atomic commits', () => {
      test('a mutation is visible whole once its commit resolves: fact, terms, vector, checkpoint, meta and request record', async () => {
        const store = await openStore(newDir());
        const fact = newFact(store, 'a', 'the whole mutation', { vectorKey: store.nextVectorKey(), embedder: 'm' });
        const checkpoint = { id: store.nextId(Date.now()).id, agentId: 'a', createdAt: Date.now(), state: '{"step":1}' };
        await store.commit([
          put(fact, { derived: { terms: terms('whole', 'mutation'), vector: vector(1, 0) } }),
          { type: 'putCheckpoint', checkpoint },
          { type: 'putMeta', name: 'marker', value: { v: 1 } },
          { type: 'recordRequest', agentId: 'a', requestId: 'r1', result: { op: 'fact', factId: fact.id } },
        ]);
        expect(await store.getFacts([{ agentId: 'a', factId: fact.id }])).toEqual([fact]);
        expect((await all(store.scanFacts({ withTerms: true }))).map((s) => s.terms)).toEqual([terms('whole', 'mutation')]);
        expect(await store.getVectors('a', [fact.vectorKey])).toEqual([vector(1, 0)]);
        expect(await store.checkpoints('a')).toEqual([checkpoint]);
        expect(await store.getMeta('marker')).toEqual({ v: 1 });
        expect(await store.requestResult('a', 'r1')).toEqual({ op: 'fact', factId: fact.id });
      });

      test('a mutation with a change that cannot be stored writes nothing, and fails alone among concurrent commits', async () => {
        const store = await openStore(newDir());
        const doomed = newFact(store, 'a', 'never stored');
        const good = [newFact(store, 'a', 'stored one'), newFact(store, 'a', 'stored two')];
        const unstorable = { type: 'putMeta', name: 'bad', value: { n: 1n } } as unknown as Change; // BigInt has no JSON form
        const outcomes = await Promise.allSettled([store.commit([put(good[0]!)]), store.commit([put(doomed), unstorable]), store.commit([put(good[1]!)])]);
        expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
        expect(await store.getFacts([{ agentId: 'a', factId: doomed.id }])).toEqual([undefined]);
        expect(await store.getMeta('bad')).toBeUndefined();
        expect((await store.listFacts('a', '', 10)).map((f) => f.text)).toEqual(['stored one', 'stored two']);
      });
    });

    describe('derived rows', () => {
      test('keyed records: put, get, delete; scans in key order within one table, by prefix, reversed and limited; they commit with facts and survive a reopen', async () => {
        const dir = newDir();
        let store = await openStore(dir);
        const fact = newFact(store, 'a', 'beside a record');
        await store.commit([
          put(fact),
          { type: 'putRecord', table: 'slots', key: 'b', value: { n: 2 } },
          { type: 'putRecord', table: 'slots', key: 'a', value: { n: 1 } },
          { type: 'putRecord', table: 'slots', key: 'a\u0000x', value: { n: 3 } },
          { type: 'putRecord', table: 'recipes', key: 'a', value: { other: true } },
        ]);
        expect(await store.getRecord('slots', 'a')).toEqual({ n: 1 });
        expect(await store.getRecord('slotChanges', 'a')).toBeUndefined();
        expect(await all(store.scanRecords('slots'))).toEqual([['a', { n: 1 }], ['a\u0000x', { n: 3 }], ['b', { n: 2 }]]);
        expect(await all(store.scanRecords('slots', { prefix: 'a' }))).toEqual([['a', { n: 1 }], ['a\u0000x', { n: 3 }]]);
        expect(await all(store.scanRecords('slots', { reverse: true, limit: 2 }))).toEqual([['b', { n: 2 }], ['a\u0000x', { n: 3 }]]);
        expect(await all(store.scanRecords('recipes'))).toEqual([['a', { other: true }]]);
        await store.commit([{ type: 'deleteRecord', table: 'slots', key: 'b' }, { type: 'putRecord', table: 'slots', key: 'a', value: { n: 10 } }]);
        store = await reopen(dir, store);
        expect(await all(store.scanRecords('slots'))).toEqual([['a', { n: 10 }], ['a\u0000x', { n: 3 }]]);
        expect(await store.getFacts([{ agentId: 'a', factId: fact.id }])).toEqual([fact]);
      });

      test('terms and vector follow the fact: unchanged keeps them, null drops them, a new vector key replaces the old vector', async () => {
        const store = await openStore(newDir());
        const v1 = store.nextVectorKey();
        const fact = newFact(store, 'a', 'versioned', { vectorKey: v1 });
        await store.commit([put(fact, { derived: { terms: terms('one'), vector: vector(1, 0) } })]);
        const pinned = { ...fact, pinned: true };
        await store.commit([put(pinned, { before: fact, derived: 'unchanged' })]);
        expect((await all(store.scanFacts({ withTerms: true })))[0]).toEqual({ fact: pinned, terms: terms('one') });
        // New terms under the same vector key: the stored vector stays.
        const retexted = { ...pinned, text: 'versioned again' };
        await store.commit([put(retexted, { before: pinned, derived: { terms: terms('two') } })]);
        expect(await store.getVectors('a', [v1])).toEqual([vector(1, 0)]);
        const v2 = store.nextVectorKey();
        const reembedded = { ...retexted, vectorKey: v2 };
        await store.commit([put(reembedded, { before: retexted, derived: { terms: terms('two'), vector: vector(0, 1) } })]);
        expect(await store.getVectors('a', [v1, v2])).toEqual([undefined, vector(0, 1)]);
        const retired = { ...reembedded, supersededBy: 'agent', vectorKey: 0 };
        await store.commit([put(retired, { before: reembedded, derived: null })]);
        expect(await all(store.scanTerms())).toEqual([]);
        expect(await all(store.scanVectorKeys())).toEqual([]);
        expect((await store.getFacts([{ agentId: 'a', factId: fact.id }]))[0]).toEqual(retired);
      });

      test('deleting a fact erases it with its terms, vector and access statistics', async () => {
        const store = await openStore(newDir());
        const fact = newFact(store, 'a', 'erase me', { vectorKey: store.nextVectorKey() });
        await store.commit([put(fact, { derived: { terms: terms('erase'), vector: vector(1, 1) } })]);
        await store.writeAccess([[{ agentId: 'a', factId: fact.id }, { count: 3, last: 5 }]]);
        expect(await all(store.scanAccess())).toEqual([[{ agentId: 'a', factId: fact.id }, { count: 3, last: 5 }]]);
        await store.commit([{ type: 'deleteFact', fact }]);
        expect(await store.getFacts([{ agentId: 'a', factId: fact.id }])).toEqual([undefined]);
        expect(await all(store.scanTerms())).toEqual([]);
        expect(await all(store.scanVectorKeys())).toEqual([]);
        expect(await all(store.scanAccess())).toEqual([]);
        expect(await store.countFacts()).toBe(0);
      });
    });

    describe('copying a store whole', () => {
      test('meta records, checkpoints and request records read back in full, without the store\'s own bookkeeping', async () => {
        const dir = newDir();
        let store = await openStore(dir);
        const checkpoints = ['b', 'a'].map((agentId) => ({ id: store.nextId(Date.now()).id, agentId, createdAt: 1, state: `{"of":"${agentId}"}` }));
        await store.commit([
          ...checkpoints.map((checkpoint): Change => ({ type: 'putCheckpoint', checkpoint })),
          { type: 'putMeta', name: 'embedder', value: { id: 'm', dimensions: 2 } },
          { type: 'recordRequest', agentId: 'a', requestId: 'r1', result: { op: 'fact', factId: 'x' } },
          { type: 'recordRequest', agentId: '\u0000controls', requestId: 'r2', result: { op: 'slot' } },
        ]);
        store = await reopen(dir, store);
        expect(await all(store.scanMeta())).toEqual([['embedder', { id: 'm', dimensions: 2 }]]);
        expect(await all(store.scanCheckpoints())).toEqual([checkpoints[1], checkpoints[0]]);
        expect(await all(store.scanRequests())).toEqual([
          { agentId: '\u0000controls', requestId: 'r2', result: { op: 'slot' } },
          { agentId: 'a', requestId: 'r1', result: { op: 'fact', factId: 'x' } },
        ]);
      });
    });

    describe('maintenance', () => {
      test('table statistics count what each table holds; compaction keeps every live row', async () => {
        const store = await openStore(newDir());
        const facts = Array.from({ length: 20 }, (_, i) => newFact(store, 'm', `fact ${i}`));
        await store.commit(facts.map((f) => put(f)));
        for (const f of facts.slice(0, 15)) await store.commit([{ type: 'deleteFact', fact: f }]);
        const stats = Object.fromEntries((await store.tableStats()).map((t) => [t.name, t]));
        expect(stats.facts!.entries).toBe(5);
        expect(stats.postings!.entries).toBe(5);
        for (const t of Object.values(stats)) expect(t.bytes).toBeGreaterThanOrEqual(0);
        await store.compact();
        expect((await store.listFacts('m', '', 100)).map((f) => f.text)).toEqual(facts.slice(15).map((f) => f.text));
        expect(await store.countFacts()).toBe(5);
      });
    });

    describe('ordering', () => {
      test('facts read by namespace in code point order, then by id; pages continue after a given id', async () => {
        const store = await openStore(newDir());
        // Astral (U+1F600), private-use (U+E000) and ASCII names: code point order, not UTF-16 order.
        const agents = ['\u{1F600}-agent', '\uE000-agent', 'b', 'a'];
        for (const agent of agents) for (const text of ['first', 'second', 'third']) await store.commit([put(newFact(store, agent, `${agent} ${text}`))]);
        expect(await store.namespaces()).toEqual(['a', 'b', '\uE000-agent', '\u{1F600}-agent']);
        const scanned = (await all(store.scanFacts())).map((s) => s.fact);
        expect(scanned.map((f) => f.agentId)).toEqual(['a', 'a', 'a', 'b', 'b', 'b', '\uE000-agent', '\uE000-agent', '\uE000-agent', '\u{1F600}-agent', '\u{1F600}-agent', '\u{1F600}-agent']);
        for (const agent of agents) {
          const page = await store.listFacts(agent, '', 2);
          expect(page.map((f) => f.text)).toEqual([`${agent} first`, `${agent} second`]);
          expect((await store.listFacts(agent, page[1]!.id, 2)).map((f) => f.text)).toEqual([`${agent} third`]);
          // Newest first pages backwards and stays inside the namespace.
          const newest = await store.listFacts(agent, '', 2, 'newest');
          expect(newest.map((f) => f.text)).toEqual([`${agent} third`, `${agent} second`]);
          expect((await store.listFacts(agent, newest[1]!.id, 2, 'newest')).map((f) => f.text)).toEqual([`${agent} first`]);
          expect((await all(store.scanFacts({ agentId: agent, withTerms: true }))).every((s) => s.terms !== undefined)).toBe(true);
        }
        expect(await store.countFacts()).toBe(12);
      });

      test('ids increase in the order they are issued and never repeat, also within one millisecond', async () => {
        const store = await openStore(newDir());
        const ids = Array.from({ length: 500 }, () => store.nextId(1_700_000_000_000).id);
        expect([...ids].sort()).toEqual(ids);
        expect(new Set(ids).size).toBe(ids.length);
      });

      test("an agent's checkpoints come newest first", async () => {
        const store = await openStore(newDir());
        for (const step of [1, 2, 3]) {
          const { id, time } = store.nextId(Date.now());
          await store.commit([{ type: 'putCheckpoint', checkpoint: { id, agentId: 'a', createdAt: time, state: `{"step":${step}}` } }]);
        }
        expect((await store.checkpoints('a')).map((c) => c.state)).toEqual(['{"step":3}', '{"step":2}', '{"step":1}']);
        expect((await store.checkpoints('a', 1)).map((c) => c.state)).toEqual(['{"step":3}']);
        const ids = await store.checkpointIds('a');
        await store.commit([{ type: 'deleteCheckpoint', agentId: 'a', checkpointId: ids[0]! }]);
        expect(await store.checkpointIds('a')).toEqual(ids.slice(1));
        expect(await store.checkpoints('b')).toEqual([]);
      });
    });

    describe('the change sequence', () => {
      test('every commit takes the next change number, in the order commits resolve, and the log replays which facts changed', async () => {
        const dir = newDir();
        const store = await openStore(dir);
        expect(store.lastSeq).toBe(0);
        const facts = Array.from({ length: 6 }, (_, i) => newFact(store, i % 2 ? 'odd' : 'even', `fact ${i}`));
        const resolved: number[] = [];
        const seqs = await Promise.all(facts.map((f) => store.commit([put(f)]).then(({ seq }) => (resolved.push(seq), seq))));
        expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
        expect(resolved).toEqual([1, 2, 3, 4, 5, 6]);
        expect(store.lastSeq).toBe(6);
        await store.commit([{ type: 'deleteFact', fact: facts[0]! }]);
        await store.commit([{ type: 'putMeta', name: 'not a fact', value: {} }]); // takes a number, changes no fact
        const changes = await all(store.changesSince(4));
        expect(changes).toEqual([
          { seq: 5, agentId: 'even', factId: facts[4]!.id },
          { seq: 6, agentId: 'odd', factId: facts[5]!.id },
          { seq: 7, agentId: 'even', factId: facts[0]!.id },
        ]);
        const again = await reopen(dir, store);
        expect(again.lastSeq).toBe(8);
        expect(await all(again.changesSince(6))).toEqual([{ seq: 7, agentId: 'even', factId: facts[0]!.id }]);
        expect((await again.commit([put(newFact(again, 'even', 'after reopen'))])).seq).toBe(9);
      });

      test('pruned changes are gone for good, and asking for them is an error rather than a silent gap', async () => {
        const dir = newDir();
        const store = await openStore(dir);
        for (let i = 0; i < 5; i++) await store.commit([put(newFact(store, 'a', `fact ${i}`))]);
        await store.pruneChanges(3);
        expect(store.changesKeptAfter).toBe(3);
        expect((await all(store.changesSince(3))).map((c) => c.seq)).toEqual([4, 5]);
        await expect(all(store.changesSince(2))).rejects.toThrow(/pruned/);
        const again = await reopen(dir, store);
        expect(again.changesKeptAfter).toBe(3);
        await expect(all(again.changesSince(1))).rejects.toThrow(/pruned/);
      });

      test('the change token identifies the content: unchanged across close and open, different after a write', async () => {
        const dir = newDir();
        const store = await openStore(dir);
        await store.commit([put(newFact(store, 'a', 'one'))]);
        open.splice(open.indexOf(store), 1);
        const closed = await store.close();
        const reopened = await openStore(dir);
        expect(reopened.openedToken).toBe(closed);
        await reopened.commit([put(newFact(reopened, 'a', 'two'))]);
        open.splice(open.indexOf(reopened), 1);
        const after = await reopened.close();
        expect(after).not.toBe(closed);
        expect((await openStore(dir)).openedToken).toBe(after);
      });
    });

    describe('idempotency records', () => {
      test('a recorded result is found by namespace and request id, across a clean restart and a crash-like reopen', async () => {
        const dir = newDir();
        const store = await openStore(dir);
        expect(await store.requestResult('a', 'r')).toBeUndefined();
        await store.commit([{ type: 'recordRequest', agentId: 'a', requestId: 'r', result: { op: 'delete', fact: { text: 'x' } } }]);
        expect(await store.requestResult('a', 'r')).toEqual({ op: 'delete', fact: { text: 'x' } });
        expect(await store.requestResult('b', 'r')).toBeUndefined();
        const again = await reopen(dir, store);
        expect(await again.requestResult('a', 'r')).toEqual({ op: 'delete', fact: { text: 'x' } });
        expect(await again.requestResult('a', 'other')).toBeUndefined();
      });
    });

    describe('durability', () => {
      test('every commit acknowledged before kill -9 is there after reopening, and no id, vector key or change number is reissued', async () => {
        const dir = newDir();
        const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/fixtures/store-writer.ts'), backend.name, dir, '8'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.stderr.on('data', (chunk) => (err += chunk));
        const exited = new Promise((resolve) => child.once('exit', resolve));
        const acked = () => out.split('\n').filter((l) => l.startsWith('acked '));
        const deadline = Date.now() + 60_000;
        while (acked().length < 300) {
          if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the writer stopped early:\n${err}`);
          await new Promise((r) => setTimeout(r, 20));
        }
        child.kill('SIGKILL');
        await exited;
        const lines = acked().map((l) => l.split(' '));
        const store = await openStore(dir);
        const found = await store.getFacts(lines.map(([, agentId, factId]) => ({ agentId: agentId!, factId: factId! })));
        expect(found.filter((f) => f === undefined).length).toBe(0);
        const highestSeq = Math.max(...lines.map((l) => Number(l[3])));
        expect(store.lastSeq).toBeGreaterThanOrEqual(highestSeq);
        const stored = (await all(store.scanFacts())).map((s) => s.fact);
        const next = store.nextId(0).id;
        expect(stored.every((f) => f.id < next)).toBe(true);
        const highestKey = Math.max(...stored.map((f) => f.vectorKey));
        expect(highestKey).toBeGreaterThanOrEqual(Math.max(...lines.map((l) => Number(l[4]))));
        expect(store.nextVectorKey()).toBeGreaterThan(highestKey);
        expect((await all(store.scanVectorKeys())).length).toBe(stored.length);
        expect((await store.commit([put(newFact(store, 'crash', 'after the crash'))])).seq).toBe(store.lastSeq);
        expect(store.lastSeq).toBeGreaterThan(highestSeq);
      });
    });
  });
}
