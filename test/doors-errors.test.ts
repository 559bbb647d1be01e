// The same wrong input gives the same error on every door (the library, the CLI, REST, MCP over
// stdio and over HTTP): the same words, and the same field where the door's vocabulary allows.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { EngramError } from '../shared/errors.ts';
import { runEngram } from './fixtures/cli.ts';
import { useDoors } from './fixtures/doors.ts';

const doors = useDoors();

/** A REST call that must be refused: its status (one the OpenAPI document declares for the
 *  route) and JSON error. */
async function restRefusal(method: string, path: string, body?: unknown) {
  const res = await fetch(`http://${doors.daemon.discovery.httpAddress}${path}`, {
    method,
    headers: { authorization: `Bearer ${doors.daemon.discovery.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
  expect(await documentedStatuses(method, path), `${method} ${path}`).toContain(String(res.status));
  return { status: res.status, error: ((await res.json()) as { error: { code: string; message: string; field?: string } }).error };
}

let openApi: Promise<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }> | undefined;

/** The statuses the served OpenAPI document declares for the route that serves a path (a
 *  literal path before a template: /v1/facts/batch is not /v1/facts/{id}). */
async function documentedStatuses(method: string, path: string): Promise<string[]> {
  openApi ??= fetch(`http://${doors.daemon.discovery.httpAddress}/v1/openapi.json`).then(async (res) => (await res.json()) as never);
  const { paths } = await openApi;
  const bare = path.split('?')[0]!;
  const served = (template: string) => new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`).test(bare) && paths[template]![method.toLowerCase()] !== undefined;
  const template = Object.keys(paths).sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0)).find(served);
  expect(template, `${method} ${path}`).toBeDefined();
  return Object.keys(paths[template!]![method.toLowerCase()]!.responses);
}

/** A library call that must be refused: its EngramError. */
async function libraryRefusal(call: () => Promise<unknown>) {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngramError);
  return error as { kind: string; message: string; field?: string };
}

/** An MCP tool error, on both transports: the same text on each, returned once (a CortexGraph
 *  tool's message taken out of the JSON payload it reports errors in). */
async function mcpRefusal(tool: string, args: Record<string, unknown>): Promise<string> {
  const [stdio, http] = [await doors.stdio.fails(tool, args), await doors.http.fails(tool, args)];
  expect(http).toBe(stdio);
  return stdio.startsWith('{') ? (JSON.parse(stdio) as { message: string }).message : stdio;
}

/** A CLI run that must be refused: the error --json reports. */
async function cliRefusal(args: string[]) {
  const run = await runEngram([...args, '--json'], { dataDir: doors.daemon.dataDir, cwd: doors.daemon.dataDir });
  expect(run.code, run.stderr).not.toBe(0);
  return (JSON.parse(run.stdout) as { error: { kind: string; message: string; field: string | null } }).error;
}

describe('a number out of its bounds is refused in the daemon\'s words on every door', () => {
  test('a slot confidence of 1.5', async () => {
    const said = 'confidence: must be a number in [0, 1], got 1.5';
    expect(await libraryRefusal(() => doors.client.putSlot({ slotName: 'rated', slotValue: 1, confidence: 1.5 }))).toMatchObject({ kind: 'invalid_argument', field: 'confidence', message: said });
    expect((await restRefusal('POST', '/v1/memory-controls/slots', { slot_name: 'rated', slot_value: 1, confidence: 1.5 })).error).toMatchObject({ field: 'confidence', message: said });
    // The CLI names the flag that set the field.
    expect(await cliRefusal(['slots', 'put', 'rated', '1', '--confidence', '1.5'])).toEqual({ kind: 'usage', message: `--${said}`, field: '--confidence' });
    // MCP's schema bounds it too (a frozen contract): its refusal reads as the daemon's.
    expect(await mcpRefusal('memory_slot_set', { slot_name: 'rated', slot_value: 1, confidence: 1.5 })).toContain(said);
    expect((await doors.client.listSlots({})).slots.filter((s) => s.slotName === 'rated')).toEqual([]);
  });

  test('a strength of 3 (save_memory, POST /v1/facts, put)', async () => {
    const said = 'strength: must be a finite number in [0, 2]';
    expect(await libraryRefusal(() => doors.client.put('bounds', 'too strong', { strength: 3 }))).toMatchObject({ kind: 'invalid_argument', field: 'strength', message: said });
    expect((await restRefusal('POST', '/v1/facts', { agent_id: 'bounds', text: 'too strong', strength: 3 })).error).toMatchObject({ field: 'strength', message: said });
    expect(await mcpRefusal('save_memory', { agent_id: 'bounds', content: 'too strong', strength: 3 })).toContain(said);
    expect((await doors.client.stats('bounds')).factCount).toBe(0);
  });

  test('a confidence_weight of 0.9 (memory_search, GET /v1/recall, recall)', async () => {
    const said = 'confidence_weight: must be a finite number in [0, 0.5], got 0.9';
    // The library names its own option (confidenceWeight), with the same words.
    expect(await libraryRefusal(() => doors.client.recall('bounds', 'tea', { confidenceWeight: 0.9 }))).toMatchObject({ kind: 'invalid_argument', message: said.replace('confidence_weight', 'confidenceWeight') });
    expect((await restRefusal('GET', '/v1/recall?agent_id=bounds&query=tea&confidence_weight=0.9')).error).toMatchObject({ field: 'confidence_weight', message: said });
    expect(await mcpRefusal('memory_search', { agent_id: 'bounds', query: 'tea', confidence_weight: 0.9 })).toContain(said);
  });
});

describe('promote naming a fact and auto_detect both', () => {
  test('is refused in the same words on every door, naming no field of another door (REST said "give memory_id", MCP\'s name for its fact_id)', async () => {
    const fact = (await doors.client.put('promote-both', 'A fact to promote.')).fact.id;
    const said = 'auto_detect: not with a named fact: auto_detect promotes every fact that qualifies (name one fact, or set auto_detect and name none)';
    expect(await libraryRefusal(() => doors.client.promote('promote-both', { factId: fact, autoDetect: true }))).toMatchObject({ kind: 'invalid_argument', field: 'auto_detect', message: said });
    expect(await restRefusal('POST', '/v1/promotions', { agent_id: 'promote-both', fact_id: fact, auto_detect: true })).toEqual({ status: 400, error: { code: 'invalid_argument', message: said, field: 'auto_detect' } });
    expect(await mcpRefusal('promote_memory', { agent_id: 'promote-both', memory_id: fact, auto_detect: true })).toBe(`promote_memory failed: ${said}`);
    // The CLI checks its own flags first, in their words.
    expect(await cliRefusal(['promote', 'promote-both', fact, '--auto'])).toMatchObject({ kind: 'usage', field: '--auto' });
    expect((await doors.client.get('promote-both', fact)).promotedAt).toBeUndefined();
  });
});

describe('read_graph around neither a fact nor an entity (or both)', () => {
  test('REST and MCP name fact_id with the daemon\'s words; the CLI says the same of its flags', async () => {
    const said = 'fact_id: name exactly one of fact_id and entity';
    for (const query of ['agent_id=g', 'agent_id=g&fact_id=f1&entity=Alice']) {
      // REST's fact_id here is a query parameter, not the {id} of a fact's path.
      expect((await restRefusal('GET', `/v1/graph?${query}`)).error, query).toEqual({ code: 'invalid_argument', message: said, field: 'fact_id' });
    }
    for (const args of [{ agent_id: 'g' }, { agent_id: 'g', fact_id: 'f1', entity: 'Alice' }]) {
      expect(await mcpRefusal('read_graph', args), JSON.stringify(args)).toContain(said);
    }
    expect((await cliRefusal(['graph', 'g'])).message).toBe('name exactly one of --fact and --entity');
  });
});

describe('a request field naming a fact that is not there', () => {
  test('is not found naming the field on every door, as a refused value is', async () => {
    const agent = 'missing';
    const live = (await doors.client.put(agent, 'A fact that is there.')).fact.id;
    const gone = (await doors.client.put(agent, 'A fact that will be erased.')).fact.id;
    await doors.client.delete(agent, gone);
    const said = (field: string) => `${field}: no fact ${gone} in namespace "${agent}"`;
    // from_id when adding a relation, to_id too; from_id when removing one.
    const relations: [{ from: string; to: string; remove?: boolean }, string][] = [
      [{ from: gone, to: live }, 'from_id'],
      [{ from: live, to: gone }, 'to_id'],
      [{ from: gone, to: live, remove: true }, 'from_id'],
    ];
    for (const [{ from, to, remove }, field] of relations) {
      const expected = { kind: 'not_found', message: said(field), field };
      expect(await libraryRefusal(() => doors.client.relate(agent, from, 'related', to, { remove }))).toMatchObject(expected);
      expect((await restRefusal('POST', '/v1/relations', { agent_id: agent, from_id: from, to_id: to, type: 'related', remove }))).toEqual({ status: 404, error: { code: 'not_found', message: said(field), field } });
      expect(await cliRefusal(['relate', agent, from, 'related', to, ...(remove ? ['--remove'] : [])])).toEqual({ kind: 'not_found', message: said(field), field });
      expect(await mcpRefusal('memory_relate', { agent_id: agent, from_id: from, to_id: to, type: 'related', remove })).toContain(said(field));
    }
    // A revision's target, named by its place in the list.
    const target = { kind: 'not_found', message: `target_ids[1]: no fact ${gone} in this namespace`, field: 'target_ids[1]' };
    expect(await libraryRefusal(() => doors.client.revise(agent, [live, gone], 'A replacement.'))).toMatchObject(target);
    expect((await restRefusal('POST', '/v1/revisions', { agent_id: agent, target_ids: [live, gone], text: 'A replacement.' })).error).toEqual({ code: 'not_found', message: target.message, field: target.field });
    expect((await doors.client.get(agent, live)).supersededBy).toBeUndefined();
  });
});

describe('a request field naming what is not there, by any call that looks it up', () => {
  const agent = 'absent';
  const notFound = (message: string, field: string) => ({ kind: 'not_found', message, field });
  const rest404 = (message: string, field: string) => ({ status: 404, error: { code: 'not_found', message, field } });

  test('a fact id: each call by fact id names the field it was sent in, on every door, and writes nothing', async () => {
    await doors.client.put(agent, 'A fact that stays.');
    const gone = (await doors.client.put(agent, 'A fact that will be erased.')).fact.id;
    await doors.client.delete(agent, gone);
    const said = (field: string) => `${field}: no fact ${gone} in namespace "${agent}"`;
    const before = await doors.client.list(agent);

    // The library speaks the request's fields: fact_id, and promote's memory_id.
    const library: [string, () => Promise<unknown>][] = [
      ['fact_id', () => doors.client.get(agent, gone)],
      ['fact_id', () => doors.client.forget(agent, gone)],
      ['fact_id', () => doors.client.pin(agent, gone)],
      ['fact_id', () => doors.client.unpin(agent, gone)],
      ['fact_id', () => doors.client.setConfidence(agent, gone, 'verified')],
      ['fact_id', () => doors.client.delete(agent, gone)],
      ['fact_id', () => doors.client.touch(agent, gone)],
      ['fact_id', () => doors.client.linkEntity(agent, gone, 'Alice')],
      ['fact_id', () => doors.client.readGraph(agent, { factId: gone })],
      ['memory_id', () => doors.client.promote(agent, { factId: gone, dryRun: true })],
    ];
    for (const [field, call] of library) expect(await libraryRefusal(call), String(call)).toMatchObject(notFound(said(field), field));

    // REST names a fact of its path by the path's {id}; a body or query field by its own name.
    const rest: [string, string, unknown?][] = [
      ['GET', `/v1/facts/${gone}?agent_id=${agent}`],
      ['GET', `/v1/facts/${gone}/lineage?agent_id=${agent}`],
      ['GET', `/v1/facts/${gone}/decay?agent_id=${agent}`],
      ['DELETE', `/v1/facts/${gone}?agent_id=${agent}`],
      ...(['forget', 'pin', 'unpin', 'touch'] as const).map((action): [string, string, unknown] => ['POST', `/v1/facts/${gone}/${action}`, { agent_id: agent }]),
      ['POST', `/v1/facts/${gone}/confidence`, { agent_id: agent, confidence: 'verified' }],
      ['POST', `/v1/facts/${gone}/entities`, { agent_id: agent, entity: 'Alice' }],
    ];
    for (const [method, path, body] of rest) expect(await restRefusal(method, path, body), `${method} ${path}`).toEqual(rest404(said('id'), 'id'));
    expect(await restRefusal('GET', `/v1/graph?agent_id=${agent}&fact_id=${gone}`)).toEqual(rest404(said('fact_id'), 'fact_id'));
    expect(await restRefusal('POST', '/v1/promotions', { agent_id: agent, fact_id: gone, dry_run: true })).toEqual(rest404(said('fact_id'), 'fact_id'));

    // MCP says the tool's own argument name.
    const mcp: [string, Record<string, unknown>, string][] = [
      ['memory_get', { fact_id: gone }, 'fact_id'],
      ['memory_forget', { fact_id: gone }, 'fact_id'],
      ['memory_delete', { fact_id: gone }, 'fact_id'],
      ['read_graph', { fact_id: gone }, 'fact_id'],
      ['touch_memory', { memory_id: gone }, 'memory_id'],
      ['promote_memory', { memory_id: gone, dry_run: true }, 'memory_id'],
    ];
    for (const [tool, args, field] of mcp) expect(await mcpRefusal(tool, { agent_id: agent, ...args })).toBe(`${tool} failed: ${said(field)}`);

    // The CLI reports the daemon's field, as for a relation's ends.
    const cli: [string[], string][] = [
      ...['get', 'forget', 'pin', 'unpin', 'delete', 'touch'].map((command): [string[], string] => [[command, agent, gone], 'fact_id']),
      [['link', agent, gone, 'Alice'], 'fact_id'],
      [['graph', agent, '--fact', gone], 'fact_id'],
      [['promote', agent, gone, '--dry-run'], 'memory_id'],
    ];
    for (const [args, field] of cli) expect(await cliRefusal(args), args.join(' ')).toEqual(notFound(said(field), field));

    expect(await doors.client.list(agent)).toEqual(before);
  });

  test('an entity no live fact names: read_graph\'s entity', async () => {
    const said = `entity: no live fact in namespace "${agent}" names entity "Nobody"`;
    expect(await libraryRefusal(() => doors.client.readGraph(agent, { entity: 'Nobody' }))).toMatchObject(notFound(said, 'entity'));
    expect(await restRefusal('GET', `/v1/graph?agent_id=${agent}&entity=Nobody`)).toEqual(rest404(said, 'entity'));
    expect(await mcpRefusal('read_graph', { agent_id: agent, entity: 'Nobody' })).toBe(`read_graph failed: ${said}`);
    expect(await cliRefusal(['graph', agent, '--entity', 'Nobody'])).toEqual(notFound(said, 'entity'));
  });

  test('a slot\'s record id, a recipe\'s name, a cluster id and a token id (REST: the {id} of the path)', async () => {
    const slot = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const noSlot = (field: string) => `${field}: no slot ${slot}`;
    for (const call of [() => doors.client.getSlot(slot), () => doors.client.deleteSlot(slot), () => doors.client.slotHistory(slot)]) {
      expect(await libraryRefusal(call), String(call)).toMatchObject(notFound(noSlot('record_id'), 'record_id'));
    }
    for (const [method, path] of [['GET', `/v1/memory-controls/slots/${slot}`], ['GET', `/v1/memory-controls/slots/${slot}/history`], ['DELETE', `/v1/memory-controls/slots/${slot}`]] as const) {
      expect(await restRefusal(method, path), `${method} ${path}`).toEqual(rest404(noSlot('id'), 'id'));
    }
    expect(await mcpRefusal('memory_slot_delete', { record_id: slot })).toBe(`memory_slot_delete failed: ${noSlot('record_id')}`);
    for (const command of ['get', 'delete', 'history']) expect(await cliRefusal(['slots', command, slot]), command).toEqual(notFound(noSlot('record_id'), 'record_id'));

    // The recipe's words list the built-ins: the library's message is the one every door says.
    const noRecipe = (await libraryRefusal(() => doors.client.getRecipe('nope'))).message;
    expect(noRecipe).toMatch(/^name: no recipe "nope" \(built in: /);
    expect(await libraryRefusal(() => doors.client.recipeHistory('nope'))).toMatchObject(notFound(noRecipe, 'name'));
    for (const path of ['/v1/memory-controls/retrieval-recipes/nope', '/v1/memory-controls/retrieval-recipes/nope/history']) {
      expect(await restRefusal('GET', path), path).toEqual(rest404(noRecipe.replace(/^name:/, 'id:'), 'id'));
    }
    for (const command of ['get', 'history']) expect(await cliRefusal(['recipes', command, 'nope']), command).toEqual(notFound(noRecipe, 'name'));

    await doors.client.put(agent, 'A fact to cluster.');
    const cluster = 'cluster-0123456789abcdef';
    const noCluster = (field: string) => `${field}: no current cluster ${cluster} in "${agent}": list the clusters again for the current ids`;
    expect(await libraryRefusal(() => doors.client.consolidateMemories(agent, cluster))).toMatchObject(notFound(noCluster('cluster_id'), 'cluster_id'));
    expect(await restRefusal('POST', `/v1/clusters/${cluster}/consolidate`, { agent_id: agent })).toEqual(rest404(noCluster('id'), 'id'));
    expect(await mcpRefusal('consolidate_memories', { agent_id: agent, cluster_id: cluster })).toBe(`consolidate_memories failed: ${noCluster('cluster_id')}`);
    expect(await cliRefusal(['consolidate', agent, cluster])).toEqual(notFound(noCluster('cluster_id'), 'cluster_id'));

    const noToken = 'id: no token nope (engram token list shows them)';
    expect(await libraryRefusal(() => doors.client.revokeToken('nope'))).toMatchObject(notFound(noToken, 'id'));
    expect(await restRefusal('DELETE', '/v1/tokens/nope')).toEqual(rest404(noToken, 'id'));
    expect(await cliRefusal(['token', 'revoke', 'nope'])).toEqual(notFound(noToken, 'id'));
  });

  test('an agent with no checkpoint, where its latest one is asked for as an error', async () => {
    const said = 'agent_id: no checkpoint for agent "never-saved"';
    expect(await doors.client.checkpointResume('never-saved')).toBeUndefined(); // the library answers absence, never an error
    expect(await restRefusal('GET', '/v1/checkpoints/latest?agent_id=never-saved')).toEqual(rest404(said, 'agent_id'));
    expect(await mcpRefusal('checkpoint_resume', { agent_id: 'never-saved' })).toBe(`checkpoint_resume failed: ${said}`);
    expect(await cliRefusal(['checkpoint', 'resume', 'never-saved'])).toEqual(notFound(said, 'agent_id'));
  });
});

/** A raw JSON-RPC tools/call on both MCP transports — raw, because a JSON 1e999 is what a
 *  caller's JSON can say and a JavaScript client cannot (it writes Infinity as null): the tool's
 *  result, the same on each. */
async function mcpRawCall(tool: string, argsJson: string): Promise<{ isError?: boolean; content: { text: string }[]; structuredContent?: unknown }> {
  const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}","arguments":${argsJson}}}`;
  const res = await fetch(`http://${doors.daemon.discovery.mcpHttpAddress}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${doors.daemon.discovery.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: call,
  });
  const http = ((await res.json()) as { result: Awaited<ReturnType<typeof mcpRawCall>> }).result;
  const initialize = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}';
  const lines = [initialize, '{"jsonrpc":"2.0","method":"notifications/initialized"}', call].join('\n') + '\n';
  const run = await runEngram(['mcp', '--data-dir', doors.daemon.dataDir], { dataDir: null, cwd: doors.daemon.dataDir, input: lines });
  const stdio = run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id?: number; result: typeof http }).find((m) => m.id === 1)?.result;
  expect(stdio, run.stderr).toEqual(http);
  return http;
}

async function mcpRawRefusal(tool: string, argsJson: string): Promise<string> {
  const result = await mcpRawCall(tool, argsJson);
  expect(result.isError).toBe(true);
  const text = result.content[0]!.text;
  return text.startsWith('{') ? (JSON.parse(text) as { message: string }).message : text;
}

/** A REST call with a raw JSON body that must be refused: its status and error. */
async function restRawRefusal(path: string, body: string) {
  const res = await fetch(`http://${doors.daemon.discovery.httpAddress}${path}`, { method: 'POST', headers: { authorization: `Bearer ${doors.daemon.discovery.token}`, 'content-type': 'application/json' }, body });
  return { status: res.status, error: ((await res.json()) as { error: { code: string; message: string; field?: string } }).error };
}

describe('a JSON value holding what JSON text cannot keep (1e999, NaN, a function) is refused naming the place inside it, on every door, and nothing is written', () => {
  // JSON.stringify writes NaN and ±Infinity (a JSON 1e999 parses to Infinity) as null: such a
  // value was stored as a null nobody sent.
  const infinite = (field: string) => `${field}: must be a finite number, got Infinity (out of a double's range)`;
  const agent = 'unwritable';

  test('a slot value (memory_slot_set, POST /v1/memory-controls/slots, slots put, putSlot)', async () => {
    expect(await restRawRefusal('/v1/memory-controls/slots', '{"slot_name":"inf","slot_value":1e999}')).toEqual({ status: 400, error: { code: 'invalid_argument', message: infinite('slot_value'), field: 'slot_value' } });
    expect(await restRawRefusal('/v1/memory-controls/slots', '{"slot_name":"inf","slot_value":{"x":[1e999,-1e999]}}')).toEqual({ status: 400, error: { code: 'invalid_argument', message: infinite('slot_value.x[0]'), field: 'slot_value.x[0]' } });
    expect(await mcpRawRefusal('memory_slot_set', '{"slot_name":"inf","slot_value":{"a":1e999}}')).toBe(`memory_slot_set failed: ${infinite('slot_value.a')}`);
    expect(await cliRefusal(['slots', 'put', 'inf', '{"x":[1e999]}'])).toEqual({ kind: 'usage', message: infinite('[value...]: x[0]'), field: 'value' });
    expect(await libraryRefusal(() => doors.client.putSlot({ slotName: 'inf', slotValue: { a: NaN } }))).toMatchObject({ kind: 'invalid_argument', field: 'slot_value.a', message: 'slot_value.a: must be a finite number, got NaN' });
    // What JSON has no value for at all: a function was taken for no value ("is required for a
    // new slot"), a BigInt threw JSON.stringify's own TypeError.
    const notJson = (field: string, kind: string) => ({ kind: 'invalid_argument', field, message: `${field}: must be a JSON value (a string, number, boolean, null, list or object), got ${kind}` });
    expect(await libraryRefusal(() => doors.client.putSlot({ slotName: 'inf', slotValue: () => 1 }))).toMatchObject(notJson('slot_value', 'function'));
    expect(await libraryRefusal(() => doors.client.putSlot({ slotName: 'inf', slotValue: { n: 10n } }))).toMatchObject(notJson('slot_value.n', 'bigint'));
    expect(await libraryRefusal(() => doors.client.putSlot({ slotName: 'inf', slotValue: [1, undefined] }))).toMatchObject(notJson('slot_value[1]', 'undefined'));
    expect((await doors.client.listSlots({})).slots.filter((s) => s.slotName === 'inf')).toEqual([]);
  });

  test('a fact\'s meta (save_memory, memory_add_batch, POST /v1/facts, remember --meta, put, an import line)', async () => {
    expect(await restRawRefusal('/v1/facts', `{"agent_id":"${agent}","text":"a fact","meta":{"a":{"b":[1,1e999]}}}`)).toEqual({ status: 400, error: { code: 'invalid_argument', message: infinite('meta.a.b[1]'), field: 'meta.a.b[1]' } });
    expect(await mcpRawRefusal('save_memory', `{"agent_id":"${agent}","content":"a fact","meta":{"a":1e999}}`)).toBe(`save_memory failed: ${infinite('meta.a')}`);
    expect(await cliRefusal(['remember', agent, 'a fact', '--meta', '{"a":1e999}'])).toEqual({ kind: 'usage', message: infinite('--meta: a'), field: '--meta' });
    expect(await libraryRefusal(() => doors.client.put(agent, 'a fact', { meta: { a: -Infinity } }))).toMatchObject({ kind: 'invalid_argument', field: 'meta.a', message: infinite('meta.a').replace('Infinity', '-Infinity') });
    // The JSON text as gRPC carries it: the daemon reads 1e999 in it as Infinity, and refuses it.
    expect(await libraryRefusal(() => doors.client.put(agent, 'a fact', { metaJson: '{"a":1e999}' }))).toMatchObject({ kind: 'invalid_argument', field: 'meta_json.a', message: infinite('meta_json.a') });
    // A batch refuses only the fact whose meta it cannot keep, on both MCP transports.
    expect((await mcpRawCall('memory_add_batch', '{"agent_id":"batched","facts":[{"text":"bad","meta":{"a":1e999}}]}')).structuredContent).toMatchObject({ stored: 0, failed: 1, results: [{ error: infinite('facts[0].meta.a') }] });

    const file = join(doors.daemon.dataDir, 'infinite.jsonl');
    writeFileSync(file, '{"text":"an imported fact","meta":{"a":1e999}}\n');
    const imported = await runEngram(['import', agent, file], { dataDir: doors.daemon.dataDir, cwd: doors.daemon.dataDir });
    expect(imported.stderr).toContain(`line 1: ${infinite('meta.a')}`);
    expect((await doors.client.stats(agent)).factCount).toBe(0);
    expect((await doors.client.stats('batched')).factCount).toBe(0);
  });

  test('a checkpoint state (POST /v1/checkpoints, checkpoint save --state, checkpointSave)', async () => {
    expect(await restRawRefusal('/v1/checkpoints', `{"agent_id":"${agent}","state":{"a":1e999}}`)).toEqual({ status: 400, error: { code: 'invalid_argument', message: infinite('state.a'), field: 'state.a' } });
    expect(await cliRefusal(['checkpoint', 'save', agent, '--state', '{"a":[1e999]}'])).toEqual({ kind: 'usage', message: infinite('--state: a[0]'), field: '--state' });
    expect(await libraryRefusal(() => doors.client.checkpointSave(agent, { a: NaN }))).toMatchObject({ kind: 'invalid_argument', field: 'state_json.a', message: 'state_json.a: must be a finite number, got NaN' });
    expect(await libraryRefusal(() => doors.client.checkpointSave(agent, '{"a":1e999}'))).toMatchObject({ kind: 'invalid_argument', field: 'state_json.a', message: infinite('state_json.a') });
    // MCP's checkpoint_save takes the state as a string: the text the daemon reads.
    expect(await mcpRefusal('checkpoint_save', { agent_id: agent, state: '{"a":1e999}' })).toBe(`checkpoint_save failed: ${infinite('state_json.a')}`);
    expect(await doors.client.checkpointList(agent)).toEqual([]);
  });
});
