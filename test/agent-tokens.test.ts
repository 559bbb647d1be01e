// Agent tokens against a real daemon: a token made for agent A opens A and nothing else, on every
// door (the library over the unix socket and over TCP, the CLI with ENGRAM_TOKEN, REST, MCP over
// HTTP and over stdio); revocation refuses the very next call; the store keeps only a digest; a
// daemon serving an older profile knows no agent tokens.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { connect } from '../client/index.ts';
import { CapabilityError } from '../client/errors.ts';
import { runEngram } from './fixtures/cli.ts';
import { useDaemonPool } from './fixtures/daemon.ts';
import { openHttp, openStdio } from './fixtures/mcp.ts';

const pool = useDaemonPool();
const denied = { kind: 'permission_denied' };

async function start(args: string[] = []) {
  const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0', ...args] });
  const admin = await daemon.client();
  await admin.put('alice', 'alice keeps her notes in the blue binder');
  await admin.put('bob', 'bob keeps the launch codes in the red binder');
  await admin.putShared('the team meets on Tuesdays');
  const rest = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://${daemon.discovery.httpAddress}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  return { daemon, admin, rest };
}

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    return stat.isDirectory() ? filesUnder(path) : stat.isFile() ? [path] : [];
  });
}

async function daemonWithVault() {
  const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--vault', join(pool.newDir(), 'vault')] });
  return { daemon, admin: await daemon.client() };
}

describe('agent tokens', () => {
  test('a token for alice opens alice and refuses bob on every library operation; nothing is written for a refused call', async () => {
    const { daemon, admin } = await start();
    const { token, info } = await admin.createToken({ agents: ['alice'], label: 'alice bot' });
    expect(token).toMatch(/^engram_[0-9a-f]{12}_/);
    expect(info).toMatchObject({ agents: ['alice'], rights: ['read', 'write'], shared: ['read'], label: 'alice bot', createdBy: 'local', revokedAt: 0 });
    const alice = await daemon.client({ token });

    expect((await alice.recall('alice', 'binder')).facts.map((f) => f.text)).toEqual(['alice keeps her notes in the blue binder']);
    await alice.put('alice', 'alice moved the binder to the shelf');
    expect((await alice.recallAll('alice', 'Tuesdays')).facts.some((f) => f.text === 'the team meets on Tuesdays')).toBe(true);
    expect(await alice.listAgents()).toEqual(['__shared__', 'alice']);
    expect((await alice.stats('alice')).liveCount).toBe(2);

    const bobFact = (await admin.list('bob')).facts[0]!;
    const refusals: [string, () => Promise<unknown>][] = [
      ['put', () => alice.put('bob', 'planted by alice')],
      ['putBatch', () => alice.putBatch([{ agentId: 'alice', text: 'fine' }, { agentId: 'bob', text: 'planted by alice' }])],
      ['recall', () => alice.recall('bob', 'launch codes')],
      ['recallExplain', () => alice.recallExplain('bob', 'launch codes')],
      ['recallAll', () => alice.recallAll('bob', 'launch codes')],
      ['batchRecall', () => alice.batchRecall('bob', ['launch codes'])],
      ['get', () => alice.get('bob', bobFact.id)],
      ['list', () => alice.list('bob')],
      ['stats of bob', () => alice.stats('bob')],
      ['stats of the store', () => alice.stats()],
      ['pin', () => alice.pin('bob', bobFact.id)],
      ['forget', () => alice.forget('bob', bobFact.id)],
      ['checkpointSave', () => alice.checkpointSave('bob', { step: 1 })],
      ['checkpointList', () => alice.checkpointList('bob')],
      ['graph', () => alice.readGraph('bob', { factId: bobFact.id })],
      ['revise', () => alice.revise('bob', [bobFact.id], 'rewritten by alice')],
      ['alias', () => alice.alias('bob', 'codes', ['secrets'])],
      ['touch', () => alice.touch('bob', bobFact.id)],
      ['relate', () => alice.relate('bob', bobFact.id, 'related', bobFact.id)],
      ['collectGarbage (applied)', () => alice.collectGarbage('alice', { dryRun: false })],
      ['consolidate', () => alice.consolidate('alice')],
      ['extract + remember', () => alice.extract('bob', { message: 'I always keep the codes in the red binder.' }, { remember: true })],
      ['searchUnified', () => alice.searchUnified('bob', 'launch codes')],
      ['doctor', async () => { for await (const _ of alice.doctor()) void _; }],
      ['createToken', () => alice.createToken({ agents: ['bob'] })],
      ['listTokens', () => alice.listTokens()],
    ];
    for (const [what, call] of refusals) await expect(call(), what).rejects.toMatchObject(denied);
    // A batch item that names no valid namespace fails its own slot, for a token as for anyone.
    const mixed = await alice.putBatch([{ agentId: 'alice', text: 'alice batch fact' }, { agentId: '', text: 'no namespace' }]);
    expect(mixed[0]).toMatchObject({ factId: expect.any(String) });
    expect(mixed[1]).toMatchObject({ error: { kind: 'invalid_argument', field: 'items[1].agent_id' } });
    // Erasing needs the admin right, which the default token does not hold even on alice.
    const own = (await alice.list('alice')).facts[0]!;
    await expect(alice.delete('alice', own.id)).rejects.toMatchObject(denied);

    const bobAfter = await admin.list('bob');
    expect(bobAfter.facts.map((f) => f.text)).toEqual(['bob keeps the launch codes in the red binder']);
    expect(bobAfter.facts[0]!.pinned).toBe(false);
    expect((await admin.list('alice')).facts.map((f) => f.text)).not.toContain('fine'); // the refused batch wrote nothing
    expect(await admin.checkpointList('bob')).toEqual([]);
    alice.close();
  });

  test('the shared grant is separate: without it recall-all, shared writes, slots and contexts are refused; admin rights open erase', async () => {
    const { daemon, admin } = await start();
    const { token } = await admin.createToken({ agents: ['alice'], rights: ['read', 'write', 'admin'], shared: [] });
    const alice = await daemon.client({ token });
    await expect(alice.recallAll('alice', 'Tuesdays')).rejects.toMatchObject(denied);
    await expect(alice.recallShared('Tuesdays')).rejects.toMatchObject(denied);
    await expect(alice.putShared('alice was here')).rejects.toMatchObject(denied);
    await expect(alice.putSlot({ slotName: 'user_preferences', slotValue: { tea: 'green' } })).rejects.toMatchObject(denied);
    await expect(alice.listSlots()).rejects.toMatchObject(denied);
    await expect(alice.assembleContext('alice', 'binder')).rejects.toMatchObject(denied);
    await expect(alice.saveRecipe('mine', { vectorTopK: 5 })).rejects.toMatchObject(denied);
    await expect(alice.getRecipe('balanced')).rejects.toMatchObject(denied);
    expect(await alice.listAgents()).toEqual(['alice']);
    const own = (await alice.list('alice')).facts[0]!;
    expect((await alice.delete('alice', own.id)).id).toBe(own.id);
    expect((await admin.listSlots()).slots).toEqual([]);
    alice.close();
  });

  test('a write-only token changes facts it cannot read without being shown them: pin, forget, a duplicate write answer with the state only', async () => {
    const { daemon, admin, rest } = await start();
    const { token } = await admin.createToken({ agents: ['bob'], rights: ['write'], shared: [] });
    const writer = await daemon.client({ token });
    const secret = (await admin.list('bob')).facts[0]!;
    await expect(writer.get('bob', secret.id)).rejects.toMatchObject(denied);

    await admin.linkEntity('bob', secret.id, 'launch codes', { type: 'secret' });
    const pinned = await writer.pin('bob', secret.id);
    expect(pinned).toMatchObject({ id: secret.id, pinned: true, text: '', tags: [], entities: [], entityTypes: {} });
    const unpinned = await rest(token, 'POST', `/v1/facts/${secret.id}/unpin`, { agent_id: 'bob' });
    expect(unpinned.json.fact).toMatchObject({ id: secret.id, pinned: false, text: '' });
    // Its own new fact comes back whole; the same text again finds the stored fact, shown as state.
    const own = await writer.put('bob', 'bob ships on Friday', { tags: ['release'] });
    expect(own.fact.text).toBe('bob ships on Friday');
    const again = await rest(token, 'POST', '/v1/facts', { agent_id: 'bob', text: 'bob keeps the launch codes in the red binder' });
    expect(again.json.fact).toMatchObject({ id: secret.id, text: '' });
    // Relating a fact it cannot read answers with that fact's state only, on every door.
    const related = await rest(token, 'POST', '/v1/relations', { agent_id: 'bob', from_id: secret.id, to_id: own.fact.id, type: 'supports' });
    expect(related.status).toBe(200);
    expect(related.json.fact).toMatchObject({ id: secret.id, text: '', entities: [], entity_types: {} });
    expect((await writer.relate('bob', secret.id, 'supports', own.fact.id, { remove: true })).fact).toMatchObject({ id: secret.id, text: '', entityTypes: {} });
    const forgotten = await rest(token, 'POST', `/v1/facts/${secret.id}/forget`, { agent_id: 'bob' });
    expect(forgotten.json.fact).toMatchObject({ id: secret.id, superseded_by: 'agent', text: '' });
    // Nothing was lost: the store still holds the text for a caller that may read it.
    expect((await admin.get('bob', secret.id)).text).toBe('bob keeps the launch codes in the red binder');
    // Asking what became of a write (its own or another's) shows the fact's state, not its text.
    await admin.put('bob', 'bob hides the spare key under the mat', { requestId: 'admin-write-1' });
    const status = await writer.writeStatus('admin-write-1', { agentId: 'bob' });
    expect(status).toMatchObject({ committed: true, fact: { text: '', tags: [] } });
    expect((await rest(token, 'GET', '/v1/writes/admin-write-1?agent_id=bob')).json.fact).toMatchObject({ text: '' });
    // Relations are a write: over MCP too, facts named by id are related without reading them.
    const mcp = await openHttp(daemon.discovery.httpAddress!, token);
    try {
      expect(await mcp.ok('memory_relate', { agent_id: 'bob', from_id: own.fact.id, to_id: status.fact!.id, type: 'related' })).toMatchObject({ changed: true });
      // Only a fact named by its text is looked up, which needs read: memory_reflect link names
      // facts so; memory_relate takes ids only, as every other door.
      expect(await mcp.fails('memory_reflect', { action: 'link', agent_id: 'bob', target: own.fact.id, text: 'the red binder', relation: 'related' })).toMatch(/may not read/);
      expect(await mcp.fails('memory_relate', { agent_id: 'bob', from_id: own.fact.id, to_id: 'the red binder', type: 'related' })).toMatch(/to_id: "the red binder" is not a fact id/);
    } finally {
      await mcp.close();
    }
    // An empty rights list is refused, never taken for the default read and write.
    await expect(admin.createToken({ agents: ['bob'], rights: [] })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'rights' });
    writer.close();
  });

  test('an admin token without read runs a consolidation but is not shown what the summary or a merge says', async () => {
    const { daemon, admin } = await start(['--consolidate-below', '5', '--consolidate-every', '0']);
    for (const n of [1, 2, 3]) await admin.put('dave', `dave's locker code ${n} is 80${n}${n}.`);
    const { token } = await admin.createToken({ agents: ['dave'], rights: ['admin'], shared: [] });
    const keeper = await daemon.client({ token });
    const [cluster] = (await admin.clusterMemories('dave', { threshold: 0.3 })).clusters;
    const merged = await keeper.consolidateMemories('dave', cluster!.id, { threshold: 0.3 });
    expect(merged.merged).toMatchObject({ text: '', tags: [], entities: [] });
    const run = await keeper.consolidate('dave');
    expect(run.summary).toMatchObject({ text: '' });
    expect(run.text).toBe('');
    // Promotion: it learns which fact went to the vault, not what it says.
    const vaulted = await daemonWithVault();
    const { fact } = await vaulted.admin.put('dave', 'dave parks on level three');
    const { token: vaultKeeperToken } = await vaulted.admin.createToken({ agents: ['dave'], rights: ['admin'], shared: [] });
    const vaultKeeper = await vaulted.daemon.client({ token: vaultKeeperToken });
    const promoted = await vaultKeeper.promote('dave', { factId: fact.id, force: true });
    expect(promoted).toMatchObject({ promotedIds: [fact.id], candidates: [{ id: fact.id, contentPreview: '' }] });
    vaultKeeper.close();
    expect((await admin.get('dave', run.summary!.id)).text).toMatch(/locker code/);
    keeper.close();
  });

  test('a token that may write slots and save recipes but not read them is not shown a slot\'s value or a recipe by writing it', async () => {
    const { daemon, admin, rest } = await start();
    const secret = (await admin.putSlot({ slotName: 'project_context', slotValue: 'codename BLUEBIRD', evidenceRefs: ['doc-7'] })).slot;
    await admin.saveRecipe('secretrecipe', { vectorTopK: 7 });
    const { token } = await admin.createToken({ agents: ['alice'], rights: ['write'], shared: ['write', 'admin'] });
    const writer = await daemon.client({ token });
    await expect(writer.listSlots()).rejects.toMatchObject(denied);
    // A put that leaves out slot_value keeps the stored one: its answer says the state only.
    const state = { id: secret.id, slotName: 'project_context', version: secret.version, slotValue: null, evidenceRefs: [] };
    expect((await writer.putSlot({ slotName: 'project_context' })).slot).toMatchObject(state);
    const put = await rest(token, 'POST', '/v1/memory-controls/slots', { slot_name: 'project_context' });
    expect(put.json.slot).toMatchObject({ record_id: secret.id, slot_value: null, evidence_refs: [] });
    const mcp = await openHttp(daemon.discovery.httpAddress!, token);
    try {
      expect(JSON.stringify(await mcp.ok('memory_slot_set', { slot_name: 'project_context' }))).not.toContain('BLUEBIRD');
    } finally {
      await mcp.close();
    }
    expect(await writer.deleteSlot(secret.id)).toMatchObject({ ...state, status: 'archived', version: secret.version + 1 });
    // Saving a recipe answers the merged recipe: it needs read on the shared namespace too.
    await expect(writer.saveRecipe('secretrecipe', {})).rejects.toMatchObject(denied);
    expect((await rest(token, 'POST', '/v1/memory-controls/retrieval-recipes', { name: 'secretrecipe' })).status).toBe(403);
    expect((await admin.getRecipe('secretrecipe')).version).toBe(1);
    expect((await admin.getSlot(secret.id)).slotValue).toBe('codename BLUEBIRD');
    writer.close();
  });

  test('revocation refuses the next call on every door; the token survives a restart until then, and the store keeps only its digest', async () => {
    const dataDir = pool.newDir();
    let daemon = await pool.start({ dataDir, args: ['--http', '127.0.0.1:0', '--listen', '127.0.0.1:0'] });
    const admin = await daemon.client();
    await admin.put('alice', 'alice keeps her notes in the blue binder');
    const { token, info } = await admin.createToken({ agents: ['alice'] });
    admin.close();
    await daemon.stop();
    daemon = await pool.start({ dataDir, args: ['--http', '127.0.0.1:0', '--listen', '127.0.0.1:0'] });
    // engram_<id>_<secret>: the secret itself may hold "_".
    const secret = token.split('_').slice(2).join('_');
    expect(secret).toHaveLength(43);
    for (const file of filesUnder(dataDir)) expect(readFileSync(file).includes(secret), file).toBe(false);

    const overTcp = await connect({ address: daemon.discovery.tcpAddress!, token });
    expect((await overTcp.recall('alice', 'binder')).facts).toHaveLength(1);
    await expect(overTcp.recall('bob', 'binder')).rejects.toMatchObject(denied);
    const url = `http://${daemon.discovery.httpAddress}`;
    expect((await fetch(`${url}/v1/recall?agent_id=alice&q=binder`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    const revoked = await runEngram(['token', 'revoke', info.id], { dataDir, cwd: dataDir });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout.trim()).toBe(`revoked ${info.id}`);
    // Again: every door answers with the first revocation (idempotent), and the CLI says so.
    const again = await runEngram(['token', 'revoke', info.id], { dataDir, cwd: dataDir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^${info.id} was already revoked \\(at .+\\); nothing changed`));
    const local = await daemon.client();
    const revokedAt = new Date((await local.revokeToken(info.id)).revokedAt).toISOString();
    local.close();
    const overRest = await fetch(`${url}/v1/tokens/${info.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${daemon.discovery.token}` } });
    expect(overRest.status).toBe(200);
    expect(((await overRest.json()) as any).token.revoked_at).toBe(revokedAt);
    expect(again.stdout).toContain(revokedAt);
    await expect(overTcp.recall('alice', 'binder')).rejects.toMatchObject({ kind: 'unauthenticated' });
    expect((await fetch(`${url}/v1/recall?agent_id=alice&q=binder`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    // Over the unix socket a revoked token is refused too, not taken for the local user.
    await expect(daemon.client({ token })).rejects.toMatchObject({ kind: 'unauthenticated' });
    // The CLI and engram mcp reached the daemon: they say it refused the token, and what to do.
    const env = { ENGRAM_TOKEN: token };
    const runs = [await runEngram(['recall', 'alice', 'binder'], { dataDir, cwd: dataDir, env }), await runEngram(['mcp', '--data-dir', dataDir], { dataDir: null, cwd: dataDir, env })];
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/the daemon refused the token: missing, wrong or revoked .*\. Check ENGRAM_TOKEN \(or --token\), e\.g\. create a new one with engram token create/);
      expect(run.stderr).not.toContain('cannot reach');
    }
    const listed = await runEngram(['token', 'list', '--json'], { dataDir, cwd: dataDir });
    expect(JSON.parse(listed.stdout).tokens[0]).toMatchObject({ id: info.id, agents: ['alice'], revoked_at: expect.any(String) });
    overTcp.close();
  });

  test('REST answers 403 and MCP a tool error for another namespace; the CLI takes the token from ENGRAM_TOKEN', async () => {
    const { daemon, rest } = await start();
    const made = await runEngram(['token', 'create', '--agent', 'alice', '--rights', 'read'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(made.code, made.stderr).toBe(0);
    const token = made.stdout.trim();
    expect(made.stderr).toContain('not shown again');

    expect((await rest(token, 'GET', '/v1/recall?agent_id=alice&q=binder')).status).toBe(200);
    const bob = await rest(token, 'GET', '/v1/recall?agent_id=bob&q=binder');
    expect(bob.status).toBe(403);
    expect(bob.json.error.message).toContain('may not read namespace "bob"');
    expect((await rest(token, 'POST', '/v1/facts', { agent_id: 'alice', text: 'read-only token wrote this' })).status).toBe(403);
    expect((await rest(token, 'GET', '/v1/agents')).json.agents).toEqual(['__shared__', 'alice']);
    expect((await rest(token, 'GET', '/v1/tokens')).status).toBe(403);
    expect((await fetch(`http://${daemon.discovery.httpAddress}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(403);
    expect((await rest(daemon.discovery.token, 'GET', '/v1/tokens')).json.tokens).toHaveLength(1);

    const http = await openHttp(daemon.discovery.httpAddress!, token);
    expect(await http.fails('memory_search', { agent_id: 'bob', query: 'launch codes' })).toContain('may not read namespace "bob"');
    expect((await http.ok('memory_search', { agent_id: 'alice', query: 'binder' })).facts).toHaveLength(1);
    await http.close();

    const stdio = await openStdio(['--data-dir', daemon.dataDir], { ENGRAM_TOKEN: token });
    expect(await stdio.fails('memory_search', { agent_id: 'bob', query: 'launch codes' })).toContain('may not read namespace "bob"');
    expect(await stdio.fails('memory_add', { agent_id: 'alice', text: 'read-only token wrote this' })).toContain('may not write namespace "alice"');
    await stdio.close();

    const env = { ENGRAM_TOKEN: token };
    const cliBob = await runEngram(['recall', 'bob', 'launch codes'], { dataDir: daemon.dataDir, cwd: daemon.dataDir, env });
    expect(cliBob.code).toBe(1);
    expect(cliBob.stderr).toContain('may not read namespace "bob"');
    const exported = await runEngram(['export', 'bob'], { dataDir: daemon.dataDir, cwd: daemon.dataDir, env });
    expect(exported.code).toBe(1);
    expect(exported.stdout).not.toContain('launch codes');
    const ownExport = await runEngram(['export', 'alice'], { dataDir: daemon.dataDir, cwd: daemon.dataDir, env });
    expect(ownExport.code, ownExport.stderr).toBe(0);
    expect(ownExport.stdout).toContain('blue binder');
    expect(ownExport.stdout).not.toContain('launch codes');

    const bad = await runEngram(['token', 'create', '--agent', 'alice', '--rights', 'read,sudo'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"sudo" is not a right');
  });

  test("an agent token in ENGRAM_TOKEN never becomes the daemon's own: engram daemon refuses it, engram start leaves it to the agent", async () => {
    const dataDir = pool.newDir();
    const cli = (args: string[], env?: Record<string, string>) => runEngram(args, { dataDir, cwd: dataDir, ...(env ? { env } : {}) });
    expect((await cli(['start', '--embedder', 'none', '--http', '127.0.0.1:0'])).code).toBe(0);
    try {
      const token = (await cli(['token', 'create', '--agent', 'alice', '--rights', 'read'])).stdout.trim();
      expect((await cli(['stop'])).code).toBe(0);
      // The variable is the agents' (README: ENGRAM_TOKEN=… engram mcp): the daemon refuses it.
      const daemon = await runEngram(['daemon', '--data-dir', dataDir, '--check'], { dataDir: null, cwd: dataDir, env: { ENGRAM_TOKEN: token } });
      expect(daemon.code, daemon.stderr).toBe(2);
      expect(daemon.stderr).toContain('ENGRAM_TOKEN holds an agent token');
      expect(daemon.stderr).not.toContain(token);
      // engram start (as engram mcp does) starts the daemon on its own token file instead.
      const started = await cli(['start', '--embedder', 'none', '--http', '127.0.0.1:0'], { ENGRAM_TOKEN: token });
      expect(started.code, started.stderr).toBe(0);
      const discovery = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as { httpAddress: string; token: string };
      expect(discovery.token).not.toBe(token);
      const get = (bearer: string, path: string) => fetch(`http://${discovery.httpAddress}${path}`, { headers: { authorization: `Bearer ${bearer}` } });
      expect((await get(token, '/v1/tokens')).status).toBe(403);
      expect((await get(token, '/v1/facts?agent_id=bob')).status).toBe(403);
      expect((await get(discovery.token, '/v1/tokens')).status).toBe(200);
    } finally {
      await cli(['stop']);
    }
  });

  test('without auth (loopback), a caller that presents an agent token is still confined to it', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0', '--no-auth'] });
    const admin = await daemon.client();
    await admin.put('bob', 'bob keeps the launch codes in the red binder');
    const { token } = await admin.createToken({ agents: ['alice'] });
    const url = `http://${daemon.discovery.httpAddress}/v1/recall?agent_id=bob&q=binder`;
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(403);
    admin.close();
  });

  test('without auth (loopback), a revoked or unknown token is refused (401), not taken for the local user', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0', '--no-auth'] });
    const admin = await daemon.client();
    await admin.put('bob', 'bob keeps the launch codes in the red binder');
    const { token, info } = await admin.createToken({ agents: ['alice'] });
    await admin.revokeToken(info.id);
    const url = `http://${daemon.discovery.httpAddress}/v1/recall?agent_id=bob&q=binder`;
    for (const bearer of [token, `${token.slice(0, -4)}abcd`, 'not-a-token']) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${bearer}` } });
      expect(res.status, bearer).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    // The daemon's own token, and no token at all, are the local user as before.
    expect((await fetch(url, { headers: { authorization: `Bearer ${daemon.discovery.token}` } })).status).toBe(200);
    expect((await fetch(url)).status).toBe(200);
    admin.close();
  });

  test('a daemon serving an older profile knows no agent tokens: the library refuses before sending, and a token is refused', async () => {
    const { daemon, admin } = await start();
    const { token } = await admin.createToken({ agents: ['alice'] });
    admin.close();
    await daemon.stop();
    const old = await pool.start({ dataDir: daemon.dataDir, args: ['--compat', 'v0.2'] });
    const client = await old.client();
    await expect(client.createToken({ agents: ['alice'] })).rejects.toBeInstanceOf(CapabilityError);
    // Refused as what it is, not as a wrong token.
    await expect(old.client({ token })).rejects.toMatchObject({ kind: 'unauthenticated', message: expect.stringMatching(/an agent token, which this daemon does not take: .*restart it without --compat/) });
    await expect(old.client({ token: 'not-a-token' })).rejects.toMatchObject({ kind: 'unauthenticated', message: expect.stringMatching(/^missing, wrong or revoked bearer token/) });
    client.close();
  });
});
