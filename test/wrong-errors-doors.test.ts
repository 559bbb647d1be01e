// Wrong errors at the doors: input a door used to mangle or crash on is refused naming the field,
// with nothing written — impossible or ambiguous dates, meta nested past the limit, a damaged
// discovery file.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { MAX_META_DEPTH } from '../shared/validate.ts';
import { runEngram } from './fixtures/cli.ts';
import { useDaemon, useDaemonPool } from './fixtures/daemon.ts';

const pool = useDaemonPool();
// One daemon (with REST) for the tests that only need one serving: each keeps to a namespace of
// its own, and every call it makes reads or writes only that namespace.
const shared = useDaemon({ args: ['--http', '127.0.0.1:0'] });

const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

function doors() {
  const { daemon, client } = shared;
  const post = async (path: string, body: string) => {
    const res = await fetch(`http://${daemon.discovery.httpAddress}${path}`, { method: 'POST', headers: { authorization: `Bearer ${daemon.discovery.token}`, 'content-type': 'application/json' }, body });
    return { status: res.status, json: (await res.json()) as any };
  };
  const cli = (args: string[]) => runEngram(args, { dataDir: daemon.dataDir, cwd: daemon.dataDir });
  return { daemon, client, post, cli };
}

describe('refused at the door, nothing written', () => {
  test(`meta nested deeper than ${MAX_META_DEPTH} levels, on REST, the library and the CLI`, async () => {
    const { client, post, cli } = doors();
    const deep = await post('/v1/facts', `{"agent_id":"m","text":"deep","meta":${nested(5000)}}`);
    expect(deep.status).toBe(400);
    expect(deep.json.error.field).toBe('meta');
    expect((await post('/v1/facts', `{"agent_id":"m","text":"just deep enough","meta":${nested(MAX_META_DEPTH)}}`)).status).toBe(201);
    expect((await post('/v1/facts', `{"agent_id":"m","text":"one too deep","meta":${nested(MAX_META_DEPTH + 1)}}`)).json.error.field).toBe('meta');
    await expect(client.put('m', 'deep via library', { meta: JSON.parse(nested(100)) })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'meta' });
    const viaCli = await cli(['remember', 'm', 'deep via cli', '--meta', nested(5000)]);
    expect(viaCli.code).not.toBe(0);
    expect(viaCli.stderr).toMatch(/meta/);
    expect(viaCli.stderr).not.toMatch(/\n\s+at /);
    expect((await client.list('m')).facts.map((f) => f.text)).toEqual(['just deep enough']);
    // What was stored reads back through every door.
    expect((await cli(['list', 'm', '--json'])).code).toBe(0);
    expect((await cli(['export', 'm'])).code).toBe(0);
  });

  test(`a checkpoint state nested deeper than ${MAX_META_DEPTH} levels is refused on every door, so resume keeps working`, async () => {
    const { client, post, cli } = doors();
    await client.checkpointSave('cp', { step: 1 });
    // Saved, such a state crashed every resume (REST 500, an MCP tool error, a CLI stack).
    await expect(client.checkpointSave('cp', nested(5000))).rejects.toMatchObject({ kind: 'invalid_argument', field: 'state_json' });
    await expect(client.checkpointSave('cp', JSON.parse(nested(5000)) as Record<string, unknown>)).rejects.toMatchObject({ kind: 'invalid_argument', field: 'state_json' });
    const rest = await post('/v1/checkpoints', `{"agent_id":"cp","state":${nested(5000)}}`);
    expect(rest.status).toBe(400);
    expect(rest.json.error.field).toBe('state');
    const viaCli = await cli(['checkpoint', 'save', 'cp', '--state', nested(5000)]);
    expect(viaCli.code).toBe(2);
    expect(viaCli.stderr).toMatch(/--state: nests deeper than 64 levels/);
    expect(viaCli.stderr).not.toMatch(/\n\s+at /);
    expect((await post('/v1/checkpoints', `{"agent_id":"cp","state":${nested(MAX_META_DEPTH)}}`)).status).toBe(201);
    expect(await client.checkpointList('cp')).toHaveLength(2);
    expect((await cli(['checkpoint', 'resume', 'cp', '--json'])).code).toBe(0);
  });

  test('a slot value nested thousands deep is refused naming it by the library and the CLI, not a stack', async () => {
    const { client, cli } = doors();
    await expect(client.putSlot({ slotName: 'deep-slot', slotValue: JSON.parse(nested(5000)) })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'slot_value' });
    const viaCli = await cli(['slots', 'put', 'deep-slot', nested(5000)]);
    expect(viaCli.code).toBe(2);
    expect(viaCli.stderr).toMatch(/\[value\.\.\.\]: nests deeper than 64 levels/);
    expect(viaCli.stderr).not.toMatch(/\n\s+at /);
    expect((await client.listSlots({})).slots.filter((s) => s.slotName === 'deep-slot')).toEqual([]);
  });

  test('dates a person types: "May 8" and 2024-02-30 are refused, 2024-05-08 is midnight UTC', async () => {
    const { client, post, cli } = doors();
    // The refused commands are independent of each other: run at once.
    const refused = ['May 8', '8', '2024-02-30', '2024-13-01', '2024-05-08T25:00:00Z'];
    const [since, ...runs] = await Promise.all([cli(['recall', 'd', 'note', '--since', 'May 8']), ...refused.map((when) => cli(['remember', 'd', `note at ${when}`, '--occurred-at', when]))]);
    for (const [i, run] of runs.entries()) {
      expect(run.code, refused[i]).toBe(2);
      expect(run.stderr).toMatch(/--occurred-at/);
    }
    expect(since.code).toBe(2);
    expect((await cli(['remember', 'd', 'a dated note', '--occurred-at', '2024-05-08'])).code).toBe(0);
    const bad = await post('/v1/facts', JSON.stringify({ agent_id: 'd', text: 'rest note', occurred_at: '2024-02-30T00:00:00Z' }));
    expect(bad.status).toBe(400);
    expect(bad.json.error.field).toBe('occurred_at');
    // Years 1-99 are real years (Date.UTC would read them as 1900-1999 and refuse the date).
    expect((await post('/v1/facts', JSON.stringify({ agent_id: 'd-early', text: 'an early note', occurred_at: '0050-03-01T00:00:00Z' }))).status).toBe(201);
    const facts = (await client.list('d')).facts;
    expect(facts.map((f) => [f.text, f.occurredAt])).toEqual([['a dated note', Date.UTC(2024, 4, 8)]]);
  });

  test('a damaged discovery file is one clear error saying what to do, not a JavaScript stack', async () => {
    const dataDir = pool.newDir();
    for (const content of ['{', '', '[]', '{"address": 7}']) {
      writeFileSync(join(dataDir, 'daemon.json'), content);
      const run = await runEngram(['stats'], { dataDir, cwd: dataDir });
      expect(run.code, content).toBe(1);
      expect(run.stderr).toMatch(/daemon\.json is damaged/);
      expect(run.stderr).toMatch(/engram start/);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('values of the wrong type or range, refused before anything is sent', () => {
  test('the library: a count the wire cannot carry, tags that are not a list, a date string, meta that is not an object', async () => {
    const { client, cli } = doors();
    await client.put('w', 'a fact to recall');
    // Encoding would fail inside grpc-js (an "internal" error of the call): refused as the caller's.
    for (const windowDays of [-3, 1.5, 5_000_000_000]) {
      await expect(client.recall('w', 'fact', { filters: { windowDays } }), String(windowDays)).rejects.toMatchObject({ kind: 'invalid_argument', field: 'window_days' });
    }
    await expect(client.recall('w', 'fact', { topK: -1 })).rejects.toMatchObject({ kind: 'invalid_argument' });
    await expect(client.put('w', 'tags as a string', { tags: 'abc' as never })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'tags' });
    await expect(client.put('w', 'entities as a string', { entities: 'x' as never })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'entities' });
    for (const occurredAt of ['2024-05-08', 1.5, Number.NaN]) {
      await expect(client.put('w', 'a dated fact', { occurredAt: occurredAt as never }), String(occurredAt)).rejects.toMatchObject({ kind: 'invalid_argument', field: 'occurred_at' });
    }
    await expect(client.put('w', 'meta as a list', { meta: [1, 2] as never })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'meta' });
    await expect(client.putBatch([{ agentId: 'w', text: 'fine' }, { agentId: 'w', text: 'bad tags', tags: 'abc' as never }])).rejects.toMatchObject({ kind: 'invalid_argument', field: 'items[1].tags' });
    expect((await client.list('w')).facts.map((f) => f.text)).toEqual(['a fact to recall']);
    // The CLI says which flag, as a usage error (exit 2).
    for (const days of ['-3', '1.5']) {
      const run = await cli(['recall', 'w', 'fact', '--window-days', days]);
      expect(run.code, days).toBe(2);
      expect(run.stderr).toMatch(/--window-days must be a positive integer/);
    }
    expect((await client.list('w')).facts).toHaveLength(1);
  });

  test('the library: a request id that is empty, not a string or too long is refused before sending, so every write keeps its replay protection', async () => {
    const { client } = doors();
    const { fact } = await client.put('wq', 'a fact to pin');
    // "" reached the daemon as no request id at all: stored, unprotected, and an uncertain outcome
    // could be neither asked about (writeStatus refuses "") nor resent safely. 5 was sent as "5".
    for (const requestId of ['', 5, 'r'.repeat(200)]) {
      const refused = { name: 'EngramError', kind: 'invalid_argument', field: 'request_id' };
      await expect(client.put('wq', `written with request id ${String(requestId).slice(0, 5)}`, { requestId: requestId as never }), String(requestId)).rejects.toMatchObject(refused);
      await expect(client.pin('wq', fact.id, { requestId: requestId as never })).rejects.toMatchObject(refused);
      await expect(client.writeStatus(requestId as never)).rejects.toMatchObject(refused);
      await expect(client.putBatch([{ agentId: 'wq', text: 'a fine item' }, { agentId: 'wq', text: 'a bad id', requestId: requestId as never }])).rejects.toMatchObject({ ...refused, field: 'items[1].request_id' });
    }
    expect((await client.list('wq')).facts.map((f) => [f.text, f.pinned])).toEqual([['a fact to pin', false]]);
  });

  test('the library: recall arguments of the wrong type or range are refused before sending, naming the field, never a crash or a coercion', async () => {
    const { client, daemon } = doors();
    await client.put('wr', 'a fact about the lighthouse');
    const calls = async () => (await fetch(`http://${daemon.discovery.httpAddress}/metrics`, { headers: { authorization: `Bearer ${daemon.discovery.token}` } })).text().then((t) => t.split('\n').filter((l) => /^engram_grpc_calls_total\{.*Recall/.test(l)).join('\n'));
    await client.recall('wr', 'lighthouse');
    const before = await calls();
    expect(before).toMatch(/Recall/);
    // Each of these was coerced (a query of 5 searched for "5", a topK of "5" took 5), crashed
    // with a RangeError (a time of NaN), or was sent for the daemon to refuse.
    const refusals: [() => Promise<unknown>, string][] = [
      [() => client.recall('wr', 5 as never), 'query'],
      [() => client.recallExplain('wr', { text: 'x' } as never), 'query'],
      [() => client.recall('wr', 'lighthouse', { topK: '5' as never }), 'top_k'],
      [() => client.recall('wr', 'lighthouse', { topK: Number.NaN }), 'top_k'],
      [() => client.recallExplain('wr', 'lighthouse', { topK: -3 }), 'top_k'],
      [() => client.recall('wr', 'lighthouse', { filters: { createdAfter: Number.NaN } }), 'options.filters.created_after_ms'],
      [() => client.recall('wr', 'lighthouse', { filters: { occurredBefore: 1.5 } }), 'options.filters.occurred_before_ms'],
      [() => client.recall('wr', 'lighthouse', { filters: { tagsAny: 'x' as never } }), 'options.filters.tags_any'],
      [() => client.recall('wr', 'lighthouse', { filters: { minDecayScore: Number.NaN } }), 'options.filters.min_decay_score'],
      [() => client.recall('wr', 'lighthouse', { minRelevance: 2 }), 'options.min_relevance'],
      [() => client.recall('wr', 'lighthouse', { weights: { vector: -1 } }), 'options.signal_weights.vector'],
      [() => client.recall('wr', 'lighthouse', { kg: 'yes' as never }), 'options.kg'],
      [() => client.batchRecall('wr', ['lighthouse'], { topK: 1.5 }), 'top_k'],
    ];
    for (const [call, field] of refusals) {
      await expect(call(), field).rejects.toMatchObject({ name: 'EngramError', kind: 'invalid_argument', field });
    }
    expect(await calls()).toBe(before);
    // Still served: an empty query (recency only), and a topK of 0 on the options RPC (the default).
    expect((await client.recall('wr', '')).facts).toHaveLength(1);
    expect((await client.recall('wr', 'lighthouse', { topK: 0, minRelevance: 0 })).facts).toHaveLength(1);
  });

  test('the library: list options of the wrong type or range are refused before sending, naming the field, never sent or coerced', async () => {
    const { client, daemon } = doors();
    await client.put('wl', 'a fact to list', { tags: ['x'] });
    const calls = async () => (await fetch(`http://${daemon.discovery.httpAddress}/metrics`, { headers: { authorization: `Bearer ${daemon.discovery.token}` } })).text().then((t) => t.split('\n').filter((l) => /^engram_grpc_calls_total\{.*\/List"/.test(l)).join('\n'));
    await client.list('wl');
    const before = await calls();
    expect(before).toMatch(/List/);
    // NaN and -1 went out for the daemon to refuse; "5", "sideways" (read as oldest), tags "x" and
    // pinned "yes" (coerced by encoding) were taken silently.
    const refusals: [() => Promise<unknown>, string][] = [
      [() => client.list('wl', { pageSize: Number.NaN }), 'page_size'],
      [() => client.list('wl', { pageSize: -1 }), 'page_size'],
      [() => client.list('wl', { pageSize: '5' as never }), 'page_size'],
      [() => client.list('wl', { pageToken: 5 as never }), 'page_token'],
      [() => client.list('wl', { order: 'sideways' as never }), 'order'],
      [() => client.list('wl', { filter: 'x' as never }), 'filter'],
      [() => client.list('wl', { filter: { tags: 'x' as never } }), 'filter.tags'],
      [() => client.list('wl', { filter: { pinned: 'yes' as never } }), 'filter.pinned'],
      [() => client.list('wl', { filter: { confidence: ['sure'] as never } }), 'filter.confidence[0]'],
      [() => client.list('wl', { filter: { createdAfter: Number.NaN } }), 'filter.created_after'],
      [() => client.listAll('wl', Number.NaN).next(), 'page_size'],
    ];
    for (const [call, field] of refusals) {
      await expect(call(), field).rejects.toMatchObject({ name: 'EngramError', kind: 'invalid_argument', field });
    }
    expect(await calls()).toBe(before);
    // Still served: the defaults, and a filtered, newest-first page.
    expect((await client.list('wl', { pageSize: 0, order: 'oldest' })).facts).toHaveLength(1);
    expect((await client.list('wl', { order: 'newest', filter: { tags: ['x'], pinned: false } })).facts).toHaveLength(1);
  });

  test('the library: a batch that is not a list of items, an item whose agentId or text is not a string, a put whose source or context is not a string', async () => {
    const { client } = doors();
    const fine = { agentId: 'wb', text: 'a fine item' };
    // These crashed (a TypeError) or were stored: an agentId of 5 as the namespace "5".
    const refusals: [unknown, string][] = [
      ['not a list', 'items'],
      [null, 'items'],
      [[fine, null], 'items[1]'],
      [[fine, { agentId: 5, text: 'to namespace 5' }], 'items[1].agent_id'],
      [[fine, { agentId: 'wb', text: 5 }], 'items[1].text'],
      // A label of the wrong type was coerced by encoding ("5").
      [[fine, { agentId: 'wb', text: 'labelled 5', confidence: 5 }], 'items[1].options.confidence'],
    ];
    for (const [items, field] of refusals) {
      await expect(client.putBatch(items as never), field).rejects.toMatchObject({ name: 'EngramError', kind: 'invalid_argument', field });
    }
    await expect(client.put('wb', 'context as a number', { context: 5 as never })).rejects.toMatchObject({ name: 'EngramError', kind: 'invalid_argument', field: 'context' });
    await expect(client.put('wb', 'source as a number', { source: 5 as never })).rejects.toMatchObject({ name: 'EngramError', kind: 'invalid_argument', field: 'source' });
    expect(await client.listAgents()).not.toContain('5');
    expect((await client.stats('wb')).factCount).toBe(0);
  });

  test('the library: a slot listing\'s limit and page token are checked before sending (NaN, -1, "5", beyond the page limit, a page token of the wrong type)', async () => {
    const { client } = doors();
    // NaN and -1 went out for the daemon to refuse; "5" was coerced by encoding.
    const refusals: [Parameters<typeof client.listSlots>[0], string][] = [
      [{ limit: Number.NaN }, 'limit'],
      [{ limit: -1 }, 'limit'],
      [{ limit: '5' as never }, 'limit'],
      [{ limit: 1001 }, 'limit'],
      [{ pageToken: 5 as never }, 'page_token'],
      [{ pageToken: 'zzz' }, 'page_token'],
    ];
    for (const [options, field] of refusals) {
      await expect(client.listSlots(options), JSON.stringify(options)).rejects.toMatchObject({ name: 'EngramError', kind: 'invalid_argument', field, message: expect.not.stringMatching(/^RPC|status/) });
    }
    expect((await client.listSlots({ limit: 1000 })).nextPageToken).toBe('');
  });

  test('the library: a batch item whose strength or occurredAt is NaN, Infinity or not a number refuses the whole batch before sending, as a single put refuses it', async () => {
    const { client } = doors();
    const fine = { agentId: 'ws', text: 'a fine item' };
    // Strength NaN was sent and came back refused in the item's slot, while the others were stored.
    // The field as the daemon names it in a slot (a strength of 3 below), and as put names it.
    const refusals: [Record<string, unknown>, string, string][] = [
      [{ strength: Number.NaN }, 'items[1].options.strength', 'strength'],
      [{ strength: Number.POSITIVE_INFINITY }, 'items[1].options.strength', 'strength'],
      [{ strength: '1' }, 'items[1].options.strength', 'strength'],
      [{ occurredAt: Number.NaN }, 'items[1].occurred_at', 'occurred_at'],
    ];
    for (const [extra, field, putField] of refusals) {
      await expect(client.putBatch([fine, { agentId: 'ws', text: 'a bad item', ...extra }] as never), JSON.stringify(extra)).rejects.toMatchObject({ name: 'EngramError', kind: 'invalid_argument', field });
      await expect(client.put('ws', 'a bad put', extra as never)).rejects.toMatchObject({ name: 'EngramError', kind: 'invalid_argument', field: putField });
    }
    expect((await client.stats('ws')).factCount).toBe(0);
    // A finite strength out of range is a value a rule refuses: that item's slot, the others stored.
    const [stored, refused] = await client.putBatch([fine, { agentId: 'ws', text: 'too strong', strength: 3 }]);
    expect(stored).toMatchObject({ factId: expect.any(String) });
    expect(refused!.error).toMatchObject({ kind: 'invalid_argument', field: 'items[1].options.strength' });
    expect((await client.list('ws')).facts.map((f) => f.text)).toEqual(['a fine item']);
  });

  test('the library: options of null (or not an object) are refused naming options by every method that takes them, never a TypeError', async () => {
    const { client } = doors();
    const { fact } = await client.put('wn', 'a fact to leave alone');
    // put(agent, "x", null) crashed reading null.requestId (a TypeError); each of these is one door.
    const calls: [string, () => Promise<unknown>][] = [
      ['put', () => client.put('wn', 'x', null as never)],
      ['putShared', () => client.putShared('x', null as never)],
      ['pin', () => client.pin('wn', fact.id, null as never)],
      ['forget', () => client.forget('wn', fact.id, 'now' as never)],
      ['recall', () => client.recall('wn', 'fact', null as never)],
      ['batchRecall', () => client.batchRecall('wn', ['fact'], null as never)],
      ['list', () => client.list('wn', null as never)],
      ['collectGarbage', () => client.collectGarbage('wn', null as never)],
      ['alias', () => client.alias('wn', 'k8s', ['kubernetes'], [] as never)],
      ['writeStatus', () => client.writeStatus('some-request', null as never)],
      ['doctor', () => client.doctor(null as never).next()],
    ];
    for (const [name, call] of calls) {
      await expect(call(), name).rejects.toMatchObject({ name: 'EngramError', kind: 'invalid_argument', field: 'options' });
    }
    const { connect, importConversation } = await import('../client/index.ts');
    await expect(connect(null as never)).rejects.toMatchObject({ name: 'EngramError', kind: 'invalid_argument', field: 'options' });
    await expect(importConversation(client, 'wn', [], null as never)).rejects.toMatchObject({ name: 'EngramError', kind: 'invalid_argument', field: 'options' });
    expect((await client.list('wn')).facts.map((f) => [f.text, f.pinned])).toEqual([['a fact to leave alone', false]]);
  });

  test('export --out naming a directory is refused before the export, leaving the directory as it was', async () => {
    const { client, cli, daemon } = doors();
    await client.put('x', 'a fact to export');
    const dir = join(daemon.dataDir, 'exports');
    mkdirSync(dir);
    const run = await cli(['export', 'x', '--out', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--out: .* is a directory/);
    expect(run.stderr).not.toMatch(/EISDIR|\n\s+at /);
    expect(readdirSync(dir)).toEqual([]);
    expect((await cli(['export', 'x', '--out', join(dir, 'x.jsonl')])).code).toBe(0);
  });

  test('engram mcp --help prints its usage on stdout', async () => {
    const dir = pool.newDir();
    const run = await runEngram(['mcp', '--help'], { dataDir: null, cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/engram mcp/);
    // --agent names every tool it serves (it listed five of the nine), and none it does not.
    const agentHelp = run.stdout.slice(run.stdout.indexOf('  --agent ID'), run.stdout.indexOf('  --tools LIST'));
    for (const tool of ['save_memory', 'gc', 'promote_memory', 'search_unified', 'cluster_memories', 'consolidate_memories']) expect(agentHelp).toContain(tool);
    expect(agentHelp).not.toMatch(/memory_reflect|analyze_message/);
  });
});

describe('REST query strings', () => {
  test('percent-encoded bytes that are not UTF-8 are refused naming the parameter; a query of 30 KB is not 431', async () => {
    const { daemon, client } = doors();
    await client.put('q', 'a fact about the harbour');
    const get = async (path: string) => {
      const res = await fetch(`http://${daemon.discovery.httpAddress}${path}`, { headers: { authorization: `Bearer ${daemon.discovery.token}` } });
      return { status: res.status, text: await res.text() };
    };
    for (const path of ['/v1/recall?agent_id=%FF&query=x', '/v1/recall?agent_id=q&query=%C3%28', '/v1/facts?agent_id=%E2%82']) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.text).error.field, path).toBe(path.includes('query=%C3') ? 'query' : 'agent_id');
    }
    const long = await get(`/v1/recall?agent_id=q&query=${encodeURIComponent('harbour '.repeat(3750))}`);
    expect(long.status).toBe(200);
    expect((await get(`/v1/recall?agent_id=q&query=${encodeURIComponent('é')}`)).status).toBe(200);
    // A "%" that starts no escape is a literal "%", as URLSearchParams reads it; so is a second "=".
    expect((await get('/v1/recall?agent_id=q&query=100%')).status).toBe(200);
    expect((await get('/v1/recall?agent_id=q&query=a=b')).status).toBe(200);
  });
});

describe('daemon flags that cannot work', () => {
  test('a port in use and an empty token are one line each, before the slow start-up, and leave the store free', async () => {
    const { spawnSync } = await import('node:child_process');
    const { createServer } = await import('node:net');
    const { ENGRAM_BIN } = await import('./fixtures/daemon.ts');
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const port = (busy.address() as { port: number }).port;
    const dataDir = pool.newDir();
    const run = (args: string[]) => spawnSync(process.execPath, [ENGRAM_BIN, 'daemon', '--data-dir', dataDir, '--embedder', 'none', ...args], { encoding: 'utf8', timeout: 60_000 });
    try {
      for (const flag of ['--listen', '--http']) {
        const inUse = run([flag, `127.0.0.1:${port}`]);
        expect(inUse.status, flag).toBe(1);
        expect(inUse.stderr).toMatch(/cannot serve (gRPC|HTTP) on 127\.0\.0\.1:\d+: EADDRINUSE/);
        expect(inUse.stderr).not.toMatch(/\n\s+at /);
      }
      writeFileSync(join(dataDir, 'token'), '');
      const empty = run(['--http', '127.0.0.1:0']);
      expect(empty.status).toBe(1);
      expect(empty.stderr).toMatch(/bearer token .* is empty/);
      expect(empty.stderr).not.toMatch(/\n\s+at /);
    } finally {
      busy.close();
    }
    // Nothing kept the store locked: a daemon starts on it (without a listener the empty token is moot).
    const daemon = await pool.start({ dataDir, args: ['--token', 'a-token', '--http', '127.0.0.1:0'] });
    expect((await daemon.client()).daemon.capabilities.length).toBeGreaterThan(0);
    // A second daemon on the directory, asking for the first one's port, is told the directory is served.
    const second = run(['--token', 'a-token', '--http', daemon.discovery.httpAddress!]);
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/already served by another Engram daemon/);
  });
});
