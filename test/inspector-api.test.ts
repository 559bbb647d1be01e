// What the inspector's page relies on, through a real daemon's HTTP server: the list filters
// and newest-first order, the timeline, lineage and decay reads, the confidence route, stats by
// confidence, the session (one token entry, or the one-time ticket `engram inspect` prints) and
// the page's own files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InspectorSessions } from '../daemon/http/inspector/sessions.ts';
import { runEngram } from './fixtures/cli.ts';
import { removeDir, startDaemon, type DaemonProcess } from './fixtures/daemon.ts';

let daemon: DaemonProcess;
let base: string;
let token: string;

beforeAll(async () => {
  daemon = await startDaemon({ args: ['--http', '127.0.0.1:0'] });
  base = `http://${daemon.discovery.httpAddress}`;
  token = readFileSync(join(daemon.dataDir, 'token'), 'utf8').trim();
});
afterAll(async () => {
  await daemon?.stop();
  if (daemon) removeDir(daemon.dataDir);
});

async function rest(method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${token}` }) {
  const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, headers: res.headers, json: (await res.json().catch(() => null)) as any };
}

async function remember(agent: string, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await rest('POST', '/v1/facts', { agent_id: agent, text, ...extra });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json.fact.id;
}

const texts = (r: { json: { facts: { text: string }[] } }) => r.json.facts.map((f) => f.text);

describe('browsing a namespace', () => {
  const agent = 'browse';
  beforeAll(async () => {
    await remember(agent, 'Mia books window seats', { tags: ['travel'], entities: ['Mia'], confidence: 'verified', occurred_at: '2024-03-01T10:00:00Z' });
    await remember(agent, 'The invoice was paid late', { tags: ['money'], confidence: 'unverified' });
    const pinned = await remember(agent, 'Mia flies to Paris in May', { tags: ['travel', 'plans'], entities: ['Mia', 'Paris'], occurred_at: '2024-05-10T00:00:00Z' });
    await rest('POST', `/v1/facts/${pinned}/pin`, { agent_id: agent });
    const forgotten = await remember(agent, 'An old travel note', { tags: ['travel'] });
    await rest('POST', `/v1/facts/${forgotten}/forget`, { agent_id: agent });
  });

  test('each filter narrows the list, and the order can be newest first', async () => {
    const q = (s: string) => rest('GET', `/v1/facts?agent_id=${agent}&${s}`);
    expect(texts(await q('order=newest'))).toEqual(['An old travel note', 'Mia flies to Paris in May', 'The invoice was paid late', 'Mia books window seats']);
    expect(texts(await q('tags=travel&retired=false'))).toEqual(['Mia books window seats', 'Mia flies to Paris in May']);
    expect(texts(await q('tags=travel&tags=plans'))).toEqual(['Mia flies to Paris in May']);
    expect(texts(await q('entities=paris'))).toEqual(['Mia flies to Paris in May']);
    expect(texts(await q('confidence=verified&confidence=unverified'))).toEqual(['Mia books window seats', 'The invoice was paid late']);
    expect(texts(await q('confidence=inferred&retired=false'))).toEqual(['Mia flies to Paris in May']);
    expect(texts(await q('pinned=true'))).toEqual(['Mia flies to Paris in May']);
    expect(texts(await q('retired=true'))).toEqual(['An old travel note']);
    expect(texts(await q('text=MIA%20paris'))).toEqual(['Mia flies to Paris in May']);
    expect(texts(await q('occurred_after=2024-04-01'))).toEqual(['Mia flies to Paris in May']);
    expect(texts(await q('occurred_before=2024-04-01'))).toEqual(['Mia books window seats']);
    expect(texts(await q('created_after=2999-01-01'))).toEqual([]);
    const page = await q('tags=travel');
    expect(page.json.scanned).toBe(4);
  });

  test('the text filter matches whole words, not parts of words', async () => {
    const words = 'browse-words';
    await remember(words, 'Steam rises from the kettle');
    await remember(words, 'Green tea, no sugar', { context: 'asked at node.js meetup' });
    await remember(words, '東京タワーに行った');
    const q = (text: string) => rest('GET', `/v1/facts?agent_id=${words}&text=${encodeURIComponent(text)}`);
    expect(texts(await q('tea'))).toEqual(['Green tea, no sugar']);
    expect(texts(await q('TEA sugar'))).toEqual(['Green tea, no sugar']);
    expect(texts(await q('team'))).toEqual([]);
    expect(texts(await q('node.js'))).toEqual(['Green tea, no sugar']);
    expect(texts(await q('kettl'))).toEqual([]);
    // Scripts without spaces between words are still found inside their runs.
    expect(texts(await q('東京'))).toEqual(['東京タワーに行った']);
  });

  test('a filtered listing pages through every match exactly once, either way round', async () => {
    const many = 'many';
    const items = Array.from({ length: 1200 }, (_, i) => ({ agent_id: many, text: `note number ${i}`, tags: i % 3 === 0 ? ['third'] : [] }));
    for (let i = 0; i < items.length; i += 500) expect((await rest('POST', '/v1/facts/batch', { items: items.slice(i, i + 500) })).status).toBe(200);
    for (const order of ['oldest', 'newest']) {
      const seen: string[] = [];
      let pageToken = '';
      do {
        const r = await rest('GET', `/v1/facts?agent_id=${many}&tags=third&order=${order}&page_size=150&page_token=${pageToken}`);
        expect(r.status).toBe(200);
        seen.push(...texts(r));
        pageToken = r.json.next_page_token;
      } while (pageToken);
      const expected = items.filter((i) => i.tags.length).map((i) => i.text);
      expect(seen).toEqual(order === 'oldest' ? expected : expected.reverse());
    }
  });

  test('a bad filter is a 400 naming the parameter, and nothing else happens', async () => {
    for (const [query, field] of [
      ['created_after=yesterday', 'created_after'],
      ['occurred_before=2024-02-30', 'occurred_before'],
      ['order=sideways', 'order'],
      ['confidence=sure', 'confidence'],
      ['pinned=maybe', 'pinned'],
      ['page_token=nonsense', 'page_token'],
    ]) {
      const r = await rest('GET', `/v1/facts?agent_id=${agent}&${query}`);
      expect(r.status, query).toBe(400);
      expect(r.json.error.field, query).toMatch(new RegExp(`^${field}`));
    }
  });
});

describe('every door browses alike', () => {
  test('REST, the library and the CLI give the same filtered, newest-first page', async () => {
    const agent = 'doors';
    for (const [text, tags] of [['Door one', ['x']], ['Door two', ['x', 'y']], ['Door three', ['y']], ['Door four', ['x']]] as const) await remember(agent, text, { tags: [...tags] });
    const viaRest = texts(await rest('GET', `/v1/facts?agent_id=${agent}&order=newest&tags=x&text=door`));
    expect(viaRest).toEqual(['Door four', 'Door two', 'Door one']);
    const client = await daemon.client();
    try {
      const page = await client.list(agent, { order: 'newest', filter: { tags: ['x'], text: 'door' } });
      expect(page.facts.map((f) => f.text)).toEqual(viaRest);
      expect(page.scanned).toBe(4);
      expect((await client.list(agent, { filter: { tags: ['x'], createdAfter: new Date(Date.now() + 86_400_000) } })).facts).toEqual([]);
    } finally {
      client.close();
    }
    const cli = await runEngram(['list', agent, '--newest', '--tag', 'x', '--text', 'door', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).facts.map((f: { text: string }) => f.text)).toEqual(viaRest);
    const bad = await runEngram(['list', agent, '--created-after', 'yesterday'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--created-after/);
    const both = await runEngram(['list', agent, '--pinned', '--unpinned'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(both.code).toBe(2);
  });

  test('the library refuses a filter an older daemon would ignore, before sending it', async () => {
    const old = await startDaemon({ args: ['--compat', 'v0.2'] });
    const client = await old.client();
    try {
      await client.put('doors', 'An old daemon lists everything');
      await expect(client.list('doors', { filter: { pinned: true } })).rejects.toThrow(/inspector-v1/);
      await expect(client.list('doors', { order: 'newest' })).rejects.toThrow(/inspector-v1/);
      expect((await client.list('doors')).facts.map((f) => f.text)).toEqual(['An old daemon lists everything']);
    } finally {
      client.close();
      await old.stop();
      removeDir(old.dataDir);
    }
  });
});

describe('what a fact page reads', () => {
  const agent = 'audit';

  test('the timeline counts facts per day, and stats count live facts by confidence', async () => {
    await remember(agent, 'Counted verified', { confidence: 'verified' });
    await remember(agent, 'Counted without a label');
    const timeline = await rest('GET', `/v1/timeline?agent_id=${agent}`);
    expect(timeline.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(timeline.json.days.find((d: { day: string }) => d.day === today)?.created).toBeGreaterThanOrEqual(2);
    const stats = await rest('GET', `/v1/stats?agent_id=${agent}`);
    expect(stats.json.live_by_confidence).toMatchObject({ verified: 1, inferred: 1, unverified: 0 });
  });

  test('lineage follows a revision both ways', async () => {
    const first = await remember(agent, 'The office is on floor 2');
    const second = (await rest('POST', '/v1/revisions', { agent_id: agent, target_ids: [first], text: 'The office is on floor 3' })).json.fact.id;
    const third = (await rest('POST', '/v1/revisions', { agent_id: agent, target_ids: [second], text: 'The office is on floor 4' })).json.fact.id;
    const ofFirst = await rest('GET', `/v1/facts/${first}/lineage?agent_id=${agent}`);
    expect(ofFirst.json.successors.map((f: { id: string }) => f.id)).toEqual([second, third]);
    expect(ofFirst.json.sources).toEqual([]);
    const ofThird = await rest('GET', `/v1/facts/${third}/lineage?agent_id=${agent}`);
    expect(ofThird.json.sources.map((f: { id: string }) => f.id)).toEqual([second, first]);
    await rest('DELETE', `/v1/facts/${first}?agent_id=${agent}`);
    expect((await rest('GET', `/v1/facts/${third}/lineage?agent_id=${agent}`)).json.missing).toEqual([first]);
  });

  test('the decay curve falls from the last use, and a pinned fact is never forgotten', async () => {
    const id = await remember(agent, 'A fact that fades');
    const curve = (await rest('GET', `/v1/facts/${id}/decay?agent_id=${agent}`)).json;
    expect(curve.score).toBeGreaterThan(0.9);
    expect(curve.points.length).toBeGreaterThan(10);
    const scores = curve.points.map((p: { score: number }) => p.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(Date.parse(curve.forgets_at)).toBeGreaterThan(Date.now());
    await rest('POST', `/v1/facts/${id}/pin`, { agent_id: agent });
    expect((await rest('GET', `/v1/facts/${id}/decay?agent_id=${agent}`)).json.forgets_at).toBeUndefined();
    // Garbage collection never takes a retired fact either.
    const retired = await remember(agent, 'A forgotten fact does not fade out of the store');
    await rest('POST', `/v1/facts/${retired}/forget`, { agent_id: agent });
    expect((await rest('GET', `/v1/facts/${retired}/decay?agent_id=${agent}`)).json.forgets_at).toBeUndefined();
    expect((await rest('GET', `/v1/facts/01ARZ3NDEKTSV4RRFFQ69G5FAV/decay?agent_id=${agent}`)).status).toBe(404);
  });

  test('a fact’s confidence can be changed; a label it does not know is a 400 and changes nothing', async () => {
    const id = await remember(agent, 'Confidence moves');
    const set = await rest('POST', `/v1/facts/${id}/confidence`, { agent_id: agent, confidence: 'verified' });
    expect(set.status).toBe(200);
    expect(set.json.fact.confidence).toBe('verified');
    expect(Number(set.headers.get('engram-change'))).toBeGreaterThan(0);
    const bad = await rest('POST', `/v1/facts/${id}/confidence`, { agent_id: agent, confidence: 'certain' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.field).toBe('confidence');
    expect((await rest('GET', `/v1/facts/${id}?agent_id=${agent}`)).json.fact.confidence).toBe('verified');
  });
});

describe('sessions', () => {
  const page = () => ({ origin: base });
  const withSession = (id: string, extra: Record<string, string> = {}) => ({ 'engram-session': id, ...extra });

  test('a wrong token opens no session; the right one gives a session id (never a cookie) that opens the API', async () => {
    const wrong = await rest('POST', '/inspector/session', { token: 'not-the-token' }, page());
    expect(wrong.status).toBe(401);
    expect(wrong.json.session).toBeUndefined();
    const empty = await rest('POST', '/inspector/session', {}, page());
    expect(empty.status).toBe(400);
    expect(empty.json.error.field).toBe('token');

    const signed = await rest('POST', '/inspector/session', { token }, page());
    expect(signed.status).toBe(200);
    // A browser sends a host's cookies to every port of it: none is set.
    expect(signed.headers.get('set-cookie')).toBeNull();
    const id = signed.json.session as string;
    expect(id).toMatch(/^[\w-]{32}$/);
    expect((await rest('GET', '/v1/agents', undefined, withSession(id, page()))).status).toBe(200);
    expect((await rest('GET', '/inspector/session', undefined, withSession(id))).json).toMatchObject({ signed_in: true, principal: 'token' });
    // Another web page cannot use it.
    expect((await rest('GET', '/v1/agents', undefined, withSession(id, { origin: 'http://evil.example' }))).status).toBe(403);
    const unknown = await rest('GET', '/v1/agents', undefined, withSession('made-up'));
    expect(unknown.status).toBe(401);
    expect(unknown.json.error.message).toMatch(/^the inspector session has ended .*sign in again/);

    await rest('DELETE', '/inspector/session', undefined, withSession(id));
    expect((await rest('GET', '/v1/agents', undefined, withSession(id))).status).toBe(401);
    expect((await rest('GET', '/inspector/session', undefined, withSession(id))).json).toMatchObject({ signed_in: false });
  });

  test('a sign-in body follows the REST input rules: an unknown field, an empty ticket, or both credentials is a 400 naming the field, and no session opens', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ token, foo: 1 }, 'foo', /^foo: is not a field of this request/],
      [{ token: 'not-the-token', foo: 1 }, 'foo', /^foo: is not a field/],
      [{ ticket: '' }, 'ticket', /^ticket: must be the ticket/],
      [{ ticket: 7 }, 'ticket', /^ticket: must be the ticket/],
      [{ token, ticket: 'some-ticket' }, 'ticket', /^ticket: give token or ticket, not both/],
    ];
    for (const [body, field, message] of cases) {
      const answer = await rest('POST', '/inspector/session', body, page());
      expect([answer.status, answer.json.error?.field, answer.json.session], JSON.stringify(body)).toEqual([400, field, undefined]);
      expect(answer.json.error.message).toMatch(message);
    }
    expect((await rest('POST', '/inspector/session', { token }, page())).status).toBe(200);
  });

  test('an agent token’s session sees only its namespaces, and ends when the token is revoked', async () => {
    await remember('mine', 'Visible to the agent');
    await remember('theirs', 'Not for the agent');
    const made = await rest('POST', '/v1/tokens', { agents: ['mine'], label: 'inspector test' });
    expect(made.status).toBe(201);
    const id = (await rest('POST', '/inspector/session', { token: made.json.token }, page())).json.session;
    const agents = await rest('GET', '/v1/agents', undefined, withSession(id));
    expect(agents.json.agents).toEqual(['mine']);
    expect((await rest('GET', '/v1/facts?agent_id=theirs&order=newest', undefined, withSession(id))).status).toBe(403);
    await rest('DELETE', `/v1/tokens/${made.json.info.id}`);
    expect((await rest('GET', '/v1/agents', undefined, withSession(id))).status).toBe(401);
  });

  test('engram inspect prints a link whose ticket signs in once', async () => {
    const run = await runEngram(['inspect', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(run.code, run.stderr).toBe(0);
    const link = new URL(JSON.parse(run.stdout).url);
    expect(`${link.origin}${link.pathname}`).toBe(`${base}/inspector/`);
    const ticket = /ticket=([\w-]+)/.exec(link.hash)![1];
    const first = await rest('POST', '/inspector/session', { ticket }, page());
    expect(first.status).toBe(200);
    expect(first.json.session).toBeDefined();
    const again = await rest('POST', '/inspector/session', { ticket }, page());
    expect(again.status).toBe(401);
    expect(again.json.error.message).toMatch(/engram inspect/);
  });

  test("engram inspect with an agent token: the link signs in as that agent, and later sign-ins are with that token, not the daemon's", async () => {
    await remember('linked', 'Seen through the inspect link');
    const made = await rest('POST', '/v1/tokens', { agents: ['linked'], label: 'inspect link' });
    expect(made.status).toBe(201);
    const run = await runEngram(['inspect'], { dataDir: daemon.dataDir, cwd: daemon.dataDir, env: { ENGRAM_TOKEN: made.json.token } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('later, sign in with the agent token given to this command (ENGRAM_TOKEN or --token)');
    expect(run.stdout).not.toContain(join(daemon.dataDir, 'token'));
    const ticket = /ticket=([\w-]+)/.exec(run.stdout)![1];
    const id = (await rest('POST', '/inspector/session', { ticket }, page())).json.session;
    expect((await rest('GET', '/v1/agents', undefined, withSession(id))).json.agents).toEqual(['linked']);
  });

  test('the page is served with a policy that keeps it to its own files; a missing file is a 404', async () => {
    const res = await fetch(`${base}/inspector/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const html = await res.text();
    const script = /src="(\/inspector\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    expect((await fetch(`${base}${script}`)).headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${base}/inspector/assets/none.js`)).status).toBe(404);
    expect((await fetch(`${base}/inspector`, { redirect: 'manual' })).status).toBe(301);
    const root = await fetch(`${base}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/inspector/');
  });
});

describe('engram inspect says what to do', () => {
  test('against a daemon without --http, and against an older release profile', async () => {
    for (const [args, message] of [
      [[], /--http/],
      [['--http', '127.0.0.1:0', '--compat', 'v0.2'], /no web inspector/],
    ] as const) {
      const other = await startDaemon({ args: [...args] });
      try {
        const run = await runEngram(['inspect'], { dataDir: other.dataDir, cwd: other.dataDir });
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(message);
        if (args.length) expect((await fetch(`http://${other.discovery.httpAddress}/inspector/`)).status).toBe(404);
      } finally {
        await other.stop();
        removeDir(other.dataDir);
      }
    }
  });
});

describe('InspectorSessions', () => {
  test('sessions end after 12 idle hours, tickets after a minute or one use', () => {
    let now = 0;
    const sessions = new InspectorSessions(() => now);
    const id = sessions.open('Bearer a');
    now += 11 * 3600_000;
    expect(sessions.authorizationOf(id)).toBe('Bearer a');
    now += 11 * 3600_000; // idle time restarted at the last use
    expect(sessions.authorizationOf(id)).toBe('Bearer a');
    now += 12 * 3600_000 + 1;
    expect(sessions.authorizationOf(id)).toBeUndefined();
    const { ticket } = sessions.issueTicket('Bearer b');
    now += 61_000;
    expect(sessions.redeemTicket(ticket)).toBeUndefined();
  });
});
