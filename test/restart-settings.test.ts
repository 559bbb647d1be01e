// A restarted daemon keeps the settings it had, however they were given: `engram restart` (and
// `engram mcp`, starting its daemon again) from a shell without the variables the daemon was
// started with, and from another directory, brings back the same daemon. A secret the daemon had,
// from a variable or typed as a flag, is never written to a file: a restart must be given it by its
// own environment (the flag's variable), and without it is refused before anything is stopped. Real parts: the built `engram` command,
// detached daemons, temp dirs, the test PostgreSQL server.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { processAlive as isAlive, type Discovery } from '../shared/discovery.ts';
import { runEngram, type CliRun } from './fixtures/cli.ts';
import { removeDir, tempDataDir, waitFor } from './fixtures/daemon.ts';
import { openStdio } from './fixtures/mcp.ts';
import { testDatabase } from './fixtures/postgres.ts';
import { engramInShell, shellEnv } from './fixtures/shell.ts';

const discoveryOf = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as Discovery;

/** Every file under `dir`, read as text. */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path, 'latin1') }));
}

describe('a restarted daemon keeps the settings it had', () => {
  const roots: string[] = [];
  const dataDirs: string[] = [];
  /** A root holding a data dir (`data`, made by the first start) and two working directories,
   *  `first` and `other`. */
  const newRoot = () => {
    const root = tempDataDir('engram-restart-settings-');
    roots.push(root);
    dataDirs.push(join(root, 'data'));
    for (const name of ['first', 'other']) mkdirSync(join(root, name));
    return { dataDir: join(root, 'data'), first: join(root, 'first'), other: join(root, 'other') };
  };
  /** `engram --data-dir DIR args` run in `cwd` with exactly `env` (runEngram would add this
   *  process's environment back). */
  const engram = (args: string[], dataDir: string, cwd: string, env: Record<string, string>): Promise<CliRun> => engramInShell(['--data-dir', dataDir, ...args], cwd, env);
  const json = async (args: string[], dataDir: string, cwd: string, env: Record<string, string>) => {
    const run = await engram([...args, '--json'], dataDir, cwd, env);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout);
  };

  afterAll(async () => {
    for (const dataDir of dataDirs) await runEngram(['stop'], { dataDir, cwd: roots[0]! });
    roots.forEach(removeDir);
  });

  test('settings given by variables (ENGRAM_COMPAT, ENGRAM_LISTEN, ENGRAM_EMBEDDER) survive engram restart from a shell without them', async () => {
    const { dataDir, first } = newRoot();
    const started = await json(['start'], dataDir, first, shellEnv({ ENGRAM_COMPAT: 'v0.2', ENGRAM_LISTEN: '127.0.0.1:0', ENGRAM_EMBEDDER: 'none' }));
    expect(started.started).toBe(true);
    const before = await json(['status'], dataDir, first, shellEnv());
    expect(before.daemon).toMatchObject({ profile: 'v0.2' });
    expect(discoveryOf(dataDir).tcpAddress).toMatch(/^127\.0\.0\.1:\d+$/);

    const restarted = await json(['restart'], dataDir, first, shellEnv());
    expect(restarted.stopped_pid).toBe(started.pid);
    const after = await json(['status'], dataDir, first, shellEnv());
    expect(after.pid).toBe(restarted.pid);
    expect(after.daemon).toMatchObject({ profile: 'v0.2', embedder: before.daemon.embedder });
    expect(discoveryOf(dataDir).tcpAddress).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  test('a relative --vault means the directory of the first start, not the restarter\'s', async () => {
    const { dataDir, first, other } = newRoot();
    const env = shellEnv({ ENGRAM_EMBEDDER: 'none' });
    expect((await json(['start', '--vault', './vault'], dataDir, first, env)).started).toBe(true);

    await json(['restart'], dataDir, other, env);
    expect(existsSync(join(other, 'vault'))).toBe(false);
    // Promotion writes its note into the vault the daemon has: the first start's.
    const { fact } = await json(['remember', 'alice', 'The vault keeps long-term notes'], dataDir, other, env);
    await json(['promote', 'alice', fact.id, '--force'], dataDir, other, env);
    const notes = filesUnder(join(first, 'vault')).filter(({ text }) => text.includes('The vault keeps long-term notes'));
    expect(notes).toHaveLength(1);
  });

  test('a password in ENGRAM_STORE is in no file; a restart without ENGRAM_STORE is refused and stops nothing; with it, the daemon comes back on its database', async () => {
    const { dataDir, first } = newRoot();
    const password = 'pw-never-in-a-file-7c1f';
    // The test server trusts its socket, so any password connects: the point is where it goes.
    const store = (await testDatabase('restart_settings_secret')).replace('postgresql://engram@', `postgresql://engram:${password}@`);
    const withStore = shellEnv({ ENGRAM_STORE: store, ENGRAM_EMBEDDER: 'none' });
    const started = await json(['start'], dataDir, first, withStore);
    const { fact } = await json(['remember', 'alice', 'Kept in PostgreSQL'], dataDir, first, withStore);
    const leaks = () => filesUnder(dataDir).filter(({ text }) => text.includes(password)).map(({ path }) => path);
    expect(leaks()).toEqual([]);

    const refused = await engram(['restart'], dataDir, first, shellEnv({ ENGRAM_EMBEDDER: 'none' }));
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('ENGRAM_STORE');
    expect(refused.stderr).toContain(`serves on as it was (pid ${started.pid})`);
    expect(refused.stderr).not.toContain(password);
    expect(discoveryOf(dataDir).pid).toBe(started.pid);

    // The restarter sets ENGRAM_STORE alone: the embedder the daemon had from its variable comes
    // back from the record, and the fact written before is there (the daemon is on its database,
    // not on a new LevelDB store).
    const onlyStore = shellEnv({ ENGRAM_STORE: store });
    const run = await engram(['restart', '--json'], dataDir, first, onlyStore);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('passing on ENGRAM_STORE');
    expect(JSON.parse(run.stdout).stopped_pid).toBe(started.pid);
    expect((await json(['status'], dataDir, first, onlyStore)).daemon).toMatchObject({ embedder: 'none' });
    expect((await json(['get', 'alice', fact.id], dataDir, first, onlyStore)).fact.text).toBe('Kept in PostgreSQL');
    expect(leaks()).toEqual([]);
  });

  test('a password typed in --store is in no file either; a restart takes it from ENGRAM_STORE, and without it is refused naming both and stops nothing', async () => {
    const { dataDir, first } = newRoot();
    const password = 'pw-typed-never-in-a-file-4d2a';
    const store = (await testDatabase('restart_settings_secret_flag')).replace('postgresql://engram@', `postgresql://engram:${password}@`);
    const env = shellEnv({ ENGRAM_EMBEDDER: 'none' });
    const started = await json(['start', '--store', store], dataDir, first, env);
    const { fact } = await json(['remember', 'alice', 'Kept in PostgreSQL, typed as a flag'], dataDir, first, env);
    const leaks = () => filesUnder(dataDir).filter(({ text }) => text.includes(password)).map(({ path }) => path);
    expect(leaks()).toEqual([]);
    expect(discoveryOf(dataDir)).toMatchObject({ secretVariables: ['ENGRAM_STORE'], secretFlags: { ENGRAM_STORE: '--store' } });
    expect(discoveryOf(dataDir).args).toContain('--store');

    const refused = await engram(['restart'], dataDir, first, env);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('had --store on its command line');
    expect(refused.stderr).toContain('needs ENGRAM_STORE (to the value it had in --store) set here');
    expect(refused.stderr).toContain(`serves on as it was (pid ${started.pid})`);
    expect(refused.stderr).not.toContain(password);
    expect(discoveryOf(dataDir).pid).toBe(started.pid);

    const run = await engram(['restart', '--json'], dataDir, first, shellEnv({ ENGRAM_STORE: store }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('passing on ENGRAM_STORE (for --store)');
    expect((await json(['get', 'alice', fact.id], dataDir, first, env)).fact.text).toBe('Kept in PostgreSQL, typed as a flag');
    expect(leaks()).toEqual([]);
  });

  test('a token typed in --token is only in the discovery file\'s token, where clients read it: a restart gives it to the daemon again, in its environment', async () => {
    const { dataDir, first } = newRoot();
    const token = 'typed-daemon-token-9e51';
    const env = shellEnv({ ENGRAM_EMBEDDER: 'none' });
    await json(['start', '--listen', '127.0.0.1:0', '--token', token], dataDir, first, env);
    const { token: own, ...rest } = discoveryOf(dataDir);
    expect(own).toBe(token);
    expect(JSON.stringify(rest)).not.toContain(token);
    expect(rest.args).not.toContain('--token');
    expect(rest).toMatchObject({ secretVariables: ['ENGRAM_TOKEN'], secretFlags: { ENGRAM_TOKEN: '--token' } });

    const run = await engram(['restart', '--json'], dataDir, first, env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('giving the daemon its own token again');
    const again = discoveryOf(dataDir);
    expect(again).toMatchObject({ token, tcpAddress: expect.stringMatching(/^127\.0\.0\.1:\d+$/) });
    // Given in the environment, not as an argument: not in the process list.
    expect(execFileSync('ps', ['-o', 'args=', '-p', String(again.pid)], { encoding: 'utf8' })).not.toContain(token);
    expect(JSON.stringify({ ...again, token: undefined })).not.toContain(token);
  });

  test('a discovery file an older daemon wrote (its arguments, no startFlags) still restarts it with the flags it was given', async () => {
    const { dataDir, first } = newRoot();
    const env = shellEnv({ ENGRAM_EMBEDDER: 'none' });
    const started = await json(['start', '--default-confidence-weight', '0.3'], dataDir, first, env);
    const { startFlags: _flags, secretVariables: _secrets, ...older } = discoveryOf(dataDir);
    writeFileSync(join(dataDir, 'daemon.json'), JSON.stringify(older), { mode: 0o600 });
    expect((await json(['restart'], dataDir, first, env)).stopped_pid).toBe(started.pid);
    expect((await json(['status'], dataDir, first, env)).daemon).toMatchObject({ default_confidence_weight: 0.3 });
  });

  test('engram mcp starts its crashed daemon again with the settings it had from variables, though its own environment lacks them', async () => {
    const { dataDir, first } = newRoot();
    const started = await json(['start'], dataDir, first, shellEnv({ ENGRAM_LISTEN: '127.0.0.1:0', ENGRAM_EMBEDDER: 'none' }));
    const mcp = await openStdio(['--data-dir', dataDir], shellEnv());
    try {
      await mcp.ok('memory_add', { agent_id: 'a', text: 'Written before the crash' });
      process.kill(started.pid, 'SIGKILL');
      await waitFor(async () => (isAlive(started.pid) ? undefined : true), 30_000);
      await mcp.ok('memory_search', { agent_id: 'a', query: 'crash' });
      const again = discoveryOf(dataDir);
      expect(again.pid).not.toBe(started.pid);
      expect(again, mcp.stderr()).toMatchObject({ tcpAddress: expect.stringMatching(/^127\.0\.0\.1:\d+$/) });
    } finally {
      await mcp.close();
    }
  });
});
