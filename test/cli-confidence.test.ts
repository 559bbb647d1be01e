// The confidence commands of `engram`, run as a user runs them (`node bin/engram.js ...`) against
// real daemons: remember --confidence, revise, pin/unpin/forget, recall --min-confidence
// --confidence-weight, and the update-and-restart refusal of an older daemon.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EngramClient } from '../client/index.ts';
import { FACT_ID, useCliDaemon } from './fixtures/cli.ts';
import { removeDir, startDaemon, type DaemonProcess } from './fixtures/daemon.ts';

const env = useCliDaemon();
const { engram, engramJson } = env;

async function storeCounts(c: EngramClient = env.client) {
  const s = await c.stats();
  return [s.factCount, s.liveCount, s.retiredCount, s.pinnedCount, s.textBytes];
}

describe('remember --confidence', () => {
  test('--confidence verified --json shows the stored label', async () => {
    const out = await engramJson(['remember', 'cli-conf', 'The fire exit is behind the kitchen', '--confidence', 'verified']);
    expect(out.fact).toMatchObject({ agent_id: 'cli-conf', text: 'The fire exit is behind the kitchen', confidence: 'verified' });
    expect(out.fact.id).toMatch(FACT_ID);
    expect((await env.client.get('cli-conf', out.fact.id)).confidence).toBe('verified');
  });

  test('without --confidence the legacy empty label is kept', async () => {
    const out = await engramJson(['remember', 'cli-conf', 'The lift is slow on Mondays']);
    expect(out.fact.confidence).toBeNull();
  });

  test('--confidence maybe is a usage error (exit 2) naming the flag and the accepted labels, and stores nothing', async () => {
    const before = await storeCounts();
    const run = await engram(['remember', 'cli-conf', 'never stored', '--confidence', 'maybe']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^engram: --confidence: must be one of verified, inferred, unverified, got "maybe" \(see "engram remember --help"\)$/m);
    expect(await storeCounts()).toEqual(before);
  });
});

describe('revise', () => {
  test('revise <id1> <id2> --text --json retires both; an omitted label is the cautious minimum', async () => {
    const a = (await env.client.put('cli-revise', 'The printer is on floor 1', { confidence: 'verified' })).fact.id;
    const b = (await env.client.put('cli-revise', 'The printer is on floor 3', { confidence: 'unverified' })).fact.id;
    const out = await engramJson(['revise', 'cli-revise', a, b, '--text', 'The printer is on floor 2']);
    expect(Object.keys(out).sort()).toEqual(['failures', 'replacement', 'replayed', 'retired_ids']);
    expect(out.retired_ids).toEqual([a, b]);
    expect(out.failures).toEqual([]);
    expect(out.replayed).toBe(false);
    expect(out.replacement).toMatchObject({ text: 'The printer is on floor 2', confidence: 'unverified', pinned: false, superseded_by: null });
    for (const id of [a, b]) expect((await env.client.get('cli-revise', id)).supersededBy).toBe(out.replacement.id);
    expect((await env.client.recall('cli-revise', 'printer floor')).facts.map((f) => f.id)).toEqual([out.replacement.id]);
  });

  test('--confidence overrides the derived label; the human output names replacement and targets', async () => {
    const a = (await env.client.put('cli-revise-h', 'Lunch is at noon')).fact.id;
    const run = await engram(['revise', 'cli-revise-h', a, '--text', 'Lunch is at 12:30', '--confidence', 'verified']);
    expect(run.code, run.stderr).toBe(0);
    const replacement = (await env.client.list('cli-revise-h')).facts.at(-1)!;
    expect(replacement).toMatchObject({ text: 'Lunch is at 12:30', confidence: 'verified' });
    expect(run.stdout).toBe(`revised: ${replacement.id} (verified) replaces ${a}\n`);
  });

  test('a retired target exits 1 and stores nothing', async () => {
    const a = (await env.client.put('cli-revise-r', 'Old door code')).fact.id;
    await env.client.forget('cli-revise-r', a);
    const before = await storeCounts();
    const run = await engram(['revise', 'cli-revise-r', a, '--text', 'New door code']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/failed_precondition: target_ids\[0\]: fact .* is already retired/);
    expect(await storeCounts()).toEqual(before);
  });
});

describe('pin, unpin, forget', () => {
  test('pin and unpin change only the pin; forget retires (human and --json)', async () => {
    const { fact } = await env.client.put('cli-pin', 'The server room key is in the safe', { confidence: 'verified', tags: ['ops'] });
    const pin = await engram(['pin', 'cli-pin', fact.id]);
    expect(pin.code, pin.stderr).toBe(0);
    expect(pin.stdout).toBe(`pinned ${fact.id}\n`);
    expect(await env.client.get('cli-pin', fact.id)).toMatchObject({ pinned: true, confidence: 'verified', tags: ['ops'] });

    const unpin = await engramJson(['unpin', 'cli-pin', fact.id]);
    expect(unpin.fact).toMatchObject({ id: fact.id, pinned: false, pinned_at: null, confidence: 'verified', tags: ['ops'] });

    const forget = await engramJson(['forget', 'cli-pin', fact.id]);
    expect(forget.fact).toMatchObject({ id: fact.id, superseded_by: 'agent', confidence: 'verified' });
    expect((await env.client.recall('cli-pin', 'server room key')).facts).toEqual([]);
    expect((await env.client.list('cli-pin')).facts.map((f) => f.id)).toEqual([fact.id]);
  });

  test('an unknown fact exits 1 with not_found', async () => {
    const run = await engram(['pin', 'cli-pin', '01ARZ3NDEKTSV4RRFFQ69G5FAV']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/not_found/);
  });
});

describe('recall --min-confidence --confidence-weight', () => {
  const agent = 'cli-recall-conf';

  beforeAll(async () => {
    await env.client.put(agent, 'the parking garage closes at ten', { confidence: 'verified' });
    await env.client.put(agent, 'the parking garage may close at nine');
    await env.client.put(agent, 'the parking garage closes at eleven, someone said', { confidence: 'unverified' });
    await env.client.put(agent, 'the parking garage closes at midnight on Fridays', { confidence: 'inferred' });
  });

  test('--explain --json shows a ranking object per receipt and the retrieval policy', async () => {
    const out = await engramJson(['recall', agent, 'parking garage closes', '--min-confidence', 'inferred', '--confidence-weight', '0.3', '--explain']);
    expect(out.count).toBe(3);
    expect(out.retrieval).toMatchObject({ min_confidence: 'inferred', confidence_weight: 0.3, policy: 'confidence-v1', kg: 'suppressed_min_confidence', eligible_count: 3, filtered: true });
    for (const r of out.explained) {
      expect(r.provenance.confidence).not.toBe('unverified');
      const c = r.provenance.confidence === 'verified' ? 1 : 0;
      expect(r.ranking).toEqual({
        base_score: r.ranks.fused_score,
        final_score: r.ranks.fused_score * (1 + 0.3 * c),
        factor: 1 + 0.3 * c,
        effective_confidence: c === 1 ? 'verified' : 'inferred',
        confidence_weight: 0.3,
        policy: 'confidence-v1',
      });
      expect(r.weight).toBe(r.ranking.final_score);
    }
    const finals = out.explained.map((r: any) => r.weight);
    expect([...finals].sort((x: number, y: number) => y - x)).toEqual(finals);
  });

  test('the human --explain output states each score truthfully when a confidence weight applies', async () => {
    // Each receipt prints "score S = w/(k+r) signal + ...". With a weight the score is the final
    // score B x factor, so the line must show the factor (or print B) for the equation to hold.
    const run = await engram(['recall', agent, 'parking garage closes', '--confidence-weight', '0.5', '--explain']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n').filter((l) => l.trim().startsWith('score '));
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      const score = Number(/score ([\d.]+)/.exec(line)![1]);
      const base = [...line.matchAll(/([\d.]+)\/\((\d+)\+(\d+)\)/g)].reduce((sum, m) => sum + Number(m[1]) / (Number(m[2]) + Number(m[3])), 0);
      const factor = Number(/[×x*]\s*([\d.]+)/.exec(line.slice(line.indexOf('=')))?.[1] ?? 1);
      expect(Math.abs(base * factor - score), line).toBeLessThan(5e-6);
    }
  });

  test('recall --json without confidence flags reports that confidence shaped nothing: weight 0, no minimum', async () => {
    const out = await engramJson(['recall', agent, 'parking garage']);
    expect(out.count).toBe(4);
    expect(out.retrieval).toMatchObject({ confidence_weight: 0, min_confidence: null });
    const explained = await engramJson(['recall', agent, 'parking garage', '--explain']);
    for (const receipt of explained.explained) expect(receipt.ranking.factor).toBe(1);
  });

  test('bad values: an unknown label, an out-of-range weight or a non-number exits 2 naming the flag', async () => {
    const label = await engram(['recall', agent, 'parking', '--min-confidence', 'maybe']);
    expect(label.code).toBe(2);
    expect(label.stderr).toMatch(/--min-confidence: must be one of verified, inferred, unverified/);
    const weight = await engram(['recall', agent, 'parking', '--confidence-weight', '0.7']);
    expect(weight.code).toBe(2);
    expect(weight.stderr).toMatch(/--confidence-weight: must be a finite number in \[0, 0\.5\]/);
    const nan = await engram(['recall', agent, 'parking', '--confidence-weight', 'heavy']);
    expect(nan.code).toBe(2);
    expect(nan.stderr).toMatch(/--confidence-weight must be a number/);
  });
});

describe('against an older daemon (engram daemon --compat v0.1)', () => {
  let old: DaemonProcess;
  let oldClient: EngramClient;

  beforeAll(async () => {
    old = await startDaemon({ args: ['--compat', 'v0.1'] });
    oldClient = await old.client();
  });

  afterAll(async () => {
    oldClient?.close();
    await old?.stop();
    if (old) removeDir(old.dataDir);
  });

  test('remember --confidence exits 1 with the update-and-restart message and stores nothing', async () => {
    const before = await storeCounts(oldClient);
    const run = await engram(['remember', 'cli-old', 'a labelled fact', '--confidence', 'verified'], { dataDir: old.dataDir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/confidence-write-v1/);
    expect(run.stderr).toMatch(/Update Engram and restart the daemon/);
    // This one is a current build held to an old profile: a restart without --compat is enough.
    expect(run.stderr).toMatch(/serves the v0\.1 release profile: restarting it without --compat is enough/);
    expect(await storeCounts(oldClient)).toEqual(before);
    expect(await oldClient.listAgents()).not.toContain('cli-old');
  });

  test('revise and recall --confidence-weight are refused the same way; remember, pin and forget still work', async () => {
    const id = (await engramJson(['remember', 'cli-old', 'an unlabelled fact'], { dataDir: old.dataDir })).fact.id;
    const before = await storeCounts(oldClient);
    const revise = await engram(['revise', 'cli-old', id, '--text', 'a revision'], { dataDir: old.dataDir });
    expect(revise.code).toBe(1);
    expect(revise.stderr).toMatch(/Update Engram and restart the daemon/);
    const recall = await engram(['recall', 'cli-old', 'fact', '--confidence-weight', '0.3'], { dataDir: old.dataDir });
    expect(recall.code).toBe(1);
    expect(recall.stderr).toMatch(/Update Engram and restart the daemon/);
    expect(await storeCounts(oldClient)).toEqual(before);

    expect((await engramJson(['pin', 'cli-old', id], { dataDir: old.dataDir })).fact.pinned).toBe(true);
    expect((await engramJson(['forget', 'cli-old', id], { dataDir: old.dataDir })).fact).toMatchObject({ pinned: true, superseded_by: 'agent' });
  });
});
