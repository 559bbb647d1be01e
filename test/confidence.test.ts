// Confidence, revision and pins against real daemon processes: labels on writes, writes that
// return the committed fact, Revise, PatchFact, min_confidence / confidence_weight in recall, and
// the advertised default weight. Daemon-side rules are checked through the raw protocol client (bypassing the
// library's early checks); library behaviour through the library.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { create, toBinary } from '@bufbuild/protobuf';
import { createServiceClient, RpcError, type ClientOf } from '../shared/grpc/bridge.ts';
import { MemoryService, PutWithOptionsRequestSchema } from '../shared/gen/engram/v1/memory_pb.ts';
import { EngramError, type EngramClient, type ConfidenceLabel, type Fact, type Receipt } from '../client/index.ts';
import { removeDir, startDaemon, tempDataDir, type DaemonProcess } from './fixtures/daemon.ts';
import { openTables } from '../daemon/store/level/tables.ts';
import { factKey } from '../daemon/store/level/keys.ts';
import { dataPaths } from '../shared/discovery.ts';
import { expectStatus, rejectionOf } from './fixtures/errors.ts';

let daemon: DaemonProcess;
let client: EngramClient;
let raw: grpc.Client;
let memory: ClientOf<typeof MemoryService>;

beforeAll(async () => {
  daemon = await startDaemon({ embedder: 'none' });
  client = await daemon.client();
  raw = new grpc.Client(daemon.discovery.address, grpc.credentials.createInsecure());
  memory = createServiceClient(MemoryService, raw);
});

afterAll(async () => {
  client?.close();
  raw?.close();
  await daemon?.stop();
  if (daemon) removeDir(daemon.dataDir);
});

// A well-formed fact id that no fact has.
const UNKNOWN_ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
const LABELS = ['verified', 'inferred', 'unverified'] as const;
const KEYWORD_ONLY = { vector: 0, keyword: 1, recency: 0 };
const RECENCY_ONLY = { vector: 0, keyword: 0, recency: 1 };

// Helpers ------------------------------------------------------------------------------------

/** A rejection by the library before anything was sent: invalid_argument naming the field. */
async function expectRefusedByLibrary(call: Promise<unknown>, field: string): Promise<void> {
  const error = await rejectionOf(call, EngramError);
  expect(error).not.toBeInstanceOf(RpcError);
  expect(error.kind).toBe('invalid_argument');
  expect(error.field).toBe(field);
  expect(error.message.startsWith(`${field}: `), error.message).toBe(true);
}

/** The whole store's counts and namespaces, plus the listed facts of some namespaces. */
async function snapshot(agents: string[] = []) {
  const s = await client.stats();
  const lists: Record<string, Fact[]> = {};
  for (const agent of agents) lists[agent] = (await client.list(agent, { pageSize: 1000 })).facts;
  return {
    counts: [s.factCount, s.liveCount, s.retiredCount, s.pinnedCount, s.textBytes, s.newestCreatedAt],
    agents: await client.listAgents(),
    lists,
  };
}

async function expectNothingWritten(work: () => Promise<unknown>, agents: string[] = []): Promise<void> {
  const before = await snapshot(agents);
  await work();
  expect(await snapshot(agents)).toEqual(before);
}

async function put(agent: string, text: string, confidence?: string): Promise<Fact> {
  return (await client.put(agent, text, confidence === undefined ? {} : { confidence: confidence as ConfidenceLabel })).fact;
}

const texts = (facts: { text: string }[]) => facts.map((f) => f.text);

/** B = Σ w_s / (k + rank_s), in the documented order vector, keyword, recency. */
function fusedFromRanks(r: Receipt): number {
  const { weights: w, k } = r.ranks;
  let b = 0;
  if (r.ranks.vectorRank > 0) b += w.vector / (k + r.ranks.vectorRank);
  if (r.ranks.keywordRank > 0) b += w.keyword / (k + r.ranks.keywordRank);
  if (r.ranks.recencyRank > 0) b += w.recency / (k + r.ranks.recencyRank);
  return b;
}

const C: Record<string, number> = { verified: 1, inferred: 0, '': 0, unverified: -1 };
const EFFECTIVE: Record<string, string> = { verified: 'verified', inferred: 'inferred', '': 'inferred', unverified: 'unverified' };

/** Every receipt reproduces: fused_score from its ranks, final = B · (1 + w · c), order by final. */
function expectReproducibleRanking(receipts: Receipt[], weight: number): void {
  expect(receipts.length).toBeGreaterThan(0);
  for (const r of receipts) {
    const c = C[r.fact.confidence ?? '']!;
    const b = fusedFromRanks(r);
    expect(r.ranks.fusedScore).toBe(b);
    expect(r.ranking).toEqual({
      baseScore: b,
      finalScore: b * (1 + weight * c),
      factor: 1 + weight * c,
      effectiveConfidence: EFFECTIVE[r.fact.confidence ?? ''],
      confidenceValue: c,
      confidenceWeight: weight,
      policy: 'confidence-v1',
    });
    expect(r.weight).toBe(r.ranking!.finalScore);
  }
  for (let i = 1; i < receipts.length; i++) expect(receipts[i - 1]!.weight).toBeGreaterThanOrEqual(receipts[i]!.weight);
}

// (a) Labels ---------------------------------------------------------------------------------

describe('confidence labels on writes', () => {
  test('PutWithOptions accepts exactly verified, inferred and unverified', async () => {
    for (const label of LABELS) {
      const { fact, replayed } = await client.put('labels', `a ${label} fact`, { confidence: label });
      expect(replayed).toBe(false);
      expect(fact.confidence).toBe(label);
      expect((await client.get('labels', fact.id)).confidence).toBe(label);
    }
    for (const label of LABELS) {
      const { fact } = await client.putShared(`a shared ${label} fact`, { confidence: label });
      expect(fact.agentId).toBe('__shared__');
      expect(fact.confidence).toBe(label);
    }
  });

  test('an omitted label keeps the legacy empty value (Put, and PutWithOptions without a label)', async () => {
    expect((await put('labels', 'a fact without a label')).confidence).toBeUndefined();
    expect((await client.putShared('a shared fact without a label')).fact.confidence).toBeUndefined();
    const noOptions = await memory.putWithOptions({ agentId: 'labels', text: 'PutWithOptions, no options message' });
    expect(noOptions.fact!.confidence).toBe('');
    const emptyOptions = await memory.putWithOptions({ agentId: 'labels', text: 'PutWithOptions, empty options', options: {} });
    expect(emptyOptions.fact!.confidence).toBe('');
  });

  test('the daemon rejects an explicit unknown label with INVALID_ARGUMENT naming the field, and writes nothing', async () => {
    await expectNothingWritten(async () => {
      for (const label of ['Verified', 'VERIFIED', 'maybe', ' verified', '']) {
        await expectStatus(memory.putWithOptions({ agentId: 'labels-bad', text: 'x', options: { confidence: label } }), grpc.status.INVALID_ARGUMENT, 'options.confidence');
        await expectStatus(memory.putSharedWithOptions({ text: 'x', options: { confidence: label } }), grpc.status.INVALID_ARGUMENT, 'options.confidence');
      }
    }, ['labels-bad', '__shared__']);
  });

  test('the library rejects an unknown label or null before sending (field "confidence"), and writes nothing', async () => {
    await expectNothingWritten(async () => {
      for (const label of ['Verified', 'maybe', '', null, 1, true]) {
        await expectRefusedByLibrary(client.put('labels-bad', 'x', { confidence: label as never }), 'confidence');
        await expectRefusedByLibrary(client.putShared('x', { confidence: label as never }), 'confidence');
      }
    }, ['labels-bad', '__shared__']);
  });

  test('protobuf has no null: a null label encodes exactly as an omitted one, so null can only be refused by the library', () => {
    const encode = (options: object) => toBinary(PutWithOptionsRequestSchema, create(PutWithOptionsRequestSchema, { agentId: 'a', text: 't', options }));
    expect(encode({ confidence: null })).toEqual(encode({}));
    expect(encode({ confidence: '' })).not.toEqual(encode({})); // "" is present on the wire, and refused above
  });

  test('a legacy empty label counts as inferred (c = 0) for the weight and the filter', async () => {
    const legacy = await put('labels-eff', 'the legacy label note');
    const inferred = await put('labels-eff', 'the inferred label note', 'inferred');
    const { receipts } = await client.recallExplain('labels-eff', 'label note', { confidenceWeight: 0.3 });
    const byId = new Map(receipts.map((r) => [r.fact.id, r]));
    expect(byId.get(legacy.id)!.ranking).toMatchObject({ effectiveConfidence: 'inferred', confidenceValue: 0, factor: 1 });
    expect(byId.get(inferred.id)!.ranking).toMatchObject({ effectiveConfidence: 'inferred', confidenceValue: 0, factor: 1 });
    expect(texts((await client.recall('labels-eff', 'label note', { minConfidence: 'inferred' })).facts).sort()).toEqual(
      ['the inferred label note', 'the legacy label note'],
    );
    expect((await client.recall('labels-eff', 'label note', { minConfidence: 'verified' })).facts).toEqual([]);
  });
});

describe('an unknown historical label', () => {
  // It writes the record as another version would, into the embedded store's files.
  test.skipIf(process.env.ENGRAM_TEST_STORE === 'postgres')('is preserved by every lifecycle write and counts as unverified in recall and revise', async () => {
    const dataDir = tempDataDir();
    const agent = 'historic';
    let d = await startDaemon({ dataDir });
    let c = await d.client();
    const odd = (await c.put(agent, 'harbor crane schedule alpha')).fact;
    const known = (await c.put(agent, 'harbor crane schedule beta', { confidence: 'inferred' })).fact;
    c.close();
    await d.stop();
    // A record as another version wrote it, with a label this version does not know.
    const tables = await openTables(dataPaths(dataDir).store);
    const key = factKey(agent, odd.id);
    await tables.facts.put(key, { ...(await tables.facts.get(key))!, confidence: 'probable' });
    await tables.db.close();

    const restart = async (args: string[] = []) => {
      c.close();
      await d.stop();
      d = await startDaemon({ dataDir, args });
      c = await d.client();
    };
    d = await startDaemon({ dataDir });
    c = await d.client();
    try {
      expect((await c.get(agent, odd.id)).confidence).toBe('probable');
      const { receipts } = await c.recallExplain(agent, 'harbor crane', { confidenceWeight: 0.3 });
      expect(receipts.find((r) => r.fact.id === odd.id)!.ranking).toMatchObject({ effectiveConfidence: 'unverified', confidenceValue: -1, factor: 0.7 });
      expect((await c.recall(agent, 'harbor crane', { minConfidence: 'inferred' })).facts.map((f) => f.id)).toEqual([known.id]);
      expect((await c.recall(agent, 'harbor crane', { minConfidence: 'unverified' })).facts.map((f) => f.id).sort()).toEqual([odd.id, known.id].sort());

      // PatchFact and the legacy whole-fact UpdateFact keep it; a different unknown label is refused.
      expect((await c.pin(agent, odd.id)).confidence).toBe('probable');
      expect((await c.unpin(agent, odd.id)).confidence).toBe('probable');
      expect((await c.updateFact(agent, { ...(await c.get(agent, odd.id)), tags: ['port'] })).confidence).toBe('probable');
      await expectStatus(c.updateFact(agent, { ...(await c.get(agent, odd.id)), confidence: 'likely' }), grpc.status.INVALID_ARGUMENT, 'fact.confidence');

      // The UpdateFact fallback of an older daemon keeps it too.
      await restart(['--compat', 'legacy']);
      expect((await c.pin(agent, odd.id)).confidence).toBe('probable');
      expect((await c.get(agent, odd.id))).toMatchObject({ confidence: 'probable', pinned: true, tags: ['port'] });

      // Revising it with the label omitted is conservative: unverified.
      await restart();
      const { replacement } = await c.revise(agent, [odd.id, known.id], 'harbor crane schedule, merged');
      expect(replacement.confidence).toBe('unverified');
      expect((await c.get(agent, odd.id))).toMatchObject({ confidence: 'probable', supersededBy: replacement.id });
    } finally {
      c.close();
      await d.stop();
      removeDir(dataDir);
    }
  });
});

// (b) Writes return the committed fact -------------------------------------------------------

describe('PutWithOptions and PutSharedWithOptions return the exact committed fact', () => {
  test('the returned fact equals a later Get, field for field', async () => {
    const { fact } = await client.put('exact', 'Invoices are archived after seven years', {
      confidence: 'verified',
      tags: ['finance', 'policy'],
      entities: ['invoices'],
      source: 'handbook',
      context: 'finance chapter',
      metaJson: '{"page":12}',
      occurredAt: Date.UTC(2024, 4, 8),
    });
    expect(fact.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(await client.get('exact', fact.id)).toEqual(fact);

    const shared = (await client.putShared('The shared drive is read-only on Sundays', { confidence: 'unverified', tags: ['it'] })).fact;
    expect(await client.get('__shared__', shared.id)).toEqual(shared);
  });

  test('a repeated request id returns the original fact (replayed) and stores one copy', async () => {
    const first = await client.put('exact-replay', 'replayed confidence write', { confidence: 'inferred', requestId: 'exact-replay-1' });
    const again = await client.put('exact-replay', 'replayed confidence write', { confidence: 'inferred', requestId: 'exact-replay-1' });
    expect(again.replayed).toBe(true);
    expect(again.fact).toEqual(first.fact);
    expect((await client.list('exact-replay')).facts).toHaveLength(1);
  });
});

// (c) Revise ---------------------------------------------------------------------------------

describe('Revise', () => {
  test('one target: the replacement is returned as committed, the target is retired by it', async () => {
    const target = await put('revise-one', 'The standup is at 9:30', 'verified');
    const result = await client.revise('revise-one', [target.id], 'The standup is at 10:00');
    expect(result.replayed).toBe(false);
    expect(result.failures).toEqual([]);
    expect(result.retiredIds).toEqual([target.id]);
    expect(result.replacement.text).toBe('The standup is at 10:00');
    expect(result.replacement.supersededBy).toBeUndefined();
    expect(await client.get('revise-one', result.replacement.id)).toEqual(result.replacement);
    expect((await client.get('revise-one', target.id)).supersededBy).toBe(result.replacement.id);
  });

  test.each([
    { targets: ['verified'], expected: 'inferred' },
    { targets: ['verified', 'verified'], expected: 'inferred' },
    { targets: ['verified', 'unverified'], expected: 'unverified' },
    { targets: ['inferred', 'verified'], expected: 'inferred' },
    { targets: ['', 'verified'], expected: 'inferred' },
    { targets: ['unverified'], expected: 'unverified' },
  ])('an omitted label is min(inferred, lowest target): $targets → $expected', async ({ targets, expected }) => {
    const agent = `revise-min-${targets.join('-') || 'legacy'}`;
    const ids: string[] = [];
    for (const [i, label] of targets.entries()) ids.push((await put(agent, `source fact ${i}`, label || undefined)).id);
    const result = await client.revise(agent, ids, 'the merged fact');
    expect(result.replacement.confidence).toBe(expected);
    expect(result.retiredIds).toEqual(ids);
  });

  test('an explicit label overrides the derived one', async () => {
    const a = await put('revise-explicit', 'the old estimate A', 'verified');
    const b = await put('revise-explicit', 'the old estimate B', 'unverified');
    const result = await client.revise('revise-explicit', [a.id, b.id], 'the checked estimate', { confidence: 'verified' });
    expect(result.replacement.confidence).toBe('verified');
  });

  test('the replacement never inherits a pin', async () => {
    const target = await put('revise-pin', 'a pinned rule', 'verified');
    await client.pin('revise-pin', target.id);
    const { replacement } = await client.revise('revise-pin', [target.id], 'the revised rule');
    expect(replacement.pinned).toBe(false);
    expect(replacement.pinnedAt).toBeUndefined();
    expect((await client.get('revise-pin', replacement.id)).pinned).toBe(false);
  });

  test('several targets: all retired by the one replacement, never recalled again, still listed', async () => {
    const ids = [
      (await put('revise-many', 'Ana leads the mobile team', 'verified')).id,
      (await put('revise-many', 'Ana leads the web team', 'unverified')).id,
      (await put('revise-many', 'Ana will lead the platform team')).id,
    ];
    const { replacement, retiredIds } = await client.revise('revise-many', ids, 'Ana leads the platform team');
    expect(retiredIds).toEqual(ids);
    for (const id of ids) expect((await client.get('revise-many', id)).supersededBy).toBe(replacement.id);

    const recalls = [
      (await client.recall('revise-many', 'Ana leads team')).facts,
      (await client.recall('revise-many', 'Ana leads team', { topK: 50, weights: RECENCY_ONLY })).facts,
      (await client.recall('revise-many', 'Ana mobile web', { minConfidence: 'unverified', confidenceWeight: 0.5 })).facts,
      (await client.recallExplain('revise-many', 'Ana mobile web team', { topK: 50 })).receipts.map((r) => r.fact),
      (await client.recallAll('revise-many', 'Ana mobile web team', { topK: 50 })).facts,
      (await client.batchRecall('revise-many', ['mobile', 'web', 'platform'])).merged,
    ];
    for (const facts of recalls) {
      expect(facts.map((f) => f.id)).not.toContain(ids[0]);
      expect(facts.map((f) => f.id)).not.toContain(ids[1]);
      expect(facts.map((f) => f.id)).not.toContain(ids[2]);
    }
    expect(recalls[0]!.map((f) => f.id)).toEqual([replacement.id]);
    const listed = (await client.list('revise-many')).facts;
    expect(listed.map((f) => f.id)).toEqual([...ids, replacement.id]);
    expect((await client.stats('revise-many')).retiredCount).toBe(3);
  });

  test('an unknown target is NOT_FOUND and nothing is written', async () => {
    const live = await put('revise-unknown', 'still live', 'verified');
    await expectNothingWritten(async () => {
      await expectStatus(client.revise('revise-unknown', [live.id, UNKNOWN_ID], 'never stored'), grpc.status.NOT_FOUND);
    }, ['revise-unknown']);
    expect((await client.get('revise-unknown', live.id)).supersededBy).toBeUndefined();
  });

  test('an already-retired target is FAILED_PRECONDITION and nothing is written', async () => {
    const live = await put('revise-retired', 'a live fact');
    const old = await put('revise-retired', 'a forgotten fact');
    await client.forget('revise-retired', old.id);
    await expectNothingWritten(async () => {
      await expectStatus(client.revise('revise-retired', [live.id, old.id], 'never stored'), grpc.status.FAILED_PRECONDITION, 'target_ids[1]');
    }, ['revise-retired']);
    expect((await client.get('revise-retired', live.id)).supersededBy).toBeUndefined();
  });

  test('invalid input is refused before any effect: no targets, a target twice, a bad label', async () => {
    const live = await put('revise-input', 'a live fact');
    await expectNothingWritten(async () => {
      await expectStatus(memory.revise({ agentId: 'revise-input', targetIds: [], text: 'x' }), grpc.status.INVALID_ARGUMENT, 'target_ids');
      await expectStatus(memory.revise({ agentId: 'revise-input', targetIds: [live.id, live.id], text: 'x' }), grpc.status.INVALID_ARGUMENT, 'target_ids');
      await expectStatus(
        memory.revise({ agentId: 'revise-input', targetIds: [live.id], text: 'x', options: { confidence: 'Verified' } }),
        grpc.status.INVALID_ARGUMENT,
        'options.confidence',
      );
      await expectRefusedByLibrary(client.revise('revise-input', [live.id], 'x', { confidence: null as never }), 'confidence');
    }, ['revise-input']);
  });

  test('the same request id twice gives one replacement (replayed: true)', async () => {
    const a = await put('revise-replay', 'replay source A', 'verified');
    const b = await put('revise-replay', 'replay source B', 'verified');
    const first = await client.revise('revise-replay', [a.id, b.id], 'replay replacement', { requestId: 'revise-replay-1' });
    const second = await client.revise('revise-replay', [a.id, b.id], 'replay replacement', { requestId: 'revise-replay-1' });
    expect(first.replayed).toBe(false);
    expect(second.replayed).toBe(true);
    expect(second.replacement.id).toBe(first.replacement.id);
    expect(second.retiredIds).toEqual([a.id, b.id]);
    expect(second.failures).toEqual([]);
    const listed = (await client.list('revise-replay')).facts;
    expect(listed.filter((f) => f.text === 'replay replacement')).toHaveLength(1);
    expect(listed).toHaveLength(3);
  });
});

// (d) PatchFact ------------------------------------------------------------------------------

describe('PatchFact', () => {
  /** A fact with every field set, recalled twice so its access count is not zero. */
  async function richFact(agent: string): Promise<Fact> {
    const { fact } = await client.put(agent, 'The VPN gateway is vpn.example.org', {
      confidence: 'verified',
      tags: ['network', 'ops'],
      entities: ['vpn'],
      source: 'runbook',
      context: 'remote access',
      metaJson: '{"owner":"it"}',
      occurredAt: Date.UTC(2024, 0, 15),
    });
    await client.recall(agent, 'VPN gateway');
    await client.recall(agent, 'VPN gateway');
    const read = await client.get(agent, fact.id);
    expect(read.accessCount).toBe(2);
    return read;
  }

  /** Everything but the fields a patch may change. */
  const unrelated = (f: Fact, ...changed: (keyof Fact)[]) => {
    const copy: Partial<Fact> = { ...f };
    for (const key of ['updatedAt', ...changed] as (keyof Fact)[]) delete copy[key];
    return copy;
  };

  test('pin sets pinned and pinned_at and preserves every other field', async () => {
    const before = await richFact('patch-pin');
    const pinned = await client.pin('patch-pin', before.id);
    expect(pinned.pinned).toBe(true);
    expect(pinned.pinnedAt).toBeGreaterThanOrEqual(before.createdAt);
    expect(unrelated(pinned, 'pinned', 'pinnedAt')).toEqual(unrelated(before, 'pinned', 'pinnedAt'));
    expect(await client.get('patch-pin', before.id)).toEqual(pinned);
    // Pinning again keeps the original pin time.
    expect((await client.pin('patch-pin', before.id)).pinnedAt).toBe(pinned.pinnedAt);
    expect((await client.stats('patch-pin')).pinnedCount).toBe(1);
  });

  test('unpin clears pinned and pinned_at and preserves every other field', async () => {
    const before = await richFact('patch-unpin');
    await client.pin('patch-unpin', before.id);
    const unpinned = await client.unpin('patch-unpin', before.id);
    expect(unpinned.pinned).toBe(false);
    expect(unpinned.pinnedAt).toBeUndefined();
    expect(unrelated(unpinned)).toEqual(unrelated(before));
    expect(await client.get('patch-unpin', before.id)).toEqual(unpinned);
  });

  test('a confidence patch changes only the label; an invalid one is refused', async () => {
    const before = await richFact('patch-conf');
    await client.pin('patch-conf', before.id);
    const pinned = await client.get('patch-conf', before.id);
    const changed = await client.setConfidence('patch-conf', before.id, 'unverified');
    expect(changed.confidence).toBe('unverified');
    expect(unrelated(changed, 'confidence')).toEqual(unrelated(pinned, 'confidence'));
    await expectNothingWritten(async () => {
      await expectStatus(memory.patchFact({ agentId: 'patch-conf', factId: before.id, confidence: 'Verified' }), grpc.status.INVALID_ARGUMENT, 'confidence');
      await expectRefusedByLibrary(client.setConfidence('patch-conf', before.id, 'maybe'), 'confidence');
    }, ['patch-conf']);
  });

  test('forget retires the fact: superseded_by "agent", never recalled, still listed', async () => {
    const before = await richFact('patch-forget');
    const forgotten = await client.forget('patch-forget', before.id);
    expect(forgotten.supersededBy).toBe('agent');
    expect(unrelated(forgotten, 'supersededBy')).toEqual(unrelated(before, 'supersededBy'));
    expect((await client.recall('patch-forget', 'VPN gateway')).facts).toEqual([]);
    expect((await client.list('patch-forget')).facts.map((f) => f.id)).toEqual([before.id]);
  });

  test('forgetting a revised fact keeps its replacement id', async () => {
    const target = await put('patch-forget-revised', 'the first draft');
    const { replacement } = await client.revise('patch-forget-revised', [target.id], 'the second draft');
    expect((await client.forget('patch-forget-revised', target.id)).supersededBy).toBe(replacement.id);
  });

  test('a patch naming nothing, or an unknown fact, is refused', async () => {
    const fact = await put('patch-input', 'some fact');
    await expectNothingWritten(async () => {
      await expectStatus(memory.patchFact({ agentId: 'patch-input', factId: fact.id }), grpc.status.INVALID_ARGUMENT, 'patch');
      await expectStatus(memory.patchFact({ agentId: 'patch-input', factId: UNKNOWN_ID, pinned: true }), grpc.status.NOT_FOUND);
    }, ['patch-input']);
  });

  test('a retired fact is never revived by a later write', async () => {
    const agent = 'patch-revive';
    const fact = await put(agent, 'The old office is on Elm Street', 'verified');
    const { replacement } = await client.revise(agent, [fact.id], 'The office is on Oak Street');
    const forgotten = await put(agent, 'The parking permit is blue', 'verified');
    await client.forget(agent, forgotten.id);

    for (const [id, retiredBy] of [[fact.id, replacement.id], [forgotten.id, 'agent']] as const) {
      // Lifecycle patches on a retired fact keep it retired.
      expect((await client.pin(agent, id)).supersededBy).toBe(retiredBy);
      expect((await client.setConfidence(agent, id, 'verified')).supersededBy).toBe(retiredBy);
      expect((await client.unpin(agent, id)).supersededBy).toBe(retiredBy);
      expect((await client.forget(agent, id)).supersededBy).toBe(retiredBy);
      // The legacy whole-fact replace cannot clear or re-point superseded_by.
      const current = await client.get(agent, id);
      await expectNothingWritten(async () => {
        await expectStatus(client.updateFact(agent, { ...current, supersededBy: '' }), grpc.status.FAILED_PRECONDITION, 'fact.superseded_by');
        await expectStatus(client.updateFact(agent, { ...current, supersededBy: UNKNOWN_ID }), grpc.status.FAILED_PRECONDITION, 'fact.superseded_by');
        await expectStatus(client.revise(agent, [id], 'a revision of a retired fact'), grpc.status.FAILED_PRECONDITION);
      }, [agent]);
      // A legacy UpdateFact that leaves superseded_by alone keeps it retired, too.
      expect((await client.updateFact(agent, { ...current, tags: ['edited'] })).supersededBy).toBe(retiredBy);
      expect((await client.get(agent, id)).supersededBy).toBe(retiredBy);
    }

    const every = [
      await client.recall(agent, 'office Elm Street parking permit blue', { topK: 50 }),
      await client.recall(agent, 'Elm parking', { topK: 50, minConfidence: 'inferred', confidenceWeight: 0.5 }),
      await client.recall(agent, '', { topK: 50, weights: RECENCY_ONLY }),
      await client.recallExplain(agent, 'Elm parking permit', { topK: 50 }),
    ];
    for (const { facts } of every) expect(facts.map((f) => f.id)).toEqual([replacement.id]);
    expect((await client.stats(agent)).retiredCount).toBe(2);

    // Rebuilding every derived index from the facts does not bring them back either.
    for await (const _ of client.doctor({ rebuild: true })) void _;
    expect((await client.recall(agent, 'office Elm Street parking permit blue', { topK: 50 })).facts.map((f) => f.id)).toEqual([replacement.id]);
    expect((await client.get(agent, fact.id)).supersededBy).toBe(replacement.id);
    expect((await client.get(agent, forgotten.id)).supersededBy).toBe('agent');
  });
});

// (e) Recall options -------------------------------------------------------------------------

describe('min_confidence', () => {
  test('filters before document frequencies: a df-only difference flips the keyword ranks', async () => {
    // Both verified facts match one query term each, with equal length and tf. Only document
    // frequency separates them: "saffron" is common among the unverified facts, "quinoa" is rare.
    const saffron = await put('df', 'saffron harvest', 'verified');
    const quinoa = await put('df', 'quinoa harvest', 'verified');
    for (const w of ['market', 'price', 'tea', 'rice']) await put('df', `saffron ${w}`, 'unverified');

    const all = await client.recallExplain('df', 'saffron quinoa', { weights: KEYWORD_ONLY, topK: 10 });
    const rank = (res: typeof all, id: string) => res.receipts.find((r) => r.fact.id === id)!.ranks.keywordRank;
    // Over the whole namespace, the rare term wins.
    expect(rank(all, quinoa.id)).toBe(1);
    expect(rank(all, saffron.id)).toBe(2);
    expect(all.retrieval.eligibleCount).toBe(6);

    // With the filter first, both terms have df 1: a tie, broken by age, so "saffron" leads.
    // (Filtering after scoring would have kept quinoa first.)
    const verified = await client.recallExplain('df', 'saffron quinoa', { weights: KEYWORD_ONLY, topK: 10, minConfidence: 'verified' });
    expect(verified.receipts.map((r) => r.fact.id)).toEqual([saffron.id, quinoa.id]);
    expect(verified.receipts.map((r) => r.ranks.keywordRank)).toEqual([1, 2]);
    expect(verified.receipts.map((r) => r.ranks.fusedScore)).toEqual([1 / 61, 1 / 62]);
    expect(verified.retrieval).toMatchObject({ eligibleCount: 2, keywordCandidates: 2, filtered: true, minConfidence: 'verified' });
  });

  test('filtered-out facts never appear, in any scope or call, and eligible_count shrinks', async () => {
    const agent = 'minconf';
    await put(agent, 'gardening tip one', 'verified');
    await put(agent, 'gardening tip two', 'inferred');
    await put(agent, 'gardening tip three');
    await put(agent, 'gardening tip four', 'unverified');
    await client.putShared('gardening tip shared verified', { confidence: 'verified' });
    await client.putShared('gardening tip shared unverified', { confidence: 'unverified' });

    const expectations = [
      { min: 'verified', labels: ['verified'], eligible: 1 },
      { min: 'inferred', labels: ['verified', 'inferred', ''], eligible: 3 },
      { min: 'unverified', labels: ['verified', 'inferred', '', 'unverified'], eligible: 4 },
    ] as const;
    for (const { min, labels, eligible } of expectations) {
      const options = { minConfidence: min, topK: 50 };
      const recall = await client.recall(agent, 'gardening tip', options);
      expect(recall.facts.map((f) => f.confidence ?? '').sort()).toEqual([...labels].sort());
      expect(recall.retrieval.eligibleCount).toBe(eligible);
      const recency = await client.recall(agent, '', { ...options, weights: RECENCY_ONLY });
      expect(recency.facts.map((f) => f.confidence ?? '').sort()).toEqual([...labels].sort());
      const all = await client.recallAll(agent, 'gardening tip', options);
      for (const f of all.facts) expect(labels as readonly string[]).toContain(f.confidence ?? '');
      const shared = await client.recallShared('gardening tip shared', options);
      for (const f of shared.facts) expect(labels as readonly string[]).toContain(f.confidence ?? '');
      const batch = await client.batchRecall(agent, ['gardening', 'tip'], options);
      for (const f of [...batch.merged, ...batch.results.flatMap((r) => r.facts)]) expect(labels as readonly string[]).toContain(f.confidence ?? '');
      expect(batch.retrieval).toMatchObject({ minConfidence: min, policy: 'confidence-v1', kg: 'suppressed_min_confidence' });
    }
  });

  test('an unknown min_confidence is refused with the field named', async () => {
    await expectStatus(memory.recallWithOptions({ agentId: 'minconf', query: 'tip', options: { minConfidence: 'Verified' } }), grpc.status.INVALID_ARGUMENT, 'options.min_confidence');
    await expectStatus(memory.batchRecall({ agentId: 'minconf', queries: ['tip'], options: { minConfidence: '' } }), grpc.status.INVALID_ARGUMENT, 'options.min_confidence');
    await expectRefusedByLibrary(client.recall('minconf', 'tip', { minConfidence: 'maybe' as never }), 'minConfidence');
    await expectRefusedByLibrary(client.recall('minconf', 'tip', { minConfidence: null as never }), 'minConfidence');
  });
});

describe('confidence_weight', () => {
  const agent = 'cw';
  let ids: Record<string, string>;

  beforeAll(async () => {
    // Oldest to newest: the recency signal alone prefers the unverified fact.
    ids = {
      verified: (await put(agent, 'tulip ledger verified', 'verified')).id,
      legacy: (await put(agent, 'tulip ledger legacy')).id,
      inferred: (await put(agent, 'tulip ledger inferred', 'inferred')).id,
      unverified: (await put(agent, 'tulip ledger unverified', 'unverified')).id,
    };
  });

  test('final = B · (1 + w · c): weight 0.5 reorders recency-only results by confidence band', async () => {
    const plain = await client.recallExplain(agent, 'tulip', { weights: RECENCY_ONLY, confidenceWeight: 0 });
    expect(plain.receipts.map((r) => r.fact.id)).toEqual([ids.unverified, ids.inferred, ids.legacy, ids.verified]);
    expectReproducibleRanking(plain.receipts, 0);

    const weighted = await client.recallExplain(agent, 'tulip', { weights: RECENCY_ONLY, confidenceWeight: 0.5 });
    expect(weighted.receipts.map((r) => r.fact.id)).toEqual([ids.verified, ids.inferred, ids.legacy, ids.unverified]);
    expectReproducibleRanking(weighted.receipts, 0.5);
    // Receipts keep the ranks and B: only the final score moved.
    const base = (res: typeof plain) => new Map(res.receipts.map((r) => [r.fact.id, [r.ranks.recencyRank, r.ranks.fusedScore]]));
    expect(base(weighted)).toEqual(base(plain));
    // Recall and explain agree.
    const recalled = await client.recall(agent, 'tulip', { weights: RECENCY_ONLY, confidenceWeight: 0.5 });
    expect(recalled.facts.map((f) => f.id)).toEqual(weighted.receipts.map((r) => r.fact.id));
  });

  test('with keyword and recency signals every receipt reproduces for any weight in [0, 0.5]', async () => {
    for (const w of [0, 0.1, 0.25, 0.3, 0.5]) {
      // minRelevance 0 keeps even w = 0 on RecallWithOptions (no options at all would be a legacy call).
      const { receipts, retrieval } = await client.recallExplain(agent, 'tulip ledger verified', { confidenceWeight: w, minRelevance: 0 });
      expect(receipts).toHaveLength(4);
      expectReproducibleRanking(receipts, w);
      expect(retrieval).toMatchObject({ confidenceWeight: w, policy: 'confidence-v1', kg: '' });
      expect(retrieval.minConfidence).toBeUndefined();
    }
  });

  test('out-of-range and non-finite weights are refused (daemon and library), naming the field', async () => {
    for (const w of [0.6, -0.1, NaN, Infinity, 0.5000001]) {
      await expectStatus(memory.recallWithOptions({ agentId: agent, query: 'tulip', options: { confidenceWeight: w } }), grpc.status.INVALID_ARGUMENT, 'options.confidence_weight');
      await expectStatus(memory.batchRecall({ agentId: agent, queries: ['tulip'], options: { confidenceWeight: w } }), grpc.status.INVALID_ARGUMENT, 'options.confidence_weight');
      await expectRefusedByLibrary(client.recall(agent, 'tulip', { confidenceWeight: w }), 'confidenceWeight');
      await expectRefusedByLibrary(client.batchRecall(agent, ['tulip'], { confidenceWeight: w }), 'confidenceWeight');
    }
  });

  test('retrieval metadata reports the effective options; a filter suppresses knowledge-graph hints', async () => {
    const filtered = await client.recall(agent, 'tulip', { minConfidence: 'inferred', confidenceWeight: 0.3 });
    expect(filtered.retrieval).toMatchObject({ minConfidence: 'inferred', confidenceWeight: 0.3, policy: 'confidence-v1', kg: 'suppressed_min_confidence', filtered: true });
    const zero = await client.recall(agent, 'tulip', { minConfidence: 'unverified', confidenceWeight: 0 });
    // Explicit zero weight keeps the filter.
    expect(zero.retrieval).toMatchObject({ minConfidence: 'unverified', confidenceWeight: 0, policy: 'confidence-v1', kg: 'suppressed_min_confidence' });
  });

  test('legacy calls (no options, no advertised default) report no confidence policy and carry no ranking', async () => {
    expect(client.daemon.defaultConfidenceWeight).toBeUndefined();
    for (const res of [
      await client.recall(agent, 'tulip'),
      await client.recall(agent, 'tulip', { topK: 3 }),
      await client.recallAll(agent, 'tulip'),
      await client.recallShared('tulip'),
      await memory.recall({ agentId: agent, query: 'tulip' }).then((r) => ({ retrieval: r.retrieval! })),
    ]) {
      expect(res.retrieval.policy).toBe('');
      expect(res.retrieval.kg).toBe('');
      expect(res.retrieval.confidenceWeight).toBeUndefined();
      expect(res.retrieval.minConfidence).toBeUndefined();
    }
    const explained = await client.recallExplain(agent, 'tulip');
    expect(explained.retrieval.policy).toBe('');
    expect(explained.receipts.length).toBe(4);
    for (const r of explained.receipts) {
      expect(r.ranking).toBeUndefined();
      expect(r.weight).toBe(r.ranks.fusedScore);
    }
    // Legacy ranking is the weight-0 ranking.
    const weighted0 = await client.recallExplain(agent, 'tulip', { confidenceWeight: 0, minConfidence: 'unverified' });
    expect(weighted0.receipts.map((r) => [r.fact.id, r.weight])).toEqual(explained.receipts.map((r) => [r.fact.id, r.weight]));
  });
});

// (f) The advertised default weight ------------------------------------------------------------

describe('--default-confidence-weight', () => {
  let weighted: DaemonProcess;
  let ids: { verified: string; unverified: string };
  const agent = 'default-w';
  // At w = 0 the newer, shorter unverified fact wins both signals; at w = 0.2 the verified one leads.
  const AT_ZERO = () => [ids.unverified, ids.verified];
  const AT_POSITIVE = () => [ids.verified, ids.unverified];

  beforeAll(async () => {
    weighted = await startDaemon({ embedder: 'none', args: ['--default-confidence-weight', '0.2'] });
    const c = await weighted.client();
    ids = {
      verified: (await c.put(agent, 'kiwi orchard yearly report for the north field', { confidence: 'verified' })).fact.id,
      unverified: (await c.put(agent, 'kiwi orchard', { confidence: 'unverified' })).fact.id,
    };
    c.close();
  });

  afterAll(async () => {
    await weighted?.stop();
    if (weighted) removeDir(weighted.dataDir);
  });

  test('is advertised in Hello', async () => {
    const c = await weighted.client();
    expect(c.daemon.defaultConfidenceWeight).toBe(0.2);
    expect(c.daemon.profile).toBe('current');
    c.close();
  });

  test('a client recall with no weight resolves to it, sends it, and the metadata says 0.2', async () => {
    const c = await weighted.client();
    const { facts, retrieval } = await c.recall(agent, 'kiwi orchard');
    expect(facts.map((f) => f.id)).toEqual(AT_POSITIVE());
    expect(retrieval).toMatchObject({ confidenceWeight: 0.2, policy: 'confidence-v1', kg: '' });
    const { receipts } = await c.recallExplain(agent, 'kiwi orchard');
    expectReproducibleRanking(receipts, 0.2);
    const batch = await c.batchRecall(agent, ['kiwi', 'orchard']);
    expect(batch.retrieval).toMatchObject({ confidenceWeight: 0.2, policy: 'confidence-v1' });
    expect(batch.merged.map((f) => f.id)).toEqual(AT_POSITIVE());
    c.close();
  });

  test('the dial option defaultConfidenceWeight: 0 overrides the advertised default', async () => {
    const c = await weighted.client({ defaultConfidenceWeight: 0 });
    const { facts, retrieval } = await c.recall(agent, 'kiwi orchard');
    expect(facts.map((f) => f.id)).toEqual(AT_ZERO());
    // Effectively legacy: the historical RPC, which reports no confidence policy.
    expect(retrieval.policy).toBe('');
    const withOptions = await c.recall(agent, 'kiwi orchard', { minRelevance: 0 });
    expect(withOptions.retrieval).toMatchObject({ confidenceWeight: 0, policy: 'confidence-v1' });
    expect(withOptions.facts.map((f) => f.id)).toEqual(AT_ZERO());
    c.close();
  });

  test('an explicit per-call 0 overrides both the dial option and the advertised default', async () => {
    const c = await weighted.client({ defaultConfidenceWeight: 0.5 });
    expect((await c.recall(agent, 'kiwi orchard')).retrieval.confidenceWeight).toBe(0.5);
    const zero = await c.recall(agent, 'kiwi orchard', { confidenceWeight: 0 });
    expect(zero.facts.map((f) => f.id)).toEqual(AT_ZERO());
    expect(zero.retrieval.policy).toBe('');
    const zeroWithFilter = await c.recall(agent, 'kiwi orchard', { confidenceWeight: 0, minConfidence: 'unverified' });
    expect(zeroWithFilter.facts.map((f) => f.id)).toEqual(AT_ZERO());
    expect(zeroWithFilter.retrieval).toMatchObject({ confidenceWeight: 0, minConfidence: 'unverified', policy: 'confidence-v1' });
    c.close();
  });

  test('the legacy Recall RPCs keep weight 0 on that daemon', async () => {
    const rawClient = new grpc.Client(weighted.discovery.address, grpc.credentials.createInsecure());
    const m = createServiceClient(MemoryService, rawClient);
    try {
      const recall = await m.recall({ agentId: agent, query: 'kiwi orchard' });
      expect(recall.facts.map((f) => f.id)).toEqual(AT_ZERO());
      expect(recall.retrieval!.policy).toBe('');
      expect(recall.retrieval!.confidenceWeight).toBeUndefined();
      const explain = await m.recallExplain({ agentId: agent, query: 'kiwi orchard' });
      expect(explain.receipts.map((r) => r.fact!.id)).toEqual(AT_ZERO());
      expect(explain.receipts.every((r) => r.ranking === undefined && r.weight === r.ranks!.fusedScore)).toBe(true);
      const all = await m.recallAll({ agentId: agent, query: 'kiwi orchard' });
      expect(all.retrieval!.policy).toBe('');
    } finally {
      rawClient.close();
    }
  });

  test('out of range, the daemon refuses to start with a clear message (flag and environment)', async () => {
    const dataDir = tempDataDir();
    try {
      await expect(startDaemon({ dataDir, args: ['--default-confidence-weight', '0.7'] })).rejects.toThrow(
        /daemon exited with [1-9]\d*:[\s\S]*--default-confidence-weight must be a finite number in \[0, 0\.5\], got "0\.7"/,
      );
      await expect(startDaemon({ dataDir, env: { ENGRAM_DEFAULT_CONFIDENCE_WEIGHT: 'NaN' } })).rejects.toThrow(
        /daemon exited with [1-9]\d*:[\s\S]*confidence-weight must be a finite number/,
      );
    } finally {
      removeDir(dataDir);
    }
  });

  test('the environment variable sets the advertised default too', async () => {
    const fromEnv = await startDaemon({ env: { ENGRAM_DEFAULT_CONFIDENCE_WEIGHT: '0.35' } });
    try {
      const c = await fromEnv.client();
      expect(c.daemon.defaultConfidenceWeight).toBe(0.35);
      c.close();
    } finally {
      await fromEnv.stop();
      removeDir(fromEnv.dataDir);
    }
  });
});
