// Memories are private to the user who runs Engram: the data directory ends up 0700 and every file
// in it 0600 even when it existed before with laxer modes; a directory others may write to is
// refused with the fix in the message; the markdown export is private too, and an --out that
// cannot be written is one clear error (never a stack trace, never a hang).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runEngram } from './fixtures/cli.ts';
import { ENGRAM_BIN, useDaemonPool } from './fixtures/daemon.ts';

const pool = useDaemonPool();

function modes(dir: string): { path: string; mode: number; dir: boolean }[] {
  const out = [{ path: dir, mode: statSync(dir).mode & 0o777, dir: true }];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...modes(path));
    else if (entry.isFile()) out.push({ path, mode: statSync(path).mode & 0o777, dir: false });
  }
  return out;
}

describe('private files', () => {
  test('a data directory created 0755 with a 0644 file in it ends up 0700, with every file 0600', async () => {
    const dataDir = join(pool.newDir(), 'home');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'notes.txt'), 'left here before', { mode: 0o644 });
    chmodSync(join(dataDir, 'notes.txt'), 0o644);
    const daemon = await pool.start({ dataDir, embedder: 'local' });
    const client = await daemon.client();
    await client.put('private', 'the staging password is hunter2');
    await daemon.stop();
    const all = modes(dataDir);
    expect(all.filter((m) => m.dir).map((m) => [m.path, m.mode.toString(8)])).toEqual(all.filter((m) => m.dir).map((m) => [m.path, '700']));
    expect(all.filter((m) => !m.dir && (m.mode & 0o077) !== 0).map((m) => `${m.path} ${m.mode.toString(8)}`)).toEqual([]);
    expect(all.some((m) => m.path.endsWith('.usearch') || m.path.includes('vectors'))).toBe(true);
  });

  test('a directory other users may write to is refused, saying how to fix it', () => {
    const dataDir = join(pool.newDir(), 'open');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o777);
    const run = spawnSync(process.execPath, [ENGRAM_BIN, 'daemon', '--data-dir', dataDir, '--embedder', 'none'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`chmod 700 ${dataDir}`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  test('the markdown export is private; an --out that cannot be written is one clear error', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client();
    await client.put('vault', 'a note for the vault');
    const vault = join(pool.newDir(), 'notes', 'engram', 'vault');
    const cli = (args: string[]) => runEngram(args, { dataDir: daemon.dataDir, cwd: daemon.dataDir, timeoutMs: 30_000 });
    expect((await cli(['export', 'vault', '--format', 'markdown', '--out', vault])).code).toBe(0);
    expect(modes(vault).map((m) => (m.dir ? m.mode === 0o700 : m.mode === 0o600))).not.toContain(false);
    for (const args of [['--out', '/proc/engram-x.jsonl'], ['--format', 'markdown', '--out', '/proc/engram-xdir'], ['--out', '/nonexistent/dir/x.jsonl']]) {
      const run = await cli(['export', 'vault', ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/--out: cannot write/);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('damaged vector index files', () => {
  test('a garbage or altered index file is never handed to USearch: the daemon starts, says so, and rebuilds it', async () => {
    const dataDir = pool.newDir();
    const first = await pool.start({ dataDir, embedder: 'local' });
    const client = await first.client();
    for (let i = 0; i < 40; i++) await client.put('vec', `vector note ${i} about harbour cranes`);
    await first.stop();
    const files = readdirSync(join(dataDir, 'vectors')).filter((f) => f.endsWith('.usearch'));
    expect(files.length).toBeGreaterThan(0);
    for (const damage of ['garbage', 'altered'] as const) {
      for (const f of files) {
        const path = join(dataDir, 'vectors', f);
        if (damage === 'garbage') writeFileSync(path, Buffer.from('0123456789abcdefghi'));
        else {
          const bytes = readFileSync(path);
          bytes.fill(0xff, Math.floor(bytes.length / 3), Math.floor(bytes.length / 3) + 64);
          writeFileSync(path, bytes);
        }
      }
      const again = await pool.start({ dataDir, embedder: 'local' });
      const c = await again.client();
      const r = await c.recall('vec', 'harbour cranes', { topK: 5, weights: { keyword: 0, recency: 0 } });
      expect(r.facts, damage).toHaveLength(5);
      expect(r.retrieval.signals).toContain('vector');
      c.close();
      await again.stop();
      expect(again.log()).toMatch(/saved vector index of \\"vec\\" is damaged|saved vector index of "vec" is damaged/);
    }
  }, 120_000);
});
