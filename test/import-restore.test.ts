// `engram export` → `engram import` as a full backup (restore-write-v1), run as a user runs them
// against real daemons: a store with used facts, a consolidation's summary and a revision is
// exported and imported into a fresh daemon, whose facts then carry the same use statistics, kind
// and lineage; a re-run stores nothing; bad restore fields are refused naming the field, with
// nothing written; and against a daemon without the capability (--compat v0.3) the import falls
// back to assigning them afresh, and says so.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServiceClient } from '../shared/grpc/bridge.ts';
import { MemoryService } from '../shared/gen/engram/v1/memory_pb.ts';
import { FactKind } from '../shared/gen/engram/v1/fact_pb.ts';
import { CapabilityError, type EngramClient } from '../client/index.ts';
import { runEngram, type CliRun } from './fixtures/cli.ts';
import { removeDir, startDaemon, tempDataDir, type DaemonProcess } from './fixtures/daemon.ts';

/** Every unpinned fact is faded at once (a fresh fact scores about 1), so a run consolidates now. */
const FADED = ['--consolidate-below', '5', '--consolidate-every', '0'];
const AGENT = 'restore-source';

let source: DaemonProcess;
let target: DaemonProcess;
let older: DaemonProcess;
let client: EngramClient;
let cwd: string;
let exported: string;

const engram = (daemon: DaemonProcess, args: string[]): Promise<CliRun> => runEngram(args, { dataDir: daemon.dataDir, cwd });
const parseJsonl = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
const exportOf = async (daemon: DaemonProcess, agent: string): Promise<any[]> => {
  const run = await engram(daemon, ['export', agent]);
  expect(run.code, run.stderr).toBe(0);
  return parseJsonl(run.stdout);
};

/** What a restore gives back, each fact's lineage and retirement as positions in its export. */
function restoredState(lines: any[]) {
  const at = (id: string) => lines.findIndex((l) => l.id === id);
  return lines.map((l) => ({
    text: l.text,
    kind: l.kind,
    use_count: l.use_count,
    review_count: l.review_count,
    cross_domain_count: l.cross_domain_count,
    last_used_at: l.last_used_at,
    replaces: l.replaces.map(at),
    promoted_at: l.promoted_at,
    superseded_by: l.superseded_by === null || l.superseded_by === 'agent' ? l.superseded_by : at(l.superseded_by),
  }));
}

beforeAll(async () => {
  cwd = tempDataDir('engram-restore-cwd-');
  const vault = join(cwd, 'vault');
  mkdirSync(vault);
  [source, target, older] = await Promise.all([startDaemon({ args: [...FADED, '--vault', vault] }), startDaemon(), startDaemon({ args: ['--compat', 'v0.3'] })]);
  client = await source.client();
  // A consolidation's summary of three faded facts (their use summed into it).
  for (const text of ['Ana moved to Lisbon in 2021.', 'Ana works as a nurse in Lisbon.', 'Ana adopted a cat named Miso.']) await client.put(AGENT, text);
  const run = await client.consolidate(AGENT);
  expect(run.summary?.kind).toBe('summary');
  // Used facts: touched, and observed in a conversation of other topics (a cross-domain review).
  const used = (await client.put(AGENT, 'The VPN config is in the wiki', { tags: ['ops'] })).fact.id;
  await client.touch(AGENT, used);
  await client.touch(AGENT, used);
  await client.observeUsage(AGENT, [used], { contextTags: ['cooking'] });
  // A revision: the old fact retired by its replacement, which names it in replaces.
  const old = (await client.put(AGENT, 'The deploy key lives in the vault')).fact.id;
  await client.touch(AGENT, old);
  await client.revise(AGENT, [old], 'The deploy key moved to the password manager');
  // A fact promoted to a note: gc never collects it.
  const promoted = (await client.put(AGENT, 'Ana prefers the window seat')).fact.id;
  expect((await client.promote(AGENT, { factId: promoted, force: true })).promotedIds).toEqual([promoted]);
  exported = join(cwd, 'backup.jsonl');
  const out = await engram(source, ['export', AGENT, '--out', exported]);
  expect(out.code, out.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  client?.close();
  for (const d of [source, target, older]) {
    if (!d) continue;
    await d.stop();
    removeDir(d.dataDir);
  }
  if (cwd) removeDir(cwd);
});

describe('export → import restores what the daemon assigns (restore-write-v1)', () => {
  test('the restored facts carry the same use statistics, kind and lineage; nothing is said to be lost', async () => {
    const lines = parseJsonl(readFileSync(exported, 'utf8'));
    // The export has what the test is about: use, a summary, a revision's replaces.
    expect(lines.some((l) => l.use_count > 1 && l.review_count > 0 && l.cross_domain_count > 0)).toBe(true);
    expect(lines.filter((l) => l.kind === 'summary')).toHaveLength(1);
    expect(lines.filter((l) => l.kind !== 'summary' && l.replaces.length === 1)).toHaveLength(1);
    expect(lines.filter((l) => l.promoted_at !== null)).toHaveLength(1);

    const run = await engram(target, ['import', 'restored', exported]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${lines.length} imported, 0 already present\n`);
    expect(run.stderr).not.toMatch(/not restored|replaces naming/);
    const copy = await exportOf(target, 'restored');
    expect(restoredState(copy)).toEqual(restoredState(lines));
    // The summary is recallable as one, with its sources as evidence.
    const summary = copy.find((l) => l.kind === 'summary')!;
    const sourceIds = summary.replaces as string[];
    for (const id of sourceIds) expect(copy.find((l) => l.id === id)!.superseded_by).toBe(summary.id);
  });

  test('a re-run of the same import stores nothing and changes nothing', async () => {
    const before = await exportOf(target, 'restored');
    const again = await engram(target, ['import', 'restored', exported]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`0 imported, ${before.length} already present (nothing left to do)\n`);
    expect(await exportOf(target, 'restored')).toEqual(before);
  });

  test('an import begun before restores (same request ids) is resumed by its replays, and stores nothing twice', async () => {
    // Part of the file (the summary and the used fact) through a daemon without restores writes
    // those lines afresh; the whole file then, on a daemon that takes restores over the same store,
    // replays them (a restore is not part of what a repeat is compared with) and restores the rest.
    const lines = readFileSync(exported, 'utf8').split('\n').filter(Boolean);
    const part = lines.filter((l) => JSON.parse(l).kind === 'summary' || JSON.parse(l).cross_domain_count > 0);
    expect(part).toHaveLength(2);
    const half = join(cwd, 'half.jsonl');
    writeFileSync(half, `${part.join('\n')}\n`);
    const first = await engram(older, ['import', 'resumed', half]);
    expect(first.code, first.stderr).toBe(0);
    const oldDir = older.dataDir;
    const stored = await exportOf(older, 'resumed');
    await older.stop();
    const upgraded = await startDaemon({ dataDir: oldDir });
    try {
      const rest = await engram(upgraded, ['import', 'resumed', exported]);
      expect(rest.code, rest.stderr).toBe(0);
      expect(rest.stdout).toBe(`${lines.length - 2} imported, 2 already present\n`);
      const after = await exportOf(upgraded, 'resumed');
      expect(after).toHaveLength(lines.length);
      // The lines stored before are those facts still, as they were written; the others are restored.
      expect(after.slice(0, 2).map((l) => [l.id, l.use_count, l.kind])).toEqual(stored.map((l) => [l.id, 1, 'fact']));
      const replacement = after.find((l) => l.text === 'The deploy key moved to the password manager')!;
      expect(replacement.replaces).toEqual([after.find((l) => l.text === 'The deploy key lives in the vault')!.id]);
    } finally {
      await upgraded.stop();
      older = await startDaemon({ dataDir: oldDir, args: ['--compat', 'v0.3'] });
    }
  });

  test('a line whose restore fields are bad is refused naming the field, and nothing of it is written', async () => {
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const bad = [
      { text: 'A fact used minus once', use_count: -1 },
      { text: 'A fact used tomorrow', use_count: 2, last_used_at: future },
      { text: 'A fact reviewed half a time', review_count: 0.5 },
      { text: 'A fact promoted tomorrow', promoted_at: future },
    ];
    const path = join(cwd, 'bad.jsonl');
    writeFileSync(path, bad.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const run = await engram(target, ['import', 'restore-bad', path]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('0 imported, 0 already present, 4 failed\n');
    expect(run.stderr).toMatch(/line 1: use_count: must be a whole number between 1 and \d+, got -1/);
    expect(run.stderr).toContain(`line 2: last_used_at: ${future} is in the future`);
    expect(run.stderr).toMatch(/line 3: review_count: must be a whole number between 0 and \d+, got 0\.5/);
    expect(run.stderr).toContain(`line 4: promoted_at: ${future} is in the future`);
    expect((await (await target.client()).list('restore-bad')).facts).toEqual([]);
  });

  test('replaces naming a fact neither earlier in the file nor in the agent: stored without it, and said', async () => {
    const path = join(cwd, 'cut.jsonl');
    writeFileSync(path, `${JSON.stringify({ text: 'A summary of notes that were never exported', kind: 'summary', replaces: ['01M8RSZZ6VPMS0AHKF5A1FJPGT'] })}\n`);
    const run = await engram(target, ['import', 'restore-cut', path]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('engram: 1 line carried replaces naming facts neither earlier in the file nor in the agent: stored without them (a re-run cannot add them)');
    expect((await exportOf(target, 'restore-cut')).map((l) => [l.kind, l.replaces])).toEqual([['summary', []]]);
  });
});

describe('the daemon checks a restore (bad input: INVALID_ARGUMENT naming the field, nothing written)', () => {
  let raw: grpc.Client;
  beforeAll(() => {
    raw = new grpc.Client(target.discovery.address, grpc.credentials.createInsecure());
  });
  afterAll(() => raw.close());

  test.each([
    ['a negative count', { useCount: -1 }, 'items[0].options.restore.use_count'],
    ['a negative review count', { reviewCount: -3 }, 'items[0].options.restore.review_count'],
    ['a last use in the future', { lastUsedAtMs: BigInt(Date.now() + 3_600_000) }, 'items[0].options.restore.last_used_at_ms'],
    ['a promotion in the future', { promotedAtMs: BigInt(Date.now() + 3_600_000) }, 'items[0].options.restore.promoted_at_ms'],
    ['an alias kind', { kind: FactKind.ALIAS }, 'items[0].options.restore.kind'],
    ['replaces naming no fact', { replaces: ['01M8RSZZ6VPMS0AHKF5A1FJPGT'] }, 'items[0].options.restore.replaces[0]'],
    ['replaces naming a fact twice', { replaces: ['01M8RSZZ6VPMS0AHKF5A1FJPGT', '01M8RSZZ6VPMS0AHKF5A1FJPGT'] }, 'items[0].options.restore.replaces[1]'],
  ])('%s', async (_, restore, field) => {
    const memory = createServiceClient(MemoryService, raw);
    const agent = `restore-refused-${field.replace(/\W/g, '-')}`;
    const res = await memory.batchPut({ items: [{ requestId: `${agent}-1`, agentId: agent, text: 'A fact restored badly', options: { restore } }] });
    expect(res.results[0]!.error).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, field });
    expect(res.results[0]!.error!.message).toContain(field);
    expect((await memory.list({ agentId: agent })).facts).toEqual([]);
    // A single put refuses it the same way.
    const put = memory.putWithOptions({ requestId: `${agent}-2`, agentId: agent, text: 'A fact restored badly', options: { restore } });
    await expect(put).rejects.toMatchObject({ grpcCode: grpc.status.INVALID_ARGUMENT, field: field.replace('items[0].', '') });
    expect((await memory.list({ agentId: agent })).facts).toEqual([]);
  });

  test('a revision takes no restore', async () => {
    const memory = createServiceClient(MemoryService, raw);
    const { fact } = await memory.put({ requestId: 'restore-revise-1', agentId: 'restore-revise', text: 'The printer is on floor one' });
    const revise = memory.revise({ requestId: 'restore-revise-2', agentId: 'restore-revise', targetIds: [fact!.id], text: 'The printer is on floor two', options: { restore: { useCount: 5 } } });
    await expect(revise).rejects.toMatchObject({ grpcCode: grpc.status.INVALID_ARGUMENT, field: 'options.restore' });
    expect((await memory.list({ agentId: 'restore-revise' })).facts.map((f) => f.text)).toEqual(['The printer is on floor one']);
  });
});

describe('against a daemon without restore-write-v1 (--compat v0.3)', () => {
  test('engram import falls back: the facts start afresh, and stderr says what was not restored', async () => {
    const lines = parseJsonl(readFileSync(exported, 'utf8'));
    const run = await engram(older, ['import', 'fallback', exported]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${lines.length} imported, 0 already present\n`);
    expect(run.stderr).toMatch(/engram: not restored \(the daemon assigns these; see README, Import\): \d+ lines? carried use statistics .*; 1 line was a summary, stored as a fact; 2 lines carried replaces, which starts empty .*; 1 line carried promoted_at, which starts empty: that fact is not promoted, so gc may collect it \(promote it again\)$/m);
    const copy = await exportOf(older, 'fallback');
    expect(copy.every((l) => l.kind === 'fact' && l.replaces.length === 0 && l.use_count === 1 && l.review_count === 0 && l.promoted_at === null)).toBe(true);
  });

  test('the library refuses a restore before sending anything', async () => {
    const c = await older.client();
    try {
      await expect(c.put('fallback-lib', 'A fact with its use', { restore: { useCount: 3 } })).rejects.toThrow(CapabilityError);
      await expect(c.putBatch([{ agentId: 'fallback-lib', text: 'A fact with its use', restore: { useCount: 3 } }])).rejects.toThrow(CapabilityError);
      expect((await c.list('fallback-lib')).facts).toEqual([]);
    } finally {
      c.close();
    }
  });
});
