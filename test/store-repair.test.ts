// A store LevelDB can no longer open is explained in one message that says what to do, and
// `engram doctor --repair` (LevelDB's repair, offline) brings it back with every readable record.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runEngram } from './fixtures/cli.ts';
import { ENGRAM_BIN, useDaemonPool, waitFor } from './fixtures/daemon.ts';
import { LevelStore } from '../daemon/store/level/level-store.ts';

const pool = useDaemonPool();

describe('a damaged store', () => {
  test('start-up names the file problem and the repair; doctor --repair recovers the facts; it refuses while a daemon serves the directory', async () => {
    const dataDir = pool.newDir();
    const first = await pool.start({ dataDir });
    const client = await first.client();
    for (let i = 0; i < 50; i++) await client.put('kept', `fact number ${i} before the damage`);
    client.close();
    const serving = await runEngram(['doctor', '--repair'], { dataDir, cwd: dataDir });
    expect(serving.code).toBe(1);
    // One line: the refusal, with no "repairing…" announced before it.
    expect(serving.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^engram doctor --repair: a daemon is serving .*: stop it first/)]);
    await first.stop();
    const healthy = await runEngram(['doctor', '--repair'], { dataDir, cwd: dataDir });
    expect(healthy.code).toBe(0);
    expect(healthy.stdout).toMatch(/nothing to repair/);

    writeFileSync(join(dataDir, 'store', 'CURRENT'), 'garbage\n');
    const failed = spawnSync(process.execPath, [ENGRAM_BIN, 'daemon', '--data-dir', dataDir, '--embedder', 'none'], { encoding: 'utf8', timeout: 60_000 });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain(`engram doctor --repair --data-dir ${dataDir}`);
    expect(failed.stderr).not.toMatch(/\n\s+at /);

    const repaired = await runEngram(['doctor', '--repair'], { dataDir, cwd: dataDir });
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stderr).toContain('repairing ');
    const again = await pool.start({ dataDir });
    expect((await (await again.client()).list('kept', { pageSize: 100 })).facts).toHaveLength(50);
  });

  test('facts whose vectors were lost are found by doctor and embedded again by doctor --rebuild', async () => {
    const dataDir = pool.newDir();
    const first = await pool.start({ dataDir, embedder: 'local' });
    const client = await first.client();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await client.put('v', `the harbour crane number ${i} lifts containers`)).fact.id);
    client.close();
    await first.stop();

    // What a rebuild that raced writers once left behind: facts naming vectors the store lacks.
    const store = await LevelStore.open(join(dataDir, 'store'));
    const lost = (await store.getFacts(ids.slice(0, 4).map((factId) => ({ agentId: 'v', factId })))).map((f) => f!);
    await store.commit(lost.map((f) => ({ type: 'deleteVector' as const, agentId: 'v', vectorKey: f.vectorKey })));
    await store.close();

    const again = await pool.start({ dataDir, embedder: 'local', args: ['--reconcile-ms', '200'] });
    const check = await runEngram(['doctor', '--json'], { dataDir, cwd: dataDir });
    expect(check.code).toBe(1);
    expect(JSON.parse(check.stdout).checks.find((c: { name: string }) => c.name === 'vectors')).toMatchObject({ ok: false, detail: expect.stringMatching(/^4 missing/) });

    const rebuilt = await runEngram(['doctor', '--rebuild', '--json'], { dataDir, cwd: dataDir });
    expect(rebuilt.code, rebuilt.stdout).toBe(0);
    const reopened = await again.client();
    await waitFor(async () => ((await reopened.stats('v')).pendingEmbeddings === 0 ? true : undefined), 30_000);
    const embedder = (await reopened.get('v', ids[11]!)).embedder;
    expect(embedder).toBeTruthy();
    for (const f of lost) expect((await reopened.get('v', f.id)).embedder).toBe(embedder);
    expect((await reopened.stats('v')).vectorCount).toBe(12);
    const after = await runEngram(['doctor', '--json'], { dataDir, cwd: dataDir });
    expect(after.code, after.stdout).toBe(0);
    reopened.close();
  });

  test('writes lost to a damaged write-ahead log are reported at start-up and by doctor, and the log is kept', async () => {
    const dataDir = pool.newDir();
    const first = await pool.start({ dataDir });
    const client = await first.client();
    for (let i = 0; i < 200; i++) await client.put('wal', `write-ahead fact number ${i} ${'padding '.repeat(10)}`);
    client.close();
    await first.kill9(); // the writes are in the log, not yet in a table file

    const storeDir = join(dataDir, 'store');
    const log = readdirSync(storeDir).find((name) => name.endsWith('.log'))!;
    const bytes = readFileSync(join(storeDir, log));
    for (let i = 0; i < 64; i++) bytes[Math.floor(bytes.length / 2) + i]! ^= 0xff;
    writeFileSync(join(storeDir, log), bytes);

    const again = await pool.start({ dataDir });
    expect(again.log()).toMatch(/write-ahead log was damaged: LevelDB skipped \d+ bytes/);
    const report = await runEngram(['doctor', '--json'], { dataDir, cwd: dataDir });
    expect(report.code).toBe(1);
    const check = JSON.parse(report.stdout).checks.find((c: { name: string }) => c.name === 'write-ahead log');
    expect(check).toMatchObject({ ok: false, detail: expect.stringMatching(/^damaged at start-up: \d+ bytes skipped/) });
    const kept = readdirSync(dataDir).filter((name) => name.startsWith('damaged-log-'));
    expect(kept).toHaveLength(1);
    expect(existsSync(join(dataDir, kept[0]!, log))).toBe(true);
    expect((await (await again.client()).stats('wal')).liveCount).toBeLessThan(200);
  });
});
