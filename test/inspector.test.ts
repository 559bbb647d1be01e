// The inspector end to end: a real daemon serving the built page, a real headless Chromium
// clicking through it as a person would (by labels and roles, with the keyboard where it
// matters). One test per thing the page promises; each leaves a screenshot in test-artifacts/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { newPage, screenshot, useBrowser } from './fixtures/browser.ts';
import { runEngram } from './fixtures/cli.ts';
import { removeDir, startDaemon, type DaemonProcess } from './fixtures/daemon.ts';

const shared = useBrowser();
let daemon: DaemonProcess;
let base: string;
let token: string;
let agentToken: string;
const ids: Record<string, string> = {};
let page: Page;
let errors: string[];

async function rest(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const json = (await res.json()) as any;
  if (!res.ok && res.status !== 404) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return { status: res.status, json };
}
const remember = async (agent: string, text: string, extra: Record<string, unknown> = {}) => (await rest('POST', '/v1/facts', { agent_id: agent, text, ...extra })).json.fact.id as string;
const factOf = async (id: string) => (await rest('GET', `/v1/facts/${id}?agent_id=travel`)).json.fact;

beforeAll(async () => {
  daemon = await startDaemon({ args: ['--http', '127.0.0.1:0'], embedder: 'local' });
  base = `http://${daemon.discovery.httpAddress}`;
  token = readFileSync(join(daemon.dataDir, 'token'), 'utf8').trim();
  ids.seats = await remember('travel', 'Mia prefers window seats on long flights', { tags: ['travel', 'seats'], entities: ['Mia'], confidence: 'verified' });
  ids.hotel = await remember('travel', 'The hotel in Lisbon has a rooftop pool', { tags: ['travel'], entities: ['Lisbon'], occurred_at: '2024-06-01T12:00:00Z' });
  ids.visa = await remember('travel', 'A visa is needed for the Brazil trip', { tags: ['travel', 'documents'], confidence: 'unverified' });
  ids.old = await remember('travel', 'The flight to Rome leaves at 9', { tags: ['travel'], entities: ['Rome'] });
  ids.current = (await rest('POST', '/v1/revisions', { agent_id: 'travel', target_ids: [ids.old], text: 'The flight to Rome leaves at 11' })).json.fact.id;
  ids.pinned = await remember('travel', 'Passport number is kept in the safe', { tags: ['documents'] });
  await rest('POST', `/v1/facts/${ids.pinned}/pin`, { agent_id: 'travel' });
  await remember('finance', 'The invoice for March was paid late');
  const items = Array.from({ length: 130 }, (_, i) => ({ agent_id: 'bulk', text: `bulk note ${String(i).padStart(3, '0')}` }));
  await rest('POST', '/v1/facts/batch', { items });
  agentToken = (await rest('POST', '/v1/tokens', { agents: ['travel'], label: 'travel agent' })).json.token;
  await rest('POST', '/v1/memory-controls/slots', { slot_name: 'preferred_language', slot_value: 'TypeScript', evidence_refs: ['chat 12'], confidence: 0.87 });
}, 120_000);

afterAll(async () => {
  await daemon?.stop();
  if (daemon) removeDir(daemon.dataDir);
});

beforeAll(async () => {
  ({ page, errors } = await newPage(shared.browser));
});
afterEach(() => {
  expect(errors, 'script errors on the page').toEqual([]);
});

async function signIn(with_: string) {
  await page.goto(`${base}/inspector/`);
  const field = page.getByLabel('Token');
  await field.fill(with_);
  await field.press('Enter');
}

const namespaces = () => page.getByLabel('Namespace').locator('option').allTextContents();
const go = (hash: string) => page.goto(`${base}/inspector/${hash}`);

describe('the inspector', () => {
  test('1. signs in with a token, lists only the namespaces it may read, and shows their counts', async () => {
    await signIn('wrong-token');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/token/);

    await signIn(agentToken);
    await page.getByRole('heading', { name: 'travel' }).waitFor();
    expect(await namespaces()).toEqual(['travel']);
    const stats = (await rest('GET', '/v1/stats?agent_id=travel')).json;
    const count = (label: string) => page.locator(`[data-count="${label}"]`).textContent();
    await expect.poll(() => count('Live')).toBe(String(stats.live_count));
    expect(await count('Retired')).toBe(String(stats.retired_count));
    expect(await count('Pinned')).toBe(String(stats.pinned_count));
    expect(await count('Verified')).toBe(String(stats.live_by_confidence.verified));
    expect(await count('Unverified')).toBe(String(stats.live_by_confidence.unverified));
    expect(await count('Pending embeddings')).toBe(String(stats.pending_embeddings));
    // The size on disk is the whole store's, and labelled so on a namespace's page.
    expect(await count('Store size (all namespaces)')).toMatch(/^[\d.]+ (B|KiB|MiB|GiB)$/);
    expect(await count('Summaries written')).toBe('0');
    await screenshot(page, '1-overview');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Token').waitFor();
    await signIn(token);
    await page.getByLabel('Namespace').waitFor();
    await expect.poll(namespaces).toEqual(['bulk', 'finance', 'travel']);
  });

  test('1. the link engram inspect prints signs in without typing the token', async () => {
    const other = await newPage(shared.browser);
    try {
      const run = await runEngram(['inspect', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
      expect(run.code, run.stderr).toBe(0);
      await other.page.goto(JSON.parse(run.stdout).url);
      await other.page.getByLabel('Namespace').waitFor();
      expect(other.page.url()).not.toMatch(/ticket/);
      expect(other.errors).toEqual([]);
    } finally {
      await other.page.close();
    }
  });

  test('2. browses and filters facts, and pages through a namespace', async () => {
    await go('#/ns/travel/facts');
    const rows = () => page.locator('table.facts tbody tr td:nth-child(2) a').allTextContents();
    await expect.poll(rows).toContain('Mia prefers window seats on long flights');
    await page.getByLabel('Tags', { exact: true }).fill('travel');
    await page.getByLabel('verified', { exact: true }).check();
    await page.getByLabel('unverified', { exact: true }).check();
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(rows).toEqual(['A visa is needed for the Brazil trip', 'Mia prefers window seats on long flights']);
    await page.getByLabel('Text', { exact: true }).fill('brazil');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(rows).toEqual(['A visa is needed for the Brazil trip']);
    await screenshot(page, '2-facts-filtered');

    await go('#/ns/travel/facts?retired=true');
    await expect.poll(rows).toEqual(['The flight to Rome leaves at 9']);
    expect(await page.getByLabel('Status').inputValue()).toBe('true');
    await go('#/ns/travel/facts?pinned=true');
    await expect.poll(rows).toEqual(['Passport number is kept in the safe']);
    await go('#/ns/travel/facts?occurred_after=2024-05-01&occurred_before=2024-07-01');
    await expect.poll(rows).toEqual(['The hotel in Lisbon has a rooftop pool']);

    await go('#/ns/bulk/facts');
    await expect.poll(async () => (await rows()).length).toBe(50);
    expect((await rows())[0]).toBe('bulk note 129');
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(async () => (await rows())[0]).toBe('bulk note 079');
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(async () => (await rows()).length).toBe(30);
    await expect.poll(() => page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(async () => (await rows())[0]).toBe('bulk note 079');

    // A stale or mistyped link says there is no page there, with the way back (it was blank).
    await go('#/ns/travel/nowhere');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^No page here \(#\/ns\/travel\/nowhere\)\. Go to the overview\.$/);
    await page.getByRole('link', { name: 'Go to the overview' }).click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(0);
  });

  test('3. searches with the live explain view: ranks, contributions, scores, weights and recipe', async () => {
    await go('#/ns/travel/search');
    const query = page.getByLabel('Query');
    await query.fill('window seats on flights');
    await query.press('Enter');
    const results = page.locator('ol.results > li');
    await results.first().waitFor();
    const explained = (await rest('GET', `/v1/recall/explain?agent_id=travel&query=${encodeURIComponent('window seats on flights')}&top_k=10`)).json.explained;
    expect(await results.locator('.result-head a').allTextContents()).toEqual(explained.map((r: { text: string }) => r.text));
    const first = results.first();
    expect(await first.locator('.final').textContent()).toBe(explained[0].weight.toFixed(4));
    // One drawn bar per signal that ranked it, wide in proportion to what it added.
    const bars = first.locator('svg rect[data-signal]');
    expect(await bars.count()).toBeGreaterThanOrEqual(2);
    expect(Number(await first.locator('svg rect[data-signal="keyword"]').getAttribute('width'))).toBeGreaterThan(0);
    expect(await first.locator('svg').getAttribute('aria-label')).toMatch(/keyword rank 1 adds/);
    expect(await page.locator('[data-field="weights"]').textContent()).toMatch(/keyword 1/);
    await screenshot(page, '3-search-explain');

    await page.getByLabel('Recipe').selectOption('deep');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('[data-field="recipe"]').textContent()).toMatch(/^builtin:deep/);
    // The form keeps what the search ran with.
    expect(await page.getByLabel('Recipe').inputValue()).toBe('deep');
  });

  test('4. opens a fact: fields, lineage, graph, use and decay; pins, changes confidence, forgets and deletes with confirmation', async () => {
    await go(`#/ns/travel/facts/${ids.old}`);
    await page.getByRole('heading', { name: 'The flight to Rome leaves at 9' }).waitFor();
    expect(await page.locator('[data-field="Status"]').textContent()).toMatch(/replaced \(by /);
    await page.getByRole('list', { name: 'Successors' }).getByRole('link', { name: 'The flight to Rome leaves at 11' }).click();
    await page.getByRole('heading', { name: 'The flight to Rome leaves at 11' }).waitFor();
    await page.getByRole('list', { name: 'Sources' }).getByRole('link', { name: 'The flight to Rome leaves at 9' }).waitFor();

    await go(`#/ns/travel/facts/${ids.seats}`);
    await page.getByRole('heading', { name: 'Mia prefers window seats on long flights' }).waitFor();
    expect(await page.locator('[data-field="Entities"]').textContent()).toMatch(/Mia/);
    await expect.poll(() => page.getByRole('list', { name: 'Neighbours' }).textContent()).toMatch(/mentions: mia/i);
    await expect.poll(() => page.locator('[data-field="decay-score"]').textContent()).toMatch(/^0\.9\d+|^1\.0+/);
    await screenshot(page, '4-fact');

    await page.getByRole('button', { name: 'Pin' }).click();
    await page.getByRole('button', { name: 'Unpin' }).waitFor();
    expect((await factOf(ids.seats)).pinned).toBe(true);

    await page.getByLabel('Confidence').selectOption('unverified');
    await expect.poll(async () => (await factOf(ids.seats)).confidence).toBe('unverified');

    // Escape backs out of the confirmation: nothing is forgotten.
    await page.getByRole('button', { name: 'Forget' }).click();
    await page.getByRole('dialog', { name: 'Forget this fact?' }).waitFor();
    await screenshot(page, '4-confirm-forget');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect((await factOf(ids.seats)).superseded_by).toBeNull();
    await page.getByRole('button', { name: 'Forget' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Forget' }).click();
    await expect.poll(() => page.locator('[data-field="Status"]').textContent()).toMatch(/forgotten/);
    expect((await factOf(ids.seats)).superseded_by).toBe('agent');

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Facts in travel' }).waitFor();
    expect((await rest('GET', `/v1/facts/${ids.seats}?agent_id=travel`)).status).toBe(404);
  });

  test('5. slots: views, edits, locks and unlocks, archives, and shows the change history with evidence', async () => {
    await go('#/slots');
    await page.getByRole('link', { name: 'preferred_language' }).click();
    await page.getByLabel('Value (JSON)').waitFor();
    expect(await page.getByLabel('Evidence (one reference a line)').inputValue()).toBe('chat 12');
    await page.getByLabel('Value (JSON)').fill('"Rust"');
    await page.getByLabel('Review status').selectOption('approved');
    await page.getByRole('button', { name: 'Save' }).click();
    const history = page.getByRole('list', { name: 'Change history' });
    // A confidence an agent wrote (0.87, off any step) saves as it is.
    await expect.poll(() => history.textContent()).toMatch(/v2 update.*slot_value "TypeScript" → "Rust"; status "needs_review" → "approved"/);
    expect((await rest('GET', '/v1/memory-controls/slots')).json.slots[0].confidence).toBe(0.87);

    // The form shows the stored review status, so a later save keeps it.
    await expect.poll(() => page.getByLabel('Review status').inputValue()).toBe('approved');
    // One outcome at a time: a refused save clears the "Saved." before it, and the next save the refusal.
    await expect.poll(() => page.locator('.done').first().textContent()).toBe('Saved.');
    await page.getByLabel('Value (JSON)').fill('not json');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/must be JSON/);
    expect(await page.locator('.done').first().textContent()).toBe('');
    await page.getByLabel('Value (JSON)').fill('"Rust"');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(0);
    // Saved (the alert is gone at once; the answer may still be on its way and redraw the form).
    await expect.poll(() => page.locator('.done').first().textContent()).toBe('Saved.');
    // What is typed while a save is on its way stays: reading the saved slot back does not redraw
    // the form over it. The save's answer is held until the new value is typed.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const isSave = (url: URL) => url.pathname === '/v1/memory-controls/slots';
    await page.route(isSave, async (route) => (route.request().method() === 'POST' && (await held), route.continue()));
    await page.getByLabel('Value (JSON)').fill('"Kotlin"');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByLabel('Value (JSON)').fill('"Go"');
    answer();
    await expect.poll(() => history.textContent()).toMatch(/slot_value "Rust" → "Kotlin"/);
    await page.unroute(isSave);
    expect(await page.getByLabel('Value (JSON)').inputValue()).toBe('"Go"');
    // Locking keeps what is typed and not yet saved.
    await page.getByLabel('Value (JSON)').fill('"Go"');
    await page.getByRole('button', { name: 'Lock' }).click();
    await expect.poll(() => page.locator('[data-field="locked"]').textContent()).toBe('yes');
    expect(await page.getByLabel('Value (JSON)').inputValue()).toBe('"Go"');
    expect(await page.getByRole('button', { name: 'Archive' }).isDisabled()).toBe(true);
    await screenshot(page, '5-slot');
    await page.getByRole('button', { name: 'Unlock' }).click();
    await expect.poll(() => page.locator('[data-field="locked"]').textContent()).toBe('no');
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Archive' }).click();
    await expect.poll(() => history.textContent()).toMatch(/archive/);
    const slots = (await rest('GET', '/v1/memory-controls/slots?archived=true')).json.slots;
    expect(slots.map((s: { slot_name: string; slot_value: unknown }) => [s.slot_name, s.slot_value])).toEqual([['preferred_language', 'Kotlin']]);
  });

  test('6. draws facts over time, the decay curve and signal contributions, each with a text alternative', async () => {
    await go('#/ns/travel/overview');
    const timeline = page.getByRole('img', { name: /Facts created per day/ });
    await timeline.waitFor();
    const stored = (await rest('GET', '/v1/stats?agent_id=travel')).json.fact_count;
    expect(await timeline.getAttribute('aria-label')).toMatch(new RegExp(`: ${stored} facts over 1 day`));
    expect(await timeline.locator('canvas').count()).toBe(1);
    await go(`#/ns/travel/facts/${ids.hotel}`);
    const decay = page.getByRole('img', { name: /Decay score now/ });
    await decay.waitFor();
    expect(await decay.getAttribute('aria-label')).toMatch(/falls below the forget threshold 0\.05 on \d{4}-\d{2}-\d{2}/);
    await decay.locator('canvas').waitFor();
    await screenshot(page, '6-decay-chart');
  });
});
