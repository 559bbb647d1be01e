// Memory slots against a real daemon, through the library and the seed's REST paths: the upsert
// on project:scope:slot_name (an agent loop leaves one record), the lock that refuses deletion on
// every door, archive instead of purge, governance derived from status and evidence, bounded
// confidence, the change history, listing and the context block with project shadowing.
import { describe, expect, test } from 'vitest';
import { runEngram } from './fixtures/cli.ts';
import { useDaemonPool } from './fixtures/daemon.ts';
import { openStdio } from './fixtures/mcp.ts';

const pool = useDaemonPool();

async function start() {
  const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0'] });
  const client = await daemon.client();
  const rest = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://${daemon.discovery.httpAddress}${path}`, {
      method,
      headers: { authorization: `Bearer ${daemon.discovery.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  return { daemon, client, rest };
}

describe('memory slots', () => {
  test('an agent loop writing the same slot on every boot leaves exactly one record; governance follows status and evidence', async () => {
    const { client, rest } = await start();
    const first = await rest('POST', '/v1/memory-controls/slots', { slot_name: 'user_preferences', slot_value: { spelling: 'en-GB' } });
    expect(first.status).toBe(201);
    expect(first.json.slot).toMatchObject({ slot_name: 'user_preferences', scope: 'user', project_id: null, status: 'needs_review', authority: 'generated', verification_state: 'unverified', confidence: 0.75, visibility: 'private', locked: false, version: 1 });
    for (let boot = 0; boot < 5; boot++) {
      const again = await rest('POST', '/v1/memory-controls/slots', { slot_name: 'user_preferences', slot_value: { spelling: 'en-GB', boot } });
      expect(again.status).toBe(200);
      expect(again.json.slot.record_id).toBe(first.json.slot.record_id);
    }
    const listed = await rest('GET', '/v1/memory-controls/slots');
    expect(listed.json.count).toBe(1);
    expect(listed.json.slots[0]).toMatchObject({ slot_value: { spelling: 'en-GB', boot: 4 }, version: 6 });

    const reviewed = await client.putSlot({ slotName: 'user_preferences', status: 'approved', evidenceRefs: ['sp_71c4'] });
    expect(reviewed.slot).toMatchObject({ id: first.json.slot.record_id, authority: 'human_reviewed', verificationState: 'supported', slotValue: { spelling: 'en-GB', boot: 4 } });
    expect((await client.putSlot({ slotName: 'user_preferences', status: 'rejected' })).slot.authority).toBe('generated');

    const bad = await rest('POST', '/v1/memory-controls/slots', { slot_name: 'x', slot_value: 1, confidence: 1.5 });
    expect(bad.status).toBe(400);
    expect(bad.json.error.field).toBe('confidence');
    await expect(client.putSlot({ slotName: 'x', slotValue: 1, confidence: -0.1 })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'confidence' });
    expect((await rest('POST', '/v1/memory-controls/slots', { slot_name: 'y' })).json.error.field).toBe('slot_value');
    expect((await rest('POST', '/v1/memory-controls/slots', { slot_name: 'z', slot_value: 'a'.repeat(17_000) })).json.error.field).toBe('slot_value');
    expect((await client.listSlots()).slots).toHaveLength(1);
  });

  test('a write that changes nothing records no version: the same slot put, archiving an archived slot, a recipe saved with the settings it has', async () => {
    const { daemon, client, rest } = await start();
    const value = { spelling: 'en-GB' };
    const first = await rest('POST', '/v1/memory-controls/slots', { slot_name: 'user_preferences', slot_value: value, locked: false });
    // An agent writing its slots on every boot: the same write again is answered unchanged.
    for (let boot = 0; boot < 3; boot++) {
      const again = await rest('POST', '/v1/memory-controls/slots', { slot_name: 'user_preferences', slot_value: { ...value } });
      expect(again.status).toBe(200);
      expect(again.json).toEqual({ slot: first.json.slot, created: false, changed: false, replayed: false });
    }
    const library = await client.putSlot({ slotName: 'user_preferences', slotValue: value, confidence: 0.75 });
    expect(library).toMatchObject({ created: false, slot: { version: 1, updatedAt: Date.parse(first.json.slot.updated_at) } });
    const changed = await rest('POST', '/v1/memory-controls/slots', { slot_name: 'user_preferences', slot_value: value, locked: true });
    expect(changed.json).toMatchObject({ created: false, changed: true, slot: { version: 2, locked: true } });
    await client.putSlot({ slotName: 'user_preferences', locked: false });

    const id = first.json.slot.record_id;
    const archived = await rest('DELETE', `/v1/memory-controls/slots/${id}`);
    expect(archived.json).toMatchObject({ changed: true, slot: { status: 'archived', version: 4 } });
    const twice = await rest('DELETE', `/v1/memory-controls/slots/${id}`);
    expect(twice.status).toBe(200);
    expect(twice.json).toEqual({ slot: archived.json.slot, changed: false, replayed: false });
    expect((await client.deleteSlot(id)).version).toBe(4);
    const history = await rest('GET', `/v1/memory-controls/slots/${id}/history`);
    expect(history.json.changes.map((c: any) => [c.op, c.version])).toEqual([
      ['create', 1],
      ['update', 2],
      ['update', 3],
      ['archive', 4],
    ]);
    // The same value written to the archived slot brings it back: that is a change.
    expect((await rest('POST', '/v1/memory-controls/slots', { slot_name: 'user_preferences', slot_value: value })).json).toMatchObject({ changed: true, slot: { status: 'needs_review', version: 5 } });

    const saved = await rest('POST', '/v1/memory-controls/retrieval-recipes', { name: 'mine', vector_top_k: 20 });
    expect(saved.status).toBe(201);
    expect(saved.json).toMatchObject({ changed: true, recipe: { id: 'mine@1' } });
    const same = await rest('POST', '/v1/memory-controls/retrieval-recipes', { name: 'mine', vector_top_k: 20 });
    expect(same.status).toBe(200);
    expect(same.json).toEqual({ recipe: saved.json.recipe, changed: false, replayed: false });
    const cli = await runEngram(['recipes', 'save', 'mine', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(JSON.parse(cli.stdout).recipe).toMatchObject({ id: 'mine@1', version: 1 });
    expect(await client.saveRecipe('mine', {})).toMatchObject({ id: 'mine@1', version: 1 });
    expect((await client.recipeHistory('mine')).map((r) => r.id)).toEqual(['mine@1']);
    expect(await client.saveRecipe('mine', { vectorTopK: 21 })).toMatchObject({ id: 'mine@2', vectorTopK: 21 });
  });

  test('a repeated request_id is answered as the first write was (its status and body) with replayed: true: slot and recipe writes', async () => {
    const { client, rest } = await start();
    const put = { slot_name: 'project_context', slot_value: { db: 'postgres' }, request_id: 'slot-r1' };
    const first = await rest('POST', '/v1/memory-controls/slots', put);
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ created: true, changed: true, replayed: false });
    // Changed since: the repeat still answers with the version the first write left.
    await client.putSlot({ slotName: 'project_context', slotValue: { db: 'mysql' } });
    const repeat = await rest('POST', '/v1/memory-controls/slots', put);
    expect(repeat.status).toBe(201);
    expect(repeat.json).toEqual({ ...first.json, replayed: true });
    const library = await client.putSlot({ slotName: 'project_context', slotValue: { db: 'postgres' } }, { requestId: 'slot-r1' });
    expect(library).toMatchObject({ created: true, slot: { version: 1, slotValue: { db: 'postgres' } } });
    // A write that changed nothing repeats as unchanged.
    const noop = { slot_name: 'project_context', slot_value: { db: 'mysql' }, request_id: 'slot-r2' };
    expect((await rest('POST', '/v1/memory-controls/slots', noop)).json).toMatchObject({ changed: false, replayed: false, slot: { version: 2 } });
    const noopAgain = await rest('POST', '/v1/memory-controls/slots', noop);
    expect([noopAgain.status, noopAgain.json]).toMatchObject([200, { created: false, changed: false, replayed: true, slot: { version: 2 } }]);

    const save = { name: 'narrow', lexical_top_k: 4, request_id: 'recipe-r1' };
    const saved = await rest('POST', '/v1/memory-controls/retrieval-recipes', save);
    expect(saved.status).toBe(201);
    await client.saveRecipe('narrow', { lexicalTopK: 6 });
    const resaved = await rest('POST', '/v1/memory-controls/retrieval-recipes', save);
    expect(resaved.status).toBe(201);
    expect(resaved.json).toEqual({ ...saved.json, replayed: true });
  });

  test('the library, gRPC, MCP and the CLI say a slot write changed nothing, and the library marks a repeat as replayed', async () => {
    const { daemon, client } = await start();
    expect(await client.putSlot({ slotName: 'do_not_do', slotValue: 'no force pushes' }, { requestId: 'lib-r1' })).toMatchObject({ created: true, changed: true, replayed: false });
    expect(await client.putSlot({ slotName: 'do_not_do', slotValue: 'no force pushes' })).toMatchObject({ created: false, changed: false, replayed: false, slot: { version: 1 } });
    expect(await client.putSlot({ slotName: 'do_not_do', slotValue: 'no force pushes' }, { requestId: 'lib-r1' })).toMatchObject({ created: true, changed: true, replayed: true, slot: { version: 1 } });
    const mcp = await openStdio(['--data-dir', daemon.dataDir]);
    try {
      const same = await mcp.call('memory_slot_set', { slot_name: 'do_not_do', slot_value: 'no force pushes' });
      expect(same.structuredContent).toMatchObject({ created: false, changed: false, slot: { version: 1 } });
      expect((same.content[0] as { text: string }).text).toMatch(/^Unchanged/);
      expect(await mcp.ok('memory_slot_set', { slot_name: 'do_not_do', slot_value: 'no force pushes', locked: true })).toMatchObject({ created: false, changed: true, slot: { version: 2 } });
    } finally {
      await mcp.close();
    }
    const cli = await runEngram(['slots', 'put', 'do_not_do', '"no force pushes"'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(cli.stdout).toMatch(/^unchanged /);
    const json = await runEngram(['slots', 'put', 'do_not_do', '"no force pushes"', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(JSON.parse(json.stdout)).toMatchObject({ created: false, changed: false, slot: { version: 2 } });
  });

  test('a locked slot refuses deletion on every door until an update unlocks it; deletion archives; the history says who changed what', async () => {
    const { daemon, client, rest } = await start();
    const { slot } = await client.putSlot({ slotName: 'active_constraints', slotValue: { deploy: 'never on a Friday' }, projectId: 'atlas', locked: true, confidence: 0.95 });
    const refused = await rest('DELETE', `/v1/memory-controls/slots/${slot.id}`);
    expect(refused.status).toBe(409);
    const unlock = 'slot is locked: unlock it first by writing it again with locked: false (slot_name "active_constraints", project_id "atlas", scope "user")';
    expect(refused.json.error.message).toBe(unlock);
    await expect(client.deleteSlot(slot.id)).rejects.toMatchObject({ kind: 'failed_precondition', message: unlock });
    // An update that does not mention the lock keeps it.
    await client.putSlot({ slotName: 'active_constraints', projectId: 'atlas', slotValue: { deploy: 'never on a Friday or a holiday' } });
    expect((await rest('DELETE', `/v1/memory-controls/slots/${slot.id}`)).status).toBe(409);

    await client.putSlot({ slotName: 'active_constraints', projectId: 'atlas', locked: false });
    const archived = await rest('DELETE', `/v1/memory-controls/slots/${slot.id}`);
    expect(archived.status).toBe(200);
    expect(archived.json.slot.status).toBe('archived');
    expect((await client.listSlots()).slots).toEqual([]);
    expect((await client.listSlots({ archived: true })).slots.map((s) => s.id)).toEqual([slot.id]);
    expect((await client.getSlot(slot.id)).status).toBe('archived');

    const history = await rest('GET', `/v1/memory-controls/slots/${slot.id}/history`);
    expect(history.json.changes.map((c: any) => [c.op, c.version, c.after.locked])).toEqual([
      ['create', 1, true],
      ['update', 2, true],
      ['update', 3, false],
      ['archive', 4, false],
    ]);
    expect(history.json.changes[1].before.slot_value).toEqual({ deploy: 'never on a Friday' });
    expect(history.json.changes[1].after.slot_value).toEqual({ deploy: 'never on a Friday or a holiday' });
    expect(new Set(history.json.changes.map((c: any) => c.by))).toEqual(new Set(['local', 'token']));
    // The CLI says what each change changed: the unlock is a lock change, not a value rewritten.
    const cli = await runEngram(['slots', 'history', slot.id], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(cli.stdout.trim().split('\n').map((l) => l.replace(/^(v\d) \S+ (\w+) by \w+: /, '$1 $2: '))).toEqual([
      'v1 create: created with value {"deploy":"never on a Friday"}',
      'v2 update: slot_value {"deploy":"never on a Friday"} → {"deploy":"never on a Friday or a holiday"}',
      'v3 update: locked true → false',
      'v4 archive: status "needs_review" → "archived"',
    ]);

    // Writing the archived slot again brings the same record back.
    const back = await client.putSlot({ slotName: 'active_constraints', projectId: 'atlas', slotValue: { deploy: 'ok' } });
    expect(back).toMatchObject({ created: false, slot: { id: slot.id, status: 'needs_review' } });
    expect((await rest('DELETE', '/v1/memory-controls/slots/nope')).status).toBe(404);
  });

  test('listing filters by project and substring, pages beyond the limit; the context block shadows global slots by project ones', async () => {
    const { client, rest } = await start();
    await client.putSlot({ slotName: 'user_preferences', slotValue: { spelling: 'en-GB' } });
    await client.putSlot({ slotName: 'project_context', slotValue: { db: 'mysql' } });
    await client.putSlot({ slotName: 'project_context', slotValue: { db: 'postgres 16', rls: true }, projectId: 'atlas', status: 'approved', confidence: 0.8 });
    await client.putSlot({ slotName: 'do_not_do', slotValue: 'never run a migration unreviewed', projectId: 'atlas', confidence: 0.95 });
    await client.putSlot({ slotName: 'do_not_do', slotValue: 'no force pushes', projectId: 'other' });

    expect((await client.listSlots({ projectId: 'atlas' })).slots.map((s) => s.slotName).sort()).toEqual(['do_not_do', 'project_context']);
    expect((await rest('GET', '/v1/memory-controls/slots?query=postgres')).json.slots.map((s: any) => s.project_id)).toEqual(['atlas']);
    const page1 = await client.listSlots({ limit: 2 });
    const page2 = await client.listSlots({ limit: 2, pageToken: page1.nextPageToken });
    const page3 = await client.listSlots({ limit: 2, pageToken: page2.nextPageToken });
    expect([...page1.slots, ...page2.slots, ...page3.slots]).toHaveLength(5);
    expect(page3.nextPageToken).toBe('');
    // A page token no listing gave is refused (it listed nothing, or from an arbitrary place).
    const badToken = await rest('GET', '/v1/memory-controls/slots?page_token=zzz');
    expect(badToken.status).toBe(400);
    expect(badToken.json.error).toMatchObject({ field: 'page_token', message: expect.stringMatching(/"zzz" is not a page token/) });
    await expect(client.listSlots({ pageToken: 'zzz' })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'page_token' });

    const block = await rest('GET', '/v1/memory-controls/slots/context?project_id=atlas');
    expect(block.json.count).toBe(3);
    expect(block.json.slots.map((s: any) => [s.slot_name, s.slot_value, s.confidence, s.status])).toEqual([
      ['do_not_do', 'never run a migration unreviewed', 0.95, 'needs_review'],
      ['project_context', { db: 'postgres 16', rls: true }, 0.8, 'approved'],
      ['user_preferences', { spelling: 'en-GB' }, 0.75, 'needs_review'],
    ]);
    const named = await rest('GET', '/v1/memory-controls/slots/context?project_id=atlas&slot_names=do_not_do&slot_names=user_preferences');
    expect(named.json.slots.map((s: any) => s.slot_name)).toEqual(['do_not_do', 'user_preferences']);
    expect((await client.slotContext()).map((s) => [s.slotName, s.projectId])).toEqual([
      ['project_context', ''],
      ['user_preferences', ''],
    ]);
  });

  test('a null slot value is refused on every door, naming slot_value, and nothing is written', async () => {
    const { daemon, client, rest } = await start();
    const why = 'slot_value: is null: a slot holds a value (to drop a slot, delete it: it is archived and its history kept)';
    await expect(client.putSlot({ slotName: 'q', slotValue: null })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'slot_value', message: why });
    const viaRest = await rest('POST', '/v1/memory-controls/slots', { slot_name: 'q', slot_value: null });
    expect([viaRest.status, viaRest.json.error.field, viaRest.json.error.message]).toEqual([400, 'slot_value', why]);
    const cli = await runEngram(['slots', 'put', 'q', 'null'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    // The CLI names its own argument for the field.
    expect([cli.code, cli.stderr]).toEqual([2, `engram: [value...]: ${why.replace('slot_value: ', '')} (see "engram slots put --help")\n`]);
    const mcp = await openStdio(['--data-dir', daemon.dataDir]);
    try {
      expect(await mcp.fails('memory_slot_set', { slot_name: 'q', slot_value: null })).toContain(why);
    } finally {
      await mcp.close();
    }
    // An existing slot keeps its value; nothing was written by any of them.
    await client.putSlot({ slotName: 'q', slotValue: 'kept' });
    await expect(client.putSlot({ slotName: 'q', slotValue: null })).rejects.toMatchObject({ field: 'slot_value' });
    expect((await client.listSlots()).slots.map((s) => [s.slotName, s.slotValue, s.version])).toEqual([['q', 'kept', 1]]);
  });

  test('a locked slot survives every delete attempt from every door: library, REST, CLI, MCP; an agent loop over MCP leaves one record', async () => {
    const { daemon, client, rest } = await start();
    const mcp = await openStdio(['--data-dir', daemon.dataDir]);
    try {
      const set = { slot_name: 'do_not_do', slot_value: 'never write to production without asking', project_id: 'atlas', locked: true };
      const first = await mcp.ok<{ slot: { record_id: string }; created: boolean }>('memory_slot_set', set);
      expect(first.created).toBe(true);
      for (let boot = 0; boot < 3; boot++) expect((await mcp.ok<{ created: boolean }>('memory_slot_set', set)).created).toBe(false);
      const id = first.slot.record_id;

      // Each refusal says how to unlock it: the fields of a slot write, or the CLI's own command.
      const unlock = 'slot is locked: unlock it first by writing it again with locked: false (slot_name "do_not_do", project_id "atlas", scope "user")';
      await expect(client.deleteSlot(id)).rejects.toMatchObject({ message: unlock });
      const refused = await rest('DELETE', `/v1/memory-controls/slots/${id}`);
      expect([refused.status, refused.json.error.message]).toEqual([409, unlock]);
      const cli = await runEngram(['slots', 'delete', id], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
      expect(cli.code).toBe(1);
      expect(cli.stderr).toBe('engram: failed_precondition: slot is locked: unlock it first with engram slots put do_not_do --project atlas --unlock, then delete it\n');
      expect(await mcp.fails('memory_slot_delete', { record_id: id })).toContain(unlock);
      // A global slot of another scope, its name quoted for the shell.
      const team = (await client.putSlot({ slotName: 'team rules', slotValue: 1, scope: 'team', locked: true })).slot;
      await expect(client.deleteSlot(team.id)).rejects.toMatchObject({ message: expect.stringMatching(/locked: false \(slot_name "team rules", scope "team"\)$/) });
      const teamCli = await runEngram(['slots', 'delete', team.id], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
      expect(teamCli.stderr).toContain("unlock it first with engram slots put 'team rules' --scope team --unlock, then delete it");
      await client.putSlot({ slotName: 'team rules', scope: 'team', locked: false });
      await client.deleteSlot(team.id);
      expect((await client.getSlot(id)).status).toBe('needs_review');

      const context = await mcp.ok<{ count: number; slots: { slot_name: string; locked: boolean }[] }>('memory_slot_context', { project_id: 'atlas' });
      expect(context).toMatchObject({ count: 1, slots: [{ slot_name: 'do_not_do', locked: true }] });
      const cliContext = await runEngram(['slots', 'context', '--project', 'atlas', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
      expect(JSON.parse(cliContext.stdout).slots.map((s: any) => s.record_id)).toEqual([id]);
      // A slot's confidence is its own number in [0, 1] (not a fact's label): taken, and checked.
      expect(await mcp.fails('memory_slot_set', { slot_name: 'x', slot_value: 1, confidence: 2 })).toMatch(/confidence/);
      expect(await mcp.fails('memory_slot_set', { slot_name: 'x', slot_value: 1, confidence: 2 })).not.toMatch(/not supported/);
      const rated = await mcp.ok<{ slot: { confidence: number } }>('memory_slot_set', { slot_name: 'rated', slot_value: 1, confidence: 0.5 });
      expect(rated.slot.confidence).toBe(0.5);
      // Unquoted words of a plain-text value are one value, as remember's text is.
      const words = await runEngram(['slots', 'put', 'tone', 'short', 'plain', 'answers', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
      expect(JSON.parse(words.stdout).slot).toMatchObject({ slot_name: 'tone', slot_value: 'short plain answers' });
      await client.deleteSlot(JSON.parse(words.stdout).slot.record_id);

      // Unlocked by an explicit update, the CLI archives it.
      expect((await runEngram(['slots', 'put', 'do_not_do', '--project', 'atlas', '--unlock'], { dataDir: daemon.dataDir, cwd: daemon.dataDir })).code).toBe(0);
      expect((await runEngram(['slots', 'delete', id], { dataDir: daemon.dataDir, cwd: daemon.dataDir })).code).toBe(0);
      expect((await mcp.ok<{ slots: { slot_name: string }[] }>('memory_slot_list', {})).slots.map((s) => s.slot_name)).toEqual(['rated']);
    } finally {
      await mcp.close();
    }
  });

  test('recipes: the six built-ins of the seed; a save merges over the built-in and each save is a new version; listing flags the built-ins', async () => {
    const { daemon, client, rest } = await start();
    const listed = await rest('GET', '/v1/memory-controls/retrieval-recipes');
    expect(listed.json.recipes.map((r: any) => [r.id, r.vector_top_k, r.lexical_top_k, r.graph_depth, r.reranker, r.token_budget, r.prefer_verified, r.verified_only, r.include_evidence])).toEqual([
      ['builtin:cheap', 12, 12, 0, false, 2000, true, false, false],
      ['builtin:balanced', 32, 32, 1, true, 6000, true, false, false],
      ['builtin:deep', 80, 80, 2, true, 16000, true, false, false],
      ['builtin:forensic', 120, 120, 3, true, 30000, true, false, true],
      ['builtin:verified_only', 48, 48, 1, true, 8000, true, true, false],
      ['builtin:low_latency', 8, 8, 0, false, 1200, true, false, false],
    ]);
    expect(listed.json.recipes.every((r: any) => r.builtin)).toBe(true);

    const saved = await rest('POST', '/v1/memory-controls/retrieval-recipes', { name: 'deep', token_budget: 24000 });
    expect(saved.status).toBe(201);
    expect(saved.json.recipe).toMatchObject({ id: 'deep@1', name: 'deep', version: 1, builtin: false, token_budget: 24000, vector_top_k: 80, graph_depth: 2, reranker: true });
    const again = await client.saveRecipe('deep', { graphDepth: 1 });
    expect(again).toMatchObject({ id: 'deep@2', version: 2, tokenBudget: 24000, graphDepth: 1 });
    const mine = await client.saveRecipe('support-desk', { vectorTopK: 20 });
    expect(mine).toMatchObject({ id: 'support-desk@1', vectorTopK: 20, lexicalTopK: 32, tokenBudget: 6000 });

    const now = await client.listRecipes();
    expect(now.map((r) => r.id)).toEqual(['deep@2', 'support-desk@1', 'builtin:cheap', 'builtin:balanced', 'builtin:forensic', 'builtin:verified_only', 'builtin:low_latency']);
    expect((await client.recipeHistory('deep')).map((r) => [r.version, r.tokenBudget, r.graphDepth])).toEqual([
      [1, 24000, 2],
      [2, 24000, 1],
    ]);
    expect((await rest('GET', '/v1/memory-controls/retrieval-recipes/cheap')).json.recipe.id).toBe('builtin:cheap');
    expect((await rest('GET', '/v1/memory-controls/retrieval-recipes/nope')).status).toBe(404);
    // History agrees with get: an unknown name is not found; a built-in never saved has no versions.
    expect((await rest('GET', '/v1/memory-controls/retrieval-recipes/nope/history')).status).toBe(404);
    await expect(client.recipeHistory('nope')).rejects.toMatchObject({ kind: 'not_found' });
    expect(await client.recipeHistory('balanced')).toEqual([]);
    expect((await rest('POST', '/v1/memory-controls/retrieval-recipes', { name: 'deep', graph_depth: 9 })).json.error.field).toBe('graph_depth');
    await expect(client.saveRecipe('Bad Name', {})).rejects.toMatchObject({ kind: 'invalid_argument', field: 'name' });

    // The CLI and MCP read and write the same recipes.
    const cli = await runEngram(['recipes', 'save', 'cheap', '--token-budget', '2500', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(JSON.parse(cli.stdout).recipe).toMatchObject({ id: 'cheap@1', token_budget: 2500, vector_top_k: 12 });
    const mcp = await openStdio(['--data-dir', daemon.dataDir]);
    try {
      expect((await mcp.ok<{ recipe: { id: string; reranker: boolean } }>('memory_recipe_save', { name: 'low_latency', reranker: true })).recipe).toMatchObject({ id: 'low_latency@1', reranker: true });
      const all = await mcp.ok<{ recipes: { id: string }[] }>('memory_recipes', {});
      expect(all.recipes.map((r) => r.id)).toEqual(['cheap@1', 'deep@2', 'low_latency@1', 'support-desk@1', 'builtin:balanced', 'builtin:forensic', 'builtin:verified_only']);
      expect(await mcp.fails('memory_recipe_save', { name: 'deep', graph_depth: 7 })).toMatch(/graph_depth/);
    } finally {
      await mcp.close();
    }
  });

  test("a recipe setting out of range is refused in the range the daemon accepts, not the wire's (library and CLI)", async () => {
    const { daemon, client } = await start();
    // -1 and 1e20 cannot be carried by the wire's uint32: they said "between 0 and 4294967295",
    // though 0 is refused too; 0 and 1001 reached the daemon and said "between 1 and 1000".
    for (const vectorTopK of [-1, 0, 1.5, 1001, 1e20]) {
      await expect(client.saveRecipe('r', { vectorTopK }), String(vectorTopK)).rejects.toMatchObject({ kind: 'invalid_argument', field: 'vector_top_k', message: `vector_top_k: must be a whole number between 1 and 1000, got ${vectorTopK}` });
    }
    for (const tokenBudget of [-5, 0, 2e6]) {
      await expect(client.saveRecipe('r', { tokenBudget }), String(tokenBudget)).rejects.toMatchObject({ field: 'token_budget', message: `token_budget: must be a whole number between 1 and 1000000, got ${tokenBudget}` });
    }
    for (const graphDepth of [-1, 4]) {
      await expect(client.saveRecipe('r', { graphDepth }), String(graphDepth)).rejects.toMatchObject({ field: 'graph_depth', message: `graph_depth: must be a whole number between 0 and 3, got ${graphDepth}` });
    }
    const cli = await runEngram(['recipes', 'save', 'r', '--lexical-top-k', '99999999999999999999'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toBe('engram: --lexical-top-k: must be a whole number between 1 and 1000, got 100000000000000000000 (see "engram recipes save --help")\n');
    expect(await client.recipeHistory('r').catch((e: Error) => e.message)).toMatch(/no recipe "r"/);
  });
});
