// Acknowledged writes survive crashes; derived indexes catch up from LevelDB after a restart.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { EngramClient } from '../client/index.ts';
import { ROOT, useDaemonPool, waitFor, type DaemonProcess } from './fixtures/daemon.ts';

const pool = useDaemonPool();
const newDir = pool.newDir;
const start = (dataDir: string, embedder: 'local' | 'none' = 'none'): Promise<DaemonProcess> => pool.start({ dataDir, embedder });

interface WriterResult {
  acked: Map<string, string>;
  uncertain: string[];
}

function runWriter(dataDir: string, agent: string, prefix: string): { done: Promise<WriterResult>; ackCount: () => number } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/fixtures/writer.ts'), dataDir, agent, prefix, '4'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acked = new Map<string, string>();
  const uncertain: string[] = [];
  let buffer = '';
  child.stdout!.on('data', (chunk) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) {
      const [status, ...rest] = line.split(' ');
      const id = rest.pop()!;
      if (status === 'ok') acked.set(rest.join(' '), id);
      if (status === 'uncertain') uncertain.push(rest.join(' '));
    }
  });
  const done = new Promise<WriterResult>((resolve) => child.once('exit', () => resolve({ acked, uncertain })));
  return { done, ackCount: () => acked.size };
}

/** The periscope fact is the query's nearest vector, and the namespace holds `vectors` vectors:
 *  the fact's vector reached the index. */
async function expectNearestByVector(client: EngramClient, agent: string, factId: string, vectors: number): Promise<void> {
  const { receipts } = await client.recallExplain(agent, 'submarine periscope seals', { topK: 1 });
  expect(receipts.map((r) => [r.fact.id, r.ranks.vectorRank])).toEqual([[factId, 1]]);
  expect((await client.stats(agent)).vectorCount).toBe(vectors);
}

describe('crash safety', () => {
  test('kill -9 during a write storm from several client processes loses no acknowledged write', async () => {
    const dataDir = newDir();
    const daemon = await start(dataDir);
    const writers = [0, 1, 2, 3].map((i) => runWriter(dataDir, 'storm', `storm-writer-${i} fact`));
    // Let the storm build up, then crash the daemon mid-flight.
    await waitFor(async () => (writers.every((w) => w.ackCount() >= 150) ? true : undefined), 60_000);
    await daemon.kill9();
    const results = await Promise.all(writers.map((w) => w.done));

    const restarted = await start(dataDir);
    const client = await restarted.client();
    const stored = new Map<string, number>();
    for await (const fact of client.listAll('storm', 1000)) stored.set(fact.text, (stored.get(fact.text) ?? 0) + 1);
    client.close();

    let ackedTotal = 0;
    for (const { acked, uncertain } of results) {
      for (const [text, id] of acked) {
        ackedTotal++;
        expect(stored.get(text), `acknowledged ${text} (${id}) is missing after kill -9`).toBe(1);
      }
      // An uncertain write is stored zero or one times, never twice.
      for (const text of uncertain) expect(stored.get(text) ?? 0).toBeLessThanOrEqual(1);
    }
    expect(ackedTotal).toBeGreaterThanOrEqual(600);
    // Nothing is stored that no writer asked for, and nothing twice.
    for (const count of stored.values()) expect(count).toBe(1);
  });

  test('a restart keeps every acknowledged fact and the vector index catches up from LevelDB', async () => {
    const dataDir = newDir();
    let daemon = await start(dataDir, 'local');
    let client = await daemon.client();
    for (let i = 0; i < 30; i++) await client.put('vec', `saved before a clean stop, item ${i}`);
    client.close();
    expect(await daemon.stop()).toBe(0); // clean stop: the vector index is saved covering 30 facts

    daemon = await start(dataDir, 'local');
    client = await daemon.client();
    const late = (await client.put('vec', 'The submarine periscope needs new seals')).fact;
    for (let i = 0; i < 19; i++) await client.put('vec', `written after the save, item ${i}`);
    client.close();
    await daemon.kill9(); // the saved index does not cover these 20

    daemon = await start(dataDir, 'local');
    expect(daemon.log()).toContain('loaded 50 facts (50 recallable)');
    client = await daemon.client();
    const { receipts } = await client.recallExplain('vec', 'submarine periscope seals', { topK: 3 });
    expect(receipts[0]!.fact.id).toBe(late.id);
    expect(receipts[0]!.ranks.vectorRank).toBe(1);
    let report;
    for await (const event of client.doctor()) if (event.report) report = event.report;
    expect(report).toMatchObject({ healthy: true });
    expect((await client.stats('vec')).vectorCount).toBe(50);
    client.close();
  });

  test('start-up matches keyword rows to facts in LevelDB key order, whatever the namespace names', async () => {
    // Start-up reads facts and keyword rows side by side in LevelDB's key order (UTF-8 bytes),
    // which JavaScript's string order does not match once a surrogate pair meets U+E000-U+FFFF.
    // A missing row and an orphan row at namespace boundaries must cost only themselves.
    const agents = ['\u{1F600}-agent', '\uE000-agent', '\uFFFD-agent', 'plain-agent', '\u00E9-agent'];
    const dataDir = newDir();
    let daemon = await start(dataDir);
    let client = await daemon.client();
    const last = new Map<string, string>();
    for (const agent of agents) {
      await client.put(agent, 'the lighthouse keeper logs the tide');
      for (let i = 0; i < 3; i++) last.set(agent, (await client.put(agent, `filler note ${i} for ${agent}`)).fact.id);
    }
    client.close();
    await daemon.kill9(); // no snapshot: start-up reads every fact and keyword row

    const { openTables } = await import('../daemon/store/level/tables.ts');
    const tables = await openTables(join(dataDir, 'store'));
    await tables.postings.del(`\uE000-agent\u0000${last.get('\uE000-agent')}`); // the namespace's last row lost
    await tables.postings.put('\uFFFD-agent\u0000~orphan', { length: 1, terms: [['orphan', 1]] }); // a row with no fact
    await tables.db.close();

    daemon = await start(dataDir);
    expect(daemon.log()).toContain(`loaded ${agents.length * 4} facts`);
    expect(daemon.log()).toContain('1 facts lacked postings');
    client = await daemon.client();
    for (const agent of agents) {
      const { receipts } = await client.recallExplain(agent, 'lighthouse tide', { topK: 1, weights: { recency: 0 } });
      expect(receipts.map((r) => [r.fact.text, r.ranks.keywordRank])).toEqual([['the lighthouse keeper logs the tide', 1]]);
    }
    client.close();
  });

  test('vector keys are never reused: a fact written after a crash and a rebuild keeps its vector through the next crash', async () => {
    const dataDir = newDir();
    let daemon = await start(dataDir, 'local');
    let client = await daemon.client();
    for (const text of ['the orchard ladder is in the barn', 'the cider press needs a new screw']) await client.put('keys', text);
    const last = (await client.put('keys', 'the beehive frames were cleaned')).fact;
    await client.delete('keys', last.id); // the highest vector key now belongs to no fact
    client.close();
    await daemon.stop(); // the saved vector index covers that key

    daemon = await start(dataDir, 'local');
    await daemon.kill9(); // so the next start rebuilds its indexes from the facts alone
    daemon = await start(dataDir, 'local');
    client = await daemon.client();
    const late = (await client.put('keys', 'The submarine periscope needs new seals')).fact;
    client.close();
    await daemon.kill9(); // before any save: only LevelDB has the new vector

    daemon = await start(dataDir, 'local');
    client = await daemon.client();
    await expectNearestByVector(client, 'keys', late.id, 3);
    client.close();
  });

  test('foreign or damaged files in the vectors folder are ignored: start-up rebuilds the index and writes keep their vectors', async () => {
    const dataDir = newDir();
    let daemon = await start(dataDir, 'local');
    let client = await daemon.client();
    await client.put('junk', 'the lighthouse lamp was polished');
    client.close();
    await daemon.stop();
    const { readdirSync, writeFileSync } = await import('node:fs');
    const vectors = join(dataDir, 'vectors');
    for (const name of readdirSync(vectors).filter((n) => n.endsWith('.json'))) writeFileSync(join(vectors, name), '{"keys":[5]}');
    writeFileSync(join(vectors, 'notes.json'), '{}');

    daemon = await start(dataDir, 'local');
    client = await daemon.client();
    const late = (await client.put('junk', 'The submarine periscope needs new seals')).fact;
    await expectNearestByVector(client, 'junk', late.id, 2);
    client.close();
  });

  test('a clean stop saves an index snapshot: the next start restores it and recalls, replays and expands exactly as before', async () => {
    const dataDir = newDir();
    let daemon = await start(dataDir, 'local');
    let client = await daemon.client();
    const first = await client.put('snap', 'The greenhouse tomatoes need watering at dawn', { requestId: 'req-tomatoes' });
    for (let i = 0; i < 20; i++) await client.put('snap', `garden log entry ${i}: weeded the ${i % 2 ? 'herb' : 'flower'} bed`, { tags: i % 5 ? [] : ['weekly'] });
    const retired = (await client.put('snap', 'The greenhouse door sticks')).fact;
    await client.delete('snap', retired.id);
    await client.alias('snap', 'tomato', ['nightshade']);
    const recalls = () =>
      Promise.all([
        client.recallExplain('snap', 'greenhouse tomatoes watering'),
        client.recallExplain('snap', 'weeded herb bed', { topK: 6 }),
        client.recallExplain('snap', 'nightshade greenhouse', { topK: 5, filters: { tagsAny: ['weekly'] } }),
      ]);
    const before = await recalls();
    client.close();
    expect(await daemon.stop()).toBe(0);
    expect(daemon.log()).toContain('saved the index snapshot');

    daemon = await start(dataDir, 'local');
    expect(daemon.log()).toContain('loaded 21 recallable facts from the index snapshot'); // 22 written, 1 deleted
    client = await daemon.client();
    const after = await recalls();
    const view = (r: (typeof before)[number]) => r.receipts.map((x) => [x.fact.id, x.ranks, x.weight]);
    expect(after.map(view)).toEqual(before.map(view));
    expect(after[2]!.retrieval.expandedTerms).toEqual(['tomato']);
    // The request-id filter came back with the index: a repeated request is still answered once.
    const again = await client.put('snap', 'The greenhouse tomatoes need watering at dawn', { requestId: 'req-tomatoes' });
    expect(again).toMatchObject({ replayed: true, fact: { id: first.fact.id } });
    // Writes after a restored start go on normally, and a crash then falls back to a full rebuild.
    const late = (await client.put('snap', 'The compost heap is ready for spreading')).fact;
    const beforeCrash = await recalls();
    client.close();
    await daemon.kill9();

    daemon = await start(dataDir, 'local');
    expect(daemon.log()).toContain('index snapshot not used: no clean shutdown recorded');
    client = await daemon.client();
    const { receipts } = await client.recallExplain('snap', 'compost heap spreading', { topK: 1 });
    expect(receipts.map((r) => [r.fact.id, r.ranks.keywordRank, r.ranks.vectorRank])).toEqual([[late.id, 1, 1]]);
    expect((await recalls()).map(view)).toEqual(beforeCrash.map(view));
    client.close();
  });

  test('a damaged or foreign index snapshot is never trusted: start-up rebuilds from the store and says why', async () => {
    const dataDir = newDir();
    let daemon = await start(dataDir);
    let client = await daemon.client();
    for (let i = 0; i < 5; i++) await client.put('snap', `orchard note ${i}`);
    client.close();
    await daemon.stop();
    const { readFileSync, truncateSync, statSync, writeFileSync } = await import('node:fs');
    const file = join(dataDir, 'index.snapshot');
    truncateSync(file, statSync(file).size - 10);

    daemon = await start(dataDir);
    expect(daemon.log()).toMatch(/loaded 5 facts \(5 recallable\).*index snapshot not used: the snapshot file is unreadable/);
    client = await daemon.client();
    expect((await client.recall('snap', 'orchard note 3', { topK: 1, weights: { recency: 0 } })).facts.map((f) => f.text)).toEqual(['orchard note 3']);
    client.close();
    await daemon.stop();

    // One flipped byte, same size: the checksum refuses it.
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(file, bytes);
    daemon = await start(dataDir);
    expect(daemon.log()).toMatch(/index snapshot not used: the snapshot file is unreadable \(.*checksum mismatch\)/);
    await daemon.stop();

    // Another program wrote the store after the clean stop (here: a bare key, as any tool might).
    const { openTables } = await import('../daemon/store/level/tables.ts');
    const tables = await openTables(join(dataDir, 'store'));
    await tables.meta.put('written-by-a-tool', { at: 1 });
    await tables.db.close();
    daemon = await start(dataDir);
    expect(daemon.log()).toContain('index snapshot not used: the store was written after the snapshot was saved');
    await daemon.stop();

    // The same store started with another embedder: which facts are pending differs, so rebuild.
    daemon = await start(dataDir, 'local');
    expect(daemon.log()).toContain('index snapshot not used: it was made with another tokenizer or embedder');
  });

  test('SIGTERM drains in-flight writes: every acknowledged write is there after restart, exit code 0', async () => {
    const dataDir = newDir();
    const daemon = await start(dataDir);
    const client = await daemon.client();
    const writes = Array.from({ length: 200 }, (_, i) => client.put('drain', `drained write ${i}`).then((r) => r.fact.id, () => null));
    await new Promise((r) => setTimeout(r, 5));
    const exit = daemon.stop();
    const ids = (await Promise.all(writes)).filter((id): id is string => id !== null);
    expect(await exit).toBe(0);
    client.close();
    const again = await start(dataDir);
    const c2 = await again.client();
    const stored = new Set<string>();
    for await (const fact of c2.listAll('drain')) stored.add(fact.id);
    c2.close();
    for (const id of ids) expect(stored.has(id)).toBe(true);
  });
});

test('a client that never lets its connection go (a paused process) does not hold a stop: the daemon exits 0 after a grace', { timeout: 40_000 }, async () => {
  const dataDir = newDir();
  const daemon = await start(dataDir);
  const client = await daemon.client();
  await client.put('paused', 'written before the stop');
  // An HTTP/2 peer that says hello and then never reads or answers again, as a stopped process.
  const { connect: connectSocket } = await import('node:net');
  const peer = connectSocket(daemon.discovery.address.slice('unix:'.length));
  await new Promise<void>((resolve) => peer.once('connect', () => resolve()));
  peer.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]));
  peer.pause();
  await new Promise((r) => setTimeout(r, 200));
  client.close();
  expect(await daemon.stop()).toBe(0);
  peer.destroy();
  const again = await start(dataDir);
  const c2 = await again.client();
  expect((await c2.list('paused')).facts.map((f) => f.text)).toEqual(['written before the stop']);
  c2.close();
});

describe('derived index versions', () => {
  test('a keyword index written by another tokenizer is not trusted: recall indexes from the texts until doctor --rebuild', async () => {
    const dataDir = newDir();
    let daemon = await start(dataDir);
    let client = await daemon.client();
    const { fact } = await client.put('tok', 'The lighthouse keeper logs every passing ship');
    client.close();
    await daemon.stop();

    // Simulate a store from an older tokenizer: its stored terms no longer match the text.
    const { openTables } = await import('../daemon/store/level/tables.ts');
    const tables = await openTables(join(dataDir, 'store'));
    await tables.meta.put('tokenizer', { id: 'old-tokenizer-v0' });
    await tables.postings.put(`tok\u0000${fact.id}`, { length: 1, terms: [['unrelated', 1]] });
    await tables.db.close();

    daemon = await start(dataDir);
    expect(daemon.log()).toMatch(/tokenizer old-tokenizer-v0.*engram doctor --rebuild/);
    client = await daemon.client();
    const { receipts } = await client.recallExplain('tok', 'lighthouse keeper', { weights: { recency: 0 } });
    expect(receipts[0]!.fact.id).toBe(fact.id);
    expect(receipts[0]!.ranks.keywordRank).toBe(1);

    let report;
    for await (const event of client.doctor()) if (event.report) report = event.report;
    expect(report).toMatchObject({ healthy: false });
    for await (const event of client.doctor({ rebuild: true })) if (event.report) report = event.report;
    expect(report).toMatchObject({ healthy: true, rebuilt: true });
    client.close();
    await daemon.stop();

    daemon = await start(dataDir);
    expect(daemon.log()).not.toMatch(/tokenizer/);
  });

  test('a store written before Chinese was split into words finds a word of it after the upgrade, and after doctor --rebuild from its stored rows', async () => {
    const dataDir = newDir();
    let daemon = await start(dataDir);
    let client = await daemon.client();
    const { fact } = await client.put('cjk', '我喜欢喝绿茶');
    client.close();
    await daemon.stop();

    // What the previous tokenizer stored: the whole run as one term, counted twice (the fact's text).
    const { openTables } = await import('../daemon/store/level/tables.ts');
    const tables = await openTables(join(dataDir, 'store'));
    await tables.meta.put('tokenizer', { id: 'unicode-porter2-v2' });
    await tables.postings.put(`cjk\u0000${fact.id}`, { length: 2, terms: [['我喜欢喝绿茶', 2]] });
    await tables.db.close();

    const keywordRankOfTea = async (c: EngramClient) => (await c.recallExplain('cjk', '绿茶', { weights: { recency: 0 } })).receipts.find((r) => r.fact.id === fact.id)?.ranks.keywordRank;
    daemon = await start(dataDir);
    expect(daemon.log()).toMatch(/tokenizer unicode-porter2-v2, this daemon runs unicode-porter2-v3/);
    client = await daemon.client();
    expect(await keywordRankOfTea(client)).toBe(1);
    let report;
    for await (const event of client.doctor({ rebuild: true })) if (event.report) report = event.report;
    expect(report).toMatchObject({ healthy: true, rebuilt: true });
    client.close();
    await daemon.stop();

    // Without the snapshot of the clean stop, start-up reads the rewritten rows.
    rmSync(join(dataDir, 'index.snapshot.seal'));
    daemon = await start(dataDir);
    expect(daemon.log()).not.toMatch(/tokenizer/);
    client = await daemon.client();
    expect(await keywordRankOfTea(client)).toBe(1);
    client.close();
  });
});
