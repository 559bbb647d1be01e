// A daemon stopped cleanly comes back as it was: `engram restart`, `engram start` without flags
// and `engram mcp` start it with the settings of its last start, which a stop leaves in the data
// dir (never a secret). A daemon started with the default store in a directory whose last start
// served PostgreSQL refuses before it makes anything, however it is started; and flags that
// replace the recorded settings name those they drop. Real parts: the built `engram` command,
// detached daemons, temp dirs, the test PostgreSQL server.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Discovery } from '../shared/discovery.ts';
import { runEngram, type CliRun } from './fixtures/cli.ts';
import { removeDir, tempDataDir } from './fixtures/daemon.ts';
import { openStdio } from './fixtures/mcp.ts';
import { testDatabase } from './fixtures/postgres.ts';
import { engramInShell, shellEnv } from './fixtures/shell.ts';

const discoveryOf = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as Discovery;
const LAST_START = 'last-start.json';

/** Every file under `dir` (relative names), and the text of each. */
function filesUnder(dir: string): Map<string, string> {
  const names = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => statSync(join(dir, name)).isFile());
  return new Map(names.sort().map((name) => [name, readFileSync(join(dir, name), 'latin1')]));
}

describe('a stopped daemon comes back with the settings of its last start', () => {
  const roots: string[] = [];
  const newDataDir = () => {
    const root = tempDataDir('engram-last-start-');
    roots.push(root);
    mkdirSync(join(root, 'cwd'));
    return { dataDir: join(root, 'data'), cwd: join(root, 'cwd') };
  };
  /** `engram --data-dir DIR args` run with exactly `env`. */
  const engram = (args: string[], dataDir: string, cwd: string, env: Record<string, string>): Promise<CliRun> => engramInShell(['--data-dir', dataDir, ...args], cwd, env);
  const json = async (args: string[], dataDir: string, cwd: string, env: Record<string, string>) => {
    const run = await engram([...args, '--json'], dataDir, cwd, env);
    expect(run.code, run.stderr).toBe(0);
    return { ...JSON.parse(run.stdout), stderr: run.stderr };
  };
  /** `engram daemon` in the foreground, as a terminal or a service manager runs it. */
  const foreground = (dataDir: string, cwd: string, env: Record<string, string>): Promise<CliRun> => engramInShell(['daemon', '--data-dir', dataDir], cwd, env);

  afterAll(async () => {
    for (const root of roots) await runEngram(['stop'], { dataDir: join(root, 'data'), cwd: root });
    roots.forEach(removeDir);
  });

  test('stop, then restart: the daemon keeps --embedder none and its --http door; stop, then start without flags: the same', async () => {
    const { dataDir, cwd } = newDataDir();
    const env = shellEnv();
    await json(['start', '--embedder', 'none', '--http', '127.0.0.1:0'], dataDir, cwd, env);
    await json(['stop'], dataDir, cwd, env);
    expect(existsSync(join(dataDir, 'daemon.json'))).toBe(false);
    expect(statSync(join(dataDir, LAST_START)).mode & 0o777).toBe(0o600);

    const restarted = await json(['restart'], dataDir, cwd, env);
    expect(restarted.stderr).toContain('with the settings of its last start: --embedder none --http 127.0.0.1:0');
    expect(discoveryOf(dataDir).httpAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect((await json(['status'], dataDir, cwd, env)).daemon).toMatchObject({ embedder: 'none' });

    await json(['stop'], dataDir, cwd, env);
    const started = await json(['start'], dataDir, cwd, env);
    expect(started.started).toBe(true);
    expect(started.stderr).toContain('with the settings of its last start: --embedder none --http 127.0.0.1:0');
    expect(discoveryOf(dataDir).httpAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect((await json(['status'], dataDir, cwd, env)).daemon).toMatchObject({ embedder: 'none' });
  });

  test('stop, then engram mcp: the daemon it starts has the settings of the last start', async () => {
    const { dataDir, cwd } = newDataDir();
    const env = shellEnv();
    await json(['start', '--embedder', 'none', '--listen', '127.0.0.1:0'], dataDir, cwd, env);
    await json(['stop'], dataDir, cwd, env);
    const mcp = await openStdio(['--data-dir', dataDir], env);
    try {
      await mcp.ok('memory_add', { agent_id: 'a', text: 'Written after the stop' });
      expect(mcp.stderr()).toMatch(/started one \(pid .*\) with the settings of its last start: (--embedder none --listen 127\.0\.0\.1:0|--listen 127\.0\.0\.1:0 --embedder none)\n/);
      expect(discoveryOf(dataDir).tcpAddress).toMatch(/^127\.0\.0\.1:\d+$/);
      expect((await json(['status'], dataDir, cwd, env)).daemon).toMatchObject({ embedder: 'none' });
    } finally {
      await mcp.close();
    }
  });

  test('engram restart with flags names the recorded settings it drops, not those it gives again', async () => {
    const { dataDir, cwd } = newDataDir();
    const env = shellEnv();
    await json(['start', '--embedder', 'none', '--http', '127.0.0.1:0'], dataDir, cwd, env);
    const restarted = await json(['restart', '--embedder', 'none', '--mcp-http', '127.0.0.1:0'], dataDir, cwd, env);
    const dropped = restarted.stderr.split('\n').filter((line: string) => line.includes('dropped'));
    expect(dropped).toEqual(['engram: the flags given replace the settings of the last start, so these are dropped: --http 127.0.0.1:0 (give them too to keep them)']);
    expect(discoveryOf(dataDir).httpAddress).toBeUndefined();

    // engram start with flags, after a stop, says the same of what it drops.
    await json(['stop'], dataDir, cwd, env);
    const started = await json(['start', '--http', '127.0.0.1:0'], dataDir, cwd, env);
    expect(started.stderr).toContain('so these are dropped: --embedder none, --mcp-http 127.0.0.1:0 (give them too to keep them)');
  });

  test('a PostgreSQL daemon stopped cleanly: its password is in no file; a daemon with the default store is refused there, naming the store, before it makes anything; engram mcp brings back the daemon on its database', async () => {
    const { dataDir, cwd } = newDataDir();
    const password = 'pw-never-in-a-file-9d2e';
    // The test server trusts its socket, so any password connects: the point is where it goes.
    const store = (await testDatabase('last_start_secret')).replace('postgresql://engram@', `postgresql://engram:${password}@`);
    const withStore = shellEnv({ ENGRAM_STORE: store });
    await json(['start', '--embedder', 'none'], dataDir, cwd, withStore);
    await json(['remember', 'alice', 'Kept in PostgreSQL'], dataDir, cwd, withStore);
    await json(['stop'], dataDir, cwd, withStore);
    const leaks = () => [...filesUnder(dataDir)].filter(([, text]) => text.includes(password)).map(([name]) => name);
    expect(leaks()).toEqual([]);

    const before = filesUnder(dataDir);
    const refused = await foreground(dataDir, cwd, shellEnv({ ENGRAM_EMBEDDER: 'none' }));
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(`last served the PostgreSQL store postgresql://engram:***@localhost/last_start_secret`);
    expect(refused.stderr).toContain('--store level');
    expect(refused.stderr).toContain('ENGRAM_STORE');
    expect(refused.stderr).not.toContain(password);
    expect(filesUnder(dataDir)).toEqual(before);

    // Without ENGRAM_STORE, engram mcp cannot start it as it was, and starts nothing.
    const without = await openStdio(['--data-dir', dataDir], shellEnv()).then(
      async (mcp) => (await mcp.close(), 'served'),
      (error: Error) => error.message,
    );
    expect(without).not.toBe('served');
    expect(existsSync(join(dataDir, 'daemon.json'))).toBe(false);
    expect(filesUnder(dataDir)).toEqual(before);

    const mcp = await openStdio(['--data-dir', dataDir], withStore);
    try {
      // The fact written before the stop is found: the daemon is on its database again.
      const found = await mcp.ok('memory_search', { agent_id: 'alice', query: 'PostgreSQL' });
      expect(found).toMatchObject({ facts: ['Kept in PostgreSQL'] });
      expect(mcp.stderr()).toMatch(/started one \(pid .*\) with the settings of its last start: --embedder none\n/);
    } finally {
      await mcp.close();
    }
    expect(leaks()).toEqual([]);
  });

  test('a PostgreSQL daemon given by flag, stopped: engram start with other flags drops --store, says so, and the daemon refuses; engram start without flags brings it back on its database', async () => {
    const { dataDir, cwd } = newDataDir();
    const store = await testDatabase('last_start_flag');
    const env = shellEnv();
    await json(['start', '--store', store, '--embedder', 'none'], dataDir, cwd, env);
    const { fact } = await json(['remember', 'alice', 'Kept in PostgreSQL'], dataDir, cwd, env);
    await json(['stop'], dataDir, cwd, env);

    const before = [...filesUnder(dataDir).keys()];
    const refused = await engram(['start', '--embedder', 'none'], dataDir, cwd, env);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`so these are dropped: --store ${store}`);
    expect(refused.stderr).toContain('last served the PostgreSQL store postgresql://engram@localhost/last_start_flag');
    expect(existsSync(join(dataDir, 'daemon.json'))).toBe(false);
    expect([...filesUnder(dataDir).keys()]).toEqual(before);

    const started = await json(['start'], dataDir, cwd, env);
    expect(started.started).toBe(true);
    expect((await json(['get', 'alice', fact.id], dataDir, cwd, env)).fact.text).toBe('Kept in PostgreSQL');
  });
});
