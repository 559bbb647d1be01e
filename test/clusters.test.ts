// Clusters, duplicates and consolidation against real daemons: deterministic clusters whose ids
// survive from one call to the next, duplicates by similarity, and a consolidation that writes
// one merged fact, retires the members with lineage, and refuses a cluster that changed.
import { describe, expect, test } from 'vitest';
import { runEngram } from './fixtures/cli.ts';
import { useDaemonPool } from './fixtures/daemon.ts';

const pool = useDaemonPool();

describe('clusters and consolidation', () => {
  test('one cluster and one pair are said in the singular; a max size is refused in the range accepted, even beyond the wire', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), embedder: 'none' });
    const client = await daemon.client();
    await client.put('one', 'The boiler is serviced every October.');
    await client.put('one', 'The boiler is serviced every October by Hans.');
    await client.put('one', 'Penguins cannot fly.');
    expect((await client.clusterMemories('one', { threshold: 0.5 })).message).toBe('Found 1 cluster using similarity strategy');
    expect((await client.clusterMemories('one', { findDuplicates: true, duplicateThreshold: 0.6 })).message).toBe('Found 1 potential duplicate pair');
    // 1e20 does not fit the wire's uint32: it was refused as "between 0 and 4294967295", though 0 is refused too.
    for (const maxClusterSize of [0, 1001, 1e20]) {
      await expect(client.clusterMemories('one', { maxClusterSize }), String(maxClusterSize)).rejects.toMatchObject({ kind: 'invalid_argument', field: 'max_cluster_size', message: expect.stringContaining('must be a whole number between 1 and 1000, got') });
    }
    // consolidateMemories takes the same size: -1 and 1.5 said "between 0 and 4294967295" there
    // while 0 said "between 1 and 1000".
    for (const maxClusterSize of [-1, 0, 1.5, 1001, 1e20]) {
      await expect(client.consolidateMemories('one', 'cluster-0123456789abcdef', { maxClusterSize }), String(maxClusterSize)).rejects.toMatchObject({
        kind: 'invalid_argument',
        field: 'max_cluster_size',
        message: `max_cluster_size: must be a whole number between 1 and 1000, got ${maxClusterSize}`,
      });
    }
  });

  test('token similarity without vectors: stable ids, duplicates, a consolidation with lineage, stale ids refused', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), embedder: 'none' });
    const client = await daemon.client();
    const deploy = [
      (await client.put('c', 'The deploy window is Tuesday morning.', { tags: ['ops'] })).fact,
      (await client.put('c', 'The deploy window is Tuesday morning before standup.', { tags: ['release'], confidence: 'verified' })).fact,
    ];
    await client.touch('c', deploy[0]!.id);
    const coffee = [(await client.put('c', 'The coffee machine is on the fourth floor.')).fact, (await client.put('c', 'The coffee machine on the fourth floor is broken.')).fact];
    await client.put('c', 'Alice prefers window seats.');

    const first = await client.clusterMemories('c', { threshold: 0.5 });
    expect(first).toMatchObject({ mode: 'clustering', similarity: 'tokens', threshold: 0.5 });
    expect(first.clusters.map((c) => c.memoryIds)).toEqual([deploy.map((f) => f.id), coffee.map((f) => f.id)]);
    expect((await client.clusterMemories('c', { threshold: 0.5 })).clusters.map((c) => c.id)).toEqual(first.clusters.map((c) => c.id));
    const [cluster] = first.clusters;
    expect(cluster!.id).toMatch(/^cluster-[0-9a-f]{16}$/);
    expect(cluster!.cohesion).toBeGreaterThan(0.5);

    expect(first.message).toBe('Found 2 clusters using similarity strategy');
    const dups = await client.clusterMemories('c', { findDuplicates: true, duplicateThreshold: 0.6 });
    expect(dups).toMatchObject({ mode: 'duplicate_detection', message: `Found ${dups.duplicates.length} potential duplicate pair${dups.duplicates.length === 1 ? '' : 's'}` });
    expect(dups.duplicates.map((d) => [d.id1, d.id2])).toContainEqual([deploy[0]!.id, deploy[1]!.id]);

    const dry = await client.consolidateMemories('c', cluster!.id, { threshold: 0.5 });
    expect(dry).toMatchObject({ mode: 'dry_run', factId: '', retiredIds: [] });
    expect(dry.merged).toEqual({
      text: 'The deploy window is Tuesday morning. The deploy window is Tuesday morning before standup.',
      tags: ['ops', 'release'],
      entities: [],
      useCount: 3,
      strength: 1,
      confidence: 'inferred',
    });
    expect((await client.get('c', deploy[0]!.id)).supersededBy).toBeUndefined();

    const applied = await client.consolidateMemories('c', cluster!.id, { mode: 'apply', threshold: 0.5 });
    expect(applied.retiredIds.sort()).toEqual(deploy.map((f) => f.id).sort());
    const merged = await client.get('c', applied.factId);
    expect(merged).toMatchObject({ text: dry.merged.text, tags: ['ops', 'release'], useCount: 3, confidence: 'inferred' });
    for (const f of deploy) expect((await client.get('c', f.id)).supersededBy).toBe(applied.factId);
    await expect(client.consolidateMemories('c', cluster!.id, { mode: 'apply', threshold: 0.5 })).rejects.toMatchObject({ kind: 'failed_precondition', field: 'cluster_id' });

    // A member edited since the listing makes the id stale; using a member (touch) does not.
    const coffeeCluster = first.clusters[1]!.id;
    await client.touch('c', coffee[0]!.id);
    expect((await client.consolidateMemories('c', coffeeCluster)).mode).toBe('dry_run');
    await client.updateFact('c', { ...(await client.get('c', coffee[1]!.id)), text: 'The coffee machine on the fourth floor is fixed now.' });
    await expect(client.consolidateMemories('c', coffeeCluster, { mode: 'apply' })).rejects.toMatchObject({ kind: 'failed_precondition', message: expect.stringMatching(/no longer exists/) });
    expect((await client.get('c', coffee[0]!.id)).supersededBy).toBeUndefined();
    await expect(client.consolidateMemories('c', 'nope')).rejects.toMatchObject({ field: 'cluster_id' });
    // Facts written without full stops are merged as separate sentences, not run together.
    const plain = [(await client.put('c2', 'Bob likes green tea')).fact, (await client.put('c2', 'Bob likes green tea in the morning')).fact];
    const [teaCluster] = (await client.clusterMemories('c2', { threshold: 0.5 })).clusters;
    expect(teaCluster!.memoryIds).toEqual(plain.map((f) => f.id));
    expect((await client.consolidateMemories('c2', teaCluster!.id, { threshold: 0.5 })).merged.text).toBe('Bob likes green tea. Bob likes green tea in the morning');

    // A size the wire cannot carry is refused before sending, in the range the daemon accepts
    // (not the wire's "between 0 and 4294967295", which 0 is not in).
    await expect(client.clusterMemories('c', { maxClusterSize: -1 })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'max_cluster_size', message: 'max_cluster_size: must be a whole number between 1 and 1000, got -1' });
    await expect(client.clusterMemories('c', { maxClusterSize: 0 })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'max_cluster_size', message: 'max_cluster_size: must be a whole number between 1 and 1000, got 0' });
  });

  test('a merged fact pinned as a member was has the earliest pin time of its pinned members, and context orders it by that', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), embedder: 'none' });
    const client = await daemon.client();
    const [a, b] = [(await client.put('q', 'Backups run at midnight.')).fact, (await client.put('q', 'Backups run at midnight on weekdays.')).fact];
    const other = (await client.put('q', 'Penguins cannot fly.')).fact;
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    // Pinned in turn: b, then the unrelated fact, then a (each a later pin time).
    const pinnedB = await client.pin('q', b.id);
    await tick();
    await client.pin('q', other.id);
    await tick();
    await client.pin('q', a.id);
    const [cluster] = (await client.clusterMemories('q', { threshold: 0.5 })).clusters;
    expect(cluster!.memoryIds).toEqual([a.id, b.id]);
    const { factId } = await client.consolidateMemories('q', cluster!.id, { mode: 'apply', threshold: 0.5 });
    expect(await client.get('q', factId)).toMatchObject({ pinned: true, pinnedAt: pinnedB.pinnedAt });
    const cli = await runEngram(['get', 'q', factId, '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(JSON.parse(cli.stdout).fact).toMatchObject({ pinned: true, pinned_at: new Date(pinnedB.pinnedAt!).toISOString() });
    // Most recently pinned first: the unrelated fact (pinned after b) stays ahead of the merge.
    const pinned = (await client.assembleContext('q', '')).items.filter((i) => i.kind === 'pinned').map((i) => i.id);
    expect(pinned).toEqual([other.id, factId]);
  });

  test("a pinned member's pin goes to the merged fact; a merge over the text limit is refused by the preview as by apply", async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), embedder: 'none' });
    const client = await daemon.client();
    const rules = [(await client.put('p', 'Deploys happen on Friday afternoon.')).fact, (await client.put('p', 'Deploys happen on Friday afternoon after review.')).fact];
    await client.pin('p', rules[1]!.id);
    const [rule] = (await client.clusterMemories('p', { threshold: 0.5 })).clusters;
    expect((await client.consolidateMemories('p', rule!.id, { threshold: 0.5 })).message).toBe('Would merge 2 memories into one (pinned, as a member was)');
    const applied = await client.consolidateMemories('p', rule!.id, { mode: 'apply', threshold: 0.5 });
    expect(await client.get('p', applied.factId)).toMatchObject({ pinned: true, text: 'Deploys happen on Friday afternoon. Deploys happen on Friday afternoon after review.' });

    // Three facts of ~13 KB whose sentences differ, over the same words: they cluster, and
    // their merge would be ~40 KB, over a fact's 32 KB.
    const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda sigma tau upsilon phi chi psi omega rho nu'.split(' ');
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const sentence = () => Array.from({ length: 8 }, () => words[next() % words.length]).join(' ') + '.';
    const long = Array.from({ length: 3 }, () => Array.from({ length: 300 }, sentence).join(' '));
    for (const text of long) await client.put('big', text);
    const [big] = (await client.clusterMemories('big', { threshold: 0.5 })).clusters;
    expect(big!.memoryIds).toHaveLength(3);
    for (const mode of ['dry_run', 'apply'] as const) {
      await expect(client.consolidateMemories('big', big!.id, { mode, threshold: 0.5 })).rejects.toMatchObject({ kind: 'failed_precondition', field: 'cluster_id', message: expect.stringMatching(/merged text would be \d+ bytes, over the 32768-byte limit/) });
    }
    expect((await client.list('big')).facts.every((f) => !f.supersededBy)).toBe(true);
    // An id this daemon never listed is not found, not called stale.
    await expect(client.consolidateMemories('c', 'cluster-0123456789abcdef')).rejects.toMatchObject({ kind: 'not_found', field: 'cluster_id', message: expect.stringMatching(/^cluster_id: no current cluster cluster-0123456789abcdef in "c": list the clusters again/) });
  });

  test('vector similarity when every fact has a vector', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), embedder: 'local' });
    const client = await daemon.client();
    await client.put('v', 'The cat sleeps on the sofa.');
    await client.put('v', 'The cat is sleeping on the couch.');
    await client.put('v', 'Quarterly revenue grew by ten percent.');
    const r = await client.clusterMemories('v', { threshold: 0.8 });
    expect(r.similarity).toBe('vector');
    expect(r.clusters).toHaveLength(1);
    expect(r.clusters[0]!.contentPreviews).toEqual(['The cat sleeps on the sofa.', 'The cat is sleeping on the couch.']);
  });
});
