// The same wrong input gives the same error on every door (the library, the CLI, REST, MCP over
// stdio and over HTTP): the same words, and the same field where the door's vocabulary allows.
import { describe, expect, test } from 'vitest';
import { EngramError } from '../shared/errors.ts';
import { runEngram } from './fixtures/cli.ts';
import { useDoors } from './fixtures/doors.ts';

const doors = useDoors();

/** A REST call that must be refused: its status and JSON error. */
async function restRefusal(method: string, path: string, body?: unknown) {
  const res = await fetch(`http://${doors.daemon.discovery.httpAddress}${path}`, {
    method,
    headers: { authorization: `Bearer ${doors.daemon.discovery.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
  return { status: res.status, error: ((await res.json()) as { error: { code: string; message: string; field?: string } }).error };
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

/** An MCP tool error, on both transports: the same text on each, returned once. */
async function mcpRefusal(tool: string, args: Record<string, unknown>): Promise<string> {
  const [stdio, http] = [await doors.stdio.fails(tool, args), await doors.http.fails(tool, args)];
  expect(http).toBe(stdio);
  return stdio;
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
