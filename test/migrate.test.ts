// `engram migrate`: an embedded store copied into PostgreSQL, as a team moving to several daemons
// does it — the real command against a real daemon's data dir and a real server; interrupted
// with kill -9 and run again; then a daemon on the copy answers as the old one did.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { ENGRAM_BIN, ROOT, useDaemonPool, waitFor } from './fixtures/daemon.ts';
import { runEngram } from './fixtures/cli.ts';
import { testDatabase } from './fixtures/postgres.ts';

const pool = useDaemonPool();
const newDatabase = () => testDatabase(`migrate_${randomUUID().replace(/-/g, '').slice(0, 16)}`);
const migrate = (args: string[]) => runEngram(['migrate', ...args], { dataDir: null, cwd: ROOT, timeoutMs: 120_000 });

describe('engram migrate', () => {
  test('to a database that does not exist: says to create it, not to resume or to start a daemon', async () => {
    const dataDir = pool.newDir();
    const embedded = await pool.start({ dataDir });
    await (await embedded.client()).put('m', 'a fact to copy');
    await embedded.stop();
    const missing = (await newDatabase()).replace(/\/migrate_\w+\?/, '/no_such_database?');
    const run = await migrate(['--from', dataDir, '--to', missing]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/names a database that does not exist .*: create it first/);
    expect(run.stderr).not.toMatch(/resume|daemon again|\.\./);
  });

  test('copies every fact, vector and record; a daemon on the copy recalls, resumes and authorises as the embedded one did', async () => {
    const dataDir = pool.newDir();
    const embedded = await pool.start({ dataDir, embedder: 'local' });
    const client = await embedded.client();
    const facts = [];
    for (const [agent, text] of [['alice', 'the spare key is under the blue flower pot'], ['alice', 'the wifi password is on the fridge'], ['bob', 'bob parks on level 3'], ['bob', 'the spare key for bob is at the office']] as const) facts.push((await client.put(agent, text)).fact);
    await client.pin('alice', facts[0]!.id);
    await client.delete('bob', facts[2]!.id);
    await client.alias('alice', 'wlan', ['wifi']);
    await client.checkpointSave('alice', { step: 7 });
    await client.putSlot({ slotName: 'do_not_do', slotValue: 'never deploy on Friday', projectId: 'alice' });
    const { token } = await client.createToken({ agents: ['alice'] });
    const before = await client.recall('alice', 'where is the spare key', { topK: 5 });
    const beforeAlias = await client.recall('alice', 'wlan', { topK: 1 });
    client.close();

    const url = await newDatabase();
    const refused = await migrate(['--from', dataDir, '--to', url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/a daemon is serving .*: stop it first/);
    await embedded.stop();

    const run = await migrate(['--from', dataDir, '--to', url]);
    expect(run.stderr).toMatch(/facts: 100% \(4\/4\)/);
    // Each kind of record is counted on its own (one slot here; the count of every record was shown).
    expect(run.stderr).toMatch(/records:slots: 100% \(1\/1\)/);
    // The meta entries copied, not the store's own among them: the phase ends at 100%.
    expect(run.stderr).toMatch(/meta: 100% \((\d+)\/\1\)/);
    expect(run.code).toBe(0);
    // The facts table's four rows: three facts (engram stats' count) and the alias record.
    expect(run.stdout).toMatch(/^finished: .*\b3 facts, 1 alias\b.*Start daemons with --store/);

    const shared = await pool.start({ dataDir: pool.newDir(), embedder: 'local', args: ['--store', url] });
    const copy = await shared.client();
    expect(copy.daemon.store).toBe('postgres');
    const after = await copy.recall('alice', 'where is the spare key', { topK: 5 });
    expect(after.facts.map((f) => [f.id, f.pinned])).toEqual(before.facts.map((f) => [f.id, f.pinned]));
    expect((await copy.recall('alice', 'wlan', { topK: 1 })).facts[0]?.id).toBe(beforeAlias.facts[0]?.id);
    await expect(copy.get('bob', facts[2]!.id)).rejects.toMatchObject({ kind: 'not_found' });
    expect((await copy.checkpointResume('alice'))?.state).toEqual({ step: 7 });
    expect((await copy.slotContext({ projectId: 'alice' })).map((s) => s.slotValue)).toEqual(['never deploy on Friday']);
    const asAlice = await shared.client({ token });
    expect((await asAlice.recall('alice', 'wifi')).facts.length).toBeGreaterThan(0);
    // New writes take ids and vector keys after the copied ones, and doctor finds the copy sound.
    const added = (await copy.put('alice', 'the bike lock code is 4711')).fact;
    expect(added.id > facts[3]!.id).toBe(true);
    const doctor = await runEngram(['doctor', '--json'], { dataDir: shared.dataDir, cwd: ROOT });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(JSON.parse(doctor.stdout).healthy).toBe(true);
    asAlice.close();
    copy.close();
    // A second migration into the copy is refused: it would mix two stores. (The source needs a
    // store of its own: an empty directory is refused first, as a usage error of --from.)
    const other = pool.newDir();
    const otherDaemon = await pool.start({ dataDir: other });
    await (await otherDaemon.client()).put('carol', 'carol is in another store');
    await otherDaemon.stop();
    const again = await migrate(['--from', other, '--to', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/the target holds a copy of .*: migrate into an empty database/);
    const empty = await migrate(['--from', pool.newDir(), '--to', url]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^engram migrate: --from: there is no store at /);
    // A flag missing or malformed is a usage error (exit 2), naming it.
    expect(await migrate(['--from', other])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--to <url>' not specified/) });
    expect(await migrate(['--from', other, '--to', '/tmp/not-a-url'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--to must be a postgres:\/\/ URL, got "\/tmp\/not-a-url"/) });
  });

  test('killed -9 part way, it resumes after the last batch it committed and copies nothing twice', async () => {
    const dataDir = pool.newDir();
    const embedded = await pool.start({ dataDir });
    const client = await embedded.client();
    const items = Array.from({ length: 600 }, (_, i) => ({ agentId: `agent-${i % 3}`, text: `inventory line ${i}: ${i * 7} bolts in bin ${i % 40}` }));
    for (let i = 0; i < items.length; i += 200) await client.putBatch(items.slice(i, i + 200));
    client.close();
    await embedded.stop();

    const url = await newDatabase();
    const child = spawn(process.execPath, [ENGRAM_BIN, 'migrate', '--from', dataDir, '--to', url, '--batch', '5'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await waitFor(async () => (/facts: [1-9]0%/.test(stderr) || child.exitCode !== null ? true : undefined), 60_000);
    child.kill('SIGKILL');
    await exited;
    expect(stderr).not.toMatch(/facts: 100%/);

    const resumed = await migrate(['--from', dataDir, '--to', url, '--batch', '50']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^resumed and finished/);
    const shared = await pool.start({ dataDir: pool.newDir(), args: ['--store', url] });
    const copy = await shared.client();
    const texts: string[] = [];
    for (const agent of ['agent-0', 'agent-1', 'agent-2']) {
      for (let page = ''; ; ) {
        const res = await copy.list(agent, { pageSize: 500, pageToken: page });
        texts.push(...res.facts.map((f) => f.text));
        if (!res.nextPageToken) break;
        page = res.nextPageToken;
      }
    }
    expect(texts.sort()).toEqual(items.map((i) => i.text).sort());
    copy.close();
  });
});
