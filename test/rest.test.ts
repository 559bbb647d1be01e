// REST API contract tests: a real `engram daemon --http 127.0.0.1:0` process, called with fetch.
// Every success payload is validated against the schema the served OpenAPI document declares
// for it, and the document's paths and methods are compared with the server's route table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import { removeDir, startDaemon, type DaemonProcess } from './fixtures/daemon.ts';
import { ROUTES } from '../daemon/http/rest/routes.ts';
import { acceptedNames } from '../daemon/http/rest/parse.ts';
import { REQUESTS } from '../daemon/http/rest/schemas.ts';
import { startHttpServer, type HttpServerOptions } from '../daemon/http/server.ts';
import { openApiDocument } from '../daemon/http/rest/openapi.ts';
import { BearerAuthenticator } from '../daemon/auth/bearer.ts';
import type { Engram } from '../daemon/core/engram.ts';
import { SILENT } from '../daemon/log.ts';

/** The daemon's HTTP server over a stub core, serving REST as `--http` does. */
const startRestServer = (core: Engram, options: Omit<HttpServerOptions, 'surfaces' | 'authenticator'> & { token?: string }) =>
  startHttpServer(core, { ...options, surfaces: ['rest'], ...(options.token ? { authenticator: new BearerAuthenticator(options.token) } : {}) });

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any; // a parsed response: its shape is what the assertions check
}

let daemon: DaemonProcess;
let base: string;
let token: string;
/** Every response this file received from the daemon, to check headers common to all. */
const seen: { what: string; cacheControl: string | null }[] = [];

async function call(method: string, path: string, init: { body?: unknown; raw?: RequestInit['body']; token?: string | null; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  const bearer = init.token === undefined ? token : init.token;
  if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
  let body: RequestInit['body'] = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, body, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit);
  const text = await res.text();
  seen.push({ what: `${method} ${path} → ${res.status}`, cacheControl: res.headers.get('cache-control') });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const q = (params: Record<string, string | number>) => `?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`;

// The served document's schemas, compiled once: validate(name, value) checks a payload.
const AjvClass = ((Ajv2020 as unknown as { default?: unknown }).default ?? Ajv2020) as new (o: object) => {
  addSchema(s: object): void;
  getSchema(ref: string): ((v: unknown) => boolean) & { errors?: unknown };
};
let ajv: InstanceType<typeof AjvClass>;
function expectSchema(name: string, value: unknown): void {
  const validate = ajv.getSchema(`openapi#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name}`);
  const ok = validate(value);
  expect(ok ? null : { name, errors: validate.errors, value }).toBeNull();
}

const remember = async (agent: string, text: string, extra: Record<string, unknown> = {}) => {
  const res = await call('POST', '/v1/facts', { body: { agent_id: agent, text, ...extra } });
  expect(res.status).toBe(201);
  return res.json.fact as { id: string; agent_id: string; text: string; superseded_by: string };
};

const errorOf = (res: Answer) => res.json.error as { code: string; message: string; field?: string };

function expectBadField(res: Answer, field: string): void {
  expect(res.status).toBe(400);
  expect(errorOf(res).code).toBe('invalid_argument');
  expect(errorOf(res).field).toBe(field);
  expect(errorOf(res).message.startsWith(`${field}:`)).toBe(true);
}

/** A concrete request for each route (path parameters filled in, a JSON body for POSTs). */
const UNKNOWN_ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
const concretePath = (path: string) => path.replace('{id}', UNKNOWN_ID);

beforeAll(async () => {
  daemon = await startDaemon({ args: ['--http', '127.0.0.1:0'] });
  expect(daemon.discovery.httpAddress).toMatch(/^127\.0\.0\.1:\d+$/);
  base = `http://${daemon.discovery.httpAddress}`;
  token = daemon.discovery.token;
  const doc = await call('GET', '/v1/openapi.json');
  ajv = new AjvClass({ strict: false, validateFormats: false });
  ajv.addSchema({ ...doc.json, $id: 'openapi' });
});

afterAll(async () => {
  await daemon?.stop();
  if (daemon) removeDir(daemon.dataDir);
});

describe('authentication', () => {
  it('serves GET /healthz without a token', async () => {
    const res = await call('GET', '/healthz', { token: null });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok' });
    expectSchema('Health', res.json);
  });

  it('answers 401 on every authenticated route without a token or with a wrong one', async () => {
    const authed = ROUTES.filter((r) => r.auth);
    expect(ROUTES.filter((r) => !r.auth).map((r) => r.path).sort()).toEqual(['/healthz', '/readyz', '/v1/openapi.json']);
    for (const route of authed) {
      const body = route.method === 'POST' ? { agent_id: 'a' } : undefined;
      for (const bearer of [null, 'wrong-token', `${token}x`, '']) {
        const res = await call(route.method, concretePath(route.path), { token: bearer, body });
        expect({ route: `${route.method} ${route.path}`, bearer, status: res.status }).toEqual({ route: `${route.method} ${route.path}`, bearer, status: 401 });
        expect(errorOf(res).code).toBe('unauthenticated');
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    }
  });

  it('accepts the scheme name in any case', async () => {
    const res = await call('GET', '/v1/agents', { token: null, headers: { authorization: `bearer ${token}` } });
    expect(res.status).toBe(200);
  });
});

describe('routes', () => {
  it('POST /v1/facts remembers a fact (201, Location) and GET /v1/facts/{id} reads it', async () => {
    const res = await call('POST', '/v1/facts', {
      body: { agent_id: 'alice', text: 'The deploy window is Tuesday morning', occurred_at: '2024-05-08T13:56:00Z', tags: ['ops'], source: 'chat', context: 'sprint planning' },
    });
    expect(res.status).toBe(201);
    expectSchema('Remembered', res.json);
    expect(res.json.duplicate).toBe(false);
    const fact = res.json.fact;
    expect(fact).toMatchObject({ agent_id: 'alice', text: 'The deploy window is Tuesday morning', occurred_at: '2024-05-08T13:56:00.000Z', tags: ['ops'], source: 'chat', context: 'sprint planning', superseded_by: null, kind: 'fact' });
    expect(res.headers.get('location')).toBe(`/v1/facts/${fact.id}?agent_id=alice`);

    const read = await call('GET', res.headers.get('location')!);
    expect(read.status).toBe(200);
    expectSchema('FactEnvelope', read.json);
    expect(read.json.fact.id).toBe(fact.id);
  });

  it('GET /v1/recall defaults k to 8, honours k, and ranks without confidence preference', async () => {
    for (let i = 0; i < 10; i++) await remember('bob', `kubernetes note number ${i}`, {});
    const all = await call('GET', `/v1/recall${q({ agent: 'bob', q: 'kubernetes' })}`);
    expect(all.status).toBe(200);
    expectSchema('RecallResult', all.json);
    expect(all.json).toMatchObject({ agent_id: 'bob', query: 'kubernetes', count: 8 });
    expect(all.json.facts).toHaveLength(8);
    // Legacy call: no confidence policy, so the confidence metadata keys are absent.
    expect(all.json.retrieval).not.toHaveProperty('policy');
    expect(all.json.retrieval).not.toHaveProperty('confidence_weight');

    const three = await call('GET', `/v1/recall${q({ agent: 'bob', q: 'kubernetes', k: 3 })}`);
    expect(three.json.count).toBe(3);
    expect(three.json.facts.map((f: { id: string }) => f.id)).toEqual(all.json.facts.slice(0, 3).map((f: { id: string }) => f.id));
  });

  it('GET /v1/recall/explain returns one receipt per fact, in recall order', async () => {
    const plain = await call('GET', `/v1/recall${q({ agent: 'bob', q: 'kubernetes note', k: 4 })}`);
    const res = await call('GET', `/v1/recall/explain${q({ agent: 'bob', q: 'kubernetes note', k: 4 })}`);
    expect(res.status).toBe(200);
    expectSchema('ExplainResult', res.json);
    expect(res.json.count).toBe(4);
    expect(res.json.explained.map((r: { provenance: { fact_id: string } }) => r.provenance.fact_id)).toEqual(plain.json.facts.map((f: { id: string }) => f.id));
    expect(res.json.explained[0].ranks.keyword_rank).toBeGreaterThan(0);
    expect(res.json.explained[0]).not.toHaveProperty('ranking');
  });

  it('GET /v1/facts pages through a namespace with next_page_token', async () => {
    const ids: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const res = await call('GET', `/v1/facts${q({ agent: 'bob', limit: 4, ...(token ? { page_token: token } : {}) })}`);
      expect(res.status).toBe(200);
      expectSchema('FactPage', res.json);
      expect(res.json.agent_id).toBe('bob');
      expect(res.json.facts.length).toBeLessThanOrEqual(4);
      ids.push(...res.json.facts.map((f: { id: string }) => f.id));
      token = res.json.next_page_token;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(ids).toHaveLength(10);
    expect(new Set(ids).size).toBe(10);
    expect([...ids].sort()).toEqual(ids); // oldest first
  });

  it('POST /v1/facts/{id}/forget retires (still readable, not recalled); DELETE /v1/facts/{id} erases', async () => {
    const fact = await remember('carol', 'carol likes green tea');
    const forgot = await call('POST', `/v1/facts/${fact.id}/forget`, { body: { agent_id: 'carol' } });
    expect(forgot.status).toBe(200);
    expectSchema('FactEnvelope', forgot.json);
    expect(forgot.json.fact).toMatchObject({ id: fact.id, superseded_by: 'agent' });
    const recall = await call('GET', `/v1/recall${q({ agent_id: 'carol', query: 'green tea' })}`);
    expect(recall.json.count).toBe(0);
    expect((await call('GET', `/v1/facts/${fact.id}${q({ agent_id: 'carol' })}`)).json.fact.superseded_by).toBe('agent');

    const secret = await remember('carol', 'the vault password is hunter2');
    const erased = await call('DELETE', `/v1/facts/${secret.id}${q({ agent_id: 'carol' })}`);
    expect(erased.status).toBe(200);
    expectSchema('DeleteResult', erased.json);
    expect(erased.json).toEqual({ agent_id: 'carol', fact_id: secret.id, deleted: true });
    expect((await call('GET', `/v1/facts/${secret.id}${q({ agent_id: 'carol' })}`)).status).toBe(404);
    const listed = await call('GET', `/v1/facts${q({ agent_id: 'carol' })}`);
    expect(listed.json.facts.map((f: { id: string }) => f.id)).toEqual([fact.id]);
    expect((await call('DELETE', `/v1/facts/${secret.id}${q({ agent_id: 'carol' })}`)).status).toBe(404);
  });

  it('POST /v1/facts takes every write field; an identical write is a duplicate (200), allow_duplicate stores a copy', async () => {
    const body = { agent_id: 'fiona', text: 'The standup moved to 9:30', occurred_at: '2024-05-08T09:30:00Z', tags: ['calendar'], entities: ['standup'], source: 'chat', context: 'team channel', meta: { room: 'B2' }, confidence: 'verified' };
    const first = await call('POST', '/v1/facts', { body });
    expect(first.status).toBe(201);
    expect(first.json.fact).toMatchObject({ entities: ['standup'], meta: { room: 'B2' }, confidence: 'verified', tags: ['calendar'] });
    const again = await call('POST', '/v1/facts', { body: { ...body, text: 'The standup  moved to 9:30 ' } });
    expect(again.status).toBe(200);
    expectSchema('Remembered', again.json);
    expect(again.json).toMatchObject({ duplicate: true, fact: { id: first.json.fact.id } });
    const near = await call('POST', '/v1/facts', { body: { ...body, text: 'The standup moved to 10:00' } });
    expect(near.status).toBe(201);
    const copy = await call('POST', '/v1/facts', { body: { ...body, allow_duplicate: true } });
    expect(copy.status).toBe(201);
    expect(copy.json.fact.id).not.toBe(first.json.fact.id);
    expect((await call('GET', `/v1/stats${q({ agent_id: 'fiona' })}`)).json.fact_count).toBe(3);
    for (const [field, value] of [['meta', [1]], ['entities', 'x'], ['confidence', 'sure'], ['allow_duplicate', 'yes'], ['tags', ['ok', '']]] as const) {
      const res = await call('POST', '/v1/facts', { body: { agent_id: 'fiona', text: 'bad', [field]: value } });
      expect(res.status, field).toBe(400);
      expect(errorOf(res).field!.startsWith(field), `${field}: ${errorOf(res).field}`).toBe(true);
    }
    // Said in JSON's words, not the schema library's ("a record").
    const meta = await call('POST', '/v1/facts', { body: { agent_id: 'fiona', text: 'bad', meta: 'room B2' } });
    expect(errorOf(meta).message).toMatch(/^meta: must be an object, got string$/);
    expect((await call('GET', `/v1/stats${q({ agent_id: 'fiona' })}`)).json.fact_count).toBe(3);
  });

  it('POST /v1/facts with a request_id is safe to resend: the repeat answers the first write (200, replayed) and stores nothing', async () => {
    const body = { agent_id: 'gwen', text: 'The invoice run is on Tuesdays', request_id: 'gwen-put-1', allow_duplicate: true };
    const first = await call('POST', '/v1/facts', { body });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ replayed: false, duplicate: false });
    const again = await call('POST', '/v1/facts', { body });
    expect(again.status).toBe(200);
    expectSchema('Remembered', again.json);
    expect(again.json).toMatchObject({ replayed: true, fact: { id: first.json.fact.id } });
    expect((await call('GET', `/v1/stats${q({ agent_id: 'gwen' })}`)).json.fact_count).toBe(1);
    expect((await call('GET', `/v1/writes/gwen-put-1${q({ agent_id: 'gwen' })}`)).json).toMatchObject({ committed: true });
    // The same id asking for another write is refused, not answered with the first.
    const other = await call('POST', '/v1/facts', { body: { ...body, text: 'Something else entirely' } });
    expect(other.status).toBe(409);
    expect(errorOf(other).field).toBe('request_id');
  });

  it('a fact never used reports its creation time as last_used_at, as the gRPC, CLI and MCP doors do', async () => {
    const put = await call('POST', '/v1/facts', { body: { agent_id: 'gwen', text: 'The badge reader is by the lift' } });
    expect(put.json.fact.last_used_at).toBe(put.json.fact.created_at);
    const read = await call('GET', `/v1/facts/${put.json.fact.id}${q({ agent_id: 'gwen' })}`);
    expect(read.json.fact?.last_used_at ?? read.json.last_used_at).toBe(put.json.fact.created_at);
    const client = await daemon.client();
    try {
      const viaGrpc = await client.get('gwen', put.json.fact.id);
      expect(new Date(viaGrpc.lastUsedAt!).toISOString()).toBe(put.json.fact.created_at);
    } finally {
      client.close();
    }
  });

  it('POST /v1/facts takes occurred_at as a time or a date alone (midnight UTC), as list filters do', async () => {
    const day = await call('POST', '/v1/facts', { body: { agent_id: 'gwen', text: 'The office closed for the holiday', occurred_at: '2024-05-08' } });
    expect(day.status).toBe(201);
    expect(day.json.fact.occurred_at).toBe('2024-05-08T00:00:00.000Z');
    for (const value of ['2024-02-30', 'May 8', 1717200000000]) {
      const res = await call('POST', '/v1/facts', { body: { agent_id: 'gwen', text: `bad time ${value}`, occurred_at: value } });
      expect(res.status, String(value)).toBe(400);
      expect(errorOf(res).field).toBe('occurred_at');
    }
  });

  it('POST /v1/facts/batch answers each item in its slot: stored, replayed, duplicate or refused (naming its field)', async () => {
    const items = [
      { agent_id: 'gina', text: 'Batch fact one', tags: ['a'], request_id: 'gina-1' },
      { agent_id: 'gina', text: '' },
      { agent_id: 'gina', text: 'Batch fact one' },
      { agent_id: 'gina', text: 'Batch fact two', occurred_at: '2024-05-08T09:30:00Z', meta: { n: 2 } },
    ];
    const res = await call('POST', '/v1/facts/batch', { body: { items } });
    expect(res.status, res.text).toBe(200);
    expectSchema('BatchRemembered', res.json);
    const [one, empty, dup, two] = res.json.results;
    expect(one).toMatchObject({ replayed: false, duplicate: false });
    expect(empty.error).toMatchObject({ code: 'invalid_argument', field: 'items[1].text' });
    expect(dup).toMatchObject({ fact_id: one.fact_id, duplicate: true });
    expect((await call('GET', `/v1/facts/${two.fact_id}${q({ agent_id: 'gina' })}`)).json.fact).toMatchObject({ text: 'Batch fact two', meta: { n: 2 } });
    const again = await call('POST', '/v1/facts/batch', { body: { items: [items[0]] } });
    expect(again.json.results).toEqual([{ fact_id: one.fact_id, replayed: true, duplicate: false }]);
    expect((await call('GET', `/v1/stats${q({ agent_id: 'gina' })}`)).json.fact_count).toBe(2);
    expectBadField(await call('POST', '/v1/facts/batch', { body: { items: [] } }), 'items');
    expectBadField(await call('POST', '/v1/facts/batch', { body: { items: [{ agent_id: 'gina', text: 'x', colour: 'red' }] } }), 'items[0].colour');
    // An empty request id (an unset variable, say) would write without replay protection: refused
    // before anything is written, as the library refuses it.
    const emptyKey = await call('POST', '/v1/facts/batch', { body: { items: [{ agent_id: 'gina', text: 'Batch fact three' }, { agent_id: 'gina', text: 'Batch fact four', request_id: '' }] } });
    expectBadField(emptyKey, 'items[1].request_id');
    expect(errorOf(emptyKey).message).toContain('omit it to write without replay protection');
    expectBadField(await call('POST', '/v1/facts', { body: { agent_id: 'gina', text: 'Batch fact five', request_id: '' } }), 'request_id');
    expect((await call('GET', `/v1/stats${q({ agent_id: 'gina' })}`)).json.fact_count).toBe(2);
  });

  it('pin, unpin, revise and alias routes', async () => {
    const fact = await remember('gus', 'The build cache lives in S3');
    const pinned = await call('POST', `/v1/facts/${fact.id}/pin`, { body: { agent_id: 'gus' } });
    expect(pinned.json.fact.pinned).toBe(true);
    expect((await call('POST', `/v1/facts/${fact.id}/unpin`, { body: { agent_id: 'gus' } })).json.fact.pinned).toBe(false);

    const revised = await call('POST', '/v1/revisions', { body: { agent_id: 'gus', target_ids: [fact.id], text: 'The build cache lives in GCS', confidence: 'verified' } });
    expect(revised.status).toBe(201);
    expectSchema('ReviseResult', revised.json);
    expect(revised.json).toMatchObject({ retired_ids: [fact.id], failures: [], fact: { text: 'The build cache lives in GCS', confidence: 'verified' } });
    expect((await call('GET', `/v1/facts/${fact.id}${q({ agent_id: 'gus' })}`)).json.fact.superseded_by).toBe(revised.json.fact.id);

    const alias = await call('POST', '/v1/aliases', { body: { agent_id: 'gus', term: 'storage', equivalents: ['cache'] } });
    expect(alias.status).toBe(201);
    expectSchema('AliasResult', alias.json);
    expect(alias.json.duplicate).toBe(false);
    const again = await call('POST', '/v1/aliases', { body: { agent_id: 'gus', term: 'storage', equivalents: ['cache'] } });
    expect([again.status, again.json.fact_id, again.json.duplicate]).toEqual([200, alias.json.fact_id, true]);
    const found = await call('GET', `/v1/recall${q({ agent_id: 'gus', query: 'storage', top_k: 1 })}`);
    expect(found.json.facts.map((f: { text: string }) => f.text)).toEqual(['The build cache lives in GCS']);
    // The alias record maps words; stats count what was remembered (one live fact, one retired).
    expect((await call('GET', `/v1/stats${q({ agent_id: 'gus' })}`)).json).toMatchObject({ fact_count: 2, live_count: 1, retired_count: 1 });
    expectBadField(await call('POST', '/v1/revisions', { body: { agent_id: 'gus', target_ids: [], text: 'x' } }), 'target_ids');
  });

  it('POST /v1/recall/batch merges per-query results under one policy', async () => {
    await remember('hana', 'Deploys happen on Tuesdays');
    await remember('hana', 'The on-call rotation changes on Mondays');
    const res = await call('POST', '/v1/recall/batch', { body: { agent_id: 'hana', queries: ['deploys', 'on-call rotation'], top_k: 1, min_confidence: 'unverified' } });
    expect(res.status).toBe(200);
    expectSchema('BatchRecallResult', res.json);
    expect(res.json.results.map((r: { facts: { text: string }[] }) => r.facts.map((f) => f.text))).toEqual([['Deploys happen on Tuesdays'], ['The on-call rotation changes on Mondays']]);
    expect(res.json.count).toBe(2);
    expect(res.json.retrieval).toMatchObject({ min_confidence: 'unverified', policy: 'confidence-v1' });
  });

  it('recall says which facts matched; canonical names and the old aliases give the same answer', async () => {
    await remember('ines', 'Alice prefers green tea in the morning');
    for (let i = 0; i < 3; i++) await remember('ines', `Build agent ${i} runs Debian`);
    const canonical = await call('GET', `/v1/recall${q({ agent_id: 'ines', query: 'green tea', top_k: 3 })}`);
    const aliased = await call('GET', `/v1/recall${q({ agent: 'ines', q: 'green tea', k: 3 })}`);
    const ids = (r: Answer) => r.json.facts.map((f: { id: string }) => f.id);
    expect(ids(aliased)).toEqual(ids(canonical));
    expect(canonical.json).toMatchObject({ count: 3, matched: 1 });
    expect(canonical.json.matches.map((m: { matched: boolean }) => m.matched)).toEqual([true, false, false]);
    expect(canonical.json.matches[0].signals).toContain('keyword');
    const nothing = await call('GET', `/v1/recall${q({ agent_id: 'ines', query: 'quantum chromodynamics lecture notes' })}`);
    expect(nothing.json.matched).toBe(0);
    const explained = await call('GET', `/v1/recall/explain${q({ agent_id: 'ines', query: 'green tea', top_k: 2 })}`);
    expect(explained.json.explained.map((r: { matched: boolean }) => r.matched)).toEqual([true, false]);
  });

  it('GET /v1/facts/{id} without agent_id says what is missing', async () => {
    const res = await call('GET', `/v1/facts/${UNKNOWN_ID}`);
    expectBadField(res, 'agent_id');
    expect(errorOf(res).message).toBe('agent_id: is required');
  });

  it('serves the OpenAPI document without a token', async () => {
    const res = await call('GET', '/v1/openapi.json', { token: null });
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe('3.1.0');
  });

  it('POST /v1/forget retires what the query recalls, only with "confirm": true', async () => {
    const keep = await remember('dave', 'dave owns a red bicycle');
    const a = await remember('dave', 'the staging password rotates monthly');
    const b = await remember('dave', 'staging password is kept in the vault');

    for (const confirm of [undefined, false, 'true', 1, null]) {
      const res = await call('POST', '/v1/forget', { body: { agent_id: 'dave', query: 'staging password', ...(confirm === undefined ? {} : { confirm }) } });
      expectBadField(res, 'confirm');
    }
    // Nothing was retired by the refused calls.
    const before = await call('GET', `/v1/recall${q({ agent: 'dave', q: 'staging password', k: 2 })}`);
    expect(before.json.facts.map((f: { id: string }) => f.id).sort()).toEqual([a.id, b.id].sort());

    const res = await call('POST', '/v1/forget', { body: { agent_id: 'dave', query: 'staging password', k: 2, confirm: true } });
    expect(res.status).toBe(200);
    expectSchema('ForgetResult', res.json);
    expect([...res.json.forgotten].sort()).toEqual([a.id, b.id].sort());
    for (const id of [a.id, b.id]) {
      const read = await call('GET', `/v1/facts/${id}${q({ agent: 'dave' })}`);
      expect(read.json.fact.superseded_by).toBe('agent');
    }
    const kept = await call('GET', `/v1/facts/${keep.id}${q({ agent: 'dave' })}`);
    expect(kept.json.fact.superseded_by).toBeNull();
  });

  it('POST /v1/forget retires only facts the query matches: never the filler that pads top_k, nothing for a blank query', async () => {
    const facts = [await remember('erin', 'erin keeps one key'), await remember('erin', 'erin keeps another key')];
    const unmatched = await call('POST', '/v1/forget', { body: { agent_id: 'erin', query: 'xyzzy plugh', k: 8, confirm: true } });
    expect(unmatched.status).toBe(200);
    expect(unmatched.json.forgotten).toEqual([]);
    expectBadField(await call('POST', '/v1/forget', { body: { agent_id: 'erin', query: '  ', confirm: true } }), 'query');
    for (const fact of facts) {
      const read = await call('GET', `/v1/facts/${fact.id}${q({ agent: 'erin' })}`);
      expect(read.json.fact.superseded_by).toBeNull();
    }
  });

  it('GET /v1/agents lists the namespaces', async () => {
    const res = await call('GET', '/v1/agents');
    expect(res.status).toBe(200);
    expectSchema('Agents', res.json);
    expect(res.json.agents).toEqual(expect.arrayContaining(['alice', 'bob', 'carol', 'dave']));
    expect([...res.json.agents].sort()).toEqual(res.json.agents);
  });

  it('GET /v1/stats counts one namespace or the whole store', async () => {
    const one = await call('GET', `/v1/stats${q({ agent: 'bob' })}`);
    expect(one.status).toBe(200);
    expectSchema('Stats', one.json);
    expect(one.json).toMatchObject({ agent_id: 'bob', fact_count: 10, live_count: 10, retired_count: 0, agent_count: 1 });
    const all = await call('GET', '/v1/stats');
    expectSchema('Stats', all.json);
    expect(all.json.agent_id).toBeNull();
    expect(all.json.fact_count).toBeGreaterThan(one.json.fact_count);
    // store_bytes is the whole store's size for one namespace too (there is none per namespace):
    // the contract says so, since the field name cannot.
    const stats = (await call('GET', '/v1/openapi.json')).json.components.schemas.Stats;
    expect(stats.properties.store_bytes.description).toMatch(/^Bytes the whole store takes on disk, every namespace together, also when agent_id names one/);
  });

  it('POST /v1/checkpoints saves (201) and GET /v1/checkpoints/latest resumes the newest (404 when none)', async () => {
    const missing = await call('GET', `/v1/checkpoints/latest${q({ agent: 'erin' })}`);
    expect(missing.status).toBe(404);
    expect(errorOf(missing).code).toBe('not_found');
    // As the CLI's --on-missing empty and MCP's on_missing "empty": a first session is not an error.
    const empty = await call('GET', `/v1/checkpoints/latest${q({ agent_id: 'erin', on_missing: 'empty' })}`);
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ found: false, agent_id: 'erin' });
    expectSchema('CheckpointResumed', empty.json);
    expectBadField(await call('GET', `/v1/checkpoints/latest${q({ agent_id: 'erin', on_missing: 'never' })}`), 'on_missing');

    const first = await call('POST', '/v1/checkpoints', { body: { agent_id: 'erin', state: { step: 1 } } });
    expect(first.status).toBe(201);
    expectSchema('CheckpointSaved', first.json);
    const state = { step: 2, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] };
    const second = await call('POST', '/v1/checkpoints', { body: { agent_id: 'erin', state } });
    expect(second.status).toBe(201);

    const latest = await call('GET', `/v1/checkpoints/latest${q({ agent: 'erin' })}`);
    expect(latest.status).toBe(200);
    expectSchema('Checkpoint', latest.json);
    expect((await call('GET', `/v1/checkpoints/latest${q({ agent_id: 'erin', on_missing: 'empty' })}`)).json).toEqual(latest.json);
    expect(latest.json).toEqual({ id: second.json.checkpoint_id, created_at: second.json.created_at, state, message_count: 2 });

    // The list the CLI's checkpoint list and the library's checkpointList give, newest first.
    const listed = await call('GET', `/v1/checkpoints${q({ agent_id: 'erin' })}`);
    expect(listed.status).toBe(200);
    expectSchema('Checkpoints', listed.json);
    expect(listed.json.checkpoints.map((c: { id: string }) => c.id)).toEqual([second.json.checkpoint_id, first.json.checkpoint_id]);
    expect((await call('GET', `/v1/checkpoints${q({ agent_id: 'nobody' })}`)).json).toEqual({ agent_id: 'nobody', count: 0, checkpoints: [] });

    // A request id makes a resend of an uncertain save the same checkpoint, as on every write.
    const sent = await call('POST', '/v1/checkpoints', { body: { agent_id: 'erin', state: { step: 3 }, request_id: 'erin-save-3' } });
    expect(sent.status).toBe(201);
    const resent = await call('POST', '/v1/checkpoints', { body: { agent_id: 'erin', state: { step: 3 }, request_id: 'erin-save-3' } });
    expect(resent.json.checkpoint_id).toBe(sent.json.checkpoint_id);
    expect((await call('GET', `/v1/checkpoints${q({ agent_id: 'erin' })}`)).json.count).toBe(3);
    const bad = await call('POST', '/v1/checkpoints', { body: { agent_id: 'erin', state: 'not an object' } });
    expectBadField(bad, 'state');
  });

  it('GET /metrics is Prometheus text with the store and request metrics', async () => {
    const res = await call('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheus(res.text);
    for (const name of ['engram_facts_total', 'engram_requests_total', 'engram_request_duration_seconds', 'engram_pending_embeddings']) {
      expect(families.has(name), name).toBe(true);
    }
    expect(families.get('engram_request_duration_seconds')!.type).toBe('histogram');
    expect(families.get('engram_requests_total')!.type).toBe('counter');
    const facts = families.get('engram_facts_total')!.samples[0]!;
    expect(facts.value).toBeGreaterThan(0);
    const requests = families.get('engram_requests_total')!.samples;
    expect(requests.some((s) => s.labels.route === '/v1/recall' && s.labels.status === '200')).toBe(true);
    expect(requests.some((s) => s.labels.route === '/v1/agents' && s.labels.status === '401')).toBe(true);
    // Templates, never raw ids, label the series.
    expect(requests.every((s) => !/[0-9A-Z]{26}/.test(s.labels.route!))).toBe(true);
    // Each histogram's buckets are cumulative and end at +Inf = _count.
    const h = families.get('engram_request_duration_seconds')!.samples;
    const byRoute = new Map<string, { buckets: number[]; count?: number }>();
    for (const s of h) {
      const key = `${s.labels.method} ${s.labels.route}`;
      const entry = byRoute.get(key) ?? { buckets: [] };
      byRoute.set(key, entry);
      if (s.name.endsWith('_bucket')) entry.buckets.push(s.value);
      if (s.name.endsWith('_count')) entry.count = s.value;
    }
    for (const entry of byRoute.values()) {
      expect([...entry.buckets].sort((x, y) => x - y)).toEqual(entry.buckets);
      expect(entry.buckets.at(-1)).toBe(entry.count);
    }
  });

  it('GET /metrics shows where recall time went: a recall counts once, and adds to every stage and to the signals it ran', async () => {
    await remember('mona', 'The staging database lives in Frankfurt');
    const scrape = async () => {
      const families = parsePrometheus((await call('GET', '/metrics')).text);
      const seconds = (family: string, label: string) => new Map(families.get(family)!.samples.map((s) => [s.labels[label]!, s.value]));
      return { recalls: families.get('engram_recalls_total')!.samples[0]!.value, stages: seconds('engram_recall_stage_seconds_total', 'stage'), signals: seconds('engram_recall_signal_seconds_total', 'signal'), families };
    };
    const before = await scrape();
    const res = await call('GET', `/v1/recall${q({ agent: 'mona', q: 'where is the staging database' })}`);
    expect(res.status).toBe(200);
    const after = await scrape();
    expect(after.recalls).toBe(before.recalls + 1);
    expect(after.families.get('engram_recall_stage_seconds_total')!.type).toBe('counter');
    expect([...after.stages.keys()]).toEqual(['embed', 'expand', 'signals', 'fuse', 'read', 'finish']);
    for (const [stage, total] of after.stages) expect(total, stage).toBeGreaterThan(before.stages.get(stage)!);
    // This daemon has no embedder: the keyword signal ranked, the vector signal never ran.
    expect(after.signals.get('keyword')).toBeGreaterThan(before.signals.get('keyword') ?? 0);
    expect(after.signals.has('vector')).toBe(false);
  });
});

describe('errors', () => {
  it('400 names the field: bad agent ids, bad k, missing q, unknown parameters and fields', async () => {
    expectBadField(await call('GET', `/v1/recall${q({ agent: '', q: 'x' })}`), 'agent');
    expectBadField(await call('GET', `/v1/recall${q({ agent: '   ', q: 'x' })}`), 'agent');
    expectBadField(await call('GET', `/v1/recall${q({ q: 'x' })}`), 'agent_id');
    expectBadField(await call('GET', `/v1/facts${q({ agent: 'a'.repeat(300) })}`), 'agent');
    expectBadField(await call('POST', '/v1/facts', { body: { agent_id: ' ', text: 'x' } }), 'agent_id');
    expectBadField(await call('POST', '/v1/facts', { body: { agent_id: 7, text: 'x' } }), 'agent_id');
    expectBadField(await call('POST', '/v1/facts', { body: { agent_id: 'a', text: '' } }), 'text');
    expectBadField(await call('POST', '/v1/facts', { body: { agent_id: 'a', text: 'x', occurred_at: 'yesterday' } }), 'occurred_at');
    expectBadField(await call('POST', '/v1/facts', { body: { agnt: 'a', text: 'x' } }), 'agnt');
    expectBadField(await call('POST', '/v1/facts', { body: { agent_id: 'a', agent: 'a', text: 'x' } }), 'agent');
    for (const k of ['abc', '0', '-1', '1001', '2.5']) expectBadField(await call('GET', `/v1/recall${q({ agent: 'bob', q: 'x', k })}`), 'k');
    expectBadField(await call('GET', `/v1/recall/explain${q({ agent: 'bob', q: 'x', k: 'many' })}`), 'k');
    expectBadField(await call('POST', '/v1/forget', { body: { agent_id: 'bob', query: 'x', k: 0, confirm: true } }), 'k');
    expectBadField(await call('GET', `/v1/recall${q({ agent: 'bob' })}`), 'query');
    expectBadField(await call('GET', `/v1/recall${q({ agent: 'bob', q: 'x', topk: 3 })}`), 'topk');
    expectBadField(await call('GET', `/v1/recall${q({ agent: 'bob', q: 'x', top_k: 3, k: 3 })}`), 'k');
    expectBadField(await call('GET', '/v1/recall?agent=bob&agent=eve&q=x'), 'agent');
    expectBadField(await call('GET', `/v1/facts${q({ agent: 'bob', limit: 5000 })}`), 'limit');
    expectBadField(await call('GET', `/v1/facts${q({ agent: 'bob', page_token: 'nope' })}`), 'page_token');
    expectBadField(await call('GET', `/v1/facts/not-an-id${q({ agent: 'bob' })}`), 'id');
    // Nothing was written by the refused writes.
    const stats = await call('GET', `/v1/stats${q({ agent: 'a' })}`);
    expect(stats.json.fact_count).toBe(0);
  });

  it('400 for malformed JSON, a non-object body and invalid UTF-8', async () => {
    const headers = { 'content-type': 'application/json' };
    expectBadField(await call('POST', '/v1/facts', { raw: '{"agent_id": "a", "text": ', headers }), 'body');
    expectBadField(await call('POST', '/v1/facts', { raw: '["a"]', headers }), 'body');
    expectBadField(await call('POST', '/v1/facts', { raw: '', headers }), 'body');
    expectBadField(await call('POST', '/v1/facts', { raw: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), headers }), 'body');
  });

  it('404 for unknown routes, facts and checkpoints', async () => {
    for (const path of ['/v1/nope', '/v1', '/v1/facts/x/y', '/v2/recall', '/v1/recall/']) {
      const res = await call('GET', path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(errorOf(res).code).toBe('not_found');
    }
    const fact = await call('GET', `/v1/facts/${UNKNOWN_ID}${q({ agent: 'bob' })}`);
    expect(fact.status).toBe(404);
    const forget = await call('DELETE', `/v1/facts/${UNKNOWN_ID}${q({ agent: 'bob' })}`);
    expect(forget.status).toBe(404);
  });

  it('405 with Allow for a method a path does not serve', async () => {
    const cases: [string, string, string][] = [
      ['PUT', '/v1/facts', 'POST, GET'],
      ['PATCH', `/v1/facts/${UNKNOWN_ID}`, 'GET, DELETE'],
      ['DELETE', '/v1/agents', 'GET'],
      ['POST', '/v1/recall', 'GET'],
      ['GET', '/v1/forget', 'POST'],
      ['POST', '/healthz', 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await call(method, path, { token: path === '/healthz' ? null : token });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 405 });
      expect(res.headers.get('allow')).toBe(allow);
      expect(errorOf(res).code).toBe('method_not_allowed');
    }
  });

  it('413 for a body over 1 MiB, declared or streamed, and the daemon keeps serving', async () => {
    const big = JSON.stringify({ agent_id: 'big', text: 'x'.repeat(2 * 1024 * 1024) });
    const declared = await call('POST', '/v1/facts', { raw: big, headers: { 'content-type': 'application/json' } });
    expect(declared.status).toBe(413);
    expect(errorOf(declared).code).toBe('resource_exhausted');

    // Chunked, no Content-Length: refused while streaming, once past the limit.
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"agent_id":"big","text":"'));
        for (let i = 0; i < 32; i++) controller.enqueue(chunk);
        controller.enqueue(new TextEncoder().encode('"}'));
        controller.close();
      },
    });
    const streamed = await call('POST', '/v1/checkpoints', { raw: stream, headers: { 'content-type': 'application/json' } });
    expect(streamed.status).toBe(413);

    const after = await call('GET', '/v1/agents');
    expect(after.status).toBe(200);
    expect(after.json.agents).not.toContain('big');
  });

  it('413 arrives before the body is sent, and a client that keeps sending is cut off', async () => {
    const { connect } = await import('node:net');
    const [host, port] = daemon.discovery.httpAddress!.split(':');
    const socket = connect(Number(port), host);
    let received = '';
    let closed = false;
    socket.on('data', (chunk) => (received += chunk));
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    // Declares 1 GiB, sends 64 KiB: the answer must not wait for the rest.
    socket.write(`POST /v1/facts HTTP/1.1\r\nHost: ${daemon.discovery.httpAddress}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${1024 ** 3}\r\n\r\n`);
    socket.write(Buffer.alloc(64 * 1024, 0x20));
    await waitUntil(() => received.includes('\r\n\r\n'));
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received.toLowerCase()).toContain('cache-control: no-store');
    // Keep sending: the daemon drops what arrives and hangs up well before 1 GiB.
    let sent = 64 * 1024;
    const block = Buffer.alloc(256 * 1024, 0x20);
    while (!closed && sent < 256 * 1024 * 1024) {
      if (!socket.write(block)) await new Promise((r) => { socket.once('drain', r); socket.once('close', r); });
      sent += block.length;
    }
    await waitUntil(() => closed);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('OpenAPI document', () => {
  it('describes exactly the route table: paths, methods, parameters, bodies and security', async () => {
    const res = await call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc).toEqual(JSON.parse(JSON.stringify(openApiDocument(ROUTES))));
    expect(doc.openapi).toBe('3.1.0');
    expect(typeof doc.info.title).toBe('string');
    expect(typeof doc.info.version).toBe('string');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);

    const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
    const documented: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(item)) {
        expect(METHODS).toContain(method);
        documented.push(`${method.toUpperCase()} ${path}`);
      }
    }
    const served = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(documented.sort()).toEqual([...served].sort());

    const deref = (node: { $ref?: string }) => {
      if (!node.$ref) return node;
      const target = node.$ref.replace(/^#\//, '').split('/').reduce((at: Record<string, unknown>, key) => at?.[key] as Record<string, unknown>, doc);
      expect(target, node.$ref).toBeDefined();
      return target as Record<string, unknown>;
    };
    for (const route of ROUTES) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      expect(typeof op.operationId).toBe('string');
      const params = ((op.parameters ?? []) as { $ref?: string }[]).map(deref) as { name: string; in: string; required?: boolean }[];
      expect(params.filter((p) => p.in === 'query').map((p) => p.name).sort()).toEqual(acceptedNames(route.query).sort());
      const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(params.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(pathParams);
      for (const p of params.filter((p) => p.in === 'path')) expect(p.required).toBe(true);
      const idDescription = (params.find((p) => p.in === 'path') as { description?: string } | undefined)?.description;
      // A path's id says what it names: a token's, a write's or a recipe's is no fact id.
      if (/\/v1\/facts\/\{id\}/.test(route.path)) expect(idDescription).toBe('Fact id.');
      else if (route.path.includes('{id}')) expect(idDescription, route.path).not.toBe('Fact id.');
      expect(op.requestBody !== undefined).toBe(route.method === 'POST');
      expect(Object.keys(op.responses).some((s) => /^2\d\d$/.test(s))).toBe(true);
      if (route.auth) {
        expect(op.security).toBeUndefined();
        expect(op.responses['401']).toBeDefined();
      } else {
        expect(op.security).toEqual([]);
      }
    }
    // Every $ref anywhere in the document resolves.
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const r of refs) deref({ $ref: JSON.parse(`{${r}}`).$ref });
  });

  it('documents the body fields each POST accepts, aliases included', async () => {
    const doc = openApiDocument(ROUTES);
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, unknown> }>;
    for (const route of ROUTES.filter((r) => r.body)) {
      expect(Object.keys(schemas[route.body!]!.properties).sort(), route.path).toEqual(acceptedNames(REQUESTS[route.body!]).sort());
    }
    expect(Object.keys(schemas.RememberRequest!.properties)).toEqual(expect.arrayContaining(['agent_id', 'text', 'occurred_at', 'tags', 'entities', 'source', 'context', 'meta', 'confidence', 'allow_duplicate']));
  });
});

describe('in-process server (stub core)', () => {
  it('never leaks a stack trace or internal message in a 500; the log gets both under a ref', async () => {
    const logs: string[] = [];
    const failing = {
      admit: async () => {},
      listAgents: async () => {
        throw new Error('leveldb exploded at /secret/path/store');
      },
    } as unknown as Engram;
    const server = await startRestServer(failing, { listen: '127.0.0.1:0', token: 'tok', log: { ...SILENT, error: (m: string) => void logs.push(m) } });
    try {
      const res = await fetch(`http://${server.address}/v1/agents`, { headers: { authorization: 'Bearer tok' } });
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = JSON.parse(text);
      expect(body.error.code).toBe('internal');
      expect(text).not.toContain('secret');
      expect(text).not.toContain('exploded');
      expect(text).not.toMatch(/\bat .*\(|\.ts:\d+/);
      const logged = logs.find((l) => l.includes(`ref ${body.error.ref}`));
      expect(logged).toContain('leveldb exploded');
      expect(logged).toMatch(/\.ts:\d+/);
    } finally {
      await server.close();
    }
  });

  it('refuses --no-auth beyond loopback, and a missing token', async () => {
    const memory = {} as Engram;
    await expect(startRestServer(memory, { listen: '0.0.0.0:0', noAuth: true, log: SILENT })).rejects.toThrow(/loopback/);
    await expect(startRestServer(memory, { listen: '127.0.0.1:0', log: SILENT })).rejects.toThrow(/token/);
    await expect(startRestServer(memory, { listen: 'nonsense', token: 't', log: SILENT })).rejects.toThrow(/HOST:\]PORT/);
  });

  it('serves --no-auth on loopback to local callers but refuses browser requests (Origin, foreign Host)', async () => {
    const memory = { admit: async () => {}, listAgents: async () => ['x'] } as unknown as Engram;
    const server = await startRestServer(memory, { listen: '127.0.0.1:0', noAuth: true, log: SILENT });
    try {
      const url = `http://${server.address}/v1/agents`;
      const ok = await fetch(url);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ agents: ['x'] });
      const fromPage = await fetch(url, { headers: { origin: 'https://evil.example' } });
      expect(fromPage.status).toBe(403);
      const rebound = await rawRequest(server.address, 'GET /v1/agents HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n');
      expect(rebound).toMatch(/^HTTP\/1\.1 403/);
    } finally {
      await server.close();
    }
  });
});

describe('headers', () => {
  it('every response this file received carried Cache-Control: no-store', () => {
    expect(seen.length).toBeGreaterThan(100);
    expect(seen.filter((s) => s.cacheControl !== 'no-store')).toEqual([]);
  });
});

// ----------------------------------------------------------------------------------------------

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A strict reader of the Prometheus text format 0.0.4: every line is a HELP, a TYPE, or a sample
 *  of a declared family; label values are quoted; values are numbers. */
function parsePrometheus(text: string): Map<string, { type: string; samples: Sample[] }> {
  expect(text.endsWith('\n')).toBe(true);
  const families = new Map<string, { type: string; samples: Sample[] }>();
  const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
  const sample = new RegExp(`^(${NAME})(?:\\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*",?)*)\\})? (\\S+)$`);
  for (const line of text.slice(0, -1).split('\n')) {
    if (line.startsWith('# HELP ')) {
      expect(line).toMatch(new RegExp(`^# HELP ${NAME} .+$`));
      continue;
    }
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (type) {
      expect(families.has(type[1]!), `duplicate TYPE ${type[1]}`).toBe(false);
      families.set(type[1]!, { type: type[2]!, samples: [] });
      continue;
    }
    const m = sample.exec(line);
    expect(m, `not a Prometheus line: ${line}`).not.toBeNull();
    const [, name, rawLabels, rawValue] = m!;
    const value = rawValue === '+Inf' ? Infinity : rawValue === '-Inf' ? -Infinity : Number(rawValue);
    expect(Number.isNaN(value) && rawValue !== 'NaN', line).toBe(false);
    const labels: Record<string, string> = {};
    for (const lm of (rawLabels ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[lm[1]!] = lm[2]!;
    const family = families.get(name!) ?? families.get(name!.replace(/_(bucket|sum|count)$/, ''));
    expect(family, `sample before its TYPE: ${line}`).toBeDefined();
    family!.samples.push({ name: name!, labels, value });
  }
  return families;
}

async function rawRequest(address: string, request: string): Promise<string> {
  const { connect } = await import('node:net');
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => socket.write(request));
    let data = '';
    socket.on('data', (chunk) => (data += chunk));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
