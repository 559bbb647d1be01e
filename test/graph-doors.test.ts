// Relations, graph reads, entity links, consolidation runs and the hint tail through every front
// door (the library, the CLI, REST, MCP over stdio and over HTTP) against one real daemon with the
// graph on and every fact faded: each door relates, reads and consolidates alike, and refuses the
// same bad input without writing anything.
import { describe, expect, test } from 'vitest';
import { useDoors } from './fixtures/doors.ts';
import type { McpSession } from './fixtures/mcp.ts';

interface Door {
  relate(agent: string, from: string, type: string, to: string): Promise<{ changed: boolean; relations: { type: string; target_id: string }[] }>;
  /** Edges around a fact, as "from type to". */
  graph(agent: string, factId: string): Promise<string[]>;
  link(agent: string, factId: string, entity: string): Promise<string[]>;
  consolidate(agent: string, dryRun: boolean): Promise<{ sourceIds: string[]; retiredIds: string[]; summaryId: string | null; text: string }>;
  /** The labels of the hints after a recall of one fact. */
  hints(agent: string, query: string): Promise<string[]>;
}

// Every fresh fact scores about 1: below 5, so every unpinned fact is consolidated; --kg for the hints.
const doors = useDoors(['--kg', '--consolidate-below', '5', '--consolidate-every', '0']);
const edges = (view: { edges: { from: string; to: string; type: string }[] }) => view.edges.map((e) => `${e.from} ${e.type} ${e.to}`).sort();
const relationsJson = (rs: { type: string; targetId: string }[]) => rs.map((r) => ({ type: r.type, target_id: r.targetId }));
const KW = { keyword: 1, recency: 0 };

const library: Door = {
  async relate(agent, from, type, to) {
    const r = await doors.client.relate(agent, from, type as never, to);
    return { changed: r.changed, relations: relationsJson(r.fact.relations) };
  },
  graph: async (agent, factId) => edges(await doors.client.readGraph(agent, { factId })),
  link: async (agent, factId, entity) => (await doors.client.linkEntity(agent, factId, entity)).entities,
  async consolidate(agent, dryRun) {
    const r = await doors.client.consolidate(agent, { dryRun });
    return { sourceIds: r.sourceIds, retiredIds: r.retiredIds, summaryId: r.summary?.id ?? null, text: r.text };
  },
  hints: async (agent, query) => (await doors.client.recall(agent, query, { topK: 1, weights: KW })).hints.map((h) => h.label),
};

const cliDoor: Door = {
  async relate(agent, from, type, to) {
    const r = await doors.cli(['relate', agent, from, type, to]);
    return { changed: r.changed, relations: r.fact.relations.map(({ type: t, target_id }: any) => ({ type: t, target_id })) };
  },
  graph: async (agent, factId) => edges(await doors.cli(['graph', agent, '--fact', factId])),
  link: async (agent, factId, entity) => (await doors.cli(['link', agent, factId, entity])).fact.entities,
  async consolidate(agent, dryRun) {
    const r = await doors.cli(['consolidate', agent, ...(dryRun ? ['--dry-run'] : [])]);
    return { sourceIds: r.source_ids, retiredIds: r.retired_ids, summaryId: r.summary?.id ?? null, text: r.text };
  },
  hints: async (agent, query) => (await doors.cli(['recall', agent, query, '-k', '1', '--weights', '0,1,0'])).kg_hints.map((h: any) => h.label),
};

const restDoor: Door = {
  async relate(agent, from, type, to) {
    const r = await doors.rest('POST', '/v1/relations', { agent_id: agent, from_id: from, to_id: to, type });
    return { changed: r.changed, relations: r.fact.relations.map(({ type: t, target_id }: any) => ({ type: t, target_id })) };
  },
  graph: async (agent, factId) => edges(await doors.rest('GET', `/v1/graph?agent_id=${agent}&fact_id=${factId}`)),
  link: async (agent, factId, entity) => (await doors.rest('POST', `/v1/facts/${factId}/entities`, { agent_id: agent, entity })).fact.entities,
  async consolidate(agent, dryRun) {
    const r = await doors.rest('POST', '/v1/consolidations', { agent_id: agent, dry_run: dryRun });
    return { sourceIds: r.source_ids, retiredIds: r.retired_ids, summaryId: r.summary?.id ?? null, text: r.text };
  },
  // REST recall has no per-call weights: the query names one fact only.
  hints: async (agent, query) => (await doors.rest('GET', `/v1/recall?agent_id=${agent}&query=${encodeURIComponent(query)}&top_k=1`)).kg_hints.map((h: any) => h.label),
};

const mcpDoor = (session: () => McpSession): Door => ({
  async relate(agent, from, type, to) {
    const r = await session().ok<{ changed: boolean; fact: any }>('memory_relate', { agent_id: agent, from_id: from, to_id: to, type });
    return { changed: r.changed, relations: r.fact.relations.map(({ type: t, target_id }: any) => ({ type: t, target_id })) };
  },
  graph: async (agent, factId) => edges(await session().ok<{ edges: any[] }>('read_graph', { agent_id: agent, fact_id: factId })),
  async link(agent, factId, entity) {
    await session().ok('memory_reflect', { action: 'link', agent_id: agent, target: factId, text: entity });
    return (await session().ok<{ fact: any }>('memory_get', { agent_id: agent, fact_id: factId })).fact.entities;
  },
  async consolidate(agent, dryRun) {
    const r = await session().ok<any>('memory_consolidate', { agent_id: agent, dry_run: dryRun });
    return { sourceIds: r.source_ids, retiredIds: r.retired_ids, summaryId: r.summary?.id ?? null, text: r.text };
  },
  hints: async (agent, query) => ((await session().ok<{ kg_hints?: any[] }>('memory_search', { agent_id: agent, query, top_k: 1 })).kg_hints ?? []).map((h) => h.label),
});

const DOORS: [string, Door][] = [
  ['library', library],
  ['cli', cliDoor],
  ['rest', restDoor],
  ['mcp stdio', mcpDoor(() => doors.stdio)],
  ['mcp http', mcpDoor(() => doors.http)],
];

describe('the knowledge graph and consolidation through every door', () => {
  test('relate, read the graph, link an entity, recall with hints, and consolidate, alike on every door', async () => {
    for (const [name, door] of DOORS) {
      const agent = `graph-${name.replace(' ', '-')}`;
      const put = async (text: string, entities: string[]) => (await doors.client.put(agent, text, { entities })).fact.id;
      const decision = await put('Zebrafish tanks are cleaned on Thursdays.', ['tanks']);
      const reason = await put('Algae grows fast in warm water.', ['algae']);
      const pinned = await put('Never use bleach near the tanks.', ['bleach']);
      await doors.client.pin(agent, pinned);

      expect(await door.relate(agent, reason, 'supports', decision), name).toEqual({ changed: true, relations: [{ type: 'supports', target_id: decision }] });
      expect((await door.relate(agent, reason, 'supports', decision)).changed, name).toBe(false);
      await door.relate(agent, pinned, 'related', decision);
      expect(await door.graph(agent, decision), name).toEqual([`${decision} mentions entity:tanks`, `${pinned} related ${decision}`, `${reason} supports ${decision}`].sort());
      expect(await door.link(agent, decision, 'Water'), name).toEqual(['tanks', 'Water']);
      expect(await door.hints(agent, 'zebrafish thursdays'), name).toEqual(expect.arrayContaining(['Algae grows fast in warm water.', 'Never use bleach near the tanks.']));

      // Two faded facts: fewer than three, nothing to summarise until a third arrives.
      expect(await door.consolidate(agent, true), name).toMatchObject({ sourceIds: [], summaryId: null });
      const thermometer = await put('The tank thermometer reads 26 degrees.', ['thermometer']);
      const dry = await door.consolidate(agent, true);
      expect(dry, name).toMatchObject({ sourceIds: [decision, reason, thermometer], retiredIds: [], summaryId: null });
      const run = await door.consolidate(agent, false);
      expect(run, name).toMatchObject({ retiredIds: [decision, reason, thermometer], text: dry.text });
      expect(run.summaryId, name).toMatch(/^[0-9A-Z]{26}$/);
      // The pinned fact's link to a consolidated source now points at the summary.
      expect((await doors.client.get(agent, pinned)).relations.map((r) => r.targetId), name).toEqual([run.summaryId]);
    }
  });

  test('relate and link answer the fact with the access counts a read shows, on every door (they answered 0 and no last access after recalls)', async () => {
    type Seen = { count: number; last: unknown };
    const json = (fact: { access_count: number; last_accessed_at: string | null }): Seen => ({ count: fact.access_count, last: fact.last_accessed_at });
    const mcpRelate = (session: () => McpSession) => async (agent: string, from: string, to: string) => json((await session().ok<{ fact: any }>('memory_relate', { agent_id: agent, from_id: from, to_id: to, type: 'related' })).fact);
    const relate: [string, (agent: string, from: string, to: string) => Promise<Seen>][] = [
      ['library', async (agent, from, to) => {
        const { fact } = await doors.client.relate(agent, from, 'related', to);
        return { count: fact.accessCount, last: fact.lastAccessedAt };
      }],
      ['cli', async (agent, from, to) => json((await doors.cli(['relate', agent, from, 'related', to])).fact)],
      ['rest', async (agent, from, to) => json((await doors.rest('POST', '/v1/relations', { agent_id: agent, from_id: from, to_id: to, type: 'related' })).fact)],
      ['mcp stdio', mcpRelate(() => doors.stdio)],
      ['mcp http', mcpRelate(() => doors.http)],
    ];
    const link: Record<string, (agent: string, factId: string, entity: string) => Promise<Seen>> = {
      library: async (agent, factId, entity) => {
        const fact = await doors.client.linkEntity(agent, factId, entity);
        return { count: fact.accessCount, last: fact.lastAccessedAt };
      },
      cli: async (agent, factId, entity) => json((await doors.cli(['link', agent, factId, entity])).fact),
      rest: async (agent, factId, entity) => json((await doors.rest('POST', `/v1/facts/${factId}/entities`, { agent_id: agent, entity })).fact),
    };
    for (const [name, relateOn] of relate) {
      const agent = `seen-${name.replace(' ', '-')}`;
      const from = (await doors.client.put(agent, 'Green tea is brewed at eighty degrees.')).fact.id;
      const to = (await doors.client.put(agent, 'The kettle has a temperature dial.')).fact.id;
      for (let i = 0; i < 3; i++) await doors.client.recall(agent, 'green tea', { topK: 1, weights: KW });
      const read = await doors.client.get(agent, from);
      expect(read.accessCount, name).toBe(3);
      const seen = (last: unknown) => (typeof last === 'string' ? Date.parse(last) : last);
      const expected = { count: 3, last: read.lastAccessedAt };
      // The relation made, then the same one again (which changes nothing).
      for (let i = 0; i < 2; i++) {
        const answer = await relateOn(agent, from, to);
        expect({ ...answer, last: seen(answer.last) }, name).toEqual(expected);
      }
      // An entity linked, then the same one again.
      for (let i = 0; link[name] && i < 2; i++) {
        const answer = await link[name]!(agent, from, 'green tea');
        expect({ ...answer, last: seen(answer.last) }, name).toEqual(expected);
      }
    }
  });

  test('bad input is refused by every door, naming the field, and changes nothing', async () => {
    const agent = 'graph-bad';
    const a = (await doors.client.put(agent, 'Fact alpha for refusals.')).fact.id;
    const b = (await doors.client.put(agent, 'Fact beta for refusals.')).fact.id;
    const run = await (await import('./fixtures/cli.ts')).runEngram(['relate', agent, a, 'likes', b], { dataDir: doors.daemon.dataDir, cwd: doors.daemon.dataDir });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/type must be one of related, causes/);
    const res = await fetch(`http://${doors.daemon.discovery.httpAddress}/v1/relations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${doors.daemon.discovery.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agent, from_id: a, to_id: b, type: 'likes' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.field).toBe('type');
    // A query parameter is named as sent (it is not the {id} of a fact's path).
    const graph = await fetch(`http://${doors.daemon.discovery.httpAddress}/v1/graph?agent_id=${agent}&fact_id=bad`, { headers: { authorization: `Bearer ${doors.daemon.discovery.token}` } });
    expect(graph.status).toBe(400);
    expect(((await graph.json()) as any).error).toMatchObject({ field: 'fact_id', message: expect.stringMatching(/^fact_id: "bad" is not a fact id/) });
    for (const session of [doors.stdio, doors.http]) {
      expect(await session.fails('memory_relate', { agent_id: agent, from_id: a, to_id: b, type: 'likes' })).toMatch(/type/);
      expect(await session.fails('memory_relate', { agent_id: agent, from_id: a, to_id: a, type: 'related' })).toMatch(/to_id/);
      expect(await session.fails('read_graph', { agent_id: agent })).toMatch(/fact_id/);
      expect(await session.fails('memory_reflect', { action: 'pin', agent_id: agent, target: a, relation: 'causes' })).toMatch(/relation is supported only by memory_reflect link/);
    }
    // An id no fact has: b with its last character changed (to Z, or to Y when it is a Z already).
    const missing = b.replace(/.$/, (last) => (last === 'Z' ? 'Y' : 'Z'));
    await expect(doors.client.relate(agent, a, 'related', missing)).rejects.toMatchObject({ kind: 'not_found' });
    expect((await doors.client.get(agent, a)).relations).toEqual([]);
  });

  test('MCP memory_relate takes fact ids only and refuses a bad one as every other door does, naming from_id or to_id; memory_reflect link still names facts by exact text', async () => {
    const agent = 'graph-ids';
    const text = 'Fact gamma is named by its text.';
    const a = (await doors.client.put(agent, text)).fact.id;
    const b = (await doors.client.put(agent, 'Fact delta for relations.')).fact.id;
    const restError = async (from: string, to: string) => {
      const res = await fetch(`http://${doors.daemon.discovery.httpAddress}/v1/relations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${doors.daemon.discovery.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: agent, from_id: from, to_id: to, type: 'related' }),
      });
      expect(res.status).toBe(400);
      return ((await res.json()) as any).error as { field: string; message: string };
    };
    for (const [from, to, field] of [['bad', b, 'from_id'], [a, 'bad', 'to_id'], [text, b, 'from_id'], [a, text, 'to_id']] as const) {
      const rest = await restError(from, to);
      expect(rest.field).toBe(field);
      expect(rest.message).toMatch(new RegExp(`^${field}: ".*" is not a fact id \\(26 characters, Crockford base32\\)`));
      await expect(doors.client.relate(agent, from, 'related', to)).rejects.toMatchObject({ kind: 'invalid_argument', field, message: rest.message });
      const cli = await (await import('./fixtures/cli.ts')).runEngram(['relate', agent, from, 'related', to], { dataDir: doors.daemon.dataDir, cwd: doors.daemon.dataDir });
      expect(cli.code).not.toBe(0);
      // The CLI names its own argument (<from-id>), then says the same.
      expect(cli.stderr).toContain(`<${field.replace('_', '-')}>${rest.message.slice(field.length)}`);
      for (const session of [doors.stdio, doors.http]) expect(await session.fails('memory_relate', { agent_id: agent, from_id: from, to_id: to, type: 'related' })).toBe(`memory_relate failed: ${rest.message}`);
    }
    expect((await doors.client.get(agent, a)).relations).toEqual([]);
    // memory_reflect link names its facts as every reflect action does, by fact_id or exact text;
    // a text naming none is refused naming the argument that sent it.
    for (const session of [doors.stdio, doors.http]) {
      expect(await session.fails('memory_reflect', { action: 'link', agent_id: agent, target: a, text: 'no such fact', relation: 'supports' })).toMatch(/text fact not found: no live fact has id or exact text "no such fact"/);
    }
    await doors.stdio.ok('memory_reflect', { action: 'link', agent_id: agent, target: text, text: b, relation: 'supports' });
    expect((await doors.client.get(agent, a)).relations.map((r) => [r.type, r.targetId])).toEqual([['supports', b]]);
  });

  test('an entity no live fact names is not found on every door, as an unknown fact is', async () => {
    const agent = 'graph-unnamed';
    await doors.client.put(agent, 'Otters hold hands while they sleep.', { entities: ['otters'] });
    const message = `entity: no live fact in namespace "${agent}" names entity "nothing"`;
    await expect(doors.client.readGraph(agent, { entity: 'nothing' })).rejects.toMatchObject({ kind: 'not_found', message });
    const cli = await (await import('./fixtures/cli.ts')).runEngram(['graph', agent, '--entity', 'nothing'], { dataDir: doors.daemon.dataDir, cwd: doors.daemon.dataDir });
    expect([cli.code, cli.stdout]).toEqual([1, '']);
    expect(cli.stderr).toContain(`not_found: ${message}`);
    const res = await fetch(`http://${doors.daemon.discovery.httpAddress}/v1/graph?agent_id=${agent}&entity=nothing`, { headers: { authorization: `Bearer ${doors.daemon.discovery.token}` } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.message).toBe(message);
    for (const session of [doors.stdio, doors.http]) expect(await session.fails('read_graph', { agent_id: agent, entity: 'nothing' })).toContain(message);
    // An entity a live fact names still answers its neighbourhood.
    expect((await doors.client.readGraph(agent, { entity: 'Otters' })).edges).toHaveLength(1);
    // Said in the number each count asks for.
    const text = await (await import('./fixtures/cli.ts')).runEngram(['graph', agent, '--entity', 'Otters'], { dataDir: doors.daemon.dataDir, cwd: doors.daemon.dataDir });
    expect(text.stdout.trim().split('\n').at(-1)).toBe('2 nodes, 1 edge');
  });
});
