// A store LevelDB can no longer open is explained in one message that says what to do, and
// `engram doctor --repair` (LevelDB's repair, offline) brings it back with every readable record.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runEngram } from './fixtures/cli.ts';
import { ENGRAM_BIN, useDaemonPool } from './fixtures/daemon.ts';

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
    expect(serving.stderr).toMatch(/stop it first/);
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
    const again = await pool.start({ dataDir });
    expect((await (await again.client()).list('kept', { pageSize: 100 })).facts).toHaveLength(50);
  });
});
