// Touch, observed use and gc through every front door (the library, the CLI, REST, MCP over stdio
// and over HTTP) against one real daemon whose facts fade within seconds: each door reinforces
// alike, reports the same observed results, and collects the same faded facts.
import { tmpdir } from 'node:os';
import { describe, expect, test } from 'vitest';
import { runEngram } from './fixtures/cli.ts';
import { useDoors } from './fixtures/doors.ts';
import type { McpSession } from './fixtures/mcp.ts';

interface Door {
  touch(agent: string, id: string): Promise<{ useCount: number; strength: number; newScore: number }>;
  observe(agent: string, ids: string[], tags: string[]): Promise<{ id: string; status: string; crossDomain: boolean }[]>;
  /** The ids a collection took (or, dry, would take), lowest score first. */
  gc(agent: string, apply: boolean): Promise<string[]>;
}

// λ = 0.5/s: an unused fact falls below the forget threshold (0.05) after 6 s; a fact used once
// more stays above it for ~6.8 s after that use (room for a CLI door to start on a busy machine).
const doors = useDoors(['--decay-model', 'exponential', '--decay-lambda', '0.5']);

const library: Door = {
  async touch(agent, id) {
    const r = await doors.client.touch(agent, id);
    return { useCount: r.fact.useCount, strength: r.fact.strength, newScore: r.newScore };
  },
  async observe(agent, ids, tags) {
    return (await doors.client.observeUsage(agent, ids, { contextTags: tags })).results.map((r) => ({ id: r.factId, status: r.status, crossDomain: r.crossDomain }));
  },
  gc: async (agent, apply) => (await doors.client.collectGarbage(agent, { dryRun: !apply })).factIds,
};

const cli = (args: string[]) => doors.cli(args);

const cliDoor: Door = {
  async touch(agent, id) {
    const r = await cli(['touch', agent, id]);
    return { useCount: r.fact.use_count, strength: r.fact.strength, newScore: r.new_score };
  },
  async observe(agent, ids, tags) {
    const r = await cli(['observe', agent, ...ids, ...tags.flatMap((t) => ['--tag', t])]);
    return r.results.map((o: any) => ({ id: o.fact_id, status: o.status, crossDomain: o.cross_domain }));
  },
  gc: async (agent, apply) => (await cli(['gc', agent, ...(apply ? ['--apply'] : [])])).fact_ids,
};

const rest = (path: string, body: unknown) => doors.rest('POST', path, body);

const restDoor: Door = {
  async touch(agent, id) {
    const r = await rest(`/v1/facts/${id}/touch`, { agent_id: agent });
    return { useCount: r.fact.use_count, strength: r.fact.strength, newScore: r.new_score };
  },
  async observe(agent, ids, tags) {
    const r = await rest('/v1/observations', { agent_id: agent, fact_ids: ids, context_tags: tags });
    return r.results.map((o: any) => ({ id: o.fact_id, status: o.status, crossDomain: o.cross_domain }));
  },
  gc: async (agent, apply) => (await rest('/v1/gc', { agent_id: agent, dry_run: !apply })).fact_ids,
};

const mcpDoor = (session: () => McpSession): Door => ({
  async touch(agent, id) {
    const r = await session().ok<{ use_count: number; strength: number; new_score: number }>('touch_memory', { agent_id: agent, memory_id: id });
    return { useCount: r.use_count, strength: r.strength, newScore: r.new_score };
  },
  async observe(agent, ids, tags) {
    const r = await session().ok<{ results: any[] }>('observe_memory_usage', { agent_id: agent, memory_ids: ids, context_tags: tags });
    return r.results.map((o) => ({ id: o.id, status: o.status, crossDomain: o.cross_domain }));
  },
  gc: async (agent, apply) => (await session().ok<{ memory_ids: string[] }>('gc', { agent_id: agent, dry_run: !apply })).memory_ids,
});

const DOORS: [string, Door][] = [
  ['library', library],
  ['cli', cliDoor],
  ['rest', restDoor],
  ['mcp stdio', mcpDoor(() => doors.stdio)],
  ['mcp http', mcpDoor(() => doors.http)],
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A REST call the daemon refuses: its error message. */
async function restRefusal(path: string, body: unknown): Promise<string> {
  const res = await fetch(`http://${doors.daemon.discovery.httpAddress}${path}`, { method: 'POST', headers: { authorization: `Bearer ${doors.daemon.discovery.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(400);
  return ((await res.json()) as { error: { message: string } }).error.message;
}
const MISSING = '01M8RSZZ6VPMS0AHKF5A1FJPGT';

describe('decay through every door', () => {
  test('touch and observe reinforce alike on every door', async () => {
    for (const [name, door] of DOORS) {
      const agent = `reinforce-${name.replace(' ', '-')}`;
      const tagged = (await doors.client.put(agent, 'Use JWT for authentication', { tags: ['security'] })).fact.id;
      const touched = await door.touch(agent, tagged);
      expect(touched, name).toMatchObject({ useCount: 2, strength: 1 });
      expect(touched.newScore, name).toBeGreaterThan(1);
      expect(await door.observe(agent, [tagged, MISSING], ['api']), name).toEqual([
        { id: tagged, status: 'reinforced', crossDomain: true },
        { id: MISSING, status: 'not_found', crossDomain: false },
      ]);
      expect(await doors.client.get(agent, tagged), name).toMatchObject({ useCount: 3, reviewCount: 1, crossDomainCount: 1, strength: 1.1 });
    }
  });

  test('gc: a dry run lists the faded facts, --apply collects them; the used one stays, on every door', async () => {
    const agents = DOORS.map(([name]) => `gc-${name.replace(' ', '-')}`);
    const facts = new Map<string, { faded: string; used: string }>();
    for (const agent of agents) {
      const faded = (await doors.client.put(agent, 'an old note nobody reads')).fact.id;
      const used = (await doors.client.put(agent, 'a note in daily use')).fact.id;
      facts.set(agent, { faded, used });
    }
    await sleep(6500);
    for (const [i, [name, door]] of DOORS.entries()) {
      const agent = agents[i]!;
      const { faded, used } = facts.get(agent)!;
      await doors.client.touch(agent, used);
      expect(await door.gc(agent, false), name).toEqual([faded]);
      expect((await doors.client.list(agent)).facts, name).toHaveLength(2);
      await doors.client.touch(agent, used);
      expect(await door.gc(agent, true), name).toEqual([faded]);
      expect((await doors.client.list(agent)).facts.map((f) => f.id), name).toEqual([used]);
    }
  });

  test("gc: a limit past a double's exact integers (1e20) is refused naming gc's own maximum on every door", async () => {
    const limit = 1e20;
    await expect(doors.client.collectGarbage('gc-limit', { limit })).rejects.toMatchObject({ field: 'limit', message: 'limit: must be a whole number between 1 and 100000, got 100000000000000000000' });
    const cli = await runEngram(['gc', 'gc-limit', '--limit', '1e20'], { dataDir: doors.daemon.dataDir, cwd: doors.daemon.dataDir });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('--limit: must be a whole number between 1 and 100000, got 100000000000000000000');
    // REST and MCP said "must be at most 9007199254740991", zod's bound for any integer.
    expect(await restRefusal('/v1/gc', { agent_id: 'gc-limit', limit })).toBe('limit: must be at most 100000');
    for (const session of [doors.stdio, doors.http]) expect(await session.fails('gc', { agent_id: 'gc-limit', limit })).toMatch(/limit: must be at most 100000(?!\d)/);
  });
});

describe('promotion through every door', () => {
  test('a dry run without a vault lists the candidate and says no vault is configured, on every door', async () => {
    const agent = 'promote-doors';
    const id = (await doors.client.put(agent, 'The runbook lives in the ops wiki')).fact.id;
    const message = 'Would promote 1 memory to obsidian, but no vault is configured: start the daemon with --vault DIR (or LTM_VAULT_PATH) to promote memories to notes';
    const library = await doors.client.promote(agent, { factId: id, force: true, dryRun: true });
    expect(library).toMatchObject({ candidatesFound: 1, candidates: [{ id }], message });
    const args = { agent_id: agent, memory_id: id, force: true, dry_run: true };
    const answers: [string, any][] = [
      ['cli', await doors.cli(['promote', agent, id, '--force', '--dry-run'])],
      ['rest', await doors.rest('POST', '/v1/promotions', { agent_id: agent, fact_id: id, force: true, dry_run: true })],
      ['mcp stdio', await doors.stdio.ok('promote_memory', args)],
      ['mcp http', await doors.http.ok('promote_memory', args)],
    ];
    for (const [name, r] of answers) expect(r, name).toMatchObject({ dry_run: true, candidates_found: 1, candidates: [{ id }], message });
    // What the user reads: the candidate line, then the message.
    const text = await runEngram(['promote', agent, id, '--force', '--dry-run'], { dataDir: doors.daemon.dataDir, cwd: tmpdir() });
    expect(text.stdout).toBe(`${id} Forced: The runbook lives in the ops wiki\n${message}\n`);
    expect((await doors.client.get(agent, id)).promotedAt).toBeFalsy();
  });

  test('a dry run naming no fact lists the candidates on every door, as auto_detect does', async () => {
    const agent = 'promote-dry-list';
    await doors.client.put(agent, 'The on-call handbook is in the ops wiki');
    const auto = await doors.client.promote(agent, { autoDetect: true, dryRun: true });
    expect(auto.message).toMatch(/^Would promote 0 memories to obsidian, but no vault/);
    const expected = { dry_run: true, candidates_found: auto.candidatesFound, promoted_count: 0, candidates: [], message: auto.message };
    const library = await doors.client.promote(agent, { dryRun: true });
    const answers: [string, any][] = [
      ['library', { dry_run: library.dryRun, candidates_found: library.candidatesFound, promoted_count: library.promotedCount, candidates: library.candidates, message: library.message }],
      ['cli', await doors.cli(['promote', agent, '--dry-run'])],
      ['rest', await doors.rest('POST', '/v1/promotions', { agent_id: agent, dry_run: true })],
      ['mcp stdio', await doors.stdio.ok('promote_memory', { agent_id: agent, dry_run: true })],
      ['mcp http', await doors.http.ok('promote_memory', { agent_id: agent, dry_run: true })],
    ];
    for (const [name, r] of answers) expect(r, name).toMatchObject(expected);
    const text = await runEngram(['promote', agent, '--dry-run'], { dataDir: doors.daemon.dataDir, cwd: tmpdir() });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(`${expected.message}\n`);
  });

  test('a promotion refused for its criteria says how to force it in terms every door takes', async () => {
    const agent = 'promote-criteria';
    const id = (await doors.client.put(agent, 'The escalation policy is in the ops wiki')).fact.id;
    const forced = /a forced promotion promotes it anyway: --force on the CLI, force: true on the other doors/;
    await expect(doors.client.promote(agent, { factId: id, dryRun: true })).rejects.toMatchObject({ kind: 'failed_precondition', message: expect.stringMatching(forced) });
    const cli = await runEngram(['promote', agent, id, '--dry-run'], { dataDir: doors.daemon.dataDir, cwd: tmpdir() });
    expect(cli.stderr).toMatch(forced);
    const rest = await fetch(`http://${doors.daemon.discovery.httpAddress}/v1/promotions`, { method: 'POST', headers: { authorization: `Bearer ${doors.daemon.discovery.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ agent_id: agent, fact_id: id, dry_run: true }) });
    expect(((await rest.json()) as { error: { message: string } }).error.message).toMatch(forced);
    for (const session of [doors.stdio, doors.http]) expect(await session.fails('promote_memory', { agent_id: agent, memory_id: id, dry_run: true })).toMatch(forced);
  });

  test("REST's refusals name the fact_id it was sent, not MCP's memory_id", async () => {
    const agent = 'promote-rest-names';
    const id = (await doors.client.put(agent, 'The pager rota is in the ops wiki')).fact.id;
    const refusal = async (body: unknown) => {
      const res = await fetch(`http://${doors.daemon.discovery.httpAddress}/v1/promotions`, { method: 'POST', headers: { authorization: `Bearer ${doors.daemon.discovery.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ agent_id: agent, ...(body as object) }) });
      return ((await res.json()) as { error: { message: string; field?: string } }).error;
    };
    expect(await refusal({ fact_id: 'NOPE' })).toMatchObject({ field: 'fact_id', message: expect.stringMatching(/^fact_id: "NOPE" is not a fact id/) });
    expect(await refusal({})).toMatchObject({ field: 'fact_id', message: expect.stringMatching(/^fact_id: /) });
    expect(await refusal({ fact_id: id, dry_run: true })).toMatchObject({ field: 'fact_id', message: expect.stringMatching(/too new/) });
  });
});

describe('message analysis through every door', () => {
  const SAVE = 'Remember: I prefer TypeScript over JavaScript for all new projects';
  const RECALL = 'Do you remember what I said about Kubernetes?';
  test('each door gives the same advice', async () => {
    const library = { save: await doors.client.analyzeMessage(SAVE), recall: await doors.client.analyzeForRecall(RECALL) };
    const expected = {
      save: { should_save: library.save.shouldSave, confidence: library.save.confidence, suggested_strength: library.save.suggestedStrength, suggested_entities: library.save.suggestedEntities, reasoning: library.save.reasoning },
      recall: { should_search: library.recall.shouldSearch, suggested_query: library.recall.suggestedQuery, reasoning: library.recall.reasoning },
    };
    expect(expected.save.should_save).toBe(true);
    expect(expected.recall).toMatchObject({ should_search: true, suggested_query: 'Kubernetes' });
    const answers: [string, any, any][] = [
      ['cli', await doors.cli(['analyze', SAVE]), await doors.cli(['analyze', '--recall', RECALL])],
      ['rest', await doors.rest('POST', '/v1/analysis/save', { message: SAVE }), await doors.rest('POST', '/v1/analysis/recall', { message: RECALL })],
      ['mcp stdio', await doors.stdio.ok('analyze_message', { message: SAVE }), await doors.stdio.ok('analyze_for_recall', { message: RECALL })],
      ['mcp http', await doors.http.ok('analyze_message', { message: SAVE }), await doors.http.ok('analyze_for_recall', { message: RECALL })],
    ];
    for (const [name, save, recall] of answers) {
      expect(save, name).toMatchObject(expected.save);
      expect(recall, name).toMatchObject(expected.recall);
    }
  });
});

describe('unified search through every door', () => {
  test('each door returns the same facts in the same order', async () => {
    const agent = 'unified-doors';
    const ids = [(await doors.client.put(agent, 'The harbour ferry leaves at noon')).fact.id, (await doors.client.put(agent, 'The ferry is cancelled on holidays')).fact.id];
    const library = (await doors.client.searchUnified(agent, 'ferry')).hits.map((h) => h.id);
    expect([...library].sort()).toEqual([...ids].sort());
    const answers: [string, string[]][] = [
      ['cli', (await doors.cli(['search-unified', agent, 'ferry'])).results.map((r: { id: string }) => r.id)],
      ['rest', (await doors.rest('POST', '/v1/search/unified', { agent_id: agent, query: 'ferry' })).results.map((r: { id: string }) => r.id)],
      ['mcp stdio', (await doors.stdio.ok<{ results: { id: string }[] }>('search_unified', { agent_id: agent, query: 'ferry', verbose: true })).results.map((r) => r.id)],
      ['mcp http', (await doors.http.ok<{ results: { id: string }[] }>('search_unified', { agent_id: agent, query: 'ferry', verbose: true })).results.map((r) => r.id)],
    ];
    for (const [name, got] of answers) expect(got, name).toEqual(library);
    // A limit with no bound of its own but z.int()'s names that bound as a person reads it.
    expect(await restRefusal('/v1/search/unified', { agent_id: agent, query: 'ferry', limit: 1e20 })).toBe('limit: must be at most 2^53 - 1, that is 9007199254740991: past it a JSON number cannot hold every whole number exactly');
  });
});

describe('fact extraction through every door', () => {
  test('each door proposes the same facts; remembering through any stores them once', async () => {
    const agent = 'extract-doors';
    const message = 'I prefer aisle seats. We decided to meet on June 4th. Is that fine?';
    const library = (await doors.client.extract(agent, { message })).facts.map((f) => [f.kind, f.text]);
    expect(library).toEqual([['preference', 'I prefer aisle seats.'], ['decision', 'We decided to meet on June 4th.']]);
    const answers: [string, any][] = [
      ['cli', await doors.cli(['extract', agent, message])],
      ['rest', await doors.rest('POST', '/v1/extractions', { agent_id: agent, message })],
      ['mcp stdio', await doors.stdio.ok('memory_extract', { agent_id: agent, message })],
      ['mcp http', await doors.http.ok('memory_extract', { agent_id: agent, message })],
    ];
    for (const [name, r] of answers) expect(r.facts.map((f: { kind: string; text: string }) => [f.kind, f.text]), name).toEqual(library);
    expect((await doors.stdio.ok<{ stored: number }>('memory_extract', { agent_id: agent, message, remember: true })).stored).toBe(2);
    expect((await doors.cli(['extract', agent, message, '--remember'])).stored).toBe(0);
    expect((await doors.client.list(agent)).facts.map((f) => f.source)).toEqual(['extracted:rules', 'extracted:rules']);
  });
});

describe('clusters through every door', () => {
  test('each door lists the same cluster id, and any door consolidates it', async () => {
    const agent = 'cluster-doors';
    await doors.client.put(agent, 'The cat sleeps on the sofa.');
    await doors.client.put(agent, 'The cat is sleeping on the couch.');
    await doors.client.put(agent, 'Quarterly revenue grew by ten percent.');
    // This daemon has no vectors: similarity is keyword overlap ({cat, sleep, sofa} vs {cat, sleep, couch}: 0.5).
    const [cluster] = (await doors.client.clusterMemories(agent, { threshold: 0.5 })).clusters;
    expect(cluster?.size).toBe(2);
    const ids: [string, string][] = [
      ['cli', (await doors.cli(['cluster', agent, '--threshold', '0.5'])).clusters[0].id],
      ['rest', (await doors.rest('POST', '/v1/clusters', { agent_id: agent, threshold: 0.5 })).clusters[0].id],
      ['mcp stdio', (await doors.stdio.ok<{ clusters: { id: string }[] }>('cluster_memories', { agent_id: agent, threshold: 0.5 })).clusters[0]!.id],
      ['mcp http', (await doors.http.ok<{ clusters: { id: string }[] }>('cluster_memories', { agent_id: agent, threshold: 0.5 })).clusters[0]!.id],
    ];
    for (const [name, id] of ids) expect(id, name).toBe(cluster!.id);
    // A threshold out of range is refused in the daemon's words on every door (0, a bound the
    // range leaves out, was once "must be at least 0", then zod's "must be greater than 0").
    for (const [threshold, field] of [[0, 'threshold'], [1.5, 'duplicate_threshold']] as const) {
      const words = `${field}: must be a number in (0, 1], got ${threshold}`;
      const args = { agent_id: agent, [field]: threshold, ...(field === 'duplicate_threshold' ? { find_duplicates: true } : {}) };
      await expect(doors.client.clusterMemories(agent, field === 'threshold' ? { threshold } : { findDuplicates: true, duplicateThreshold: threshold })).rejects.toMatchObject({ field, message: words });
      expect(await restRefusal('/v1/clusters', args)).toBe(words);
      for (const session of [doors.stdio, doors.http]) expect(await session.fails('cluster_memories', args)).toContain(words);
    }
    expect((await doors.rest('POST', `/v1/clusters/${cluster!.id}/consolidate`, { agent_id: agent })).mode).toBe('dry_run');
    const applied = await doors.stdio.ok<{ fact_id: string; retired_ids: string[] }>('consolidate_memories', { agent_id: agent, cluster_id: cluster!.id, mode: 'apply' });
    expect(applied.retired_ids.sort()).toEqual([...cluster!.memoryIds].sort());
    expect(JSON.parse(await doors.http.fails('consolidate_memories', { agent_id: agent, cluster_id: cluster!.id, mode: 'apply' }))).toMatchObject({ success: false, message: expect.stringMatching(/no longer exists/) });
  });
});
