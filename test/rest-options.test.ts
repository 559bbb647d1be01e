// REST options the other doors had and REST lacked or misnamed, against a real `engram daemon
// --http`: batch writes name each refused field as `items[N].<the field sent>` (never a core
// name such as meta_json) and write nothing of a refused body; recall takes per-call weights, a
// relevance floor and filters (GET parameters, POST bodies) through the core call gRPC uses, and
// answers like the library does; POST /v1/facts takes strength; a 413 names the body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import type { EngramClient } from '../client/client.ts';
import { removeDir, startDaemon, type DaemonProcess } from './fixtures/daemon.ts';
import { acceptedNames } from '../daemon/http/rest/parse.ts';
import { REQUESTS } from '../daemon/http/rest/schemas.ts';

interface Answer {
  status: number;
  json: any; // a parsed response: its shape is what the assertions check
  text: string;
}

let daemon: DaemonProcess;
let client: EngramClient;
let base: string;

async function call(method: string, path: string, body?: unknown, raw?: string): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${daemon.discovery.token}` };
  if (body !== undefined || raw !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

const q = (params: Record<string, string | number | (string | number)[]>) => {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) search.append(k, String(one));
  return `?${search}`;
};

const AjvClass = ((Ajv2020 as unknown as { default?: unknown }).default ?? Ajv2020) as new (o: object) => {
  addSchema(s: object): void;
  getSchema(ref: string): ((v: unknown) => boolean) & { errors?: unknown };
};
let ajv: InstanceType<typeof AjvClass>;
function expectSchema(name: string, value: unknown): void {
  const validate = ajv.getSchema(`openapi#/components/schemas/${name}`)!;
  const ok = validate(value);
  expect(ok ? null : { name, errors: validate.errors, value }).toBeNull();
}

function expectBadField(res: Answer, field: string): void {
  expect(res.status, res.text).toBe(400);
  expect(res.json.error.code).toBe('invalid_argument');
  expect(res.json.error.field, res.text).toBe(field);
  expect(res.json.error.message.startsWith(`${field}:`), res.json.error.message).toBe(true);
  expectSchema('Error', res.json);
}

const count = async (agent: string) => (await call('GET', `/v1/stats${q({ agent_id: agent })}`)).json.fact_count as number;

const nested = (depth: number): unknown => {
  let value: unknown = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
};

beforeAll(async () => {
  daemon = await startDaemon({ args: ['--http', '127.0.0.1:0'] });
  base = `http://${daemon.discovery.httpAddress}`;
  client = await daemon.client();
  const doc = await call('GET', '/v1/openapi.json');
  ajv = new AjvClass({ strict: false, validateFormats: false });
  ajv.addSchema({ ...doc.json, $id: 'openapi' });
});

afterAll(async () => {
  client?.close();
  await daemon?.stop();
  if (daemon) removeDir(daemon.dataDir);
});

describe('POST /v1/facts/batch names each field as items[N].<the field sent>', () => {
  const ITEM_FIELDS = acceptedNames(REQUESTS.BatchRememberRequest.shape.items.element);
  const good = (agent: string) => ({ agent_id: agent, text: 'a fine first item' });

  it('a body that does not fit is a 400 naming items[N].field, and nothing of it is written', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['b-when', { occurred_at: 'May 8' }, 'items[1].occurred_at'],
      ['b-feb', { occurred_at: '2024-02-30' }, 'items[1].occurred_at'],
      ['b-feb-time', { occurred_at: '2024-02-30T10:00:00Z' }, 'items[1].occurred_at'],
      ['b-deep', { meta: nested(70) }, 'items[1].meta'],
      ['b-meta-list', { meta: [1, 2] }, 'items[1].meta'],
      ['b-tags', { tags: 'ops' }, 'items[1].tags'],
      ['b-tag-type', { tags: ['ok', 7] }, 'items[1].tags[1]'],
      ['b-entities', { entities: 'Alice' }, 'items[1].entities'],
      ['b-source', { source: 3 }, 'items[1].source'],
      ['b-context', { context: false }, 'items[1].context'],
      ['b-confidence', { confidence: 'sure' }, 'items[1].confidence'],
      ['b-dup', { allow_duplicate: 'yes' }, 'items[1].allow_duplicate'],
      ['b-strength-type', { strength: 'high' }, 'items[1].strength'],
      ['b-request', { request_id: 12 }, 'items[1].request_id'],
      ['b-unknown', { colour: 'red' }, 'items[1].colour'],
    ];
    for (const [agent, extra, field] of cases) {
      const res = await call('POST', '/v1/facts/batch', { items: [good(agent), { agent_id: agent, text: 'the second item', ...extra }] });
      expectBadField(res, field);
      expect(await count(agent), agent).toBe(0);
    }
  });

  it('an item the daemon refuses fails in its slot naming items[N].<the field sent>, the others are stored', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['s-meta', { meta: { blob: 'x'.repeat(40 * 1024) } }, 'items[1].meta'],
      ['s-text', { text: '   ' }, 'items[1].text'],
      ['s-long-text', { text: 'y'.repeat(33 * 1024) }, 'items[1].text'],
      ['s-tag', { tags: ['ok', ' '] }, 'items[1].tags[1]'],
      ['s-tags', { tags: Array.from({ length: 65 }, (_, i) => `t${i}`) }, 'items[1].tags'],
      ['s-entity', { entities: ['e'.repeat(300)] }, 'items[1].entities[0]'],
      ['s-source', { source: 's'.repeat(2000) }, 'items[1].source'],
      ['s-context', { context: 'c'.repeat(33 * 1024) }, 'items[1].context'],
      ['s-strength', { strength: 3 }, 'items[1].strength'],
      ['s-strength-neg', { strength: -0.5 }, 'items[1].strength'],
      ['s-request', { request_id: 'r'.repeat(300) }, 'items[1].request_id'],
      ['s-agent', { agent_id: ' ' }, 'items[1].agent_id'],
    ];
    for (const [agent, extra, field] of cases) {
      const res = await call('POST', '/v1/facts/batch', { items: [good(agent), { agent_id: agent, text: 'the second item', ...extra }] });
      expect(res.status, res.text).toBe(200);
      expectSchema('BatchRemembered', res.json);
      const [first, second] = res.json.results;
      expect(first.fact_id, agent).toEqual(expect.any(String));
      expect(second.error, agent).toMatchObject({ code: 'invalid_argument', field });
      expect(second.error.message.startsWith(`${field}:`), second.error.message).toBe(true);
      // Whatever the field, it is one the caller can send: no core or protocol name.
      const head = (second.error.field as string).replace(/^items\[\d+\]\./, '').split(/[.[]/)[0]!;
      expect(ITEM_FIELDS).toContain(head);
      expect(await count(agent), agent).toBe(1);
    }
  });

  it('takes strength per item, as POST /v1/facts does', async () => {
    const res = await call('POST', '/v1/facts/batch', { items: [{ agent_id: 'b-strong', text: 'an important batch fact', strength: 1.6 }] });
    expect(res.status, res.text).toBe(200);
    const fact = (await call('GET', `/v1/facts/${res.json.results[0].fact_id}${q({ agent_id: 'b-strong' })}`)).json.fact;
    expect(fact.strength).toBe(1.6);
  });
});

describe('POST /v1/facts', () => {
  it('takes strength in [0, 2], refusing others naming strength', async () => {
    const res = await call('POST', '/v1/facts', { agent_id: 'strong', text: 'a critical fact', strength: 1.8 });
    expect(res.status, res.text).toBe(201);
    expect(res.json.fact.strength).toBe(1.8);
    expect((await client.get('strong', res.json.fact.id)).strength).toBe(1.8);
    expectBadField(await call('POST', '/v1/facts', { agent_id: 'strong', text: 'too strong', strength: 2.5 }), 'strength');
    expectBadField(await call('POST', '/v1/facts', { agent_id: 'strong', text: 'a word', strength: 'high' }), 'strength');
    expect(await count('strong')).toBe(1);
  });

  it('a number beyond a double (1e400) is refused as out of range, naming strength', async () => {
    const res = await call('POST', '/v1/facts', undefined, '{"agent_id":"huge","text":"a fact","strength":1e400}');
    expectBadField(res, 'strength');
    expect(res.json.error.message).toMatch(/finite number, got Infinity/);
    expect(await count('huge')).toBe(0);
  });

  it('a body over 1 MiB is a 413 naming the body', async () => {
    const res = await call('POST', '/v1/facts', undefined, JSON.stringify({ agent_id: 'big', text: 'x'.repeat(2 * 1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.json.error).toMatchObject({ code: 'resource_exhausted', field: 'body' });
    expectSchema('Error', res.json);
  });
});

describe("a route's own limit parameter is that route's, not the alias of page_size", () => {
  it('GET /v1/memory-controls/slots?limit=2 pages by 2; GET /v1/graph?limit=5 takes it', async () => {
    for (const name of ['a', 'b', 'c']) await client.putSlot({ slotName: `limit_${name}`, slotValue: name });
    const slots = await call('GET', `/v1/memory-controls/slots${q({ limit: 2 })}`);
    expect(slots.status, slots.text).toBe(200);
    expect(slots.json.slots).toHaveLength(2);
    expect(slots.json.next_page_token).toBeTruthy();
    // page_size is the canonical name, as for facts (it was refused here).
    const sized = await call('GET', `/v1/memory-controls/slots${q({ page_size: 1 })}`);
    expect(sized.status, sized.text).toBe(200);
    expect(sized.json.slots).toHaveLength(1);
    await client.put('kg', 'the api runs on postgres', { entities: ['postgres'] });
    const graph = await call('GET', `/v1/graph${q({ agent_id: 'kg', entity: 'postgres', limit: 5 })}`);
    expect(graph.status, graph.text).toBe(200);
    expectBadField(await call('GET', `/v1/memory-controls/slots${q({ limit: 'two' })}`), 'limit');
  });
});

describe('recall takes per-call weights, a relevance floor and filters', () => {
  const agent = 'opts';
  beforeAll(async () => {
    await call('POST', '/v1/facts', { agent_id: agent, text: 'The deploy runbook lives in the ops wiki', tags: ['ops', 'docs'], occurred_at: '2020-01-01' });
    await call('POST', '/v1/facts', { agent_id: agent, text: 'Deploys happen on Tuesday mornings', tags: ['ops'] });
    await call('POST', '/v1/facts', { agent_id: agent, text: 'Alice prefers green tea', tags: ['people'] });
    await call('POST', '/v1/facts', { agent_id: agent, text: 'The deploy freeze starts in December', tags: ['docs'] });
  });
  const texts = (facts: { text: string }[]) => facts.map((f) => f.text);

  it('GET /v1/recall: weights=0,1,0 ranks by keyword alone, as the library does', async () => {
    const res = await call('GET', `/v1/recall${q({ agent_id: agent, query: 'deploy', weights: '0,1,0' })}`);
    expect(res.status, res.text).toBe(200);
    expectSchema('RecallResult', res.json);
    expect(res.json.retrieval.weights).toMatchObject({ vector: 0, keyword: 1, recency: 0 });
    expect(res.json.retrieval.signals).toEqual(['keyword']);
    const viaLibrary = await client.recall(agent, 'deploy', { weights: { vector: 0, keyword: 1, recency: 0 } });
    expect(res.json.facts.map((f: { id: string }) => f.id)).toEqual(viaLibrary.facts.map((f) => f.id));
    // Four and five numbers: the decay and graph weights too.
    const five = await call('GET', `/v1/recall${q({ agent_id: agent, query: 'deploy', weights: '1, 1, 0.5, 0, 0' })}`);
    expect(five.status, five.text).toBe(200);
    expect(five.json.retrieval.weights).toEqual({ vector: 1, keyword: 1, recency: 0.5, decay: 0, graph: 0 });
  });

  it('GET /v1/recall: tags_any, tags_all, window_days, occurred ranges and min_relevance filter as gRPC does', async () => {
    const cases: [Record<string, string | number | string[]>, Parameters<EngramClient['recall']>[2]][] = [
      [{ tags_any: ['people', 'docs'] }, { filters: { tagsAny: ['people', 'docs'] } }],
      [{ tags_all: ['ops', 'docs'] }, { filters: { tagsAll: ['ops', 'docs'] } }],
      [{ window_days: 30 }, { filters: { windowDays: 30 } }],
      [{ occurred_before: '2021-01-01' }, { filters: { occurredBefore: Date.UTC(2021, 0, 1) } }],
      [{ occurred_after: '2021-01-01T00:00:00Z', tags_any: 'ops' }, { filters: { occurredAfter: Date.UTC(2021, 0, 1), tagsAny: ['ops'] } }],
      [{ created_after: '2000-01-01', created_before: '2999-01-01' }, { filters: { createdAfter: Date.UTC(2000, 0, 1), createdBefore: Date.UTC(2999, 0, 1) } }],
      [{ min_decay_score: 0 }, { filters: { minDecayScore: 0 } }],
      [{ min_relevance: 0.9 }, { minRelevance: 0.9 }],
    ];
    for (const [params, options] of cases) {
      const res = await call('GET', `/v1/recall${q({ agent_id: agent, query: 'deploy', ...params })}`);
      expect(res.status, res.text).toBe(200);
      expectSchema('RecallResult', res.json);
      const viaLibrary = await client.recall(agent, 'deploy', options);
      expect(texts(res.json.facts), JSON.stringify(params)).toEqual(texts(viaLibrary.facts));
    }
    const tagged = await call('GET', `/v1/recall${q({ agent_id: agent, query: 'deploy', tags_all: ['ops', 'docs'] })}`);
    expect(texts(tagged.json.facts)).toEqual(['The deploy runbook lives in the ops wiki']);
    const recent = await call('GET', `/v1/recall${q({ agent_id: agent, query: 'deploy', window_days: 30, tags_any: 'ops' })}`);
    expect(texts(recent.json.facts)).toEqual(['Deploys happen on Tuesday mornings']);
    // The explain route takes the same options.
    const explained = await call('GET', `/v1/recall/explain${q({ agent_id: agent, query: 'deploy', weights: '0,1,0', tags_any: 'people' })}`);
    expect(explained.status, explained.text).toBe(200);
    expectSchema('ExplainResult', explained.json);
    // Facts the query does not match still fill top_k, from those the filter lets through only.
    expect(explained.json.explained.map((r: { text: string; matched: boolean }) => [r.text, r.matched])).toEqual([['Alice prefers green tea', false]]);
  });

  it('GET /v1/recall: a bad option is a 400 naming the parameter', async () => {
    const bad: [Record<string, string | number | string[]>, string][] = [
      [{ weights: '0,1' }, 'weights'],
      [{ weights: '0,1,0,0,0,1' }, 'weights'],
      [{ weights: 'a,b,c' }, 'weights.vector'],
      [{ weights: '1,,1' }, 'weights.keyword'],
      [{ weights: '1,1,0x10' }, 'weights.recency'],
      [{ weights: '' }, 'weights'],
      [{ weights: '0,0,0' }, 'weights'],
      [{ weights: '101,1,0' }, 'weights.vector'],
      [{ weights: '1,1,-1' }, 'weights.recency'],
      [{ min_relevance: 2 }, 'min_relevance'],
      [{ min_relevance: 'high' }, 'min_relevance'],
      [{ window_days: 0 }, 'window_days'],
      [{ window_days: 1.5 }, 'window_days'],
      [{ tags_any: ['ops', ' '] }, 'tags_any[1]'],
      [{ tags_all: Array.from({ length: 65 }, (_, i) => `t${i}`) }, 'tags_all'],
      [{ occurred_after: 'May 8' }, 'occurred_after'],
      [{ created_before: '2024-02-30' }, 'created_before'],
      [{ min_decay_score: -1 }, 'min_decay_score'],
    ];
    for (const [params, field] of bad) {
      expectBadField(await call('GET', `/v1/recall${q({ agent_id: agent, query: 'deploy', ...params })}`), field);
      expectBadField(await call('GET', `/v1/recall/explain${q({ agent_id: agent, query: 'deploy', ...params })}`), field);
    }
  });

  it('POST /v1/recall/batch: weights, min_relevance and filters in the body, checked alike', async () => {
    const res = await call('POST', '/v1/recall/batch', { agent_id: agent, queries: ['deploy', 'tea'], weights: { vector: 0, keyword: 1, recency: 0 }, tags_any: ['ops', 'people'], window_days: 30 });
    expect(res.status, res.text).toBe(200);
    expectSchema('BatchRecallResult', res.json);
    expect(res.json.retrieval.weights).toMatchObject({ vector: 0, keyword: 1, recency: 0 });
    const viaLibrary = await client.batchRecall(agent, ['deploy', 'tea'], { weights: { vector: 0, keyword: 1, recency: 0 }, filters: { tagsAny: ['ops', 'people'], windowDays: 30 } });
    expect(res.json.results.map((r: { facts: { text: string }[] }) => texts(r.facts))).toEqual(viaLibrary.results.map((r) => texts(r.facts)));
    expect(texts(res.json.results[0].facts)).toEqual(['Deploys happen on Tuesday mornings', 'Alice prefers green tea']);
    // Each query says which of its facts it matched and which only fill top_k, as the library does.
    const matchedOf = (matches: { matched: boolean }[]) => matches.map((m) => m.matched);
    expect(res.json.results.map((r: { matches: { matched: boolean }[] }) => matchedOf(r.matches))).toEqual(viaLibrary.results.map((r) => matchedOf(r.matches!)));
    expect(res.json.results[0].matched).toBe(1);
    const ranged = await call('POST', '/v1/recall/batch', { agent_id: agent, queries: ['deploy'], occurred_before: '2021-01-01', min_relevance: 0.5, min_decay_score: 0, tags_all: ['ops'] });
    expect(ranged.status, ranged.text).toBe(200);
    expect(texts(ranged.json.results[0].facts)).toEqual(['The deploy runbook lives in the ops wiki']);

    const bad: [Record<string, unknown>, string][] = [
      [{ weights: { vector: 'x' } }, 'weights.vector'],
      [{ weights: { colour: 1 } }, 'weights.colour'],
      [{ weights: '0,1,0' }, 'weights'],
      [{ weights: { vector: 0, keyword: 0, recency: 0 } }, 'weights'],
      [{ weights: { graph: 101 } }, 'weights.graph'],
      [{ min_relevance: 5 }, 'min_relevance'],
      [{ window_days: 0 }, 'window_days'],
      [{ tags_any: 'ops' }, 'tags_any'],
      [{ tags_all: ['ops', ''] }, 'tags_all[1]'],
      [{ occurred_after: 'May 8' }, 'occurred_after'],
      [{ min_decay_score: -2 }, 'min_decay_score'],
    ];
    for (const [extra, field] of bad) expectBadField(await call('POST', '/v1/recall/batch', { agent_id: agent, queries: ['deploy'], ...extra }), field);
  });

  it('the OpenAPI document lists the new parameters and fields', async () => {
    const doc = (await call('GET', '/v1/openapi.json')).json;
    const names = (path: string) => doc.paths[path].get.parameters.map((p: { name: string }) => p.name);
    for (const path of ['/v1/recall', '/v1/recall/explain']) {
      expect(names(path)).toEqual(expect.arrayContaining(['weights', 'min_relevance', 'window_days', 'tags_any', 'tags_all', 'created_after', 'created_before', 'occurred_after', 'occurred_before', 'min_decay_score']));
    }
    expect(Object.keys(doc.components.schemas.BatchRecallRequest.properties)).toEqual(expect.arrayContaining(['weights', 'min_relevance', 'window_days', 'tags_any', 'tags_all', 'occurred_after', 'min_decay_score']));
    expect(Object.keys(doc.components.schemas.RememberRequest.properties)).toContain('strength');
  });
});
