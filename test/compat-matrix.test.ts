// The compatibility matrix (issue 4): the current client library against every daemon release
// profile, each a real `engram daemon` process started once. Every public client method either
// works or fails with CapabilityError before any effect; legacy-shaped calls give the same
// results everywhere; pin/unpin/forget through the UpdateFact fallback leave the same state as
// PatchFact; old-shape protocol requests behave as before; a restart renegotiates; a killed
// daemon never yields two copies of a write. The matrix is printed as a table and asserted.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { createServiceClient, type ClientOf } from '../shared/grpc/bridge.ts';
import { MemoryService } from '../shared/gen/engram/v1/memory_pb.ts';
import { CapabilityError, UncertainWriteError, type EngramClient, type Fact } from '../client/index.ts';
import { removeDir, startDaemon, tempDataDir, type DaemonProcess } from './fixtures/daemon.ts';
import { writeAll } from '../client/import/write-all.ts';

const WORKS = 'works';
const REFUSED = 'refused before effects';
type Cell = typeof WORKS | typeof REFUSED;
const W: Cell = WORKS;
const R: Cell = REFUSED;

const PROFILES = [
  { name: 'legacy', args: ['--compat', 'legacy'] },
  { name: 'v0.1', args: ['--compat', 'v0.1'] },
  { name: 'v0.2', args: ['--compat', 'v0.2'] },
  // Release 0.3.0: everything but the write stream (coalesced puts go as BatchPut calls).
  { name: 'v0.3', args: ['--compat', 'v0.3', '--signal-weights', '1,1,0.5'] },
  // The release's signal weights on the current daemons too, so legacy-shaped calls rank alike
  // everywhere (a current daemon's own defaults, per embedder, are in embedder-weights.test.ts).
  { name: 'current', args: ['--signal-weights', '1,1,0.5'] },
  { name: 'current, default weight 0.2', args: ['--signal-weights', '1,1,0.5', '--default-confidence-weight', '0.2'] },
] as const;
type ProfileName = (typeof PROFILES)[number]['name'];

interface Running {
  daemon: DaemonProcess;
  client: EngramClient;
}
const running = new Map<ProfileName, Running>();
const on = (profile: ProfileName) => running.get(profile)!;

beforeAll(async () => {
  // Each profile's daemon starts once, all in parallel. The local embedder makes reindex meaningful.
  await Promise.all(
    PROFILES.map(async (p) => {
      const daemon = await startDaemon({ embedder: 'local', args: [...p.args] });
      running.set(p.name, { daemon, client: await daemon.client() });
    }),
  );
});

afterAll(async () => {
  for (const { daemon, client } of running.values()) {
    client.close();
    await daemon.stop();
    removeDir(daemon.dataDir);
  }
});

const texts = (facts: { text: string }[]) => facts.map((f) => f.text);

/** A fact without its identity and times, which differ between two daemons by construction. */
function stateOf(f: Fact) {
  const { id: _id, createdAt: _c, updatedAt: _u, lastAccessedAt: _l, lastUsedAt: _lu, pinnedAt, supersededBy, ...rest } = f;
  return { ...rest, pinnedAt: pinnedAt ? 'set' : undefined, supersededBy: supersededBy === undefined || supersededBy === 'agent' ? supersededBy : 'a fact id' };
}

// ---------------------------------------------------------------------------------------------
// Legacy-shaped calls: the same results on every profile.

describe('legacy-shaped calls give identical results on every profile', () => {
  const agent = 'identical';
  const FACTS = [
    'The deploy pipeline runs on every merge to main',
    'Coffee machine on floor two is broken',
    'Priya owns the marketing budget',
    'Deploys are frozen during the December holidays',
    'The budget review happens every quarter',
    'Floor two has the quiet room',
    'The staging deploy uses the blue cluster',
    'Marketing launches the spring campaign in March',
  ];
  const SHARED = ['The whole company deploys on Tuesdays', 'Budget questions go to finance'];
  const QUERIES = ['deploy', 'coffee machine', 'who owns the budget', 'floor two quiet', ''];
  const ids = new Map<ProfileName, string[]>();

  beforeAll(async () => {
    // The same facts, in the same order, on every daemon.
    for (const p of PROFILES) {
      const { client } = on(p.name);
      const written: string[] = [];
      for (const text of FACTS) written.push((await client.put(agent, text)).fact.id);
      for (const text of SHARED) await client.putShared(text);
      ids.set(p.name, written);
    }
  });

  /** What a legacy-shaped call returns on one profile, in comparable form. */
  async function legacyShaped(profile: ProfileName) {
    const { client } = on(profile);
    const out: Record<string, unknown> = {};
    for (const q of QUERIES) {
      out[`recall ${q}`] = texts((await client.recall(agent, q)).facts);
      out[`recall top3 ${q}`] = texts((await client.recall(agent, q, { topK: 3 })).facts);
      out[`recallAll ${q}`] = texts((await client.recallAll(agent, q, { topK: 5 })).facts);
      out[`recallShared ${q}`] = texts((await client.recallShared(q)).facts);
      out[`explain ${q}`] = (await client.recallExplain(agent, q, { topK: 4 })).receipts.map((r) => [r.text, r.ranks.vectorRank, r.ranks.keywordRank, r.ranks.recencyRank, r.ranks.fusedScore]);
    }
    out.list = texts((await client.list(agent)).facts);
    out.get = await Promise.all(ids.get(profile)!.map(async (id) => (await client.get(agent, id)).text));
    const stats = await client.stats(agent);
    out.stats = [stats.factCount, stats.liveCount, stats.retiredCount, stats.pinnedCount, stats.textBytes];
    out.agents = await client.listAgents();
    return out;
  }

  test('recall (top_k only), recallAll, recallShared, explain, list, get and stats agree across profiles', async () => {
    const reference = await legacyShaped('legacy');
    expect((reference['recall deploy'] as string[])[0]).toMatch(/deploy/i);
    for (const p of PROFILES.slice(1)) expect(await legacyShaped(p.name), p.name).toEqual(reference);
  });

  test('the same calls carry the same retrieval metadata on legacy and current (no confidence policy)', async () => {
    for (const q of QUERIES) {
      const legacy = await on('legacy').client.recall(agent, q, { topK: 3 });
      const current = await on('current').client.recall(agent, q, { topK: 3 });
      expect(current.retrieval).toEqual(legacy.retrieval);
      expect(current.retrieval.policy).toBe('');
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The matrix: every public method on every profile.

interface MethodContext {
  client: EngramClient;
  agent: string;
  /** Two live facts "matrix alpha fact", "matrix beta fact" of `agent`. */
  ids: [string, string];
}

interface MethodCase {
  name: string;
  /** legacy, v0.1, v0.2, current, current with default weight 0.2. */
  expected: [Cell, Cell, Cell, Cell, Cell, Cell];
  /** State the call needs, made before the "before" snapshot. */
  prepare?: (ctx: MethodContext) => Promise<void>;
  /** The call, with a check that it had its effect. */
  run: (ctx: MethodContext) => Promise<void>;
}

const CONFIDENCE = { minConfidence: 'inferred', confidenceWeight: 0.3 } as const;
const OPTIONS = { weights: { recency: 0 }, minRelevance: 0 } as const;

async function drain<T>(events: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const METHODS: MethodCase[] = [
  { name: 'put', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    const { fact } = await client.put(agent, 'matrix new fact');
    expect((await client.get(agent, fact.id)).text).toBe('matrix new fact');
  } },
  { name: 'put + allowDuplicate', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    // A daemon without write dedup stores every write, so the option is honoured everywhere.
    const first = await client.put(agent, 'matrix twice');
    const copy = await client.put(agent, 'matrix twice', { allowDuplicate: true });
    expect(copy.duplicate).toBe(false);
    expect(copy.fact.id).not.toBe(first.fact.id);
  } },
  { name: 'putBatch', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    const results = await client.putBatch([{ agentId: agent, text: 'matrix batch one' }, { agentId: agent, text: 'matrix batch two' }]);
    expect(await Promise.all(results.map(async (r) => (await client.get(agent, r.factId!)).text))).toEqual(['matrix batch one', 'matrix batch two']);
  } },
  { name: 'concurrent puts (the write stream, BatchPut calls, or single Puts)', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    const wanted = Array.from({ length: 16 }, (_, i) => `matrix concurrent ${i}`);
    const written = await Promise.all(wanted.map((text) => client.put(agent, text)));
    expect(written.map((w) => w.fact.text)).toEqual(wanted);
    expect((await client.stats(agent)).factCount).toBe(2 + wanted.length);
  } },
  { name: 'writeAll (batches, or single puts on older daemons)', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    const results = await writeAll(client, [{ agentId: agent, text: 'matrix all one', requestId: `${agent}-all-1` }, { agentId: agent, text: 'matrix all two', requestId: `${agent}-all-2` }]);
    expect(await Promise.all(results.map(async (r) => (await client.get(agent, r.factId!)).text))).toEqual(['matrix all one', 'matrix all two']);
    // A re-run replays by request id everywhere.
    expect((await writeAll(client, [{ agentId: agent, text: 'matrix all one', requestId: `${agent}-all-1` }])).map((r) => !r.error && r.replayed)).toEqual([true]);
  } },
  { name: 'concurrent puts (one batch call, or single puts on older daemons)', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    const texts = Array.from({ length: 8 }, (_, i) => `matrix concurrent fact ${i}`);
    const written = await Promise.all(texts.map((text, i) => client.put(agent, text, { requestId: `${agent}-concurrent-${i}` })));
    expect(written.map((w) => w.fact.text)).toEqual(texts);
    expect(new Set(written.map((w) => w.fact.id)).size).toBe(8);
    // Replays by request id where the release had them (idempotent-write-v1).
    if (!client.daemon.capabilities.includes('idempotent-write-v1')) return;
    const again = await Promise.all(texts.slice(0, 2).map((text, i) => client.put(agent, text, { requestId: `${agent}-concurrent-${i}` })));
    expect(again.map((w) => [w.fact.id, w.replayed])).toEqual(written.slice(0, 2).map((w) => [w.fact.id, true]));
  } },
  { name: 'putShared', expected: [W, W, W, W, W, W], run: async ({ client }) => {
    const { fact } = await client.putShared('matrix shared fact');
    expect(fact.agentId).toBe('__shared__');
  } },
  { name: 'put + strength', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    const { fact } = await client.put(agent, 'matrix strong fact', { strength: 1.5 });
    expect((await client.get(agent, fact.id)).strength).toBe(1.5);
  } },
  // Strength 1 is every fact's start: an export's lines carry it, and restore onto any daemon.
  { name: 'put + putBatch with the default strength', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    await client.put(agent, 'matrix default strength fact', { strength: 1 });
    await writeAll(client, [{ agentId: agent, text: 'matrix default strength batch fact', strength: 1 }]);
    expect((await client.list(agent, { pageSize: 100 })).facts.filter((f) => f.text.startsWith('matrix default strength')).length).toBe(2);
  } },
  { name: 'touch', expected: [R, R, R, W, W, W], run: async ({ client, agent, ids }) => {
    const r = await client.touch(agent, ids[0], { boostStrength: true });
    expect(await client.get(agent, ids[0])).toMatchObject({ useCount: 2, strength: 1.1 });
    expect(r.newScore).toBeGreaterThan(r.oldScore);
  } },
  { name: 'observeUsage', expected: [R, R, R, W, W, W], run: async ({ client, agent, ids }) => {
    const r = await client.observeUsage(agent, ids, { contextTags: ['matrix'] });
    expect(r.results.map((o) => o.status)).toEqual(['reinforced', 'reinforced']);
    expect((await client.get(agent, ids[1])).reviewCount).toBe(1);
  } },
  { name: 'collectGarbage', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    expect(await client.collectGarbage(agent)).toMatchObject({ dryRun: true, totalAffected: 0 });
  } },
  { name: 'recall + decay', expected: [R, R, R, W, W, W], prepare: async ({ client, agent, ids }) => {
    if (client.daemon.capabilities.includes('reinforce-v1')) await client.touch(agent, ids[1]);
  }, run: async ({ client, agent, ids }) => {
    const { facts, matches } = await client.recall(agent, '', { weights: { vector: 0, keyword: 0, recency: 0, decay: 1 }, filters: { minDecayScore: 0.5 } });
    expect(facts.map((f) => f.id)).toEqual([ids[1], ids[0]]);
    expect(matches![0]!.decayScore).toBeGreaterThan(matches![1]!.decayScore!);
  } },
  { name: 'analyzeMessage', expected: [R, R, R, W, W, W], run: async ({ client }) => {
    expect((await client.analyzeMessage('Remember: the build server is hopper')).shouldSave).toBe(true);
    expect((await client.analyzeForRecall('What did I say about hopper?')).suggestedQuery).toBe('hopper');
  } },
  { name: 'promote (dry run)', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    expect(await client.promote(agent, { autoDetect: true, dryRun: true })).toMatchObject({ dryRun: true, candidatesFound: 0 });
  } },
  { name: 'searchUnified', expected: [R, R, R, W, W, W], run: async ({ client, agent, ids }) => {
    expect((await client.searchUnified(agent, 'matrix alpha')).hits[0]).toMatchObject({ source: 'stm', id: ids[0] });
  } },
  { name: 'extract', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    expect((await client.extract(agent, { message: 'I prefer matrix tea.' })).facts.map((f) => f.kind)).toEqual(['preference']);
  } },
  { name: 'clusterMemories + consolidate (dry run)', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    const r = await client.clusterMemories(agent, { threshold: 0.3 });
    expect(r.mode).toBe('clustering');
    if (r.clusters[0]) expect((await client.consolidateMemories(agent, r.clusters[0].id, { threshold: 0.3 })).mode).toBe('dry_run');
  } },
  { name: 'storageStats + compact', expected: [R, R, R, W, W, W], run: async ({ client }) => {
    expect((await client.storageStats()).factCount).toBeGreaterThanOrEqual(2);
    expect((await client.compact()).bytesAfter).toBeGreaterThan(0);
  } },
  { name: 'relate + linkEntity + readGraph', expected: [R, R, R, W, W, W], run: async ({ client, agent, ids }) => {
    expect((await client.relate(agent, ids[0], 'related', ids[1])).fact.relations.map((r) => r.targetId)).toContain(ids[1]);
    expect((await client.linkEntity(agent, ids[1], 'matrix')).entities).toContain('matrix');
    expect((await client.readGraph(agent, { factId: ids[1] })).edges.map((e) => e.type)).toEqual(expect.arrayContaining(['related', 'mentions']));
  } },
  { name: 'consolidate (dry run) + status', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    expect((await client.consolidate(agent, { dryRun: true })).dryRun).toBe(true);
    expect((await client.consolidationStatus()).runs).toBeGreaterThanOrEqual(0);
  } },
  { name: 'slots (put, list, context, locked delete)', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    const { slot } = await client.putSlot({ slotName: 'do_not_do', slotValue: 'never on a Friday', projectId: agent, locked: true });
    expect((await client.slotContext({ projectId: agent })).map((s) => s.id)).toContain(slot.id);
    await expect(client.deleteSlot(slot.id)).rejects.toMatchObject({ message: expect.stringMatching(/^slot is locked: unlock it first by writing it again with locked: false/) });
  } },
  { name: 'recipes (list, save)', expected: [R, R, R, W, W, W], run: async ({ client }) => {
    expect((await client.listRecipes()).map((r) => r.name)).toContain('balanced');
    expect((await client.saveRecipe('matrix', { tokenBudget: 100 })).tokenBudget).toBe(100);
  } },
  { name: 'recall + recipe', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    const r = await client.recall(agent, 'matrix alpha', { recipe: 'deep' });
    expect(r.retrieval.recipe).toMatchObject({ id: 'builtin:deep', graphDepth: 2, rerankerStage: 'term-coverage-v1' });
  } },
  { name: 'assembleContext', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    const c = await client.assembleContext(agent, 'matrix alpha', { mode: 'cheap' });
    expect(c.tokens).toBeLessThanOrEqual(1800);
    expect(c.tokenizer).toBe('o200k_base (gpt-tokenizer)');
  } },
  { name: 'recall + kg', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    expect((await client.recall(agent, 'matrix alpha', { kg: true })).retrieval.kg).toBe('hints_without_confidence_receipts');
  } },
  { name: 'agent tokens (create, list, revoke)', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    const { info } = await client.createToken({ agents: [agent], rights: ['read'] });
    expect((await client.listTokens()).map((t) => t.id)).toContain(info.id);
    expect((await client.revokeToken(info.id)).revokedAt).toBeGreaterThan(0);
  } },
  // Never refused: a daemon before read-your-writes-v1 sends no change numbers (the client's stays
  // 0) and ignores the one a call carries, as it ignores any metadata it does not know.
  { name: 'read-your-writes (change numbers)', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    const before = client.lastChange;
    await client.put(agent, 'matrix change-numbered fact');
    if (client.daemon.capabilities.includes('read-your-writes-v1')) {
      expect(client.lastChange).toBeGreaterThan(before);
      expect(client.daemon.store).toMatch(/^(level|postgres)$/);
    } else {
      expect(client.lastChange).toBe(0);
      expect(client.daemon.store).toBe('');
    }
    expect((await client.list(agent)).facts.map((f) => f.text)).toContain('matrix change-numbered fact');
  } },
  // Never refused: a daemon before inspector-v1 does not count by confidence, and its zeros say so.
  { name: 'stats: live facts by confidence', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    await client.put(agent, 'matrix counted fact');
    const { liveByConfidence, liveCount } = await client.stats(agent);
    const counted = liveByConfidence.verified + liveByConfidence.inferred + liveByConfidence.unverified;
    expect(counted).toBe(client.daemon.capabilities.includes('inspector-v1') ? liveCount : 0);
  } },
  { name: 'writeStatus', expected: [R, R, R, W, W, W], run: async ({ client, agent }) => {
    expect(await client.writeStatus('matrix-no-such-request', { agentId: agent })).toMatchObject({ committed: false, op: '' });
  } },
  // New client × old daemon: a restore (restore-write-v1, current only) is refused before sending.
  { name: 'put + putBatch + restore', expected: [R, R, R, R, W, W], run: async ({ client, agent, ids }) => {
    const restore = { useCount: 3, reviewCount: 1, lastUsedAt: Date.UTC(2024, 0, 1), kind: 'summary' as const, replaces: [ids[0]] };
    const { fact } = await client.put(agent, 'matrix restored summary', { restore });
    const [item] = await client.putBatch([{ agentId: agent, text: 'matrix restored fact', restore: { useCount: 2 } }]);
    expect(await client.get(agent, fact.id)).toMatchObject({ kind: 'summary', useCount: 3, reviewCount: 1, lastUsedAt: Date.UTC(2024, 0, 1), replaces: [ids[0]] });
    expect((await client.get(agent, item!.factId!)).useCount).toBe(2);
  } },
  // A promoted fact restored by a daemon that would drop its promotion (gc would collect it) is
  // refused before sending: restore-promotion-v1, current only.
  { name: 'put + restore promotedAt', expected: [R, R, R, R, W, W], run: async ({ client, agent }) => {
    const { fact } = await client.put(agent, 'matrix restored promoted fact', { restore: { promotedAt: Date.UTC(2024, 0, 2) } });
    expect((await client.get(agent, fact.id)).promotedAt).toBe(Date.UTC(2024, 0, 2));
  } },
  { name: 'put + confidence', expected: [R, R, W, W, W, W], run: async ({ client, agent }) => {
    const { fact } = await client.put(agent, 'matrix verified fact', { confidence: 'verified' });
    expect((await client.get(agent, fact.id)).confidence).toBe('verified');
  } },
  { name: 'putShared + confidence', expected: [R, R, W, W, W, W], run: async ({ client }) => {
    const { fact } = await client.putShared('matrix shared verified fact', { confidence: 'verified' });
    expect((await client.get('__shared__', fact.id)).confidence).toBe('verified');
  } },
  { name: 'get', expected: [W, W, W, W, W, W], run: async ({ client, agent, ids }) => {
    expect((await client.get(agent, ids[0])).text).toBe('matrix alpha fact');
  } },
  { name: 'recall', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    expect(texts((await client.recall(agent, 'matrix alpha')).facts)[0]).toBe('matrix alpha fact');
  } },
  { name: 'recall + advice (weak-match feedback where the daemon gives it)', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    // Advice never changes results: a daemon without RecallWithOptions serves the recall without it.
    const plain = await client.recall(agent, 'alpah');
    const advised = await client.recall(agent, 'alpah', { advice: true });
    expect(texts(advised.facts)).toEqual(texts(plain.facts));
    if (!client.daemon.capabilities.includes('recall-options-v1')) return expect(advised.feedback).toBeUndefined();
    expect(advised.feedback).toMatchObject({ unknownTerms: ['alpah'], nearbyTerms: expect.arrayContaining(['alpha']) });
  } },
  { name: 'recall + options', expected: [R, W, W, W, W, W], run: async ({ client, agent }) => {
    const { facts, retrieval } = await client.recall(agent, 'matrix alpha', OPTIONS);
    expect(texts(facts)[0]).toBe('matrix alpha fact');
    expect(retrieval.weights.recency).toBe(0);
  } },
  { name: 'recall + confidence', expected: [R, R, W, W, W, W], run: async ({ client, agent }) => {
    const { facts, retrieval } = await client.recall(agent, 'matrix alpha', CONFIDENCE);
    expect(facts).toHaveLength(2);
    expect(retrieval).toMatchObject({ policy: 'confidence-v1', minConfidence: 'inferred', confidenceWeight: 0.3 });
  } },
  { name: 'recallShared', expected: [W, W, W, W, W, W], run: async ({ client }) => {
    expect((await client.recallShared('company')).facts.length).toBeGreaterThan(0);
  } },
  { name: 'recallShared + options', expected: [R, W, W, W, W, W], run: async ({ client }) => {
    expect((await client.recallShared('company', OPTIONS)).facts.length).toBeGreaterThan(0);
  } },
  { name: 'recallShared + confidence', expected: [R, R, W, W, W, W], run: async ({ client }) => {
    expect((await client.recallShared('company', CONFIDENCE)).retrieval.policy).toBe('confidence-v1');
  } },
  { name: 'recallAll', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    expect(texts((await client.recallAll(agent, 'matrix alpha')).facts)).toContain('matrix alpha fact');
  } },
  { name: 'recallAll + options', expected: [R, W, W, W, W, W], run: async ({ client, agent }) => {
    expect(texts((await client.recallAll(agent, 'matrix alpha', OPTIONS)).facts)).toContain('matrix alpha fact');
  } },
  { name: 'recallAll + confidence', expected: [R, R, W, W, W, W], run: async ({ client, agent }) => {
    const { facts, retrieval } = await client.recallAll(agent, 'matrix alpha', CONFIDENCE);
    expect(texts(facts)).toContain('matrix alpha fact');
    expect(retrieval.policy).toBe('confidence-v1');
  } },
  { name: 'recallExplain', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    const { receipts } = await client.recallExplain(agent, 'matrix alpha');
    expect(receipts[0]!.text).toBe('matrix alpha fact');
  } },
  { name: 'recallExplain + options', expected: [R, W, W, W, W, W], run: async ({ client, agent }) => {
    const { receipts } = await client.recallExplain(agent, 'matrix alpha', OPTIONS);
    expect(receipts[0]!.ranks.recencyRank).toBe(0);
  } },
  { name: 'recallExplain + confidence', expected: [R, R, W, W, W, W], run: async ({ client, agent }) => {
    const { receipts } = await client.recallExplain(agent, 'matrix alpha', CONFIDENCE);
    expect(receipts[0]!.ranking).toMatchObject({ policy: 'confidence-v1', confidenceWeight: 0.3, effectiveConfidence: 'inferred' });
  } },
  { name: 'batchRecall', expected: [R, W, W, W, W, W], run: async ({ client, agent }) => {
    const res = await client.batchRecall(agent, ['alpha', 'beta']);
    expect(res.results.map((r) => r.facts[0]!.text)).toEqual(['matrix alpha fact', 'matrix beta fact']);
  } },
  { name: 'batchRecall + confidence', expected: [R, R, W, W, W, W], run: async ({ client, agent }) => {
    const res = await client.batchRecall(agent, ['alpha', 'beta'], CONFIDENCE);
    expect(res.retrieval).toMatchObject({ policy: 'confidence-v1' });
  } },
  { name: 'alias', expected: [R, W, W, W, W, W], run: async ({ client, agent }) => {
    expect((await client.alias(agent, 'mtx', ['matrix'])).fact.kind).toBe('alias');
  } },
  { name: 'revise', expected: [R, R, W, W, W, W], run: async ({ client, agent, ids }) => {
    const { replacement, retiredIds } = await client.revise(agent, [ids[0]], 'matrix alpha fact, revised');
    expect(retiredIds).toEqual([ids[0]]);
    expect((await client.get(agent, ids[0])).supersededBy).toBe(replacement.id);
  } },
  { name: 'pin', expected: [W, W, W, W, W, W], run: async ({ client, agent, ids }) => {
    await client.pin(agent, ids[0]);
    expect((await client.get(agent, ids[0])).pinned).toBe(true);
  } },
  { name: 'unpin', expected: [W, W, W, W, W, W], prepare: async ({ client, agent, ids }) => void (await client.pin(agent, ids[0])), run: async ({ client, agent, ids }) => {
    await client.unpin(agent, ids[0]);
    expect((await client.get(agent, ids[0])).pinned).toBe(false);
  } },
  { name: 'forget', expected: [W, W, W, W, W, W], run: async ({ client, agent, ids }) => {
    await client.forget(agent, ids[0]);
    expect((await client.get(agent, ids[0])).supersededBy).toBe('agent');
    expect(texts((await client.recall(agent, 'matrix alpha')).facts)).toEqual(['matrix beta fact']);
  } },
  { name: 'setConfidence', expected: [R, R, W, W, W, W], run: async ({ client, agent, ids }) => {
    await client.setConfidence(agent, ids[0], 'verified');
    expect((await client.get(agent, ids[0])).confidence).toBe('verified');
  } },
  { name: 'list', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    expect(texts((await client.list(agent)).facts)).toEqual(['matrix alpha fact', 'matrix beta fact']);
  } },
  { name: 'listAgents', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    expect(await client.listAgents()).toContain(agent);
  } },
  { name: 'stats', expected: [W, W, W, W, W, W], run: async ({ client, agent }) => {
    expect((await client.stats(agent)).factCount).toBe(2);
  } },
  { name: 'delete', expected: [W, W, W, W, W, W], run: async ({ client, agent, ids }) => {
    await client.delete(agent, ids[0]);
    await expect(client.get(agent, ids[0])).rejects.toMatchObject({ kind: 'not_found' });
  } },
  { name: 'updateFact', expected: [W, W, W, W, W, W], run: async ({ client, agent, ids }) => {
    const fact = await client.get(agent, ids[0]);
    await client.updateFact(agent, { ...fact, text: 'matrix alpha fact, edited', tags: ['edited'] });
    expect(await client.get(agent, ids[0])).toMatchObject({ text: 'matrix alpha fact, edited', tags: ['edited'] });
  } },
  { name: 'doctor', expected: [R, W, W, W, W, W], run: async ({ client }) => {
    const events = await drain(client.doctor());
    expect(events.at(-1)!.report!.healthy).toBe(true);
  } },
  { name: 'reindex', expected: [R, W, W, W, W, W], run: async ({ client }) => {
    const events = await drain(client.reindex());
    expect(events.at(-1)!.report!.embedder).not.toBe('');
  } },
];

/** The observable store: whole-store counts, namespaces, and every fact of the namespaces touched
 *  (with access counts, so a recall that reached the daemon would show). */
async function storeState(client: EngramClient, agent: string) {
  const s = await client.stats();
  return {
    counts: [s.factCount, s.liveCount, s.retiredCount, s.pinnedCount, s.textBytes, s.newestCreatedAt, s.agentCount, s.vectorCount],
    agents: await client.listAgents(),
    facts: (await client.list(agent, { pageSize: 1000 })).facts,
    shared: (await client.list('__shared__', { pageSize: 1000 })).facts,
  };
}

/** Runs one method on one profile and says which cell it earned (or how it failed). */
async function cellFor(profile: ProfileName, method: MethodCase, index: number): Promise<string> {
  const { client } = on(profile);
  const agent = `matrix-${index}`;
  const ids: [string, string] = [(await client.put(agent, 'matrix alpha fact')).fact.id, (await client.put(agent, 'matrix beta fact')).fact.id];
  const ctx = { client, agent, ids };
  await method.prepare?.(ctx);
  const before = await storeState(client, agent);
  try {
    await method.run(ctx);
    return WORKS;
  } catch (error) {
    if (!(error instanceof CapabilityError)) return `failed: ${(error as Error).message}`;
    if (!/update engram and restart the daemon/i.test(error.message)) return `refused without the update-and-restart advice: ${error.message}`;
    const after = await storeState(client, agent);
    try {
      expect(after).toEqual(before);
    } catch {
      return 'refused AFTER effects';
    }
    return REFUSED;
  }
}

const matrix = new Map<string, Map<ProfileName, string>>(METHODS.map((m) => [m.name, new Map()]));

describe.each(PROFILES.map((p, column) => ({ ...p, column })))('profile $name', ({ name, column }) => {
  test.each(METHODS.map((m, index) => ({ ...m, index })))('$name', async (method) => {
    const cell = await cellFor(name, method, method.index);
    matrix.get(method.name)!.set(name, cell);
    expect(cell).toBe(method.expected[column]);
  });
});

function markdownTable(): string {
  const header = `| client method | ${PROFILES.map((p) => p.name).join(' | ')} |`;
  const rule = `|---|${PROFILES.map(() => '---').join('|')}|`;
  const rows = METHODS.map((m) => `| ${m.name} | ${PROFILES.map((p) => matrix.get(m.name)!.get(p.name) ?? 'not run').join(' | ')} |`);
  return [header, rule, ...rows].join('\n');
}

describe('the matrix as a whole', () => {
  test('every cell was run and holds its expected value', () => {
    const expected = Object.fromEntries(METHODS.map((m) => [m.name, Object.fromEntries(PROFILES.map((p, i) => [p.name, m.expected[i]]))]));
    const actual = Object.fromEntries(METHODS.map((m) => [m.name, Object.fromEntries(PROFILES.map((p) => [p.name, matrix.get(m.name)!.get(p.name) ?? 'not run']))]));
    expect(actual).toEqual(expected);
  });

  test('the expectations encode the release notes: legacy refuses every new feature, v0.1 every confidence feature', () => {
    const column = (i: number) => METHODS.filter((m) => m.expected[i] === REFUSED).map((m) => m.name);
    const decay = ['put + strength', 'touch', 'observeUsage', 'collectGarbage', 'recall + decay', 'analyzeMessage', 'promote (dry run)', 'searchUnified', 'extract', 'clusterMemories + consolidate (dry run)', 'storageStats + compact', 'relate + linkEntity + readGraph', 'consolidate (dry run) + status', 'slots (put, list, context, locked delete)', 'recipes (list, save)', 'recall + recipe', 'assembleContext', 'recall + kg', 'agent tokens (create, list, revoke)', 'writeStatus'];
    expect(column(2)).toEqual(['putBatch', ...decay, 'put + putBatch + restore', 'put + restore promotedAt']);
    expect(column(3)).toEqual(['put + putBatch + restore', 'put + restore promotedAt']);
    expect(column(4)).toEqual([]);
    expect(column(5)).toEqual([]);
    expect(column(1)).toEqual(['putBatch', ...decay, 'put + putBatch + restore', 'put + restore promotedAt', 'put + confidence', 'putShared + confidence', 'recall + confidence', 'recallShared + confidence', 'recallAll + confidence', 'recallExplain + confidence', 'batchRecall + confidence', 'revise', 'setConfidence']);
    expect(column(0)).toEqual([...column(1), 'recall + options', 'recallShared + options', 'recallAll + options', 'recallExplain + options', 'batchRecall', 'alias', 'doctor', 'reindex'].sort((a, b) => METHODS.findIndex((m) => m.name === a) - METHODS.findIndex((m) => m.name === b)));
  });
});

afterAll(() => {
  console.log(`\nCompatibility matrix: the current client library against each daemon profile\n\n${markdownTable()}\n`);
});

// ---------------------------------------------------------------------------------------------
// A profile serves exactly what its release did: nothing of a later release leaks out.

describe('older profiles show nothing of later releases', () => {
  test('legacy: Hello advertises no capability and no default weight', () => {
    expect(on('legacy').client.daemon).toMatchObject({ profile: 'legacy', capabilities: [] });
    expect(on('legacy').client.daemon.defaultConfidenceWeight).toBeUndefined();
    expect(on('v0.1').client.daemon.defaultConfidenceWeight).toBeUndefined();
    expect(on('v0.1').client.daemon.capabilities.filter((c) => c.startsWith('confidence-'))).toEqual([]);
  });

  test('only current advertises its default signal weights (embedder-weights-v1)', () => {
    for (const profile of ['legacy', 'v0.1', 'v0.2'] as const) {
      expect(on(profile).client.daemon.capabilities, profile).not.toContain('embedder-weights-v1');
      expect(on(profile).client.daemon.defaultWeights, profile).toBeUndefined();
    }
    expect(on('current').client.daemon.capabilities).toContain('embedder-weights-v1');
    expect(on('current').client.daemon.defaultWeights).toEqual({ vector: 1, keyword: 1, recency: 0.5, decay: 0, graph: 0 });
  });

  test('v0.2: no write dedup and no per-fact matches; current has both', async () => {
    for (const profile of ['legacy', 'v0.1', 'v0.2', 'current'] as const) {
      const { client } = on(profile);
      const agent = `dedup-gate-${profile}`;
      const first = await client.put(agent, 'The gate opens at seven');
      const second = await client.put(agent, 'The gate opens at seven');
      const dedups = profile === 'current';
      expect(client.daemon.capabilities.includes('write-dedup-v1'), profile).toBe(dedups);
      expect(client.daemon.capabilities.includes('recall-matches-v1'), profile).toBe(dedups);
      expect(second.duplicate, profile).toBe(dedups);
      expect(second.fact.id === first.fact.id, profile).toBe(dedups);
      expect((await client.stats(agent)).factCount, profile).toBe(dedups ? 1 : 2);
      const recalled = await client.recall(agent, 'gate');
      expect(recalled.matches, profile).toEqual(dedups ? [expect.objectContaining({ matched: true })] : undefined);
      expect((await client.recallExplain(agent, 'gate')).receipts[0]!.matched, profile).toBe(dedups ? true : undefined);
    }
  });

  test('v0.1: RecallWithOptions and BatchRecall answers carry no confidence policy, weight or ranking', async () => {
    const { client } = on('v0.1');
    const agent = 'v01-metadata';
    await client.put(agent, 'v0.1 metadata probe fact');
    const recall = await client.recall(agent, 'probe', OPTIONS);
    const explain = await client.recallExplain(agent, 'probe', OPTIONS);
    const batch = await client.batchRecall(agent, ['probe']);
    const confidenceMetadata = (r: { policy: string; kg: string; confidenceWeight?: number; minConfidence?: string }) => [r.policy, r.kg, r.confidenceWeight, r.minConfidence];
    expect(confidenceMetadata(recall.retrieval)).toEqual(['', '', undefined, undefined]);
    expect(confidenceMetadata(explain.retrieval)).toEqual(['', '', undefined, undefined]);
    expect(confidenceMetadata(batch.retrieval!)).toEqual(['', '', undefined, undefined]);
    expect(explain.receipts.map((r) => r.ranking)).toEqual([undefined]);
  });
});

// ---------------------------------------------------------------------------------------------
// pin / unpin / forget: the UpdateFact fallback and PatchFact leave the same state.

describe('pin, unpin and forget through the UpdateFact fallback equal PatchFact', () => {
  test('the same sequence leaves the same stored state on every profile', async () => {
    const agent = 'lifecycle-parity';
    const trace = async (profile: ProfileName) => {
      const { client } = on(profile);
      const { fact } = await client.put(agent, 'The alarm code is 4321', {
        tags: ['security', 'office'],
        entities: ['alarm'],
        source: 'facilities',
        metaJson: '{"floor":3}',
        occurredAt: Date.UTC(2024, 1, 2),
      });
      // A label through the legacy whole-fact write, which every profile has.
      await client.updateFact(agent, { ...(await client.get(agent, fact.id)), confidence: 'verified' });
      const steps: Record<string, unknown> = {};
      const record = async (name: string, returned: Fact) => {
        const stored = await client.get(agent, fact.id);
        expect(stored, `${profile}: ${name} returns what it stored`).toEqual(returned);
        steps[name] = stateOf(stored);
      };
      await record('pin', await client.pin(agent, fact.id));
      const pinnedAt = (await client.get(agent, fact.id)).pinnedAt;
      await record('pin again', await client.pin(agent, fact.id));
      expect((await client.get(agent, fact.id)).pinnedAt, `${profile}: pinning again keeps the pin time`).toBe(pinnedAt);
      await record('unpin', await client.unpin(agent, fact.id));
      await record('pin before forget', await client.pin(agent, fact.id));
      await record('forget', await client.forget(agent, fact.id));
      await record('forget again', await client.forget(agent, fact.id));
      await record('unpin a retired fact', await client.unpin(agent, fact.id));
      steps.recalled = texts((await client.recall(agent, 'alarm code')).facts);
      return steps;
    };
    expect(on('legacy').client.daemon.capabilities).not.toContain('confidence-lifecycle-v1');
    expect(on('current').client.daemon.capabilities).toContain('confidence-lifecycle-v1');
    const reference = await trace('current');
    expect(reference.forget).toMatchObject({ supersededBy: 'agent', pinned: true, confidence: 'verified', tags: ['security', 'office'], meta: { floor: 3 } });
    expect(reference.unpin).toMatchObject({ pinned: false });
    expect((reference.unpin as Fact).pinnedAt).toBeUndefined();
    expect(reference.recalled).toEqual([]);
    for (const p of ['legacy', 'v0.1', 'current, default weight 0.2'] as const) expect(await trace(p), p).toEqual(reference);
  });
});

// ---------------------------------------------------------------------------------------------
// Old-shape protocol requests (fields of the legacy messages only) against the current daemon.

describe('old-shape requests against the current daemon behave as before', () => {
  let rawClients: grpc.Client[] = [];
  const memoryOf = (profile: ProfileName): ClientOf<typeof MemoryService> => {
    const raw = new grpc.Client(on(profile).daemon.discovery.address, grpc.credentials.createInsecure());
    rawClients.push(raw);
    return createServiceClient(MemoryService, raw);
  };

  afterAll(() => {
    for (const raw of rawClients) raw.close();
    rawClients = [];
  });

  /** An old client's session: Put, Recall, RecallExplain, UpdateFact (pin, edit), Get, List. */
  async function oldClientSession(profile: ProfileName) {
    const memory = memoryOf(profile);
    const agent = 'old-shape';
    const out: Record<string, unknown> = {};
    const facts: string[] = [];
    for (const [i, text] of ['old client fact about rivers', 'old client fact about mountains', 'old client note about rivers and lakes'].entries()) {
      const { fact, replayed } = await memory.put({ requestId: `old-${i}`, agentId: agent, text, fields: { tags: ['old'] } });
      facts.push(fact!.id);
      out[`put ${i}`] = [fact!.text, fact!.confidence, fact!.pinned, fact!.supersededBy, [...fact!.tags], replayed];
    }
    out.replay = (await memory.put({ requestId: 'old-0', agentId: agent, text: 'old client fact about rivers', fields: { tags: ['old'] } })).replayed;
    const recall = await memory.recall({ agentId: agent, query: 'rivers', topK: 2 });
    out.recall = recall.facts.map((f) => f.text);
    out.retrieval = { ...recall.retrieval!, $typeName: undefined };
    const explain = await memory.recallExplain({ agentId: agent, query: 'rivers' });
    out.explain = explain.receipts.map((r) => [r.text, r.weight, r.ranks!.fusedScore, r.ranking === undefined]);
    // UpdateFact with a whole fact read back from Get, changed by an old client.
    const read = (await memory.get({ agentId: agent, factId: facts[0]! })).fact!;
    const updated = (await memory.updateFact({ requestId: 'old-u1', agentId: agent, fact: { ...read, pinned: true, text: 'old client fact about rivers, edited' } })).fact!;
    out.update = [updated.text, updated.pinned, updated.pinnedAtMs > 0n, updated.confidence, updated.supersededBy];
    const retired = (await memory.updateFact({ requestId: 'old-u2', agentId: agent, fact: { ...(await memory.get({ agentId: agent, factId: facts[1]! })).fact!, supersededBy: 'agent' } })).fact!;
    out.retire = retired.supersededBy;
    out.afterRetire = (await memory.recall({ agentId: agent, query: 'mountains' })).facts.map((f) => f.text);
    out.list = (await memory.list({ agentId: agent })).facts.map((f) => [f.text, f.pinned, f.supersededBy === '' ? '' : f.supersededBy, f.confidence]);
    return out;
  }

  test('Put, Recall, RecallExplain, UpdateFact, Get and List answer exactly as the legacy daemon does', async () => {
    const reference = await oldClientSession('legacy');
    const retrieval = reference.retrieval as { policy: string; kg: string; confidenceWeight?: number; minConfidence?: string };
    expect([retrieval.policy, retrieval.kg, retrieval.confidenceWeight, retrieval.minConfidence]).toEqual(['', '', undefined, undefined]);
    expect(await oldClientSession('current')).toEqual(reference);
    // A positive default weight does not reach the historical RPCs either.
    expect(await oldClientSession('current, default weight 0.2')).toEqual(reference);
  });

  test('old client × new daemon: writes without a restore start afresh as before; a v0.3 profile ignores a restore sent anyway, as its release did', async () => {
    const fresh = async (profile: ProfileName, agent: string, options?: object) => {
      const memory = memoryOf(profile);
      const { fact } = await memory.putWithOptions({ requestId: `${agent}-1`, agentId: agent, text: 'an old client writes a fact', options: { confidence: 'verified', ...options } });
      const [slot] = (await memory.batchPut({ items: [{ requestId: `${agent}-2`, agentId: agent, text: 'an old client batches a fact', options: { ...options } }], returnFacts: true })).results;
      return [fact!, slot!.fact!].map((f) => [f.kind, f.useCount, f.reviewCount, f.crossDomainCount, [...f.replaces], f.lastUsedAtMs === f.createdAtMs, f.promotedAtMs]);
    };
    const afresh = [[1, 1, 0, 0, [], true, 0n], [1, 1, 0, 0, [], true, 0n]];
    expect(await fresh('current', 'old-shape-restore')).toEqual(afresh);
    expect(await fresh('v0.3', 'old-shape-restore', { restore: { useCount: 9, kind: 3, promotedAtMs: BigInt(Date.UTC(2024, 0, 2)) } })).toEqual(afresh);
  });

  test('an old client that never sends a label does not erase one (UpdateFact with confidence "")', async () => {
    const { client } = on('current');
    const memory = memoryOf('current');
    const { fact } = await client.put('old-shape-label', 'a verified fact an old client edits', { confidence: 'verified' });
    const read = (await memory.get({ agentId: 'old-shape-label', factId: fact.id })).fact!;
    const updated = (await memory.updateFact({ agentId: 'old-shape-label', fact: { ...read, confidence: '', pinned: true } })).fact!;
    expect(updated.confidence).toBe('verified');
    expect(updated.pinned).toBe(true);
    expect((await client.get('old-shape-label', fact.id)).confidence).toBe('verified');
  });
});

// ---------------------------------------------------------------------------------------------
// Restarts: one weight policy per resolution, renegotiated on reconnect.

describe('a daemon restarted under a live client', () => {
  test('weight 0.2 resolved from the daemon; legacy restart refuses weighted recall before sending; current restart renegotiates', async () => {
    const dataDir = tempDataDir();
    const agent = 'restart';
    let daemon = await startDaemon({ dataDir, args: ['--default-confidence-weight', '0.2'] });
    const client = await daemon.client();
    try {
      await client.put(agent, 'kiwi orchard yearly report for the north field', { confidence: 'verified' });
      await client.put(agent, 'kiwi orchard', { confidence: 'unverified' });
      const first = await client.recall(agent, 'kiwi orchard');
      expect(first.retrieval).toMatchObject({ confidenceWeight: 0.2, policy: 'confidence-v1' });
      const resolved = first.retrieval.confidenceWeight!;
      const weightedOrder = texts(first.facts);

      await daemon.stop();
      daemon = await startDaemon({ dataDir, args: ['--compat', 'legacy'] });
      // The next weighted call renegotiates, finds no confidence-recall-v1 and sends nothing.
      const before = await listWithAccess(daemon, agent);
      await expect(client.recall(agent, 'kiwi orchard', { confidenceWeight: resolved })).rejects.toBeInstanceOf(CapabilityError);
      await expect(client.recall(agent, 'kiwi orchard', { confidenceWeight: resolved })).rejects.toThrow(/update Engram and restart the daemon/i);
      await expect(client.batchRecall(agent, ['kiwi'], { confidenceWeight: resolved })).rejects.toBeInstanceOf(CapabilityError);
      expect(client.daemon.profile).toBe('legacy');
      expect(client.daemon.defaultConfidenceWeight).toBeUndefined();
      expect(await listWithAccess(daemon, agent)).toEqual(before);
      // A plain recall is effectively legacy on this daemon: it works, with weight 0.
      const plain = await client.recall(agent, 'kiwi orchard');
      expect(plain.retrieval.policy).toBe('');
      expect(texts(plain.facts)).toEqual([...weightedOrder].reverse());

      await daemon.stop();
      daemon = await startDaemon({ dataDir, args: ['--default-confidence-weight', '0.2'] });
      const again = await client.recall(agent, 'kiwi orchard');
      expect(client.daemon.profile).toBe('current');
      expect(client.daemon.defaultConfidenceWeight).toBe(0.2);
      expect(again.retrieval).toMatchObject({ confidenceWeight: 0.2, policy: 'confidence-v1' });
      expect(texts(again.facts)).toEqual(weightedOrder);
    } finally {
      client.close();
      await daemon.stop();
      removeDir(dataDir);
    }
  });

  test('a weight fixed by the dial option is kept across restarts: a legacy daemon refuses even a plain recall', async () => {
    const dataDir = tempDataDir();
    let daemon = await startDaemon({ dataDir });
    const client = await daemon.client({ defaultConfidenceWeight: 0.2 });
    try {
      await client.put('dial', 'a dial fact');
      expect((await client.recall('dial', 'dial')).retrieval.confidenceWeight).toBe(0.2);
      await daemon.stop();
      daemon = await startDaemon({ dataDir, args: ['--compat', 'legacy'] });
      await expect(client.recall('dial', 'dial')).rejects.toBeInstanceOf(CapabilityError);
      // Without a weight the call is legacy-shaped again.
      expect(texts((await client.recall('dial', 'dial', { confidenceWeight: 0 })).facts)).toEqual(['a dial fact']);
    } finally {
      client.close();
      await daemon.stop();
      removeDir(dataDir);
    }
  });
});

/** A namespace's facts with their access counts, read by a separate client. */
async function listWithAccess(daemon: DaemonProcess, agent: string): Promise<Fact[]> {
  const checker = await daemon.client();
  try {
    return (await checker.list(agent)).facts;
  } finally {
    checker.close();
  }
}

// ---------------------------------------------------------------------------------------------
// A daemon killed right after receiving writes.

describe('a daemon killed while confidence writes are in flight', () => {
  test('yields UncertainWriteError, and each write is stored zero or one times, never two', async () => {
    const dataDir = tempDataDir();
    let daemon = await startDaemon({ dataDir });
    const client = await daemon.client({ timeoutMs: 5000 });
    try {
      const writes = Array.from({ length: 300 }, (_, i) =>
        client.put('killed', `in flight ${i}`, { confidence: 'verified' }).then(
          () => 'ok' as const,
          (e: unknown) => e,
        ),
      );
      await new Promise((r) => setTimeout(r, 30));
      await daemon.kill9();
      const outcomes = await Promise.all(writes);
      for (const o of outcomes) if (o !== 'ok') expect(o).toBeInstanceOf(UncertainWriteError);
      const uncertain = outcomes.flatMap((o, i) => (o instanceof UncertainWriteError ? [{ i, error: o }] : []));
      expect(uncertain.length).toBeGreaterThan(0);
      // Concurrent puts go together to a current daemon; each error names the caller's own call
      // (a put) and its own request id.
      for (const { error } of uncertain) expect(error).toMatchObject({ method: 'Put', requestIds: [error.requestId] });

      daemon = await startDaemon({ dataDir });
      const checker = await daemon.client();
      const count = async () => {
        const counts = new Map<string, number>();
        for await (const f of checker.listAll('killed')) {
          expect(f.confidence).toBe('verified');
          counts.set(f.text, (counts.get(f.text) ?? 0) + 1);
        }
        return counts;
      };
      const counts = await count();
      for (const n of counts.values()) expect(n).toBe(1);
      outcomes.forEach((o, i) => {
        if (o === 'ok') expect(counts.get(`in flight ${i}`)).toBe(1);
      });
      // Resending an uncertain write with its request id settles it at exactly one copy.
      for (const { i, error } of uncertain) {
        const resent = await checker.put('killed', `in flight ${i}`, { confidence: 'verified', requestId: error.requestId });
        expect(resent.replayed).toBe(counts.get(`in flight ${i}`) === 1);
      }
      const settled = await count();
      for (const { i } of uncertain) expect(settled.get(`in flight ${i}`)).toBe(1);
      checker.close();
    } finally {
      client.close();
      await daemon.stop();
      removeDir(dataDir);
    }
  });
});
