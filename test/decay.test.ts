// Decay and reinforcement: facts fade unless used, each model computed as itself; touching and
// observed use reinforce durably without touching text or indexes; gc collects what faded.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { decayFactor, decayScore, DEFAULT_DECAY, type DecayModel } from '../daemon/lifecycle/decay.ts';
import { runEngram } from './fixtures/cli.ts';
import { useDaemon, useDaemonPool } from './fixtures/daemon.ts';

const pool = useDaemonPool();
// One daemon with the default settings for the tests that need nothing else of it: each keeps to
// a namespace of its own, and every call they make reads or writes only that namespace. Tests
// that restart, crash or configure a daemon start their own.
const shared = useDaemon();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('decay models', () => {
  // The README's table: f at 1, 3, 7, 14 and 30 days with the default settings.
  const TABLE: Record<DecayModel, number[]> = {
    power_law: [0.754, 0.5, 0.2934, 0.1667, 0.0814],
    exponential: [0.7938, 0.5002, 0.1986, 0.0394, 0.001],
    two_component: [0.4467, 0.2338, 0.15, 0.075, 0.0154],
  };
  for (const [model, values] of Object.entries(TABLE) as [DecayModel, number[]][]) {
    test(`${model}: f at 1, 3, 7, 14, 30 days`, () => {
      const f = [1, 3, 7, 14, 30].map((days) => decayFactor({ ...DEFAULT_DECAY, model }, days * 86_400));
      f.forEach((value, i) => expect(value).toBeCloseTo(values[i]!, 4));
    });
  }

  test('the models really differ: power law keeps a long tail, exponential does not', () => {
    const at30 = (model: DecayModel) => decayFactor({ ...DEFAULT_DECAY, model }, 30 * 86_400);
    expect(at30('power_law')).toBeGreaterThan(50 * at30('exponential'));
    expect(decayFactor({ ...DEFAULT_DECAY, powerLawHalfLifeDays: 7 }, 7 * 86_400)).toBeCloseTo(0.5, 10);
  });

  test('score = use_count^beta x f x strength; a new fact scores its strength', () => {
    const now = Date.UTC(2026, 0, 10);
    const fresh = { useCount: 1, lastUsedAt: 0, createdAt: now, strength: 1.5 };
    expect(decayScore(DEFAULT_DECAY, fresh, now)).toBe(1.5);
    const used = { useCount: 4, lastUsedAt: now - 3 * 86_400_000, createdAt: now - 9 * 86_400_000, strength: 1 };
    expect(decayScore(DEFAULT_DECAY, used, now)).toBeCloseTo(4 ** 0.6 * 0.5, 10);
  });
});

describe('reinforcement', () => {
  test('touch: use count + 1, last used now, boost +0.1; text, indexes and updated_at stay; replay does not count twice', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client();
    const { fact } = await client.put('a', 'The deploy window is Tuesday morning');
    expect(fact.useCount).toBe(1);
    expect(fact.lastUsedAt).toBe(fact.createdAt);

    const touched = await client.touch('a', fact.id, { boostStrength: true, requestId: 'touch-1' });
    expect(touched.fact.useCount).toBe(2);
    expect(touched.fact.strength).toBe(1.1);
    expect(touched.fact.lastUsedAt).toBeGreaterThanOrEqual(fact.createdAt);
    expect(touched.fact.updatedAt).toBe(fact.updatedAt);
    expect(touched.fact.text).toBe(fact.text);
    expect(touched.oldScore).toBeLessThanOrEqual(1);
    expect(touched.newScore).toBeCloseTo(2 ** 0.6 * 1.1, 3);

    const again = await client.touch('a', fact.id, { boostStrength: true, requestId: 'touch-1' });
    expect(again).toMatchObject({ replayed: true, oldScore: touched.oldScore, newScore: touched.newScore });
    expect(again.fact.useCount).toBe(2);
    expect((await client.recall('a', 'deploy window')).facts.map((f) => f.id)).toEqual([fact.id]);

    // Ten boosts reach exactly 2, never more.
    for (let i = 0; i < 12; i++) await client.touch('a', fact.id, { boostStrength: true });
    expect((await client.get('a', fact.id)).strength).toBe(2);

    // Durable: the count survives a crash.
    await daemon.kill9();
    const restarted = await pool.start({ dataDir: daemon.dataDir });
    const after = await (await restarted.client()).get('a', fact.id);
    expect(after.useCount).toBe(14);
    expect(after.strength).toBe(2);
  });

  test('touch refuses bad and unknown ids without writing', async () => {
    const { client } = shared;
    await expect(client.touch('refuse', 'nope')).rejects.toMatchObject({ field: 'fact_id' });
    await expect(client.touch('refuse', '01ARZ3NDEKTSV4RRFFQ69G5FAV')).rejects.toMatchObject({ kind: 'not_found' });
    const { fact } = await client.put('refuse', 'Old note');
    await client.forget('refuse', fact.id);
    await expect(client.touch('refuse', fact.id)).rejects.toMatchObject({ kind: 'failed_precondition', field: 'fact_id' });
    expect((await client.get('refuse', fact.id)).useCount).toBe(1);
  });

  test('observe: a use and a review each; cross-domain tags raise strength; unknown ids reported per id', async () => {
    const { client } = shared;
    const jwt = (await client.put('observe', 'Use JWT tokens for authentication', { tags: ['security', 'jwt', 'preferences'] })).fact;
    const api = (await client.put('observe', 'The API gateway is Kong', { tags: ['api', 'backend'] })).fact;
    const missing = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const r = await client.observeUsage('observe', [jwt.id, api.id, missing], { contextTags: ['api', 'authentication', 'backend'] });
    expect(r).toMatchObject({ reinforced: true, count: 2, crossDomainCount: 1 });
    expect(r.results).toEqual([
      { factId: jwt.id, status: 'reinforced', crossDomain: true, useCount: 2, reviewCount: 1, strength: 1.1 },
      { factId: api.id, status: 'reinforced', crossDomain: false, useCount: 2, reviewCount: 1, strength: 1 },
      { factId: missing, status: 'not_found', crossDomain: false, useCount: 0, reviewCount: 0, strength: 0 },
    ]);
    expect(await client.get('observe', jwt.id)).toMatchObject({ useCount: 2, reviewCount: 1, crossDomainCount: 1, strength: 1.1 });
    await expect(client.observeUsage('observe', [])).rejects.toMatchObject({ field: 'fact_ids' });
    await expect(client.observeUsage('observe', ['bad'])).rejects.toMatchObject({ field: 'fact_ids[0]' });
    // Named twice in one observation, a fact was used once.
    const twice = await client.observeUsage('observe', [api.id, api.id]);
    expect(twice).toMatchObject({ count: 1, results: [{ factId: api.id, useCount: 3, reviewCount: 2 }] });
  });

  test('observe with auto-reinforce off answers "disabled" and writes nothing', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), env: { ENGRAM_AUTO_REINFORCE: 'false' } });
    const client = await daemon.client();
    const { fact } = await client.put('a', 'Dark mode everywhere');
    const r = await client.observeUsage('a', [fact.id], { contextTags: ['ui'] });
    expect(r).toMatchObject({ reinforced: false, reason: 'auto_reinforce is disabled in config', count: 0, results: [] });
    expect((await client.get('a', fact.id)).useCount).toBe(1);
  });
});

describe('garbage collection', () => {
  // λ = 1/s: an unused fact falls below the forget threshold (0.05) within 3 s; a touched one
  // (score 2^0.6) stays above it for 3.4 s more.
  const FAST = ['--decay-model', 'exponential', '--decay-lambda', '1'];

  test('dry run by default; lowest first; pinned and recently used facts stay; archive retires with a reason', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: FAST });
    const client = await daemon.client();
    const ids: string[] = [];
    for (const text of ['note one', 'note two', 'note three', 'note four']) ids.push((await client.put('g', text)).fact.id);
    await sleep(3200);
    await client.pin('g', ids[1]!);
    await client.touch('g', ids[2]!);

    const dry = await client.collectGarbage('g');
    expect(dry).toMatchObject({ dryRun: true, removedCount: 2, archivedCount: 0, totalAffected: 2, threshold: 0.05, message: 'Would remove 2 low-scoring memories (threshold: 0.05)' });
    expect(dry.factIds).toEqual([ids[0], ids[3]]); // the older one has faded further
    expect(dry.scores[0]).toBeLessThan(dry.scores[1]!);
    expect((await client.list('g')).facts.filter((f) => !f.supersededBy)).toHaveLength(4);

    const limited = await client.collectGarbage('g', { dryRun: false, archiveInstead: true, limit: 1, requestId: 'gc-1' });
    expect(limited).toMatchObject({ dryRun: false, archivedCount: 1, factIds: [ids[0]], message: 'Archived 1 low-scoring memory (threshold: 0.05)' });
    const archived = await client.get('g', ids[0]!);
    expect(archived.supersededBy).toBe('agent');
    expect(archived.retiredReason).toMatch(/^gc: score [\d.e-]+ below the forget threshold 0\.05$/);
    // engram list words the archive for a person (it read "retired→agent": the sentinel).
    const listed = await runEngram(['list', 'g'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(listed.stdout.split('\n').find((l) => l.startsWith(ids[0]!))).toMatch(/  \(retired by gc: score [\d.e-]+ below the forget threshold 0\.05\)$/);
    expect(await client.collectGarbage('g', { dryRun: false, archiveInstead: true, limit: 1, requestId: 'gc-1' })).toMatchObject({ replayed: true, factIds: [ids[0]] });

    const removed = await client.collectGarbage('g', { dryRun: false });
    expect(removed).toMatchObject({ removedCount: 1, factIds: [ids[3]] });
    await expect(client.get('g', ids[3]!)).rejects.toMatchObject({ kind: 'not_found' });
    expect((await client.recall('g', 'note', { topK: 10 })).facts.map((f) => f.id).sort()).toEqual([ids[1], ids[2]].sort());
    // engram get words the archive as engram list does (it read "superseded_by    agent"). Last:
    // a CLI run before the collections above could let the touched fact fade below the threshold.
    const got = await runEngram(['get', 'g', ids[0]!], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(got.stdout).toMatch(/^superseded_by {4}none \(retired by gc: score [\d.e-]+ below the forget threshold 0\.05\)$/m);
  });

  test('bad options are refused naming the field', async () => {
    const { client } = shared;
    await expect(client.collectGarbage('g', { limit: 0 })).rejects.toMatchObject({ field: 'limit' });
  });
});

describe('decay in recall', () => {
  test('a signal of weight 0 by default; asked for, the most used facts rank first, with a receipt that shows it', async () => {
    const { client } = shared;
    const ids: string[] = [];
    for (const text of ['garden plan A', 'garden plan B', 'garden plan C']) ids.push((await client.put('r', text)).fact.id);
    for (let i = 0; i < 3; i++) await client.touch('r', ids[1]!);
    await client.touch('r', ids[2]!);

    const plain = await client.recall('r', 'garden plan');
    expect(plain.retrieval.weights.decay).toBe(0);
    expect(plain.retrieval.signals).not.toContain('decay');

    const byDecay = await client.recallExplain('r', '', { weights: { vector: 0, keyword: 0, recency: 0, decay: 1 } });
    expect(byDecay.receipts.map((r) => r.fact.id)).toEqual([ids[1], ids[2], ids[0]]);
    expect(byDecay.receipts.map((r) => r.ranks.decayRank)).toEqual([1, 2, 3]);
    expect(byDecay.receipts[0]!.ranks.fusedScore).toBeCloseTo(1 / (60 + 1), 12);
  });

  test('min_decay_score keeps only facts scoring at least that', async () => {
    const { client } = shared;
    const used = (await client.put('m', 'the invoice template lives in drive')).fact;
    await client.put('m', 'the invoice total was 40 euros');
    await client.touch('m', used.id);
    const { facts } = await client.recall('m', 'invoice', { filters: { minDecayScore: 1.2 } });
    expect(facts.map((f) => f.id)).toEqual([used.id]);
    await expect(client.recall('m', 'invoice', { filters: { minDecayScore: -1 } })).rejects.toMatchObject({ field: 'options.filters.min_decay_score' });
  });

  test('search covers the whole store: a relevant fact older than 100 newer unrelated ones is found', async () => {
    const { client } = shared;
    const old = (await client.put('s', 'The wifi password for the cabin is heron42')).fact;
    await client.putBatch(Array.from({ length: 100 }, (_, i) => ({ agentId: 's', text: `Standup note ${i}: shipped ticket ${1000 + i}` })));
    for (const weights of [undefined, { decay: 1 }]) {
      const { facts } = await client.recall('s', 'cabin wifi password', { topK: 3, ...(weights ? { weights } : {}) });
      expect(facts[0]!.id).toBe(old.id);
    }
  });

  test('a daemon before decay-v1: the decay weight and min_decay_score are refused before anything is sent', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--compat', 'v0.2'] });
    const client = await daemon.client();
    await client.put('o', 'old daemon fact');
    await expect(client.recall('o', 'fact', { weights: { decay: 1 } })).rejects.toMatchObject({ name: 'CapabilityError' });
    await expect(client.recall('o', 'fact', { filters: { minDecayScore: 0.1 } })).rejects.toMatchObject({ name: 'CapabilityError' });
    await expect(client.touch('o', (await client.list('o')).facts[0]!.id)).rejects.toMatchObject({ name: 'CapabilityError' });
    await expect(client.collectGarbage('o')).rejects.toMatchObject({ name: 'CapabilityError' });
  });
});

describe('promotion to long-term notes', () => {
  test('a brand-new fact never qualifies; force promotes it: a vault note, a promoted mark, still recalled, never collected', async () => {
    const vault = pool.newDir();
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--vault', vault, '--decay-model', 'exponential', '--decay-lambda', '1'] });
    const client = await daemon.client();
    const { fact } = await client.put('p', 'The release checklist lives in docs/release.md', { entities: ['release checklist'], tags: ['process'] });
    expect(await client.promote('p', { autoDetect: true })).toMatchObject({ candidatesFound: 0, promotedCount: 0, message: 'Promoted 0 memories to obsidian' });
    await expect(client.promote('p', { factId: fact.id })).rejects.toMatchObject({ kind: 'failed_precondition', message: expect.stringMatching(/too new/) });

    const forced = await client.promote('p', { factId: fact.id, force: true });
    expect(forced).toMatchObject({ candidatesFound: 1, promotedCount: 1, promotedIds: [fact.id], message: 'Promoted 1 memory to obsidian' });
    expect(forced.candidates[0]).toMatchObject({ id: fact.id, reason: 'Forced', contentPreview: 'The release checklist lives in docs/release.md' });
    const note = readFileSync(join(vault, 'p', `${fact.id}.md`), 'utf8');
    expect(note).toMatch(new RegExp(`^---\\nid: "${fact.id}"\\nagent_id: "p"\\n`));
    expect(note).toContain('tags: ["process"]');
    expect(note).toContain('[[release checklist]]');
    const promoted = await client.get('p', fact.id);
    expect(promoted.promotedAt).toBeGreaterThan(0);
    expect((await client.recall('p', 'release checklist')).facts[0]!.id).toBe(fact.id);

    // Promoting again changes nothing, and says why, forced or not (it said "too new", or
    // "Forced" and "Promoted 0 memories"); once faded, gc still leaves it.
    const again = `Promoted 0 memories to obsidian: fact ${fact.id} is already promoted`;
    for (const force of [true, false]) expect(await client.promote('p', { factId: fact.id, force }), String(force)).toMatchObject({ candidatesFound: 0, promotedCount: 0, candidates: [], message: again });
    expect((await client.promote('p', { factId: fact.id, dryRun: true })).message).toBe(`Would promote 0 memories to obsidian: fact ${fact.id} is already promoted`);
    for (const flags of [[], ['--force']]) {
      const run = await runEngram(['promote', 'p', fact.id, ...flags], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
      expect([run.code, run.stdout, run.stderr], flags.join(' ')).toEqual([0, `${again}\n`, '']);
    }
    await sleep(3200);
    expect((await client.collectGarbage('p')).factIds).toEqual([]);
  });

  test('a namespace named "..", "." or ".x" keeps its notes in a folder of its own inside the vault', async () => {
    const vault = join(pool.newDir(), 'vault');
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--vault', vault] });
    const client = await daemon.client();
    for (const [agent, folder] of [['..', '%2E.'], ['.', '%2E'], ['.x', '%2Ex'], ['a/b', 'a%2Fb']]) {
      const { fact } = await client.put(agent!, `a note of namespace ${agent}`);
      await client.promote(agent!, { factId: fact.id, force: true });
      expect(existsSync(join(vault, folder!, `${fact.id}.md`)), agent).toBe(true);
      expect(existsSync(join(vault, '..', `${fact.id}.md`)), agent).toBe(false);
      expect(existsSync(join(vault, `${fact.id}.md`)), agent).toBe(false);
    }
  });

  test('auto_detect promotes what qualifies once old enough, and only once; without a vault promotion is refused', async () => {
    const vault = pool.newDir();
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--vault', vault, '--promote-min-age-days', '0'] });
    const client = await daemon.client();
    const ids = [(await client.put('q', 'first keeper')).fact.id, (await client.put('q', 'second keeper')).fact.id];
    const dry = await client.promote('q', { autoDetect: true, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, candidatesFound: 2, promotedCount: 0, message: 'Would promote 2 memories to obsidian' });
    expect(dry.candidates.map((c) => c.reason)).toEqual(['High score (1.00 >= 0.65)', 'High score (1.00 >= 0.65)']);
    expect(existsSync(join(vault, 'q'))).toBe(false);
    expect((await client.promote('q', { autoDetect: true })).promotedIds.sort()).toEqual([...ids].sort());
    expect((await client.promote('q', { autoDetect: true })).candidatesFound).toBe(0);

    const other = shared.client; // a daemon without a vault
    const { fact } = await other.put('q', 'no vault here');
    await expect(other.promote('q', { factId: fact.id, force: true })).rejects.toMatchObject({ kind: 'failed_precondition', field: 'target' });
    await expect(other.promote('q', {})).rejects.toMatchObject({ kind: 'invalid_argument', field: 'memory_id' });
  });

  test('without a vault a dry run still lists the candidates, and says no vault is configured and how to configure one', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--promote-min-age-days', '0'] });
    const client = await daemon.client();
    const ids = [(await client.put('nv', 'first keeper')).fact.id, (await client.put('nv', 'second keeper')).fact.id];
    const dry = await client.promote('nv', { autoDetect: true, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, candidatesFound: 2, promotedCount: 0, promotedIds: [] });
    expect(dry.candidates.map((c) => c.id).sort()).toEqual([...ids].sort());
    // The same words as the refusal of the real run, which follows.
    expect(dry.message).toBe('Would promote 2 memories to obsidian, but no vault is configured: start the daemon with --vault DIR (or LTM_VAULT_PATH) to promote memories to notes');
    await expect(client.promote('nv', { autoDetect: true })).rejects.toMatchObject({ kind: 'failed_precondition', field: 'target', message: expect.stringContaining('no vault is configured: start the daemon with --vault DIR (or LTM_VAULT_PATH)') });
    expect((await client.get('nv', ids[0]!)).promotedAt).toBeFalsy();
  });
});

describe('unified search over the store and the vault', () => {
  const until = async <T>(probe: () => Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 100; i++) {
      const got = await probe();
      if (got !== undefined) return got;
      await sleep(50);
    }
    throw new Error('condition not met within 5 s');
  };

  test('facts and notes ranked together; hand-written notes indexed and kept current; a promoted fact counts once', async () => {
    const vault = pool.newDir();
    writeFileSync(join(vault, 'Gardening.md'), '# Gardening\n\nTomatoes need staking in June; water the basil daily.\n');
    mkdirSync(join(vault, '.obsidian'));
    writeFileSync(join(vault, '.obsidian', 'tomatoes.md'), 'tomatoes in a settings folder are not notes');
    writeFileSync(join(vault, 'Other agent.md'), '---\nid: "01ARZ3NDEKTSV4RRFFQ69G5FAV"\nagent_id: "someone-else"\n---\nTomatoes for someone else\n');
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--vault', vault, '--promote-min-age-days', '0'] });
    const client = await daemon.client();
    const fact = (await client.put('u', 'I planted tomatoes along the south fence')).fact;

    const first = await client.searchUnified('u', 'tomatoes');
    expect(first.vault).toBe(true);
    expect(first.hits.map((h) => [h.source, h.source === 'ltm' ? h.path : h.id, h.score])).toEqual([
      ['stm', fact.id, 1],
      ['ltm', 'Gardening.md', 0.7],
    ]);
    // The heading is the title, not repeated as the start of the content.
    expect(first.hits[1]).toMatchObject({ title: 'Gardening', content: 'Tomatoes need staking in June; water the basil daily.' });

    // Promoted: its note is in the vault, but the fact and its note count once.
    await client.promote('u', { factId: fact.id });
    expect((await client.searchUnified('u', 'tomatoes')).hits.map((h) => h.source)).toEqual(['stm', 'ltm']);
    expect((await client.searchUnified('u', 'south fence')).hits.map((h) => [h.source, h.id])).toEqual([['stm', fact.id]]);
    // With the fact filtered out of the short-term side, its note answers instead.
    expect((await client.searchUnified('u', 'south fence', { stmWeight: 0.5, minScore: 5 })).hits.map((h) => [h.source, h.id])).toEqual([['ltm', fact.id]]);

    // A note written, edited and removed by hand while the daemon runs.
    writeFileSync(join(vault, 'Bikes.md'), 'The blue bike needs a new chain\n');
    await until(async () => ((await client.searchUnified('u', 'bike chain')).ltmCount === 1 ? true : undefined));
    writeFileSync(join(vault, 'Bikes.md'), 'The blue bike needs new brake pads\n');
    await until(async () => ((await client.searchUnified('u', 'brake pads')).ltmCount === 1 ? true : undefined));
    expect((await client.searchUnified('u', 'chain')).ltmCount).toBe(0);
    rmSync(join(vault, 'Bikes.md'));
    await until(async () => ((await client.searchUnified('u', 'brake pads')).ltmCount === 0 ? true : undefined));

    // Erasing the promoted fact erases its note: nothing of the text stays, nor is found.
    await client.delete('u', fact.id);
    expect(existsSync(join(vault, 'u', `${fact.id}.md`))).toBe(false);
    expect((await client.searchUnified('u', 'south fence', { stmWeight: 0.5, minScore: 5 })).hits).toEqual([]);

    await expect(client.searchUnified('u', 'x', { limit: 0 })).rejects.toMatchObject({ field: 'limit' });
  });
});
