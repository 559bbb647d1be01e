// `engram import`, `export`, `checkpoint`, `completion` and `--json` on every read, run as a user
// runs them (`node bin/engram.js ...`) against a real daemon: exit codes, --json shapes, and that
// an export imported into a new agent reproduces every field.
import { beforeAll, describe, expect, test } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { engramEnv, useCliDaemon, type CliRun } from './fixtures/cli.ts';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildProgram } from '../client/cli/main.ts';
import { ENGRAM_BIN, removeDir, startDaemon, waitFor, type DaemonProcess } from './fixtures/daemon.ts';

const env = useCliDaemon();
const { engram, engramJson } = env;

/** Starts `engram --data-dir <dataDir> <args>` and returns at once: its output so far, and its end. */
function startEngram(dataDir: string, args: string[]): { output: CliRun; done: Promise<CliRun>; kill(signal?: NodeJS.Signals): void } {
  const child = spawn(process.execPath, [ENGRAM_BIN, '--data-dir', dataDir, ...args], { cwd: env.cwd, env: engramEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const output: CliRun = { code: null, stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (output.stdout += d));
  child.stderr.on('data', (d) => (output.stderr += d));
  const done = new Promise<CliRun>((resolve) => child.once('close', (code) => resolve({ ...output, code })));
  return { output, done, kill: (signal = 'SIGKILL') => child.kill(signal) };
}

/** Resolves once a progress line is on stderr: the import has stored at least one line. */
const progressShown = (output: CliRun) => waitFor(async () => (/import: \d+%/.test(output.stderr) ? true : undefined), 30_000, () => output.stderr);

function file(name: string, content: string): string {
  const path = join(env.cwd, name);
  writeFileSync(path, content);
  return path;
}

const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const parseJsonl = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l));

const FACT_KEYS = [
  'access_count', 'agent_id', 'confidence', 'context', 'created_at', 'cross_domain_count', 'embedder', 'entities', 'entity_types', 'id', 'kind', 'last_accessed_at', 'last_used_at', 'meta',
  'occurred_at', 'pinned', 'pinned_at', 'promoted_at', 'relations', 'replaces', 'retired_reason', 'review_count', 'source', 'strength', 'superseded_by', 'tags', 'text', 'updated_at', 'use_count',
];
/** What the daemon assigns on write (or changes on access): never expected to round-trip. */
const ASSIGNED = ['id', 'agent_id', 'created_at', 'updated_at', 'access_count', 'last_accessed_at', 'pinned_at', 'last_used_at'];

/** An export line without the daemon-assigned fields, its superseded_by, replaces (a revision's
 *  lineage, restored with restore-write-v1) and relations mapped to positions. */
function normalise(lines: any[]): any[] {
  const position = new Map(lines.map((l, i) => [l.id, i]));
  return lines.map((l) => {
    const copy = { ...l };
    for (const k of ASSIGNED) delete copy[k];
    copy.replaces = l.replaces.map((id: string) => `#${position.get(id)}`);
    if (position.has(l.superseded_by)) copy.superseded_by = `#${position.get(l.superseded_by)}`;
    copy.relations = l.relations.map((r: any) => ({ type: r.type, target: `#${position.get(r.target_id)}` }));
    copy.pinned_at_set = l.pinned_at !== null;
    return copy;
  });
}

describe('import (JSONL)', () => {
  const agent = 'io-import';
  const records = [
    {
      text: 'Alice prefers green tea in the morning',
      occurred_at: '2024-05-08T13:56:00Z',
      tags: ['drinks', 'alice'],
      source: 'chat:42',
      context: 'We talked about breakfast',
      meta: { turn: 7, nested: { ok: true, list: [1, 'two'] } },
      confidence: 'verified',
    },
    { text: 'The deploy key lives in the team vault', occurred_at: 1715126400000, tags: ['ops'], confidence: 'inferred' },
    { text: 'Standup moved to 9:30', occurred_at: '2024-06-01', source: 'calendar' },
    { text: 'Release train leaves on Thursdays', occurred_at: '2024-06-03T10:00:00+02:00', confidence: 'unverified', id: 'ext-1' },
    { text: 'Bob owns the billing service', entities: ['Bob', 'billing service'], pinned: true },
  ];

  test('stores every field, prints "N imported, 0 already present", and exports them back', async () => {
    const path = file('facts.jsonl', jsonl(records));
    const run = await engram(['import', agent, path]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('5 imported, 0 already present\n');
    expect(run.stderr).toMatch(/import: 100% \(5\/5\)/); // the progress bar (not a TTY: one line per 10%)
    expect(run.stderr).not.toMatch(/not restored/); // nothing of the daemon's own record was in the file

    const exported = parseJsonl((await engram(['export', agent])).stdout);
    expect(exported.map((f) => f.text)).toEqual(records.map((r) => r.text)); // file order kept
    const expectedTimes = ['2024-05-08T13:56:00.000Z', '2024-05-08T00:00:00.000Z', '2024-06-01T00:00:00.000Z', '2024-06-03T08:00:00.000Z', null];
    exported.forEach((f, i) => {
      const r = records[i] as any;
      expect(Object.keys(f).sort()).toEqual(FACT_KEYS);
      expect(f.agent_id).toBe(agent);
      expect(f.occurred_at).toBe(expectedTimes[i]);
      expect(f.tags).toEqual(r.tags ?? []);
      expect(f.entities).toEqual(r.entities ?? []);
      expect(f.source).toBe(r.source ?? null);
      expect(f.context).toBe(r.context ?? null);
      expect(f.meta).toEqual(r.meta ?? {});
      expect(f.confidence).toBe(r.confidence ?? null);
      expect(f.pinned).toBe(r.pinned ?? false);
      expect(f.superseded_by).toBeNull();
      expect(f.kind).toBe('fact');
    });
  });

  test('re-running on the same file stores nothing twice: "0 imported, 5 already present"', async () => {
    const before = await env.client.stats(agent);
    const path = join(env.cwd, 'facts.jsonl');
    const run = await engram(['import', agent, path]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('0 imported, 5 already present (nothing left to do)\n');
    const out = await engramJson(['import', agent, path]);
    expect(out).toEqual({ agent_id: agent, imported: 0, already_present: 5, failed: 0, incomplete: 0, errors: [] });
    expect((await env.client.stats(agent)).factCount).toBe(before.factCount);
  });

  test('resumes: after a partial run, the full file adds only the rest (key order and whitespace do not matter)', async () => {
    const agent2 = 'io-import-resume';
    const partial = file('partial.jsonl', jsonl(records.slice(0, 2)));
    expect((await engram(['import', agent2, partial])).stdout).toBe('2 imported, 0 already present\n');
    // The same records with their keys reordered and spaced out.
    const reordered = records.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).reverse()), null, 0).replace(/,"/g, ', "'));
    const full = file('full.jsonl', reordered.join('\n') + '\n');
    const run = await engram(['import', agent2, full]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('3 imported, 2 already present\n');
    const texts = (await env.client.list(agent2)).facts.map((f) => f.text);
    expect(texts).toEqual(records.map((r) => r.text));
  });

  test('a line saying what a live fact says is that fact ("already present"); --allow-duplicate stores it again', async () => {
    const agent5 = 'io-import-dedup';
    await env.client.put(agent5, 'Alice likes jazz');
    // Whitespace and tags do not make another fact; the daemon's dedup rule is the same for every write.
    const path = file('dedup.jsonl', jsonl([{ text: 'Alice  likes jazz', tags: ['music'] }, { text: 'Bob likes blues' }]));
    const run = await engram(['import', agent5, path]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('1 imported, 1 already present\n');
    expect((await env.client.stats(agent5)).factCount).toBe(2);
    const copies = await engram(['import', agent5, file('dedup2.jsonl', jsonl([{ text: 'Alice likes jazz', tags: ['again'] }])), '--allow-duplicate']);
    expect(copies.code, copies.stderr).toBe(0);
    expect(copies.stdout).toBe('1 imported, 0 already present\n');
    expect((await env.client.list(agent5)).facts.map((f) => f.text)).toEqual(['Alice likes jazz', 'Bob likes blues', 'Alice likes jazz']);
    // The file exactly: two identical lines are two facts, and a re-run stores neither again.
    const twice = file('dedup3.jsonl', jsonl([{ text: 'Carol likes folk' }, { text: 'Carol likes folk' }]));
    expect((await engram(['import', agent5, twice, '--allow-duplicate'])).stdout).toBe('2 imported, 0 already present\n');
    expect((await engram(['import', agent5, twice, '--allow-duplicate'])).stdout).toBe('0 imported, 2 already present (nothing left to do)\n');
    expect((await env.client.list(agent5)).facts.filter((f) => f.text === 'Carol likes folk')).toHaveLength(2);
  });

  test('an import stopped by the token\'s rights says to use a token that may write, not merely to re-run', async () => {
    const agent9 = 'io-import-readonly';
    const { token } = await env.client.createToken({ agents: [agent9], rights: ['read'], shared: [] });
    const run = await engram(['import', agent9, file('readonly.jsonl', jsonl([{ text: 'never stored' }]))], { env: { ENGRAM_TOKEN: token } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/import stopped at line 1; the token may not write this agent: use one that may \(ENGRAM_TOKEN or --token\), then re-run/);
  });

  test('a line matching a live fact leaves that fact as it is: a retired or pinned copy in the file neither retires nor pins it', async () => {
    const agent8 = 'io-import-matched';
    const wifi = (await env.client.put(agent8, 'The wifi password is hunter2')).fact;
    const jazz = (await env.client.put(agent8, 'Frank likes jazz')).fact;
    const path = file('matched.jsonl', jsonl([{ id: '01M96T2VAR8B1S55W9XY6RZFH8', text: 'The wifi password is hunter2', superseded_by: 'agent' }, { text: 'Frank likes jazz', pinned: true }]));
    const run = await engram(['import', agent8, path]);
    expect([run.code, run.stdout], run.stderr).toEqual([0, '0 imported, 2 already present (nothing left to do)\n']);
    expect((await env.client.get(agent8, wifi.id)).supersededBy).toBeFalsy();
    expect(await env.client.get(agent8, jazz.id)).toMatchObject({ pinned: false });
  });

  test('a superseded_by naming a fact neither in the file nor in the agent: retired as forgotten, and said (exit 1)', async () => {
    const agent7 = 'io-import-dangling';
    const run = await engram(['import', agent7, file('dangling.jsonl', jsonl([{ text: 'an old plan', superseded_by: '01M8ZM927QSEHB2N5KREAT2B9Z' }, { text: 'a live fact' }]))]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 1: stored as \w+ and retired as forgotten: its superseded_by 01M8ZM927QSEHB2N5KREAT2B9Z is neither in the file nor in the agent/);
    // Stored, so counted as imported (and as incomplete), never also as failed.
    expect(run.stdout).toBe('2 imported (1 of them stored incompletely), 0 already present\n');
    expect((await env.client.list(agent7)).facts.map((f) => [f.text, f.supersededBy ?? null])).toEqual([['an old plan', 'agent'], ['a live fact', null]]);
  });

  test('a superseded_by naming the line\'s own id is refused when read, saying what to fix; nothing of it is stored', async () => {
    const agent = 'io-import-self-superseded';
    const id = '01M8ZM927QSEHB2N5KREAT2B9Z';
    const path = file('self-superseded.jsonl', jsonl([{ id, text: 'a fact replacing itself', superseded_by: id }, { text: 'a live fact' }]));
    const run = await engram(['import', agent, path]);
    expect([run.code, run.stdout]).toEqual([1, '1 imported, 0 already present, 1 failed\n']);
    expect(run.stderr).toMatch(/line 1: superseded_by: names the line's own id 01M8ZM927QSEHB2N5KREAT2B9Z, and a fact cannot replace itself \(name the fact that replaced this one/);
    expect(run.stderr).not.toMatch(/stored as/);
    expect((await env.client.list(agent)).facts.map((f) => f.text)).toEqual(['a live fact']);
  });

  test('a second line with an id already used in the file is refused, naming the first; a superseded_by naming that id points at the first', async () => {
    const agent = 'io-import-same-id';
    const id = '01M8ZM927QSEHB2N5KREAT2B9Z';
    const path = file('same-id.jsonl', jsonl([{ id, text: 'the first line with the id' }, { id, text: 'the second line with the id' }, { text: 'an old plan', superseded_by: id }]));
    const run = await engram(['import', agent, path]);
    expect([run.code, run.stdout]).toEqual([1, '2 imported, 0 already present, 1 failed\n']);
    expect(run.stderr).toMatch(/line 2: id 01M8ZM927QSEHB2N5KREAT2B9Z was already used by line 1 \(each line's id names one fact: give this line its own id, or drop it\)/);
    const facts = new Map((await env.client.list(agent)).facts.map((f) => [f.text, f]));
    expect([...facts.keys()]).toEqual(['the first line with the id', 'an old plan']);
    expect(facts.get('an old plan')!.supersededBy).toBe(facts.get('the first line with the id')!.id);
  });

  test('a cycle of superseded_by links in the file leaves its facts live, each of its lines said with the cycle (exit 1); a line pointing into it is retired', async () => {
    const agent = 'io-import-supersede-cycle';
    const [a, b, c, d, e] = ['01M8ZM927QSEHB2N5KREAT2B9A', '01M8ZM927QSEHB2N5KREAT2B9B', '01M8ZM927QSEHB2N5KREAT2B9C', '01M8ZM927QSEHB2N5KREAT2B9D', '01M8ZM927QSEHB2N5KREAT2B9E'];
    const lines = [
      { id: a, text: 'plan A', superseded_by: b },
      { id: b, text: 'plan B', superseded_by: a },
      { id: c, text: 'plan C', superseded_by: d },
      { text: 'an older plan', superseded_by: c },
      { id: d, text: 'plan D', superseded_by: e },
      { id: e, text: 'plan E', superseded_by: c },
    ];
    const run = await engram(['import', agent, file('supersede-cycle.jsonl', jsonl(lines))]);
    expect([run.code, run.stdout], run.stderr).toEqual([1, '6 imported (5 of them stored incompletely), 0 already present\n']);
    const said = run.stderr.split('\n').filter((l) => l.startsWith('engram: line '));
    expect(said.map((l) => Number(/^engram: line (\d+):/.exec(l)![1]))).toEqual([1, 2, 3, 5, 6]);
    for (const l of said.slice(0, 2)) expect(l).toMatch(/stored as \w+ but not retired: its superseded_by \w+ is part of a cycle, lines 1 → 2 → 1 \(each would retire the next, leaving none of them live; drop superseded_by from the line that is current and re-run\)$/);
    for (const l of said.slice(2)) expect(l).toMatch(/is part of a cycle, lines 3 → 5 → 6 → 3 /);
    const facts = new Map((await env.client.list(agent)).facts.map((f) => [f.text, f]));
    for (const text of ['plan A', 'plan B', 'plan C', 'plan D', 'plan E']) expect(facts.get(text)!.supersededBy, text).toBeFalsy();
    expect(facts.get('an older plan')!.supersededBy).toBe(facts.get('plan C')!.id);
  });

  test('a relation to the line itself is refused up front, naming the field, and nothing of the line is stored', async () => {
    const agent = 'io-import-self-relation';
    const self = '01M99F00000000000000000003';
    const path = file('self-relation.jsonl', jsonl([{ text: 'a fact of its own' }, { id: self, text: 't', relations: [{ type: 'related', target_id: self }] }]));
    for (const run of [await engram(['import', agent, path]), await engram(['import', agent, path])]) {
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(`engram: line 2: relations[0].target_id: names the line's own id ${self}, and a fact cannot be related to itself`);
      expect(run.stderr).not.toMatch(/re-run to finish|stored as/);
    }
    expect((await env.client.list(agent)).facts.map((f) => f.text)).toEqual(['a fact of its own']);
  });

  test('a relation to a fact that ends retired (in the file or the agent) is said once as never made, not as resumable; a re-run says there is nothing left to do', async () => {
    const agent = 'io-import-relation-to-retired';
    const gone = (await env.client.put(agent, 'a fact forgotten before the import')).fact.id;
    await env.client.forget(agent, gone);
    const [oldId, newId] = ['01M99F00000000000000000001', '01M99F00000000000000000002'];
    const path = file('relation-to-retired.jsonl', jsonl([
      { id: oldId, text: 'old', superseded_by: newId },
      { id: newId, text: 'new', relations: [{ type: 'supports', target_id: oldId }] },
      { text: 'points at a retired fact', relations: [{ type: 'related', target_id: gone }] },
    ]));
    const first = await engram(['import', agent, path]);
    expect([first.code, first.stdout], first.stderr).toEqual([0, '3 imported, 0 already present\n']);
    expect(first.stderr.match(/^engram: .*/gm)).toEqual([
      `engram: line 2: not related: its supports target ${oldId} is line 1's fact, which is retired (its superseded_by); a relation joins only live facts, so a re-run cannot add it`,
      `engram: line 3: not related: its related target ${gone} is a retired fact of the agent; a relation joins only live facts, so a re-run cannot add it`,
    ]);
    const again = await engram(['import', agent, path]);
    expect([again.code, again.stdout, again.stderr.match(/^engram: .*/gm)]).toEqual([0, '0 imported, 3 already present (nothing left to do)\n', null]);
    const facts = new Map((await env.client.list(agent)).facts.map((f) => [f.text, f]));
    expect(facts.get('old')!.supersededBy).toBe(facts.get('new')!.id);
    expect([facts.get('new')!.relations, facts.get('points at a retired fact')!.relations]).toEqual([[], []]);
  });

  test('a re-run says the incomplete lines beside the count they are in: imported, or already present', async () => {
    const agent = 'io-import-incomplete-rerun';
    const waited = '01M8ZM927QSEHB2N5KREAT2B9Z';
    const lines = [{ id: waited, text: 'The plan is to launch in May', confidence: 'certain' }, { text: 'The plan is to launch in March', superseded_by: waited }];
    const first = await engram(['import', agent, file('incomplete-rerun.jsonl', jsonl(lines))]);
    expect([first.code, first.stdout]).toEqual([1, '1 imported (1 of them stored incompletely), 0 already present, 1 failed\n']);
    // The same file again, and a line more that also waits for line 1.
    const more = [...lines, { text: 'Launch checklist lives in the wiki', relations: [{ type: 'related', target_id: waited }] }];
    const again = await engram(['import', agent, file('incomplete-rerun-more.jsonl', jsonl(more))]);
    expect([again.code, again.stdout]).toEqual([1, '1 imported (1 of them stored incompletely), 1 already present (1 of them stored incompletely), 1 failed\n']);
    const json = await engram(['import', agent, file('incomplete-rerun-more.jsonl', jsonl(more)), '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ imported: 0, already_present: 2, failed: 1, incomplete: 2 });
  });

  test('an alias line the agent already has is already present, not imported again; `engram alias` says it was already stored', async () => {
    const agent = 'io-import-known-alias';
    const first = await engramJson(['alias', agent, 'k8s', 'kubernetes']);
    expect(first).toMatchObject({ stored: true, duplicate: false });
    const again = await engram(['alias', agent, 'k8s', 'kubernetes']);
    expect(again.stdout).toBe(`alias ${first.fact.id}: ${first.fact.text} (already stored)\n`);
    // Not the export's line: no id or request id of its own, so only the daemon can tell.
    // A retired, pinned copy (from another agent's export): the live alias is left as it is.
    const path = file('known-alias.jsonl', jsonl([{ text: first.fact.text, kind: 'alias', meta: { alias_term: 'k8s', alias_equivalents: ['kubernetes'] }, superseded_by: 'agent', pinned: true }, { text: 'The cluster runs k8s 1.30' }]));
    const run = await engram(['import', agent, path]);
    expect([run.code, run.stdout], run.stderr).toEqual([0, '1 imported, 1 already present\n']);
    const aliases = (await env.client.list(agent)).facts.filter((f) => f.kind === 'alias');
    expect(aliases.map((f) => [f.id, f.supersededBy ?? null, f.pinned])).toEqual([[first.fact.id, null, false]]);
  });

  test('a superseded_by or relation naming a line that was not imported: the fact stays live, the line to mend is named, and a re-run after mending it applies both', async () => {
    const agent = 'io-import-failed-target';
    const replacement = '01M8ZM927QSEHB2N5KREAT2B9Z';
    const lines = (confidence: string) => [
      { id: replacement, text: 'The plan is to launch in May', confidence },
      { text: 'The plan is to launch in March', superseded_by: replacement },
      { text: 'Launch checklist lives in the wiki', relations: [{ type: 'related', target_id: replacement }] },
    ];
    const run = await engram(['import', agent, file('failed-target.jsonl', jsonl(lines('certain')))]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 1: confidence/);
    expect(run.stderr).toMatch(/line 2: stored as \w+ but not retired yet: its superseded_by 01M8ZM927QSEHB2N5KREAT2B9Z is line 1's fact, which was not imported \(mend line 1 and re-run; the fact stays live until then\)/);
    expect(run.stderr).toMatch(/line 3: stored as \w+ but not related yet: its related target 01M8ZM927QSEHB2N5KREAT2B9Z is line 1's fact, which was not imported \(mend line 1 and re-run\)/);
    expect(run.stderr).not.toMatch(/neither in the file nor in the agent/);
    const byText = async () => new Map((await env.client.list(agent)).facts.map((f) => [f.text, f]));
    expect((await byText()).get('The plan is to launch in March')!.supersededBy).toBeFalsy();

    const mended = await engram(['import', agent, file('failed-target-mended.jsonl', jsonl(lines('verified')))]);
    expect([mended.code, mended.stdout], mended.stderr).toEqual([0, '1 imported, 2 already present\n']);
    const facts = await byText();
    const may = facts.get('The plan is to launch in May')!;
    expect((await env.client.get(agent, facts.get('The plan is to launch in March')!.id)).supersededBy).toBe(may.id);
    expect(facts.get('Launch checklist lives in the wiki')!.relations).toMatchObject([{ type: 'related', targetId: may.id }]);
  });

  test('a byte-order mark is dropped; a line that is not UTF-8 is refused by its number, one of Unicode spaces is blank, the others imported', async () => {
    const agent6 = 'io-import-utf8';
    const bytes = Buffer.concat([
      Buffer.from('\ufeff' + JSON.stringify({ text: 'first line after a BOM' }) + '\n'),
      Buffer.from('{"text":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n'),
      Buffer.from(JSON.stringify({ text: 'café in UTF-8' }) + '\n'),
      // Only Unicode spaces: a blank line, skipped like an empty one.
      Buffer.from('\u00a0\u2003 \r\n'),
    ]);
    const path = join(env.cwd, 'latin1.jsonl');
    writeFileSync(path, bytes);
    const run = await engram(['import', agent6, path]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('2 imported, 0 already present, 1 failed\n');
    expect(run.stderr).toMatch(/engram: line 2: is not valid UTF-8/);
    expect((await env.client.list(agent6)).facts.map((f) => f.text)).toEqual(['first line after a BOM', 'café in UTF-8']);
  });

  test('killed mid-import, a re-run completes it with every line stored exactly once', async () => {
    const agent3 = 'io-import-killed';
    // Several batches (1000 lines each at most), so the kill lands between two of them.
    const total = 6000;
    const lines = Array.from({ length: total }, (_, i) => ({ text: `bulk fact number ${i}`, tags: [`batch${i % 7}`] }));
    const path = file('bulk.jsonl', jsonl(lines));
    const importing = startEngram(env.daemon.dataDir, ['import', agent3, path]);
    await progressShown(importing.output);
    importing.kill();
    await importing.done;
    const stored = (await env.client.stats(agent3)).factCount;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(total); // it really was interrupted

    const run = await engram(['import', agent3, path, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.imported + out.already_present).toBe(total);
    expect(out.already_present).toBeGreaterThanOrEqual(stored); // and the write in flight at the kill may have landed since
    const texts: string[] = [];
    for await (const f of env.client.listAll(agent3)) texts.push(f.text);
    expect(texts).toHaveLength(total);
    expect(new Set(texts).size).toBe(total);
  });

  test.each([
    ['SIGINT', 'text', 130],
    ['SIGTERM', '--json', 143],
  ] as const)('%s mid-import (%s): the writes in flight finish, the summary counts what is stored, the line to resume from is named (exit %i); the re-run completes it', async (signal, mode, exitCode) => {
    const agent = `io-import-${signal.toLowerCase()}`;
    const total = 8000;
    const path = file(`${signal}.jsonl`, jsonl(Array.from({ length: total }, (_, i) => ({ text: `interrupted fact number ${i}` }))));
    const importing = startEngram(env.daemon.dataDir, ['import', agent, path, ...(mode === '--json' ? ['--json'] : [])]);
    await progressShown(importing.output);
    importing.kill(signal);
    const run = await importing.done;
    expect(run.code, run.stderr).toBe(exitCode);
    expect(run.stderr).toMatch(/stopping the import after the writes in flight/);
    // Nothing was in flight when it reported: what it says is stored is what is stored, and the
    // line it names is the first one not stored.
    const stored = (await env.client.stats(agent)).factCount;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(total);
    if (mode === 'text') {
      const where = /import interrupted at line (\d+); re-run the same command to resume/.exec(run.stderr);
      expect(where, run.stderr).not.toBeNull();
      expect(run.stdout).toBe(`${stored} imported, 0 already present\n`);
      expect(Number(where![1])).toBe(stored + 1);
    } else {
      const out = JSON.parse(run.stdout);
      expect(out).toMatchObject({ imported: stored, already_present: 0, stopped: { where: `at line ${stored + 1}`, error: { kind: 'interrupted' } } });
      expect(out.stopped.next).toMatch(/re-run the same command to resume/);
    }

    const resumed = await engram(['import', agent, path]);
    expect([resumed.code, resumed.stdout], resumed.stderr).toEqual([0, `${total - stored} imported, ${stored} already present\n`]);
  });

  test('--json interrupted before anything was written: stdout says so in the shape of any other stop (exit 130)', async () => {
    const agent = 'io-import-sigint-early';
    // The agent has a fact, so every line's id is looked up before the first write: seconds for these.
    await env.client.put(agent, 'A fact the agent had before');
    const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const ulid = (i: number) => '01M8ZM927QSEHB' + Array.from({ length: 12 }, (_, k) => crockford[Math.floor(i / 32 ** k) % 32]).join('');
    const path = file('sigint-early.jsonl', jsonl(Array.from({ length: 6000 }, (_, i) => ({ id: ulid(i), text: `never written fact ${i}` }))));
    const importing = startEngram(env.daemon.dataDir, ['import', agent, path, '--json']);
    await waitFor(async () => (/looking up ids: \d+%/.test(importing.output.stderr) ? true : undefined), 30_000, () => importing.output.stderr);
    importing.kill('SIGINT');
    const run = await importing.done;
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(/interrupted before anything was written/);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({ agent_id: agent, stopped: { where: 'before anything was written', error: { kind: 'interrupted', message: 'interrupted (Ctrl-C)' } } });
    expect(out.stopped.next).toMatch(/re-run the same command to resume/);
    expect((await env.client.stats(agent)).factCount).toBe(1);
  });

  test('Ctrl-C during the retirement pass stops at the next line, says where (while retiring, after the writes), exit 130; the re-run retires the rest', async () => {
    const own = await startDaemon({ embedder: 'none' });
    try {
      const pairs = 250;
      // Ids as an export writes them (26 characters, Crockford base32): each old line superseded by its new one.
      const id = (kind: 'A' | 'B', i: number) => `01M96T2VAR8B1S55W9XY6${kind}${String(i).padStart(4, '0')}`;
      const lines = Array.from({ length: pairs }, (_, i) => [
        { id: id('A', i), text: `the locker code was ${i} before the change`, superseded_by: id('B', i) },
        { id: id('B', i), text: `the locker code is ${i + 5000} since the change` },
      ]).flat();
      const path = file('retiring.jsonl', jsonl(lines));
      const importing = startEngram(own.dataDir, ['import', 'io-retiring', path]);
      await waitFor(async () => (/retiring: \d+%/.test(importing.output.stderr) ? true : undefined), 60_000, () => importing.output.stderr);
      // The daemon paused, so the pass cannot finish before the signal is heard.
      own.child.kill('SIGSTOP');
      importing.kill('SIGINT');
      await waitFor(async () => (/stopping the import after the writes in flight/.test(importing.output.stderr) ? true : undefined), 30_000, () => importing.output.stderr);
      own.child.kill('SIGCONT');
      const run = await importing.done;
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toMatch(/at line \d+, while retiring \(after the writes\)/);
      const resumed = await startEngram(own.dataDir, ['import', 'io-retiring', path]).done;
      expect(resumed.code, resumed.stderr).toBe(0);
      const c = await own.client();
      const live: string[] = [];
      for (let page = ''; ; ) {
        const got = await c.list('io-retiring', { pageSize: 1000, pageToken: page });
        live.push(...got.facts.filter((f) => !f.supersededBy).map((f) => f.text));
        if (!(page = got.nextPageToken)) break;
      }
      expect(live.sort()).toEqual(lines.filter((l) => !('superseded_by' in l)).map((l) => l.text).sort());
      c.close();
    } finally {
      own.child.kill('SIGCONT');
      await own.kill9();
      removeDir(own.dataDir);
    }
  });

  test('--json interrupted twice (stop at once, writes in flight): stdout still says so in one document (exit 130); the re-run completes it', async () => {
    const own = await startDaemon({ embedder: 'none' });
    try {
      const total = 3000;
      const path = file('twice.jsonl', jsonl(Array.from({ length: total }, (_, i) => ({ text: `twice interrupted fact ${i}` }))));
      const importing = startEngram(own.dataDir, ['import', 'io-twice', path, '--json']);
      await progressShown(importing.output);
      // The daemon paused: the writes in flight cannot finish, so the second Ctrl-C is the one that stops it.
      own.child.kill('SIGSTOP');
      importing.kill('SIGINT');
      await waitFor(async () => (/interrupt again to stop at once/.test(importing.output.stderr) ? true : undefined), 30_000, () => importing.output.stderr);
      importing.kill('SIGINT');
      const run = await importing.done;
      own.child.kill('SIGCONT');
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toMatch(/stopped at once; the last writes' outcome is unknown/);
      const out = JSON.parse(run.stdout);
      expect(out).toMatchObject({ agent_id: 'io-twice', stopped: { where: 'at once, with writes in flight', error: { kind: 'interrupted' } } });
      expect(out.stopped.next).toMatch(/re-run the same command to resume/);
      const resumed = await startEngram(own.dataDir, ['import', 'io-twice', path]).done;
      expect(resumed.code, resumed.stderr).toBe(0);
      const c = await own.client();
      expect((await c.stats('io-twice')).factCount).toBe(total);
      c.close();
    } finally {
      own.child.kill('SIGCONT');
      await own.kill9();
      removeDir(own.dataDir);
    }
  });

  test.each([
    ['text', false],
    ['--json', true],
  ])('the daemon killed mid-import (%s): exit 1 naming the line; after a restart the re-run stores each line once', async (_, json) => {
    const own = await startDaemon({ embedder: 'none' });
    let restarted: DaemonProcess | undefined;
    try {
      const total = 6000;
      const path = file('crash.jsonl', jsonl(Array.from({ length: total }, (_, i) => ({ text: `crash fact ${i}` }))));
      const importing = startEngram(own.dataDir, ['import', 'io-crash', path, ...(json ? ['--json'] : [])]);
      await progressShown(importing.output);
      await own.kill9();
      const stopped = await importing.done;
      expect(stopped.code).toBe(1);
      let stopLine: number;
      if (json) {
        // One JSON document: what was stored, where it stopped, why, and what to do.
        const doc = JSON.parse(stopped.stdout);
        stopLine = Number(/^at line (\d+)$/.exec(doc.stopped.where)![1]);
        expect(doc).toMatchObject({ agent_id: 'io-crash', imported: stopLine - 1, already_present: 0, failed: 0, stopped: { error: { kind: 'unavailable' } } });
        expect(doc.stopped.next).toMatch(/re-run the same command to resume/);
        expect(doc.stopped.acknowledged).toBe(stopLine - 1);
      } else {
        expect(stopped.stderr).toMatch(/engram: import stopped at line (\d+): [^\n]*\n(.*\n)*engram: [^\n]*re-run the same command to resume/);
        // Lines stored so far are live without the pins and retirements the file gives them: said.
        expect(stopped.stderr).toMatch(/pins, relations and retirements are applied once every line is stored/);
        stopLine = Number(/stopped at line (\d+)/.exec(stopped.stderr)![1]);
        expect(stopped.stdout).toBe(`${stopLine - 1} imported, 0 already present\n`);
      }
      expect(stopLine).toBeLessThan(total);

      restarted = await startDaemon({ embedder: 'none', dataDir: own.dataDir });
      const resumed = await startEngram(own.dataDir, ['import', 'io-crash', path]).done;
      expect(resumed.code, resumed.stderr).toBe(0);
      const [, imported, present] = /^(\d+) imported, (\d+) already present\n$/.exec(resumed.stdout)!;
      expect(Number(imported) + Number(present)).toBe(total);
      expect(Number(present)).toBeGreaterThanOrEqual(stopLine - 1); // plus the uncertain write, if it landed
      const c = await restarted.client();
      const texts: string[] = [];
      for await (const f of c.listAll('io-crash')) texts.push(f.text);
      c.close();
      expect(texts.sort()).toEqual(Array.from({ length: total }, (_, i) => `crash fact ${i}`).sort());
    } finally {
      await restarted?.stop();
      await own.kill9();
      removeDir(own.dataDir);
    }
  });

  test('progress counts each line once: a line refused when written ends at the total, not past it', async () => {
    const agent = 'io-import-progress';
    const lines = [
      JSON.stringify({ text: 'before the alias' }),
      // Parses, then the alias write refuses its empty equivalent: an error of a line that was handled.
      JSON.stringify({ text: 'ab', kind: 'alias', meta: { alias_term: 'ab', alias_equivalents: [''] } }),
      '{"text": "truncated',
      JSON.stringify({ text: 'after the alias' }),
    ];
    const run = await engram(['import', agent, file('progress.jsonl', lines.join('\n'))]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('2 imported, 0 already present, 2 failed\n');
    expect(run.stderr).toMatch(/line 2: invalid_argument: equivalents\[0\]/);
    const shown = [...run.stderr.matchAll(/import: \d+% \((\d+)\/(\d+)\)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(shown.at(-1)).toEqual([4, 4]);
    for (const [done, total] of shown) expect(done).toBeLessThanOrEqual(total!);
  });

  test('progress shows each pass as its own phase; ids are looked up (shown) only in an agent that had facts', async () => {
    const [a, b, c] = ['01M8ZM927QSEHB2N5KREAT2B9A', '01M8ZM927QSEHB2N5KREAT2B9B', '01M8ZM927QSEHB2N5KREAT2B9C'];
    const path = file('phases.jsonl', jsonl([
      { id: a, text: 'The plan is to launch in May', pinned: true },
      { id: b, text: 'Launch checklist lives in the wiki', relations: [{ type: 'related', target_id: a }] },
      { id: c, text: 'The plan is to launch in March', superseded_by: a },
    ]));
    /** The progress phases on stderr, in order, each once. */
    const phases = (stderr: string) => [...stderr.matchAll(/^(.+?): \d+% \(\d+\/\d+\)$/gm)].map((m) => m[1]).filter((p, i, all) => p !== all[i - 1]);
    const imported = async (agent: string) => {
      const facts = new Map((await env.client.list(agent)).facts.map((f) => [f.text, f]));
      const may = facts.get('The plan is to launch in May')!;
      expect(may.pinned).toBe(true);
      expect(facts.get('Launch checklist lives in the wiki')!.relations).toMatchObject([{ type: 'related', targetId: may.id }]);
      expect(facts.get('The plan is to launch in March')!.supersededBy).toBe(may.id);
    };

    // A new agent (an export imported elsewhere): nothing to look up.
    const fresh = await engram(['import', 'io-import-phases-new', path]);
    expect([fresh.code, fresh.stdout], fresh.stderr).toEqual([0, '3 imported, 0 already present\n']);
    expect(phases(fresh.stderr)).toEqual(['import', 'pinning', 'relating', 'retiring']);
    await imported('io-import-phases-new');

    const agent = 'io-import-phases-known';
    await env.client.put(agent, 'A fact the agent had before');
    const known = await engram(['import', agent, path]);
    expect([known.code, known.stdout], known.stderr).toEqual([0, '3 imported, 0 already present\n']);
    expect(phases(known.stderr)).toEqual(['looking up ids', 'import', 'pinning', 'relating', 'retiring']);
    expect(known.stderr).toMatch(/^looking up ids: 100% \(3\/3\)$/m);
    expect(known.stderr).toMatch(/^retiring: 100% \(1\/1\)$/m);
    await imported(agent);
  });

  test('bad lines are reported with their number and reason, skipped whole, and the exit code is 1', async () => {
    const agent4 = 'io-import-bad';
    const lines = [
      JSON.stringify({ text: 'first good line' }),
      '{"text": "truncated',
      JSON.stringify({ occurred_at: '2024-01-01' }),
      JSON.stringify({ text: 'typo in a key', occured_at: '2024-01-01' }),
      JSON.stringify({ text: 'impossible date', occurred_at: '2024-02-30' }),
      JSON.stringify({ text: 'unknown label', confidence: 'certain' }),
      JSON.stringify({ text: 'empty tag', tags: ['ok', ''] }),
      JSON.stringify({ text: 'meta is a list', meta: [1, 2] }),
      '',
      JSON.stringify(['not', 'an', 'object']),
      JSON.stringify({ text: 'last good line', tags: ['fine'] }),
    ];
    const path = file('bad.jsonl', lines.join('\n'));
    const run = await engram(['import', agent4, path]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('2 imported, 0 already present, 8 failed\n');
    const reported = run.stderr.split('\n').filter((l) => l.startsWith('engram: line '));
    expect(reported.map((l) => Number(/^engram: line (\d+):/.exec(l)![1]))).toEqual([2, 3, 4, 5, 6, 7, 8, 10]);
    expect(run.stderr).toMatch(/line 2: not JSON/);
    expect(run.stderr).toMatch(/line 3: text: missing/);
    expect(run.stderr).toMatch(/line 4: unknown field "occured_at"/);
    expect(run.stderr).toMatch(/line 5: occurred_at: no such date or time: "2024-02-30"/);
    expect(run.stderr).toMatch(/line 6: confidence: must be one of verified, inferred, unverified/);
    expect(run.stderr).toMatch(/line 7: tags\[1\]: must not be empty/);
    expect(run.stderr).toMatch(/line 8: meta: must be a JSON object/);
    expect(run.stderr).toMatch(/line 10: must be a JSON object, got an array/);
    // Nothing of a refused line was stored; the good ones were.
    expect((await env.client.list(agent4)).facts.map((f) => f.text)).toEqual(['first good line', 'last good line']);

    const json = await engram(['import', agent4, path, '--json']);
    expect(json.code).toBe(1);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({ agent_id: agent4, imported: 0, already_present: 2, failed: 8 });
    expect(out.errors.map((e: any) => e.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 10]);
    for (const e of out.errors) expect(Object.keys(e).sort()).toEqual(['line', 'reason']);
  });

  test('a file of more lines than are parsed ahead of the writes: every line stored once, in file order, an alias and bad lines far into it included', async () => {
    const agent5 = 'io-import-long';
    const lines = Array.from({ length: 8_300 }, (_, i) => JSON.stringify({ text: `long file line ${i} names item ${i * 7}` }));
    lines[8_100] = '{"text": "truncated';
    lines[8_150] = JSON.stringify({ text: 'the ui means the user interface', kind: 'alias', meta: { alias_term: 'ui', alias_equivalents: ['user interface'] } });
    const path = file('long.jsonl', lines.join('\n'));
    const run = await engram(['import', agent5, path]);
    expect(run.stderr).toMatch(/line 8101: not JSON/);
    expect(run.stdout).toBe('8299 imported, 0 already present, 1 failed\n');
    expect(run.code).toBe(1);
    const facts: { id: string; text: string; kind: string }[] = [];
    for await (const f of env.client.listAll(agent5)) facts.push(f);
    const stored = facts.filter((f) => f.kind !== 'alias').sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(stored.map((f) => f.text)).toEqual(lines.flatMap((l, i) => (i === 8_100 || i === 8_150 ? [] : [JSON.parse(l).text])));
    expect(facts.filter((f) => f.kind === 'alias')).toHaveLength(1);
    const again = await engram(['import', agent5, path]);
    expect(again.stdout).toBe('0 imported, 8299 already present, 1 failed\n');
  });

  test('usage and file errors: exit 2 for a bad --format, 1 for a missing file or daemon', async () => {
    const badFormat = await engram(['import', 'io-x', join(env.cwd, 'facts.jsonl'), '--format', 'csv']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toMatch(/Allowed choices are jsonl, conversation/);
    const missing = await engram(['import', 'io-x', join(env.cwd, 'no-such-file.jsonl')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^engram: cannot read .*no-such-file\.jsonl: no such file; nothing was imported$/m);
    expect(missing.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const noAgent = await engram(['import', '', join(env.cwd, 'facts.jsonl')]);
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr.trim().split('\n')).toEqual(['engram: <agent>: must not be empty (see "engram import --help")']);
  });
});

describe('import mistakes', () => {
  test('a file given the other format fails saying which format it is, and imports nothing', async () => {
    const facts = file('mistakes.jsonl', jsonl([{ text: 'One fact' }, { text: 'Another fact' }]));
    const asConversation = await engram(['import', 'io-mistakes', facts, '--format', 'conversation']);
    expect(asConversation.code).toBe(1);
    expect(asConversation.stderr).toContain('(a JSONL file of facts? import it without --format conversation)');

    const conversation = file('mistakes-conversation.json', JSON.stringify({ sessions: [{ turns: [{ speaker: 'A', text: 'hello there' }] }] }));
    const asFacts = await engram(['import', 'io-mistakes', conversation]);
    expect(asFacts.stderr).toContain('(a conversation file? import it with --format conversation)');
    expect((await env.client.stats('io-mistakes')).factCount).toBe(0);
  });

  test.concurrent.each([
    ['a pretty-printed chat export', { sessions: [{ occurred_at: '2024-05-01', turns: [{ speaker: 'Ann', text: 'I moved to Lisbon' }] }] }, 'is a conversation export (one JSON document with "sessions"), not JSON lines: import it with --format conversation'],
    ['a pretty-printed array of facts', [{ text: 'One fact' }, { text: 'Another fact' }], "is a JSON array, not JSON lines: write one object per line (for example with `jq -c '.[]'`)"],
    ['one fact spread over lines', { text: 'One fact', tags: ['x'] }, 'is one JSON document spread over several lines, not JSON lines'],
  ])('%s is refused as a whole in one line saying what to do (exit 2), not once per line', async (name, document, says) => {
    const path = file(`${name.replace(/\W+/g, '-')}.json`, JSON.stringify(document, null, 2));
    const run = await engram(['import', 'io-mistakes', path]);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toContain(`engram: <file>: ${path} ${says}`);
    expect(lines[0]).toContain('nothing was imported');
    expect((await env.client.stats('io-mistakes')).factCount).toBe(0);
  });

  test('a JSON array on one line (a file or stdin) is refused as a whole the same way (exit 2), not as "line 1: must be a JSON object"', async () => {
    const array = JSON.stringify([{ text: 'One fact' }, { text: 'Another fact' }]);
    const path = file('one-line-array.json', `${array}\n`);
    for (const [source, input] of [[path, undefined], ['-', array]] as const) {
      const run = await engram(['import', 'io-mistakes', source], { input });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toBe(`engram: <file>: ${source === '-' ? 'stdin' : path} is a JSON array, not JSON lines: write one object per line (for example with \`jq -c '.[]'\`) and import that; nothing was imported (see "engram import --help")\n`);
    }
    // One object on one line is JSON lines of one fact, imported as before.
    expect((await engram(['import', 'io-mistakes-one', '-'], { input: JSON.stringify({ text: 'One fact' }) })).stdout).toBe('1 imported, 0 already present\n');
    expect((await env.client.stats('io-mistakes')).factCount).toBe(0);
  });

  test('engram logs without a log exits 1', async () => {
    const run = await engram(['logs'], { dataDir: join(env.cwd, 'no-daemon-here') });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^engram: no log at /);
  });
});

describe('import --format conversation', () => {
  const agent = 'io-conversation';
  const conversation = {
    sessions: [
      {
        occurred_at: '1:56 pm on 8 May, 2023',
        turns: [
          { speaker: 'Caroline', text: 'I went to a support group yesterday', id: 'D1:1' },
          { speaker: 'Melanie', text: 'That sounds great!', id: 'D1:2' },
        ],
      },
      { occurred_at: '2023-05-20T09:00:00Z', turns: [{ speaker: 'Caroline', text: 'I started a painting class' }] },
    ],
  };

  test('stores one fact per turn with its session date and neighbours as context; a re-run adds nothing', async () => {
    const path = file('chat.json', JSON.stringify(conversation));
    const run = await engram(['import', agent, path, '--format', 'conversation']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('3 imported, 0 already present\n');
    const facts = (await env.client.list(agent)).facts;
    expect(facts.map((f) => [f.text, f.occurredAt, f.source])).toEqual([
      ['Caroline: I went to a support group yesterday', Date.UTC(2023, 4, 8, 13, 56), 'conversation'],
      ['Melanie: That sounds great!', Date.UTC(2023, 4, 8, 13, 56), 'conversation'],
      ['Caroline: I started a painting class', Date.UTC(2023, 4, 20, 9), 'conversation'],
    ]);
    expect(facts[0]!.meta).toEqual({ turn_id: 'D1:1' });
    expect(facts[0]!.context).toBe('Melanie: That sounds great!');

    const again = await engramJson(['import', agent, path, '--format', 'conversation']);
    expect(again).toEqual({ agent_id: agent, imported: 0, already_present: 3, failed: 0, incomplete: 0, errors: [] });
    expect((await env.client.stats(agent)).factCount).toBe(3);
  });

  test('keys the format does not use are named on stderr (a misspelt key is seen, not silently dropped)', async () => {
    const typo = { sessions: [{ ocurred_at: '2023-06-01', turns: [{ speaker: 'A', text: 'hi there', txt: 'x' }] }], sesions: [] };
    const run = await engram(['import', 'io-conversation-typo', file('typo-chat.json', JSON.stringify(typo)), '--format', 'conversation']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/ignored, not part of the conversation format: the file's "sesions", a session's "ocurred_at", a turn's "txt"/);
  });

  test('a malformed conversation is refused whole (exit 1), naming each problem', async () => {
    const bad = { sessions: [{ occurred_at: 'last tuesday', turns: [{ speaker: '', text: 'hi' }, { speaker: 'A' }] }] };
    const run = await engram(['import', 'io-conversation-bad', file('bad-chat.json', JSON.stringify(bad)), '--format', 'conversation']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/sessions\[0\]\.occurred_at: expected/);
    expect(run.stderr).toMatch(/sessions\[0\]\.turns\[0\]\.speaker: must be a non-empty string/);
    expect(run.stderr).toMatch(/sessions\[0\]\.turns\[1\]\.text: must be a non-empty string/);
    expect(run.stderr).toMatch(/nothing was imported/);
    expect(await env.client.listAgents()).not.toContain('io-conversation-bad');
  });
});

describe('export', () => {
  test('interrupted (Ctrl-C), a JSONL export to a file leaves neither the file nor a part of it', async () => {
    const agent = 'io-export-interrupted';
    for (let from = 0; from < 20_000; from += 1000) {
      await env.client.putBatch(Array.from({ length: 1000 }, (_, i) => ({ agentId: agent, text: `exported fact number ${from + i} with some words to write` })));
    }
    const out = join(env.cwd, 'interrupted.jsonl');
    const exporting = startEngram(env.daemon.dataDir, ['export', agent, '--out', out]);
    await waitFor(async () => (/export: \d+%/.test(exporting.output.stderr) ? true : undefined), 30_000, () => exporting.output.stderr);
    exporting.kill('SIGINT');
    const run = await exporting.done;
    expect(run.code, run.stderr).toBe(130);
    expect(readdirSync(env.cwd).filter((name) => name.startsWith('interrupted.jsonl'))).toEqual([]);
  });

  const agent = 'io-export';
  let ids: Record<string, string>;

  beforeAll(async () => {
    const put = async (text: string, options = {}) => (await env.client.put(agent, text, options)).fact.id;
    ids = {
      full: await put('Alice prefers green tea', {
        occurredAt: Date.UTC(2024, 4, 8, 13, 56),
        tags: ['drinks', 'with "quotes"', 'ünïcödé'],
        entities: ['Alice', 'Green Tea'],
        source: 'chat: "morning" \\ notes',
        context: 'breakfast talk',
        metaJson: JSON.stringify({ turn: 7, nested: { list: [1, 'two', null], flag: false } }),
        confidence: 'verified',
      }),
      multiline: await put('Line one\nLine two: "quoted" — and a tab\there\u2028and U+2028, DEL\u007f, emoji 🫖', { source: '---', tags: ['#hash', 'a: b'] }),
      pinned: await put('The on-call phone number is in the runbook', { confidence: 'inferred', strength: 1.7 }),
      forgotten: await put('The office is on the third floor'),
      old: await put('The deploy key lives in the vault', { tags: ['ops'], confidence: 'unverified' }),
    };
    await env.client.pin(agent, ids.pinned!);
    await env.client.linkEntity(agent, ids.full!, 'Alice', { type: 'person' });
    await env.client.relate(agent, ids.full!, 'supports', ids.pinned!);
    await env.client.relate(agent, ids.old!, 'related', ids.multiline!);
    await env.client.forget(agent, ids.forgotten!);
    ids.replacement = (await env.client.revise(agent, [ids.old!], 'The deploy key moved to the password manager', { confidence: 'verified' })).replacement.id;
    ids.alias = (await env.client.alias(agent, 'k8s', ['kubernetes'])).fact.id;
  });

  test('JSONL: every field of every fact (retired included), to --out or stdout; --json summary', async () => {
    const out = join(env.cwd, 'export.jsonl');
    const summary = await engramJson(['export', agent, '--out', out]);
    // count: every record written; the alias among them is counted apart, as stats leaves it out.
    expect(summary).toEqual({ agent_id: agent, format: 'jsonl', out, count: 7, aliases: 1 });
    const text = readFileSync(out, 'utf8');
    const lines = parseJsonl(text);
    expect(lines.map((l) => l.id)).toEqual([ids.full, ids.multiline, ids.pinned, ids.forgotten, ids.old, ids.replacement, ids.alias]);
    for (const l of lines) expect(Object.keys(l).sort()).toEqual(FACT_KEYS);
    const byId = new Map(lines.map((l) => [l.id, l]));
    expect(byId.get(ids.forgotten)!.superseded_by).toBe('agent');
    expect(byId.get(ids.old)!.superseded_by).toBe(ids.replacement);
    expect(byId.get(ids.pinned)!.pinned).toBe(true);
    expect(byId.get(ids.alias)!.kind).toBe('alias');
    expect(byId.get(ids.full)!.meta).toEqual({ turn: 7, nested: { list: [1, 'two', null], flag: false } });

    const text2 = await engram(['export', agent]);
    expect(text2.code, text2.stderr).toBe(0);
    expect(text2.stdout).toBe(text); // stdout carries the same lines
    const human = await engram(['export', agent, '--out', join(env.cwd, 'export2.jsonl')]);
    expect(human.stdout).toBe(`exported 6 facts and 1 alias of "${agent}" to ${join(env.cwd, 'export2.jsonl')}\n`);
    // The progress ends at the facts engram stats counts (6), not past it.
    expect(human.stderr).toMatch(/export: 100% \(6\/6\)/);
    expect(human.stderr).not.toMatch(/\(7\/7\)/);
    expect(readdirSync(env.cwd).filter((f) => f.includes('.partial-'))).toEqual([]);
  });

  test('importing an export into a new agent reproduces every field (retired, pinned, revised, alias)', async () => {
    const source = parseJsonl(readFileSync(join(env.cwd, 'export.jsonl'), 'utf8'));
    const run = await engram(['import', 'io-export-copy', join(env.cwd, 'export.jsonl')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('7 imported, 0 already present\n');
    const copy = parseJsonl((await engram(['export', 'io-export-copy'])).stdout);
    expect(copy.every((l) => l.agent_id === 'io-export-copy')).toBe(true);
    expect(normalise(copy)).toEqual(normalise(source));
    // Field by field, for the record: what the brief names must match exactly.
    source.forEach((s, i) => {
      for (const k of ['text', 'kind', 'occurred_at', 'tags', 'entities', 'entity_types', 'source', 'context', 'meta', 'confidence', 'strength', 'pinned']) expect(copy[i][k], `${k} of line ${i + 1}`).toEqual(s[k]);
    });
    // The revised fact points at the copy of its replacement, not at the original; relations
    // point at the copies of their targets (the revised fact's moved to its replacement).
    expect(copy[4].superseded_by).toBe(copy[5].id);
    expect(copy[0].entity_types).toEqual({ Alice: 'person' });
    expect(copy[0].relations.map((r: any) => [r.type, r.target_id])).toEqual([['supports', copy[2].id]]);
    expect(copy[5].relations.map((r: any) => [r.type, r.target_id])).toEqual([['related', copy[1].id]]);

    // Import again, and import the copy's own export into itself: nothing new either way.
    expect((await engram(['import', 'io-export-copy', join(env.cwd, 'export.jsonl')])).stdout).toBe('0 imported, 7 already present (nothing left to do)\n');
    const self = await engram(['import', 'io-export-copy', '-'], { input: copy.map((l) => JSON.stringify(l)).join('\n') });
    expect(self.code, self.stderr).toBe(0);
    expect(self.stdout).toBe('0 imported, 7 already present (nothing left to do)\n');
    // Seven records: six facts and the alias, which stats leave out.
    expect((await env.client.stats('io-export-copy')).factCount).toBe(6);
    expect((await env.client.list('io-export-copy')).facts).toHaveLength(7);
  });

  test("the daemon's own record a line carries is restored (use, a summary's kind); replaces naming a fact the import does not have is said (the fallback's note is in import-restore.test.ts)", async () => {
    const lines = [
      { text: 'The VPN config is in the wiki', use_count: 4, review_count: 2, last_used_at: '2024-06-01T00:00:00Z' },
      { text: 'Summary: three notes about the office move', kind: 'summary', use_count: 1, replaces: ['01M8RSZZ6VPMS0AHKF5A1FJPGT'] },
      { text: 'Parking is on level two', use_count: 1, review_count: 0, cross_domain_count: 0 },
    ];
    const path = file('not-kept.jsonl', jsonl(lines));
    const run = await engram(['import', 'io-not-kept', path]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('3 imported, 0 already present\n');
    expect(run.stderr).not.toMatch(/not restored/);
    expect(run.stderr).toContain('engram: 1 line carried replaces naming facts neither earlier in the file nor in the agent: stored without them (a re-run cannot add them)');
    const stored = (await env.client.list('io-not-kept')).facts;
    expect(stored.map((f) => [f.kind, f.useCount, f.reviewCount, f.lastUsedAt, f.replaces])).toEqual([
      ['fact', 4, 2, Date.parse('2024-06-01T00:00:00Z'), []],
      ['summary', 1, 0, stored[1]!.createdAt, []],
      ['fact', 1, 0, stored[2]!.createdAt, []],
    ]);
    // A re-run stores nothing, so it has nothing to say of it.
    const again = await engram(['import', 'io-not-kept', path]);
    expect(again.stdout).toBe('0 imported, 3 already present (nothing left to do)\n');
    expect(again.stderr).not.toMatch(/not restored|replaces naming/);
  });

  test('an export whose retired lines carry entity types (a --kg store\'s): the first import types them, a re-run is a no-op (exit 0)', async () => {
    const source = 'io-export-typed';
    const put = async (text: string) => (await env.client.put(source, text, { entities: ['carol'] })).fact.id;
    const [moved, tea] = [await put('Carol lives in Lisbon'), await put('Carol drinks green tea')];
    for (const id of [moved, tea]) await env.client.linkEntity(source, id, 'carol', { type: 'person' });
    await env.client.revise(source, [moved], 'Carol moved to Porto', { entities: ['carol'] });
    const out = join(env.cwd, 'typed.jsonl');
    expect((await engram(['export', source, '--out', out])).code).toBe(0);
    const retired = parseJsonl(readFileSync(out, 'utf8')).filter((l) => l.superseded_by);
    expect(retired.map((l) => l.entity_types)).toEqual([{ carol: 'person' }]);

    const agent = 'io-export-typed-copy';
    const first = await engram(['import', agent, out]);
    expect([first.code, first.stdout], first.stderr).toEqual([0, '3 imported, 0 already present\n']);
    // The retired line was typed while it was still live, then retired.
    const copy = parseJsonl((await engram(['export', agent])).stdout);
    expect(copy.map((l) => [l.text, l.entity_types, Boolean(l.superseded_by)])).toEqual(
      parseJsonl(readFileSync(out, 'utf8')).map((l) => [l.text, l.entity_types, Boolean(l.superseded_by)]),
    );

    // Again: nothing left to do, so nothing is typed again, nothing fails, exit 0.
    const again = await engram(['import', agent, out]);
    expect([again.code, again.stdout, again.stderr.match(/^engram: .*/gm)]).toEqual([0, '0 imported, 3 already present (nothing left to do)\n', null]);
    expect(again.stderr).not.toMatch(/typing entities/);
    expect(parseJsonl((await engram(['export', agent])).stdout)).toEqual(copy);

    // A retired fact cannot be typed; the daemon says so in terms of typing, not of relating.
    const retiredCopy = copy.find((l) => l.superseded_by)!.id;
    const refused = await engram(['link', agent, retiredCopy, 'carol', '--type', 'person']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is retired .*link and type entities on live facts/);
    expect(refused.stderr).not.toMatch(/relate/);
  });

  test('markdown: one note per fact with quoted YAML frontmatter, the text as body, wikilinks for entities, an index', async () => {
    const vault = join(env.cwd, 'vault');
    const summary = await engramJson(['export', agent, '--format', 'markdown', '--out', vault]);
    expect(summary).toEqual({ agent_id: agent, format: 'markdown', out: vault, count: 7, aliases: 1 });
    const facts = parseJsonl(readFileSync(join(env.cwd, 'export.jsonl'), 'utf8'));
    expect(readdirSync(vault).sort()).toEqual([...facts.map((f) => `${f.id}.md`), 'index.md'].sort());

    for (const f of facts) {
      const { fields, body } = parseNote(readFileSync(join(vault, `${f.id}.md`), 'utf8'));
      expect(fields).toEqual({
        id: f.id,
        agent_id: agent,
        kind: f.kind,
        created_at: f.created_at,
        occurred_at: f.occurred_at ?? '',
        confidence: f.confidence ?? '',
        pinned: String(f.pinned),
        superseded_by: f.superseded_by ?? '',
        tags: f.tags,
        entities: f.entities,
        source: f.source ?? '',
      });
      expect(body.startsWith(`\n${f.text}\n`), body).toBe(true);
      const links = [...body.matchAll(/\[\[([^\]]+)\]\]/g)].map((m) => m[1]);
      expect(links).toEqual(f.entities);
    }
    const index = parseNote(readFileSync(join(vault, 'index.md'), 'utf8'));
    expect(index.fields).toMatchObject({ agent_id: agent, fact_count: '7' });
    for (const f of facts) expect(index.body).toContain(`[[${f.id}]]`);
    // Only retired facts are marked so (the export holds live ones and retired ones).
    const line = (id: string) => index.body.split('\n').find((l) => l.startsWith(`- [[${id}]]`))!;
    expect(facts.some((f) => f.superseded_by) && facts.some((f) => !f.superseded_by)).toBe(true);
    for (const f of facts) expect(line(f.id).endsWith(' (retired)'), line(f.id)).toBe(Boolean(f.superseded_by));
    expect(index.body).toContain('[[Alice]]');
    expect(index.body).toContain('[[Green Tea]]');
  });

  test("markdown: another namespace's export directory is refused; a new export of the same one replaces it (erased facts' notes go, other files stay)", async () => {
    const vault = join(env.cwd, 'vault-owned');
    const owner = 'io-vault-owner';
    const kept = (await env.client.put(owner, 'The kiln fires on Thursdays')).fact.id;
    const erased = (await env.client.put(owner, 'The glaze order is late')).fact.id;
    expect((await engram(['export', owner, '--format', 'markdown', '--out', vault])).code).toBe(0);
    writeFileSync(join(vault, 'my own note.md'), 'kept by the user\n');

    const other = await engram(['export', 'io-vault-other', '--format', 'markdown', '--out', vault]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`--out: ${vault} holds the markdown export of "${owner}"; export "io-vault-other" to a directory of its own`);
    expect(readdirSync(vault).sort()).toEqual([`${erased}.md`, `${kept}.md`, 'index.md', 'my own note.md'].sort());

    await env.client.delete(owner, erased);
    expect((await engram(['export', owner, '--format', 'markdown', '--out', vault])).code).toBe(0);
    expect(readdirSync(vault).sort()).toEqual([`${kept}.md`, 'index.md', 'my own note.md'].sort());
  });

  test('usage errors exit 2: markdown without --out, --json without --out, an unknown format', async () => {
    await Promise.all(
      [['--format', 'markdown'], ['--json'], ['--format', 'csv']].map(async (args) => {
        const run = await engram(['export', agent, ...args]);
        expect(run.code, args.join(' ')).toBe(2);
        // With --json the error itself is JSON on stdout; otherwise stdout stays empty.
        if (args.includes('--json')) expect(JSON.parse(run.stdout).error).toMatchObject({ kind: 'usage', field: '--json' });
        else expect(run.stdout).toBe('');
      }),
    );
  });

  test('an --out that cannot be written (inside a missing directory, under a file) is a usage error naming --out, exit 2', async () => {
    const notADirectory = file('not-a-directory', 'a file\n');
    for (const args of [['--out', join(env.cwd, 'missing', 'x.jsonl')], ['--out', join(notADirectory, 'x.jsonl')], ['--format', 'markdown', '--out', join(notADirectory, 'vault')]]) {
      const run = await engram(['export', agent, ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`^engram: --out: cannot write ${args.at(-1)} \\((ENOENT|ENOTDIR)\\); choose a directory you can write to \\(see "engram export --help"\\)\\n$`));
      const json = await engram(['export', agent, ...args, '--json']);
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stdout).error).toMatchObject({ kind: 'usage', field: '--out' });
      // The flag's mistake is the one reported, also for an agent with no facts.
      const nobody = await engram(['export', 'io-nobody', ...args]);
      expect(nobody.code, args.join(' ')).toBe(2);
      expect(nobody.stderr).toContain(`engram: --out: cannot write ${args.at(-1)}`);
    }
    expect(existsSync(join(env.cwd, 'missing'))).toBe(false);
    expect(readdirSync(env.cwd).filter((f) => f.includes('.partial-'))).toEqual([]);
  });

  test('an agent without facts (a misspelt name) fails, exit 1, naming it, and leaves an earlier export at --out as it was', async () => {
    const nobody = /^engram: not_found: "io-nobody" has no facts, so nothing was exported(; .+ was left as it was)? \(engram agents lists the agents that have\)\n$/;
    const stdout = await engram(['export', 'io-nobody']);
    expect(stdout.code, stdout.stderr).toBe(1);
    expect(stdout.stdout).toBe('');
    expect(stdout.stderr).toMatch(nobody);

    const backup = file('nobody-backup.jsonl', 'an earlier backup\n');
    const jsonl = await engram(['export', 'io-nobody', '--out', backup]);
    expect(jsonl.code, jsonl.stderr).toBe(1);
    expect(jsonl.stdout).toBe('');
    expect(jsonl.stderr).toMatch(nobody);
    expect(jsonl.stderr).toContain(`; ${backup} was left as it was`);
    expect(readFileSync(backup, 'utf8')).toBe('an earlier backup\n');
    const json = await engram(['export', 'io-nobody', '--out', backup, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error).toMatchObject({ kind: 'not_found', field: 'agent', message: expect.stringContaining('"io-nobody" has no facts') });
    expect(readFileSync(backup, 'utf8')).toBe('an earlier backup\n');

    const missing = join(env.cwd, 'nobody-vault');
    expect((await engram(['export', 'io-nobody', '--format', 'markdown', '--out', missing])).code).toBe(1);
    expect(existsSync(missing)).toBe(false);
    // A namespace whose facts were all erased since its last export: that export stays whole.
    const emptied = 'io-export-emptied';
    const id = (await env.client.put(emptied, 'The kiln is being repaired')).fact.id;
    const vault = join(env.cwd, 'emptied-vault');
    expect((await engram(['export', emptied, '--format', 'markdown', '--out', vault])).code).toBe(0);
    await env.client.delete(emptied, id);
    const markdown = await engram(['export', emptied, '--format', 'markdown', '--out', vault]);
    expect(markdown.code, markdown.stderr).toBe(1);
    expect(markdown.stderr).toContain(`"${emptied}" has no facts, so nothing was exported; ${vault} was left as it was`);
    expect(readdirSync(vault).sort()).toEqual([`${id}.md`, 'index.md']);
    expect(readdirSync(env.cwd).filter((f) => f.includes('.partial-'))).toEqual([]);
  });
});

/** Runs `engram <args>` with its standard output opened on `target` (/dev/full: every write fails
 *  with ENOSPC), or on a pipe closed after the first output (`engram … | head -1`). */
function engramOutputFailing(target: '/dev/full' | 'closed pipe', args: string[]): Promise<CliRun> {
  const fd = target === '/dev/full' ? openSync(target, 'w') : 'pipe';
  const child = spawn(process.execPath, [ENGRAM_BIN, '--data-dir', env.daemon.dataDir, ...args], { cwd: env.cwd, env: engramEnv(), stdio: ['ignore', fd, 'pipe'] });
  if (typeof fd === 'number') closeSync(fd);
  child.stdout?.once('data', () => child.stdout!.destroy());
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout: '', stderr })));
}

describe('output that cannot be written', () => {
  const agent = 'io-output';

  beforeAll(async () => {
    for (const from of [0, 1000]) {
      await env.client.putBatch(Array.from({ length: 1000 }, (_, i) => ({ agentId: agent, text: `an output fact number ${from + i} about tea, with words to fill the pipe` })));
    }
  });

  test.skipIf(!existsSync('/dev/full'))('a full disk fails every command in one line on stderr, exit 1, no stack trace', async () => {
    for (const args of [['export', agent], ['recall', agent, 'tea'], ['list', agent, '--limit', '5'], ['stats', agent, '--json']]) {
      const run = await engramOutputFailing('/dev/full', args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr.replace(/^export: .*\n/gm, ''), args.join(' ')).toBe('engram: cannot write to standard output: no space left on device (ENOSPC)\n');
    }
  });

  test('a reader that stops early (engram export a | head -1) ends the command quietly, exit 0', async () => {
    const run = await engramOutputFailing('closed pipe', ['export', agent]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/engram:|Error|\n\s+at /);
  });
});

/** A tiny YAML frontmatter reader that only accepts what the export promises: `key: "quoted"` or
 *  `key: ["quoted", ...]`, every scalar a double-quoted string with valid escapes and no raw
 *  control character. The escapes used are also JSON's, so JSON.parse decodes them. */
function parseNote(note: string): { fields: Record<string, string | string[]>; body: string } {
  expect(note.startsWith('---\n')).toBe(true);
  const end = note.indexOf('\n---\n', 4);
  expect(end).toBeGreaterThan(0);
  const quoted = String.raw`"(?:[^"\\\u0000-\u001f\u007f-\u009f\u2028\u2029]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"`;
  const line = new RegExp(`^([a-z_]+): (${quoted}|\\[(?:${quoted}(?:, ${quoted})*)?\\])$`);
  const fields: Record<string, string | string[]> = {};
  for (const l of note.slice(4, end).split('\n')) {
    const m = line.exec(l);
    expect(m, `frontmatter line ${JSON.stringify(l)} is not key: "quoted"`).not.toBeNull();
    fields[m![1]!] = JSON.parse(m![2]!);
  }
  return { fields, body: note.slice(end + 5) };
}

describe('checkpoint', () => {
  test('resume without a checkpoint: exit 1 by default, {"found": false, "agent_id"} with --on-missing empty', async () => {
    const [missing, empty, text, bad, list] = await Promise.all([
      engram(['checkpoint', 'resume', 'io-cp-none']),
      engramJson(['checkpoint', 'resume', 'io-cp-none', '--on-missing', 'empty']),
      engram(['checkpoint', 'resume', 'io-cp-none', '--on-missing', 'empty']),
      engram(['checkpoint', 'resume', 'io-cp-none', '--on-missing', 'maybe']),
      engramJson(['checkpoint', 'list', 'io-cp-none']),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no checkpoint for agent "io-cp-none"/);
    expect(missing.stdout).toBe('');
    expect(empty).toEqual({ found: false, agent_id: 'io-cp-none' });
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('no checkpoint for agent "io-cp-none"\n');
    expect(bad.code).toBe(2);
    expect(list).toEqual({ agent_id: 'io-cp-none', count: 0, checkpoints: [] });
  });

  test('save (--state, --state-file, stdin), resume the latest, list newest first', async () => {
    const agent = 'io-cp';
    const first = await engramJson(['checkpoint', 'save', agent, '--state', '{"step": 1, "messages": ["hi", "there"]}']);
    expect(Object.keys(first).sort()).toEqual(['agent_id', 'checkpoint_id', 'created_at']);
    expect(first.agent_id).toBe(agent);
    const second = await engramJson(['checkpoint', 'save', agent, '--state-file', file('state.json', '{"step": 2, "todo": ["ship"]}')]);
    const human = await engram(['checkpoint', 'save', agent, '--state-file', '-'], { input: '{"step": 3}' });
    expect(human.code, human.stderr).toBe(0);
    const third = /^saved checkpoint (\S+) for "io-cp"\n$/.exec(human.stdout)![1];

    expect(await engramJson(['checkpoint', 'resume', agent])).toEqual({ id: third, created_at: expect.any(String), state: { step: 3 } });
    const listed = await engramJson(['checkpoint', 'list', agent]);
    expect(listed.agent_id).toBe(agent);
    expect(listed.count).toBe(3);
    expect(listed.checkpoints.map((c: any) => c.id)).toEqual([third, second.checkpoint_id, first.checkpoint_id]);
    expect(listed.checkpoints[2]).toEqual({ id: first.checkpoint_id, created_at: first.created_at, state: { step: 1, messages: ['hi', 'there'] }, message_count: 2 });
    expect(listed.checkpoints[1].state).toEqual({ step: 2, todo: ['ship'] });

    const text = await engram(['checkpoint', 'resume', agent]);
    expect(text.stdout).toMatch(new RegExp(`^checkpoint ${third} of "io-cp", saved \\S+\\n\\{\\n  "step": 3\\n\\}\\n$`));
  });

  test('--state "" saves the empty state, as an empty state is on the library, REST and MCP', async () => {
    const agent = 'io-cp-empty';
    const saved = await engram(['checkpoint', 'save', agent, '--state', '']);
    expect(saved.code, saved.stderr).toBe(0);
    const viaCli = /^saved checkpoint (\S+) for "io-cp-empty"\n$/.exec(saved.stdout)![1];
    expect(await engramJson(['checkpoint', 'resume', agent])).toEqual({ id: viaCli, created_at: expect.any(String), state: {} });
    // The library's empty state is the same checkpoint state.
    const viaLibrary = await env.client.checkpointSave(agent, '');
    expect(await engramJson(['checkpoint', 'resume', agent])).toEqual({ id: viaLibrary.id, created_at: expect.any(String), state: {} });
  });

  test('a state that is not a JSON object is a usage error (2); an unreadable file fails (1)', async () => {
    const usage = [['--state', '[1, 2]'], ['--state', '{oops'], ['--state', '{}', '--state-file', 'x.json']];
    const runs = await Promise.all([
      ...usage.map((args) => engram(['checkpoint', 'save', 'io-cp-bad', ...args])),
      engram(['checkpoint', 'save', 'io-cp-bad', '--state-file', join(env.cwd, 'missing.json')]),
      engram(['checkpoint']), // a group without its verb
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 1, 2]);
    expect(runs[0]!.stderr).toMatch(/--state must be a JSON object, got an array/);
    expect(runs[2]!.stderr).toMatch(/--state or --state-file, not both/);
    // One line naming the flag, the file and why, with no raw error code.
    expect(runs[3]!.stderr.trim()).toBe(`engram: cannot read --state-file ${join(env.cwd, 'missing.json')}: no such file; nothing was saved`);
    expect(await engramJson(['checkpoint', 'list', 'io-cp-bad'])).toMatchObject({ count: 0 });
  });

  test('an empty file, empty stdin or a blank --state is refused in words, not with the JSON parser\'s message', async () => {
    const empty = file('empty-state.json', '');
    const runs = await Promise.all([
      engram(['checkpoint', 'save', 'io-cp-blank', '--state-file', empty]),
      engram(['checkpoint', 'save', 'io-cp-blank', '--state', '-'], { input: '' }),
      engram(['checkpoint', 'save', 'io-cp-blank', '--state', '  ']),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2]);
    // It used to end "must be a JSON object: Unexpected end of JSON input".
    expect(runs.map((r) => r.stderr.split('\n')[0])).toEqual([
      `engram: --state-file ${empty} must be a JSON object: it is empty (see "engram checkpoint save --help")`,
      'engram: --state - (stdin) must be a JSON object: it is empty (see "engram checkpoint save --help")',
      'engram: --state must be a JSON object: it holds only white space (see "engram checkpoint save --help")',
    ]);
    expect(await engramJson(['checkpoint', 'list', 'io-cp-blank'])).toMatchObject({ count: 0 });
  });
});

describe('--json on every read', () => {
  test('every command that reports something takes --json (checked on the command tree)', () => {
    const program = buildProgram();
    const withoutJson: string[] = [];
    const walk = (cmd: typeof program, path: string[]) => {
      for (const sub of cmd.commands) {
        const name = [...path, sub.name()].join(' ');
        if (sub.commands.length > 0) walk(sub, [...path, sub.name()]);
        else if (!['daemon', 'mcp', 'migrate', 'completion'].includes(name) && !sub.options.some((o) => o.long === '--json')) withoutJson.push(name);
      }
    };
    walk(program, []);
    expect(withoutJson).toEqual([]);
  });

  const agent = 'io-json';
  let factId: string;

  beforeAll(async () => {
    factId = (await env.client.put(agent, 'json shapes are stable', { tags: ['json'] })).fact.id;
    await env.client.checkpointSave(agent, { at: 1 });
  });

  const STATS_KEYS = ['agent_count', 'embedder', 'fact_count', 'live_by_confidence', 'live_count', 'newest_created_at', 'oldest_created_at', 'pending_embeddings', 'pinned_count', 'retired_count', 'store_bytes', 'text_bytes', 'vector_count'];
  test.each([
    ['recall', () => ['recall', agent, 'json'], ['agent_id', 'count', 'facts', 'kg_hints', 'matched', 'matches', 'query', 'retrieval']],
    ['recall --explain', () => ['recall', agent, 'json', '--explain'], ['agent_id', 'count', 'explained', 'facts', 'matched', 'query', 'retrieval']],
    ['batch-recall', () => ['batch-recall', agent, 'json', 'shapes'], ['agent_id', 'count', 'merged', 'per_query']],
    ['list', () => ['list', agent], ['agent_id', 'facts', 'next_page_token']],
    ['agents', () => ['agents'], ['agents']],
    ['stats', () => ['stats', agent], ['agent_id', ...STATS_KEYS].sort()],
    ['status', () => ['status'], ['address', 'consolidation', 'counts_not_shown', 'daemon', 'data_dir', 'data_dir_source', 'log', 'namespaces', 'pid', 'running', 'store', 'store_error', 'store_reachable']],
    ['doctor', () => ['doctor'], ['checks', 'healthy', 'rebuilt']],
    ['checkpoint resume', () => ['checkpoint', 'resume', agent], ['created_at', 'id', 'state']],
    ['checkpoint list', () => ['checkpoint', 'list', agent], ['agent_id', 'checkpoints', 'count']],
  ])('%s --json prints its documented keys', async (_name, args, keys) => {
    const out = await engramJson(args());
    expect(Object.keys(out).sort()).toEqual(keys);
  });

  test('get --json prints {fact} with every field; without --json one "key value" line per field', async () => {
    const got = await engramJson(['get', agent, factId]);
    expect(Object.keys(got)).toEqual(['fact']);
    expect(Object.keys(got.fact).sort()).toEqual(FACT_KEYS.filter((k) => k !== 'embedder'));
    expect(got.fact).toMatchObject({ id: factId, text: 'json shapes are stable', tags: ['json'] });
    const human = await engram(['get', agent, factId]);
    expect(human.stdout).toMatch(new RegExp(`^id\\s+${factId}$`, 'm'));
    expect(human.stdout).toMatch(/^tags\s+\["json"\]$/m);
  });
});

describe('completion', () => {
  let topLevel: string[];

  beforeAll(async () => {
    const help = await engram(['--help']);
    const commands = help.stdout.slice(help.stdout.indexOf('Commands:'));
    topLevel = [...commands.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]!);
    expect(topLevel).toEqual(expect.arrayContaining(['remember', 'recall', 'import', 'export', 'checkpoint', 'completion']));
  });

  test.each(['bash', 'zsh', 'fish'])('%s: mentions every command, subcommand and long option of the tree', async (shell) => {
    const run = await engram(['completion', shell]);
    expect(run.code, run.stderr).toBe(0);
    for (const name of topLevel) expect(run.stdout, name).toMatch(new RegExp(`[|'" ]${name}[ '":)]`));
    for (const sub of ['save', 'resume', 'list']) expect(run.stdout).toContain(`checkpoint|${sub}`);
    const program = buildProgram();
    const options = new Set<string>();
    const walk = (cmd: typeof program) => {
      for (const o of cmd.options) if (o.long && o.long !== '--version') options.add(o.long);
      cmd.commands.forEach(walk);
    };
    walk(program);
    for (const long of options) expect(run.stdout, long).toContain(shell === 'fish' ? `-l ${long.slice(2)}` : long);
  });

  test('bash: the script parses and completes commands, subcommands, options and choices', async () => {
    const script = file('engram.bash', (await engram(['completion', 'bash'])).stdout);
    const complete = (words: string[]) =>
      new Promise<string>((resolve, reject) => {
        const words_ = words.map((w) => `'${w}'`).join(' ');
        const program = `source '${script}'; COMP_WORDS=(${words_}); COMP_CWORD=${words.length - 1}; _engram; printf '%s\\n' "\${COMPREPLY[@]}"`;
        execFile('bash', ['-c', program], (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout.trim())));
      });
    expect((await complete(['engram', 'imp'])).split('\n')).toEqual(['import']);
    expect((await complete(['engram', 'checkpoint', ''])).split('\n')).toEqual(['save', 'resume', 'list', 'help']);
    expect((await complete(['engram', '--data-dir', 'list', 'checkpoint', 're'])).split('\n')).toEqual(['resume']);
    expect((await complete(['engram', 'export', 'a', '--format', ''])).split('\n')).toEqual(['jsonl', 'markdown']);
    expect((await complete(['engram', 'checkpoint', 'resume', 'a', '--on-missing', 'e'])).split('\n')).toEqual(['error', 'empty']);
    expect((await complete(['engram', 'recall', '-k', '5', 'agent', '--ex'])).split('\n')).toEqual(['--explain']);
    expect((await complete(['engram', 'completion', ''])).split('\n')).toEqual(['bash', 'zsh', 'fish']);
    expect(await complete(['engram', 'export', 'a', '--out', ''])).toBe(''); // file names (complete -o default)
  });

  test('an unknown shell is a usage error', async () => {
    const run = await engram(['completion', 'powershell']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Allowed choices are bash, zsh, fish/);
    expect(existsSync(join(env.cwd, '.engram'))).toBe(false);
  });
});
