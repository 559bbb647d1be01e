// The knowledge graph against real daemons: typed relations between live facts, the
// neighbourhood of a fact and of an entity, relations moved to a successor or dropped when a
// fact is retired or erased (none is ever left pointing at a fact that is gone), entity links
// as transactional patches, typed entities extracted with --kg, and doctor's graph check.
import { describe, expect, test } from 'vitest';
import { useDaemon, useDaemonPool } from './fixtures/daemon.ts';
import { openStdio } from './fixtures/mcp.ts';
import { join } from 'node:path';
import { LevelStore } from '../daemon/store/level/level-store.ts';

const pool = useDaemonPool();
// One daemon with the default settings and one with --kg, shared by the tests that need nothing
// else of a daemon: each test keeps to namespaces of its own, and every call it makes reads or
// writes only those. Tests that restart a daemon, edit its store, run doctor (which checks the
// whole store) or configure it otherwise start their own.
const shared = useDaemon();
const sharedKg = useDaemon({ args: ['--kg'] });
/** Keyword order only, so which fact ranks first is plain to see. */
const KW = { keyword: 1, recency: 0 };

describe('knowledge graph', () => {
  test('Relate adds typed relations between live facts; the graph reads both ways; bad input changes nothing', async () => {
    const { client } = shared;
    const decision = (await client.put('g', 'We chose PostgreSQL for the billing service.')).fact;
    const reason = (await client.put('g', 'Billing needs transactions across accounts.', { entities: ['billing'] })).fact;
    const outage = (await client.put('g', 'The billing outage in March was caused by a lock timeout.')).fact;

    const first = await client.relate('g', reason.id, 'supports', decision.id);
    expect(first).toMatchObject({ changed: true, replayed: false });
    expect(first.fact.relations).toEqual([{ type: 'supports', targetId: decision.id, createdAt: expect.any(Number) }]);
    expect((await client.relate('g', reason.id, 'supports', decision.id)).changed).toBe(false);
    await client.relate('g', outage.id, 'causes', reason.id);

    const view = await client.readGraph('g', { factId: reason.id });
    expect(view.edges).toEqual(
      expect.arrayContaining([
        { from: reason.id, to: decision.id, type: 'supports', weight: 1 },
        { from: outage.id, to: reason.id, type: 'causes', weight: 1 },
        { from: reason.id, to: 'entity:billing', type: 'mentions', weight: 1 },
      ]),
    );
    expect(view.nodes.find((n) => n.id === decision.id)).toMatchObject({ kind: 'fact', type: 'fact', live: true, label: decision.text });
    expect(view.nodes.find((n) => n.id === 'entity:billing')).toMatchObject({ kind: 'entity', label: 'billing' });

    await expect(client.relate('g', reason.id, 'likes' as never, decision.id)).rejects.toMatchObject({ kind: 'invalid_argument', field: 'type' });
    await expect(client.relate('g', reason.id, 'related', reason.id)).rejects.toMatchObject({ kind: 'invalid_argument', field: 'to_id' });
    await expect(client.relate('g', reason.id, 'related', '01ARZ3NDEKTSV4RRFFQ69G5FAV')).rejects.toMatchObject({ kind: 'not_found' });
    await client.forget('g', outage.id);
    await expect(client.relate('g', decision.id, 'related', outage.id)).rejects.toMatchObject({ kind: 'failed_precondition', field: 'to_id' });
    expect((await client.get('g', decision.id)).relations).toEqual([]);

    const removed = await client.relate('g', reason.id, 'supports', decision.id, { remove: true });
    expect(removed).toMatchObject({ changed: true, fact: { relations: [] } });
  });

  test('retiring or erasing a fact moves its relations to its successor or drops them: none dangles', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client();
    const put = async (text: string) => (await client.put('m', text)).fact;
    const hub = await put('The team standup is at 9:30.');
    const [a, b, c, d] = [await put('Standup moved to 9:30 in May.'), await put('Alice runs the standup.'), await put('Standups are fifteen minutes.'), await put('Bob skips Friday standups.')];
    for (const f of [a, b, c, d]) await client.relate('m', hub.id, 'related', f.id);
    await client.relate('m', a.id, 'supports', b.id);

    // Revised: links to it follow the replacement, and its own links move there.
    const revised = await client.revise('m', [a.id], 'The standup moved to 9:30 in May 2026.');
    expect((await client.get('m', hub.id)).relations.map((r) => r.targetId)).toEqual([revised.replacement.id, b.id, c.id, d.id]);
    expect((await client.get('m', revised.replacement.id)).relations).toEqual([{ type: 'supports', targetId: b.id, createdAt: expect.any(Number) }]);

    // Forgotten, archived by gc, erased: links to it are dropped in the same commit.
    await client.forget('m', b.id);
    expect((await client.get('m', revised.replacement.id)).relations).toEqual([]);
    await client.delete('m', c.id);
    expect((await client.get('m', hub.id)).relations.map((r) => r.targetId)).toEqual([revised.replacement.id, d.id]);

    let report: { checks: { name: string; ok: boolean; detail: string }[] } | undefined;
    for await (const event of client.doctor()) report = event.report ?? report;
    expect(report!.checks.find((ch) => ch.name === 'knowledge graph')).toMatchObject({ ok: true, detail: expect.stringMatching(/2 relations/) });
    await client.close();
    await daemon.stop();

    // The relations are in the store: a restarted daemon reads the same graph.
    const again = await pool.start({ dataDir: daemon.dataDir });
    const reopened = await again.client();
    const view = await reopened.readGraph('m', { factId: hub.id });
    expect(view.edges.filter((e) => e.type === 'related').map((e) => e.to).sort()).toEqual([revised.replacement.id, d.id].sort());
    expect(view.nodes.every((n) => n.kind === 'entity' || n.live)).toBe(true);
  });

  test('gc drops the links to the facts it collects', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--forget-threshold', '5', '--consolidate-every', '0'] });
    const client = await daemon.client();
    const keep = (await client.put('gc', 'Pinned: the office address.')).fact;
    await client.pin('gc', keep.id);
    const faded = (await client.put('gc', 'A passing remark about the weather.')).fact;
    await client.relate('gc', keep.id, 'related', faded.id);
    const result = await client.collectGarbage('gc', { dryRun: false, archiveInstead: true });
    expect(result.factIds).toEqual([faded.id]);
    expect((await client.get('gc', keep.id)).relations).toEqual([]);
  });

  test('two entity links on one fact at once both land (a transactional patch)', async () => {
    const { client } = shared;
    const facts = await Promise.all(Array.from({ length: 20 }, async (_, i) => (await client.put('e', `Fact number ${i} about the project.`)).fact));
    await Promise.all(facts.flatMap((f) => [client.linkEntity('e', f.id, 'alpha'), client.linkEntity('e', f.id, 'beta', { type: 'project' })]));
    for (const f of facts) {
      const stored = await client.get('e', f.id);
      expect(stored.entities.sort()).toEqual(['alpha', 'beta']);
      expect(stored.entityTypes).toEqual({ beta: 'project' });
    }
    const around = await client.readGraph('e', { entity: 'Beta' }, { limit: 5 });
    expect(around.edges.filter((e) => e.type === 'mentions')).toHaveLength(5);
    expect(around.edges).toContainEqual({ from: 'entity:beta', to: 'entity:alpha', type: 'co_mention', weight: 20 });
    await expect(client.readGraph('e', { entity: '' })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'entity' });
    expect(around.nodes.find((n) => n.id === 'entity:beta')).toMatchObject({ live: true, type: 'project' });
    // The same entity in another case is that entity: its type changes, no second label appears.
    const retyped = await client.linkEntity('e', facts[0]!.id, 'BETA', { type: 'codename' });
    expect([retyped.entities.sort(), retyped.entityTypes]).toEqual([['alpha', 'beta'], { beta: 'codename' }]);
    await expect(client.linkEntity('e', facts[0]!.id, 'x'.repeat(300))).rejects.toMatchObject({ kind: 'invalid_argument', field: 'entity' });
    // An entity no live fact names is not found, as an unknown fact is (no empty neighbourhood).
    await expect(client.readGraph('e', { entity: 'Nobody' })).rejects.toMatchObject({ kind: 'not_found', message: 'entity: no live fact in namespace "e" names entity "Nobody"', field: 'entity' });
  });

  test('with --kg, a fact written without entities gets the typed entities its text names', async () => {
    const { client } = sharedKg;
    const fact = (await client.put('k', 'Caroline met Melanie in Seattle to plan the Google workshop.')).fact;
    expect(fact.entities).toEqual(expect.arrayContaining(['caroline', 'melanie', 'seattle']));
    expect(fact.entityTypes).toMatchObject({ caroline: 'person', melanie: 'person', seattle: 'place' });
    const given = (await client.put('k', 'Caroline likes hiking.', { entities: ['hiking'] })).fact;
    expect(given.entities).toEqual(['hiking']);
    const view = await client.readGraph('k', { entity: 'caroline' });
    expect(view.edges.filter((e) => e.type === 'mentions').map((e) => e.from)).toEqual([fact.id]);
  });

  test('recall with the graph: at most three neighbour hints after the ranked facts, under the seed\'s rules', async () => {
    const { client } = sharedKg;
    const put = async (text: string, entities: string[]) => (await client.put('h', text, { entities })).fact;
    const top = await put('The quarterly billing report is due on Friday.', ['billing', 'report']);
    const related = [await put('Finance reviews every report before it ships.', ['finance']), await put('Ship reports as PDF files.', ['pdf']), await put('Legal signs off the annual filing.', ['legal'])];
    for (const f of related) await client.relate('h', top.id, 'related', f.id);
    await put('The billing system runs on Stripe.', ['billing', 'stripe']);
    const retired = await put('Old: billing reports went out on Mondays.', ['billing']);
    await client.relate('h', retired.id, 'contradicts', top.id);
    await client.forget('h', retired.id);

    const plain = await client.recall('h', 'quarterly billing report due', { topK: 1, weights: KW });
    expect(plain.facts.map((f) => f.id)).toEqual([top.id]);
    expect(plain.retrieval.kg).toBe('hints_without_confidence_receipts');
    expect(plain.hints).toEqual(related.map((f) => ({ label: f.text, kind: 'fact', factId: f.id, relation: 'related', via: top.id })));

    // A ranked fact is never repeated as a hint; entities named with the returned facts' fill in.
    const two = await client.recall('h', 'quarterly billing report due', { topK: 2, weights: KW });
    const hinted = new Set(two.hints.map((h) => h.factId).filter(Boolean));
    for (const f of two.facts) expect(hinted.has(f.id)).toBe(false);
    expect(two.hints.length).toBeLessThanOrEqual(3);
    expect(two.hints.map((h) => h.label)).not.toContain(retired.text);

    const entities = await client.recall('h', 'Stripe', { topK: 1, weights: KW });
    expect(entities.hints).toEqual([{ label: 'report', kind: 'entity', factId: '', relation: 'co_mention', via: entities.facts[0]!.id }]);

    const filtered = await client.recall('h', 'quarterly billing report due', { topK: 1, weights: KW, minConfidence: 'unverified' });
    expect(filtered).toMatchObject({ hints: [], retrieval: { kg: 'suppressed_min_confidence' } });
    const explained = await client.recallExplain('h', 'quarterly billing report due', { topK: 1, weights: KW });
    expect(explained.hints).toEqual([]);
    expect(explained.receipts[0]!.kgLinks).toEqual([...related.map((f) => `related:${f.id}`), 'mentions:billing', 'mentions:report']);
    expect((await client.recall('h', 'quarterly billing report due', { topK: 1, weights: KW, kg: false })).hints).toEqual([]);

    // Without the graph: no hint tail unless a call asks for one.
    const offClient = shared.client;
    const a = (await offClient.put('o', 'Alpha project kickoff is Monday.')).fact;
    const b = (await offClient.put('o', 'Beta depends on alpha.')).fact;
    await offClient.relate('o', b.id, 'causes', a.id);
    expect(await offClient.recall('o', 'kickoff Monday', { topK: 1, weights: KW })).toMatchObject({ hints: [], retrieval: { kg: '' } });
    expect((await offClient.recall('o', 'kickoff Monday', { topK: 1, weights: KW, kg: true })).hints).toEqual([{ label: b.text, kind: 'fact', factId: b.id, relation: 'causes', via: a.id }]);
  });

  test('memory_reflect link over MCP: concurrent links on one fact all land; an older daemon still links (UpdateFact)', async () => {
    const { daemon, client } = shared;
    const facts = await Promise.all(Array.from({ length: 10 }, async (_, i) => (await client.put('mcp', `MCP fact ${i} to link.`)).fact));
    const mcp = await openStdio(['--data-dir', daemon.dataDir]);
    try {
      await Promise.all(facts.flatMap((f) => ['red', 'green', 'blue'].map((entity) => mcp.ok('memory_reflect', { action: 'link', agent_id: 'mcp', target: f.id, text: entity }))));
      for (const f of facts) expect((await client.get('mcp', f.id)).entities.sort()).toEqual(['blue', 'green', 'red']);
      await mcp.ok('memory_reflect', { action: 'link', agent_id: 'mcp', target: facts[0]!.id, text: facts[1]!.text, relation: 'supports' });
      expect((await client.get('mcp', facts[0]!.id)).relations.map((r) => [r.type, r.targetId])).toEqual([['supports', facts[1]!.id]]);
    } finally {
      await mcp.close();
    }

    const old = await pool.start({ dataDir: pool.newDir(), args: ['--compat', 'v0.2'] });
    const oldClient = await old.client();
    const fact = (await oldClient.put('old', 'A fact on an older daemon.')).fact;
    const oldMcp = await openStdio(['--data-dir', old.dataDir]);
    try {
      await oldMcp.ok('memory_reflect', { action: 'link', agent_id: 'old', target: fact.id, text: 'legacy' });
      expect((await oldClient.get('old', fact.id)).entities).toEqual(['legacy']);
      expect(await oldMcp.fails('memory_relate', { agent_id: 'old', from_id: fact.id, to_id: fact.id, type: 'related' })).toMatch(/kg-v1|update|restart/i);
    } finally {
      await oldMcp.close();
    }
  });

  test('the graph signal ranks the facts naming the query\'s entities, then their related facts; weight 0 by default', async () => {
    const { client } = shared;
    const put = async (text: string, entities: string[]) => (await client.put('s', text, { entities })).fact;
    const met = await put('Ana met her new mentor at the conference.', ['ana', 'mentor']);
    const works = await put('The mentor works for a robotics startup.', ['mentor', 'robotics']);
    await put('Lunch was pasta.', ['pasta']);
    await client.relate('s', met.id, 'related', works.id);
    const startup = await put('The startup builds warehouse robots.', ['startup']);
    await client.relate('s', works.id, 'related', startup.id);

    const graphOnly = { vector: 0, keyword: 0, recency: 0, graph: 1 };
    const r = await client.recallExplain('s', 'who is Ana', { topK: 3, weights: graphOnly });
    expect(r.receipts.map((x) => x.provenance.factId)).toEqual([met.id, works.id, expect.any(String)]);
    expect(r.receipts.map((x) => x.ranks.graphRank)).toEqual([1, 2, 0]);
    expect(r.retrieval.signals).toEqual(['graph']);
    // Off by default: the daemon's weights leave it out.
    expect((await client.recall('s', 'who is Ana')).retrieval).toMatchObject({ weights: { graph: 0 } });
    expect((await client.recall('s', 'who is Ana')).retrieval.signals).not.toContain('graph');
    await expect(client.recall('s', 'x', { weights: { graph: -1 } })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'options.signal_weights.graph' });
  });

  test('doctor finds a relation to a fact that is gone (written behind the daemon\'s back), and --rebuild drops it', async () => {
    const dataDir = pool.newDir();
    const daemon = await pool.start({ dataDir });
    const client = await daemon.client();
    const a = (await client.put('d', 'Fact A of the doctor test.')).fact;
    const b = (await client.put('d', 'Fact B of the doctor test.')).fact;
    await client.relate('d', a.id, 'supports', b.id);
    client.close();
    await daemon.stop();

    // Another program edits the store: a's relations now also name a fact that never existed.
    const store = await LevelStore.open(join(dataDir, 'store'));
    const [stored] = await store.getFacts([{ agentId: 'd', factId: a.id }]);
    const ghost = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    await store.commit([{ type: 'putFact', before: stored!, fact: { ...stored!, relations: [...stored!.relations, { type: 'causes', targetId: ghost, createdAt: 1 }] }, derived: 'unchanged' }]);
    await store.close();

    const again = await pool.start({ dataDir });
    const reopened = await again.client();
    const report = async (rebuild: boolean) => {
      let last: { checks: { name: string; ok: boolean; detail: string }[]; healthy: boolean } | undefined;
      for await (const event of reopened.doctor({ rebuild })) last = event.report ?? last;
      return last!;
    };
    const found = await report(false);
    expect(found.healthy).toBe(false);
    expect(found.checks.find((c) => c.name === 'knowledge graph')).toMatchObject({ ok: false, detail: expect.stringMatching(/^1 of 2 relations point at a missing or retired fact/) });
    expect((await report(true)).healthy).toBe(true);
    expect((await reopened.get('d', a.id)).relations.map((r) => r.targetId)).toEqual([b.id]);
    expect((await report(false)).checks.find((c) => c.name === 'knowledge graph')!.ok).toBe(true);
  });

  test('erasing a retired fact keeps its successor recallable and points what it replaced at that successor', async () => {
    const { client } = shared;
    const a = (await client.put('e2', 'The backup runs at midnight.')).fact;
    const b = (await client.revise('e2', [a.id], 'The backup runs at one in the morning.')).replacement;
    const c = (await client.revise('e2', [b.id], 'The backup runs at two in the morning.')).replacement;
    await client.delete('e2', b.id);
    expect((await client.get('e2', a.id)).supersededBy).toBe(c.id);
    expect((await client.get('e2', c.id)).replaces).toEqual([a.id]);
    expect((await client.recall('e2', 'backup morning', { topK: 1 })).facts.map((f) => f.id)).toEqual([c.id]);
  });
});
