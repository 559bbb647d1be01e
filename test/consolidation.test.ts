// Consolidation against real daemons: faded facts summarised into one recallable summary that
// replaces them (lineage, relations moved, conservative label), deterministic and idempotent
// runs, lifetime counters that survive a restart, the automatic policy after N writes (never
// for RememberShared), a chat summarizer whose invalid proposal writes nothing, and runs racing
// writers that never retire a pinned fact, resurrect a retired one or lose a new one.
// "Faded" is set with --consolidate-below: a fresh fact scores about 1, so a threshold of 5
// makes every unpinned fact a candidate without waiting weeks.
import { describe, expect, test } from 'vitest';
import { chatServer } from './fixtures/chat-server.ts';
import { useDaemonPool, waitFor } from './fixtures/daemon.ts';
import { extractiveSummary } from '../daemon/consolidate/summarize.ts';

const pool = useDaemonPool();
const FADED = ['--consolidate-below', '5', '--consolidate-every', '0'];

describe('consolidation', () => {
  test('the extractive summary keeps facts written without full stops as separate sentences', () => {
    const sources = [{ id: 'a', text: 'Coffee is brewed every morning at eight' }, { id: 'b', text: 'Morning coffee is brewed at eight daily' }];
    expect(extractiveSummary(sources)).toBe('Coffee is brewed every morning at eight. Morning coffee is brewed at eight daily');
  });

  test('a run summarises the faded facts into one summary that replaces them; the next run changes nothing', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: [...FADED, '--http', '127.0.0.1:0'] });
    const client = await daemon.client();
    const texts = ['Ana moved to Lisbon in 2021.', 'Ana works as a nurse in Lisbon.', 'Ana adopted a cat named Miso.', 'Ana runs along the river in Lisbon every morning.'];
    const sources = [];
    for (const [i, text] of texts.entries()) sources.push((await client.put('c', text, { tags: [`t${i}`], ...(i === 1 ? { confidence: 'verified' } : {}) })).fact);
    const pinned = (await client.put('c', 'Ana is allergic to penicillin.')).fact;
    await client.pin('c', pinned.id);
    await client.relate('c', pinned.id, 'related', sources[0]!.id);
    await client.relate('c', sources[2]!.id, 'supports', pinned.id);
    // A link between two sources: the summary must not keep it (it would point at a retired fact).
    await client.relate('c', sources[0]!.id, 'related', sources[3]!.id);

    const dry = await client.consolidate('c', { dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, fadedCount: 4, sourceIds: sources.map((f) => f.id), retiredIds: [], summarizer: 'extractive' });
    expect(dry.summary).toBeUndefined();
    expect((await client.consolidate('c', { dryRun: true })).text).toBe(dry.text); // deterministic
    expect((await client.get('c', sources[0]!.id)).supersededBy).toBeUndefined();

    const run = await client.consolidate('c', { requestId: 'run-1' });
    expect(run).toMatchObject({ dryRun: false, text: dry.text, retiredIds: sources.map((f) => f.id), failures: [], replayed: false });
    // A repeat of the request is answered from its record: the same summary, nothing written.
    expect(await client.consolidate('c', { requestId: 'run-1' })).toMatchObject({ replayed: true, summary: { id: run.summary!.id }, text: dry.text, retiredIds: run.retiredIds });
    const summary = run.summary!;
    expect(summary).toMatchObject({ kind: 'summary', text: dry.text, replaces: sources.map((f) => f.id), confidence: 'inferred', tags: ['t0', 't1', 't2', 't3'], source: 'consolidation' });
    for (const f of sources) expect((await client.get('c', f.id))).toMatchObject({ supersededBy: summary.id, text: f.text });
    // The pinned fact stays; its link to a source now points at the summary, which took over the source's link.
    expect((await client.get('c', pinned.id))).toMatchObject({ pinned: true, relations: [{ type: 'related', targetId: summary.id }] });
    expect((await client.get('c', summary.id)).relations).toEqual([{ type: 'supports', targetId: pinned.id, createdAt: expect.any(Number) }]);

    // Recallable, and its receipt names its sources.
    const recalled = await client.recallExplain('c', 'where does Ana live and work', { topK: 3 });
    const receipt = recalled.receipts.find((r) => r.provenance.factId === summary.id)!;
    expect(receipt.fact.replaces).toEqual(sources.map((f) => f.id));
    expect(receipt.kgLinks).toEqual(expect.arrayContaining(sources.map((f) => `consolidated_from:${f.id}`)));

    const second = await client.consolidate('c');
    expect(second).toMatchObject({ sourceIds: [], retiredIds: [], message: expect.stringMatching(/Nothing to consolidate/) });
    expect(second.summary).toBeUndefined();

    const counters = await client.consolidationStatus();
    expect(counters).toMatchObject({ runs: 2, summariesWritten: 1, factsRetired: 4, failures: 0, rejectedProposals: 0 });
    let report: { checks: { name: string; ok: boolean; detail: string }[] } | undefined;
    for await (const event of client.doctor()) report = event.report ?? report;
    expect(report!.checks.find((c) => c.name === 'consolidation')!.detail).toMatch(/^2 runs, 1 summaries written, 4 facts retired, 0 failures/);
    expect(report!.checks.find((c) => c.name === 'knowledge graph')!.ok).toBe(true);
    const metrics = await fetch(`http://${daemon.discovery.httpAddress}/metrics`, { headers: { authorization: `Bearer ${daemon.discovery.token}` } });
    const text = await metrics.text();
    for (const line of ['engram_consolidation_runs_total 2', 'engram_consolidation_summaries_total 1', 'engram_consolidation_retired_total 4', 'engram_consolidation_failures_total 0']) expect(text).toContain(line);

    client.close();
    // Killed, not stopped: a run asked for through a door is counted durably even when it wrote
    // nothing (the second one here), as its answer was.
    await daemon.kill9();
    const again = await pool.start({ dataDir: daemon.dataDir, args: FADED });
    expect(await (await again.client()).consolidationStatus()).toMatchObject({ runs: 2, summariesWritten: 1, factsRetired: 4 });
  });

  test('automatic runs after every N writes to a namespace; RememberShared schedules none', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--consolidate-below', '5', '--consolidate-every', '5'] });
    const client = await daemon.client();
    for (let i = 0; i < 8; i++) await client.putShared(`Shared note ${i} about the office.`);
    // Shared writes never schedule a run: nothing has run at all.
    await new Promise((r) => setTimeout(r, 300));
    expect((await client.consolidationStatus()).runs).toBe(0);

    for (let i = 0; i < 4; i++) await client.put('auto', `Auto note ${i} on the garden.`);
    await new Promise((r) => setTimeout(r, 300));
    expect((await client.consolidationStatus()).runs).toBe(0);
    await client.put('auto', 'Auto note 4 on the garden.');
    const counters = await waitFor(async () => {
      const c = await client.consolidationStatus();
      return c.summariesWritten === 1 && c.queued === 0 ? c : undefined;
    }, 10_000);
    expect(counters).toMatchObject({ runs: 1, factsRetired: 5 });
    const live = (await client.list('auto')).facts.filter((f) => !f.supersededBy);
    expect(live.map((f) => f.kind)).toEqual(['summary']);

    // A generic write to the shared namespace keeps the ordinary policy.
    for (let i = 0; i < 5; i++) await client.put('__shared__', `Generic shared note ${i}.`);
    await waitFor(async () => ((await client.consolidationStatus()).summariesWritten === 2 ? true : undefined), 10_000);
  });

  test('an automatic run due within --consolidate-interval of the last one waits for it, then runs', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--consolidate-below', '5', '--consolidate-every', '5', '--consolidate-interval', '3'] });
    const client = await daemon.client();
    const write = async (from: number) => {
      for (let i = from; i < from + 5; i++) await client.put('paced', `Paced note ${i} on the orchard.`);
    };
    await write(0);
    const first = await waitFor(async () => {
      const c = await client.consolidationStatus();
      return c.runs === 1 && c.queued === 0 ? c : undefined;
    }, 10_000);
    await write(5);
    // Due at once, but the namespace ran less than the interval ago: it waits, counted as queued.
    expect(await client.consolidationStatus()).toMatchObject({ runs: 1, queued: 1 });
    const second = await waitFor(async () => {
      const c = await client.consolidationStatus();
      return c.runs === 2 && c.queued === 0 ? c : undefined;
    }, 15_000);
    // The second run summarised the five new facts and the first summary (faded too, here).
    expect(second).toMatchObject({ summariesWritten: 2, factsRetired: 11 });
    expect(second.lastRunAt - first.lastRunAt).toBeGreaterThanOrEqual(2_000);
    const live = (await client.list('paced')).facts.filter((f) => !f.supersededBy);
    expect(live.map((f) => f.kind)).toEqual(['summary']);
  });

  test('a chat summarizer: its summary is unverified; an answer that fails validation writes nothing and is counted', async () => {
    const chat = await chatServer('openai');
    const daemon = await pool.start({ dataDir: pool.newDir(), args: [...FADED, '--summarizer', 'openai', '--extract-url', chat.url], env: { OPENAI_API_KEY: 'k' } });
    const client = await daemon.client();
    for (const text of ['Bo plays the cello.', 'Bo joined an orchestra.', 'Bo practises every evening.']) await client.put('l', text);

    chat.answer = JSON.stringify({ summary: 'not json at all', extra: true });
    const refused = await client.consolidate('l');
    expect(refused).toMatchObject({ summarizer: 'openai:gpt-4o-mini', retiredIds: [], rejected: expect.stringMatching(/does not fit/) });
    expect((await client.list('l')).facts.every((f) => !f.supersededBy && f.kind === 'fact')).toBe(true);
    expect(await client.consolidationStatus()).toMatchObject({ runs: 1, rejectedProposals: 1, summariesWritten: 0 });

    chat.answer = JSON.stringify({ summary: 'Bo is a cellist in an orchestra who practises nightly.' });
    const run = await client.consolidate('l');
    expect(run.summary).toMatchObject({ text: 'Bo is a cellist in an orchestra who practises nightly.', confidence: 'unverified', kind: 'summary' });
    expect(chat.requests.at(-1)!.body.messages[1].content).toBe('1. Bo plays the cello.\n2. Bo joined an orchestra.\n3. Bo practises every evening.');
  });

  test('racing writers: a run never retires a pinned fact, never resurrects a retired one, never loses a new one', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: [...FADED, '--consolidate-max-sources', '1000'] });
    const client = await daemon.client();
    const facts = [];
    const batch = await client.putBatch(Array.from({ length: 200 }, (_, i) => ({ agentId: 'r', text: `Race fact ${i} about topic ${i % 7}.` })));
    for (const slot of batch) facts.push(await client.get('r', slot.factId!));
    // When each pin and forget was acknowledged, and each new fact written meanwhile.
    const pinnedAt = new Map<string, number>();
    const forgottenAt = new Map<string, number>();
    const written: string[] = [];
    // From the newest back, so they meet a run's retirements (oldest first) half way.
    const writers = (async () => {
      for (let i = facts.length - 1; i >= 0; i--) {
        const f = facts[i]!;
        if (i % 3 === 0) await client.pin('r', f.id).then(() => pinnedAt.set(f.id, Date.now()));
        else if (i % 3 === 1) await client.forget('r', f.id).then(() => forgottenAt.set(f.id, Date.now()));
        written.push((await client.put('r', `New fact ${i} written during the run.`)).fact.id);
      }
    })();
    const runs: { startedAt: number; run: Awaited<ReturnType<typeof client.consolidate>> }[] = [];
    for (let k = 0; k < 4; k++) {
      const startedAt = Date.now();
      runs.push({ startedAt, run: await client.consolidate('r') });
    }
    await writers;

    for (const { startedAt, run } of runs) {
      // What was pinned or forgotten before a run started is never among what it retired.
      const before = (at: Map<string, number>) => [...at].filter(([, t]) => t < startedAt).map(([id]) => id);
      expect(run.retiredIds.filter((id) => before(pinnedAt).includes(id) || before(forgottenAt).includes(id))).toEqual([]);
      // What it chose but could not retire (pinned, used or retired meanwhile) is reported beside its summary.
      expect([...run.retiredIds, ...run.failures.map((f) => f.factId)].sort()).toEqual([...run.sourceIds].sort());
      for (const id of run.retiredIds) expect((await client.get('r', id)).supersededBy).toBe(run.summary!.id);
    }
    const retiredByRuns = new Set(runs.flatMap((r) => r.run.retiredIds));
    for (const id of pinnedAt.keys()) {
      const f = await client.get('r', id);
      expect(f.pinned).toBe(true);
      // Pinned and retired only when the pin came after the retirement (the pin was its last change).
      if (f.supersededBy) expect(f.pinnedAt).toBe(f.updatedAt);
    }
    for (const id of forgottenAt.keys()) {
      const f = await client.get('r', id);
      expect(f.supersededBy === 'agent' || retiredByRuns.has(id)).toBe(true);
    }
    for (const id of written) expect((await client.get('r', id)).text).toMatch(/^New fact/);
    const counters = await client.consolidationStatus();
    expect(counters.factsRetired).toBe(retiredByRuns.size);
    expect(counters.failures).toBe(runs.reduce((n, r) => n + r.run.failures.length, 0));
  });
});
