// What "delete" and "already remembered" mean, against a real daemon: delete erases a fact and
// everything derived from it so that its text is nowhere in the data directory once the store
// has compacted (scanned byte by byte, LevelDB files included); lineage stays valid when a
// replacement is deleted; an identical write (after Unicode NFC and whitespace normalisation, same
// occurred_at and context) returns the live fact instead of storing a copy, also under
// concurrency, and a near duplicate or an explicit allowDuplicate stores a new fact.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { removeDir, startDaemon, useDaemon } from './fixtures/daemon.ts';

/** Every file under `dir` whose bytes contain `needle` (as UTF-8). */
function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  const found: string[] = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    if (statSync(path).isFile() && readFileSync(path).includes(bytes)) found.push(name);
  }
  return found;
}

describe('delete erases', () => {
  test('after delete and a restart, no file of the data directory holds any of the fact\'s text', async () => {
    const daemon = await startDaemon({ embedder: 'local' });
    try {
      const secret = 'zanzibarquokka';
      let client = await daemon.client();
      const { fact } = await client.put('eraser', `The vault passphrase is ${secret}`, {
        requestId: 'erase-me-1',
        context: `told by ${secret}-context`,
        tags: [`${secret}-tag`],
        entities: [`${secret}-entity`],
        meta: { note: `${secret}-meta` },
      });
      await client.put('eraser', 'An unrelated fact about lunch');
      expect((await client.recall('eraser', secret)).facts[0]!.id).toBe(fact.id); // an access row too
      client.close();
      // A clean restart first, so the fact is also in the index snapshot and the table files.
      await daemon.stop();
      const again = await startDaemon({ dataDir: daemon.dataDir, embedder: 'local' });
      client = await again.client();
      expect(filesContaining(again.dataDir, secret).length).toBeGreaterThan(0);

      await client.delete('eraser', fact.id);
      await expect(client.get('eraser', fact.id)).rejects.toMatchObject({ kind: 'not_found' });
      expect((await client.recall('eraser', secret)).facts.map((f) => f.text)).toEqual(['An unrelated fact about lunch']);
      // The request record went with it: the same request id is a new write, not a replay.
      const rewritten = await client.put('eraser', 'A new fact under the old request id', { requestId: 'erase-me-1' });
      expect(rewritten.replayed).toBe(false);
      client.close();
      await again.stop();
      expect(filesContaining(again.dataDir, secret)).toEqual([]);
    } finally {
      await daemon.kill9();
      removeDir(daemon.dataDir);
    }
  });
});

describe('gc erases as delete does', () => {
  test('a collection that erases many facts at once leaves none of their text on disk, and keeps the rest', async () => {
    // λ = 1/s: unused facts fade below the forget threshold within 3 s.
    const daemon = await startDaemon({ args: ['--decay-model', 'exponential', '--decay-lambda', '1'] });
    try {
      const client = await daemon.client();
      const faded = Array.from({ length: 300 }, (_, i) => ({ agentId: 'gc-erase', text: `forgotten note ${i} mentions quetzalwombat${i}` }));
      await client.putBatch(faded);
      await daemon.stop();
      const again = await startDaemon({ dataDir: daemon.dataDir, args: ['--decay-model', 'exponential', '--decay-lambda', '1'] });
      const c = await again.client();
      expect(filesContaining(again.dataDir, 'quetzalwombat').length).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 3200));
      const kept = (await c.put('gc-erase', 'a note written just now')).fact;
      const gc = await c.collectGarbage('gc-erase', { dryRun: false });
      expect(gc.removedCount).toBe(300);
      expect((await c.list('gc-erase')).facts.map((f) => f.id)).toEqual([kept.id]);
      c.close();
      await again.stop();
      expect(filesContaining(again.dataDir, 'quetzalwombat')).toEqual([]);
    } finally {
      await daemon.kill9();
      removeDir(daemon.dataDir);
    }
  });
});

describe('lineage and dedup', () => {
  const env = useDaemon();

  test('deleting a replacement leaves every older fact pointing at a fact that exists (or retired by the agent)', async () => {
    const c = env.client;
    const a = (await c.put('lineage', 'The build takes 10 minutes')).fact;
    const b = (await c.revise('lineage', [a.id], 'The build takes 8 minutes')).replacement;
    const cc = (await c.revise('lineage', [b.id], 'The build takes 6 minutes')).replacement;
    await c.delete('lineage', b.id);
    expect((await c.get('lineage', a.id)).supersededBy).toBe(cc.id);
    await c.delete('lineage', cc.id);
    expect((await c.get('lineage', a.id)).supersededBy).toBe('agent');
    const listed = (await c.list('lineage')).facts;
    expect(listed.map((f) => f.id)).toEqual([a.id]);
  });

  test('an identical write returns the live fact; Unicode NFC and whitespace do not make it new', async () => {
    const c = env.client;
    const first = await c.put('dedup', 'The café opens at 8');
    const decomposed = await c.put('dedup', '  The cafe\u0301   opens at 8\n');
    expect(decomposed).toMatchObject({ duplicate: true, replayed: false, fact: { id: first.fact.id } });
    // A value that changed, another event time or context, or a retired original: a new fact.
    for (const [text, options] of [
      ['The café opens at 9', {}],
      ['The café opens at 8', { occurredAt: Date.UTC(2024, 0, 1) }],
      ['The café opens at 8', { context: 'winter hours' }],
    ] as const) {
      const res = await c.put('dedup', text, options);
      expect(res.duplicate, `${text} ${JSON.stringify(options)}`).toBe(false);
    }
    await c.forget('dedup', first.fact.id);
    expect((await c.put('dedup', 'The café opens at 8')).duplicate).toBe(false);
    const copy = await c.put('dedup', 'The café opens at 9', { allowDuplicate: true });
    expect(copy.duplicate).toBe(false);
    expect((await c.stats('dedup')).factCount).toBe(6);
  });

  test('with copies stored by allowDuplicate, an identical write returns the oldest live copy, then the next once it is forgotten', async () => {
    const c = env.client;
    const text = 'The ferry leaves at 7:40';
    const first = await c.put('dedup-copies', text);
    const second = await c.put('dedup-copies', text, { allowDuplicate: true });
    const third = await c.put('dedup-copies', text, { allowDuplicate: true });
    expect(new Set([first.fact.id, second.fact.id, third.fact.id]).size).toBe(3);
    expect((await c.put('dedup-copies', text)).fact.id).toBe(first.fact.id);
    await c.forget('dedup-copies', first.fact.id);
    expect((await c.put('dedup-copies', text)).fact.id).toBe(second.fact.id);
    await c.forget('dedup-copies', second.fact.id);
    await c.forget('dedup-copies', third.fact.id);
    expect((await c.put('dedup-copies', text)).duplicate).toBe(false);
  });

  test('concurrent identical writes store one fact; every caller gets its id', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => env.client.put('dedup-race', 'The staging cluster is in eu-west-1')));
    expect(new Set(results.map((r) => r.fact.id)).size).toBe(1);
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect((await env.client.stats('dedup-race')).factCount).toBe(1);
  });

  test('a shared write dedups in the shared namespace only', async () => {
    const c = env.client;
    const mine = await c.put('dedup-scope', 'Fridays are no-meeting days');
    const shared = await c.putShared('Fridays are no-meeting days');
    expect(shared.duplicate).toBe(false);
    expect(shared.fact.id).not.toBe(mine.fact.id);
    expect((await c.putShared('Fridays are no-meeting days')).fact.id).toBe(shared.fact.id);
  });
});

describe('honest recall', () => {
  const env = useDaemon();

  test('exactly top_k with min_relevance 0 (filler says so); min_relevance > 0 never returns filler', async () => {
    const c = env.client;
    await c.put('honest', 'Alice prefers green tea in the morning');
    for (let i = 0; i < 5; i++) await c.put('honest', `Build agent ${i} runs Debian`);
    const filled = await c.recall('honest', 'quantum chromodynamics lecture notes', { topK: 4 });
    expect(filled.facts).toHaveLength(4);
    expect(filled.matches!.every((m) => !m.matched)).toBe(true);
    expect((await c.recall('honest', 'quantum chromodynamics lecture notes', { topK: 4, minRelevance: 0.5 })).facts).toEqual([]);
    const some = await c.recall('honest', 'green tea', { topK: 4, minRelevance: 0.01 });
    expect(some.facts.map((f) => f.text)).toEqual(['Alice prefers green tea in the morning']);
  });

  test('RecallAll ranks a matched shared fact above the agent\'s filler', async () => {
    const c = env.client;
    for (const text of ['alice likes hiking', 'alice drives a blue car', 'alice has two cats']) await c.put('alice-all', text);
    await c.putShared('Company holidays are listed in the HR wiki');
    const { facts, matches } = await c.recallAll('alice-all', 'company holidays HR wiki', { topK: 1 });
    expect(facts.map((f) => f.text)).toEqual(['Company holidays are listed in the HR wiki']);
    expect(matches).toEqual([expect.objectContaining({ matched: true })]);
    const more = await c.recallAll('alice-all', 'company holidays HR wiki', { topK: 4 });
    expect(more.matches!.map((m) => m.matched)).toEqual([true, false, false, false]);
  });
});
