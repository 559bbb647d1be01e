// Vector index files: a save rewrites only the namespaces that changed since their last save
// (with thousands of namespaces, rewriting all of them stalled every client), and what a crash
// leaves is still caught up from the store: no fact loses its vector.
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { useDaemonPool } from './fixtures/daemon.ts';

const pool = useDaemonPool();

/** Each namespace's saved index file and when it was last written. */
function indexFiles(dataDir: string): Map<string, number> {
  const dir = join(dataDir, 'vectors');
  const files = readdirSync(dir).filter((name) => name.endsWith('.usearch'));
  return new Map(files.map((name) => [Buffer.from(name.slice(0, -'.usearch'.length), 'base64url').toString('utf8'), statSync(join(dir, name)).mtimeMs]));
}

describe('vector index saves', () => {
  test('a save writes only the namespaces that changed; a crash after it loses no vector', async () => {
    const dataDir = pool.newDir();
    const agents = ['ant', 'bee', 'cat', 'dog', 'eel'];
    let daemon = await pool.start({ dataDir, embedder: 'local' });
    let client = await daemon.client();
    for (const agent of agents) for (let i = 0; i < 5; i++) await client.put(agent, `${agent} note ${i}: the harbour crane lifts containers`);
    client.close();
    await daemon.stop();
    const first = indexFiles(dataDir);
    expect([...first.keys()].sort()).toEqual(agents);

    daemon = await pool.start({ dataDir, embedder: 'local' });
    client = await daemon.client();
    await client.put('cat', 'cat note 5: the lighthouse keeper logs the ships');
    client.close();
    await daemon.stop();
    const second = indexFiles(dataDir);
    for (const agent of agents) {
      if (agent === 'cat') expect(second.get(agent)!, agent).toBeGreaterThan(first.get(agent)!);
      else expect(second.get(agent), agent).toBe(first.get(agent));
    }

    // After the save above, a write to another namespace, then a crash: the restart catches the
    // unchanged files up from the store, and the new fact is found by its vector alone.
    daemon = await pool.start({ dataDir, embedder: 'local' });
    client = await daemon.client();
    const late = (await client.put('dog', 'dog note 5: the lighthouse keeper logs the ships')).fact;
    client.close();
    await daemon.kill9();
    daemon = await pool.start({ dataDir, embedder: 'local' });
    client = await daemon.client();
    const byVector = await client.recall('dog', 'lighthouse', { weights: { vector: 1, keyword: 0, recency: 0 }, topK: 1 });
    expect(byVector.facts[0]!.id).toBe(late.id);
    for (const agent of agents) expect((await client.stats(agent)).vectorCount, agent).toBe(agent === 'cat' || agent === 'dog' ? 6 : 5);
    let healthy = false;
    for await (const event of client.doctor()) if (event.report) healthy = event.report.healthy;
    expect(healthy).toBe(true);
    client.close();
  });

  // USearch 2.25 wrote such a graph correctly but corrupted the heap loading it back: the daemon
  // aborted ("free(): corrupted unsorted chunks") at every start, and stayed down.
  test('a namespace that forgot most of its facts saves an index the next start loads', async () => {
    const dataDir = pool.newDir();
    let daemon = await pool.start({ dataDir, embedder: 'local' });
    let client = await daemon.client();
    const written = await client.putBatch(Array.from({ length: 200 }, (_, i) => ({ agentId: 'churn', text: `setting ${i}: the harbour crane ${i % 2 ? 'lifts containers' : 'rests at night'}` })));
    const ids = written.map((r) => r.factId!);
    for (const id of ids.slice(0, 120)) await client.forget('churn', id);
    client.close();
    await daemon.stop();

    daemon = await pool.start({ dataDir, embedder: 'local' });
    client = await daemon.client();
    expect((await client.stats('churn')).vectorCount).toBe(80);
    const byVector = await client.recall('churn', 'crane lifts containers', { weights: { vector: 1, keyword: 0, recency: 0 }, topK: 5 });
    expect(byVector.facts).toHaveLength(5);
    for (const fact of byVector.facts) expect(ids.slice(120)).toContain(fact.id);
    client.close();
    await daemon.stop();

    // Had that load aborted the daemon, it would have left its mark beside the file: the next
    // start rebuilds the namespace from the store instead of aborting again.
    const [saved] = readdirSync(join(dataDir, 'vectors')).filter((name) => name.endsWith('.usearch'));
    writeFileSync(join(dataDir, 'vectors', `${saved!}.loading`), '');
    daemon = await pool.start({ dataDir, embedder: 'local' });
    client = await daemon.client();
    expect((await client.stats('churn')).vectorCount).toBe(80);
    expect((await client.recall('churn', 'crane lifts containers', { weights: { vector: 1, keyword: 0, recency: 0 }, topK: 1 })).facts).toHaveLength(1);
    expect(daemon.log()).toContain(JSON.stringify('loading the saved vector index of "churn" stopped the daemon last time: rebuilding it from the stored vectors').slice(1, -1));
    client.close();
  });
});
