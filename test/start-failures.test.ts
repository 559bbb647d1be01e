// `engram start` and `engram restart` when the daemon cannot start: the daemon's own reason in a
// few lines (only what this start logged), no stack trace, exit 2 for a refused flag as `engram
// daemon` exits; a restart whose new flags fail starts the daemon that served again; a start that
// finds one serving says the flags it was given did not apply; a flag the daemon would refuse is
// refused before a serving daemon is stopped; a daemon killed by a signal is said to be.
import { createServer, type Server } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runEngram } from './fixtures/cli.ts';

const work = mkdtempSync(join(tmpdir(), 'engram-start-failures-'));
const dataDir = join(work, 'data');
const run = (args: string[], dir = dataDir) => runEngram(['--data-dir', dir, ...args], { dataDir: null, cwd: work, timeoutMs: 120_000 });
let busy: Server | undefined;
afterAll(async () => {
  await run(['stop']);
  busy?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('a daemon that cannot start', () => {
  test('a refused flag: the daemon\'s line and exit 2, without a stack trace or an earlier start\'s lines', async () => {
    // A directory that exists keeps its log, so the earlier start's lines are there to leave out.
    const other = join(work, 'refused');
    mkdirSync(other);
    await run(['start', '--signal-weights', '1,,1'], other);
    expect(readdirSync(other)).toEqual(['daemon.log']);
    const { code, stderr } = await run(['start', '--embedder', 'bogus'], other);
    expect(code).toBe(2);
    expect(stderr).toContain("argument 'bogus' is invalid");
    expect(stderr).not.toContain('--signal-weights');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  test('a failed start in a directory it made leaves no directory behind; one that existed keeps its log', async () => {
    const fresh = join(work, 'fresh', 'data');
    const kept = join(work, 'refused');
    // Two starts in two directories: at once.
    const [{ code, stderr }, keptRun] = await Promise.all([run(['start', '--embedder', 'bogus'], fresh), run(['start', '--embedder', 'bogus'], kept)]);
    expect(code).toBe(2);
    expect(stderr).toContain("argument 'bogus' is invalid");
    expect(stderr).toContain(`(${fresh} did not exist before; nothing was left there)`);
    expect(existsSync(fresh)).toBe(false);
    expect(keptRun.stderr).toContain(`(its log: ${join(kept, 'daemon.log')})`);
    expect(readdirSync(kept)).toEqual(['daemon.log']);
  });

  test('a start that fails after its daemon began (a busy port) leaves nothing of what it made, its parents included; a directory that existed keeps its log', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const http = `127.0.0.1:${(taken.address() as { port: number }).port}`;
    try {
      const made = join(work, 'busy-parent');
      const fresh = join(made, 'data');
      const failed = await run(['start', '--embedder', 'none', '--http', http], fresh);
      expect(failed.code, failed.stderr).toBe(1);
      expect(failed.stderr).toContain(`cannot serve HTTP on ${http}: EADDRINUSE`);
      expect(failed.stderr).toContain(`(${fresh} did not exist before; nothing was left there)`);
      expect(existsSync(made)).toBe(false);

      const existing = join(work, 'busy-existing');
      mkdirSync(existing);
      const kept = await run(['start', '--embedder', 'none', '--http', http], existing);
      expect(kept.code, kept.stderr).toBe(1);
      expect(kept.stderr).toContain(`(its log: ${join(existing, 'daemon.log')})`);
      expect(readdirSync(existing)).toContain('daemon.log');
    } finally {
      taken.close();
    }
  });

  test('a failed start whose log holds more than the error shows keeps that log outside the directory it removes, and names it', async () => {
    // The daemon process writes twelve lines and exits: the error shows the last ten. (No spaces:
    // NODE_OPTIONS is split on them.)
    const noisy = "--import=data:text/javascript,if(process.argv[2]==='daemon'){[...Array(12).keys()].forEach((i)=>console.error('early-line-'+(i+1)));process.exit(1)}";
    const fresh = join(work, 'noisy');
    const { code, stderr } = await runEngram(['--data-dir', fresh, 'start'], { dataDir: null, cwd: work, timeoutMs: 120_000, env: { NODE_OPTIONS: noisy } });
    expect(code).toBe(1);
    expect(stderr).toContain('early-line-12');
    expect(stderr).not.toContain('early-line-2\n');
    const log = stderr.match(/\(\S+ did not exist before and was removed; its whole log: (\S+)\)/)?.[1];
    expect(log, stderr).toBeDefined();
    expect(existsSync(fresh)).toBe(false);
    try {
      expect(readFileSync(log!, 'utf8')).toContain('early-line-1\n');
    } finally {
      rmSync(log!, { force: true });
    }
  });

  test('a daemon killed by a signal before it serves is said to be, not to have exit status -1', async () => {
    // The daemon process (argv: node engram.js daemon …), not the engram start that spawns it,
    // kills itself as it loads: a crash, as a SIGABRT or an out-of-memory kill would be.
    const crash = "--import=data:text/javascript,if(process.argv[2]==='daemon')process.kill(process.pid,'SIGKILL')";
    const fresh = join(work, 'crashed');
    const { code, stderr } = await runEngram(['--data-dir', fresh, 'start'], { dataDir: null, cwd: work, timeoutMs: 120_000, env: { NODE_OPTIONS: crash } });
    expect(code).toBe(1);
    expect(stderr).toContain(`the daemon for ${fresh} did not start (killed by SIGKILL):`);
    expect(stderr).not.toContain('exit status');
  });

  test('a restart whose new flags fail starts the daemon that served again, and says so', async () => {
    expect((await run(['start', '--embedder', 'none'])).code).toBe(0);
    busy = createServer();
    await new Promise<void>((resolve) => busy!.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const { code, stderr } = await run(['restart', '--embedder', 'none', '--http', `127.0.0.1:${port}`]);
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot serve HTTP on 127.0.0.1:${port}`);
    expect(stderr).toContain('started the daemon again with the flags it had');
    expect((await run(['status'])).code).toBe(0);
  });

  test('a start that finds a daemon serving says the flags it was given did not apply', async () => {
    const { code, stdout } = await run(['start', '--http', '127.0.0.1:1']);
    expect(code).toBe(0);
    expect(stdout).toContain('nothing started, so --http 127.0.0.1:1 did not apply (engram restart --http 127.0.0.1:1 restarts it with them)');
  });

  test('a flag the daemon would refuse is refused before the serving daemon is stopped, by restart and by start', async () => {
    expect((await run(['start', '--embedder', 'none'])).code).toBe(0);
    const pid = async () => (JSON.parse((await run(['status', '--json'])).stdout) as { pid: number }).pid;
    const before = await pid();
    const restarted = await run(['restart', '--signal-weights', '1,,1']);
    expect(restarted.code).toBe(2);
    expect(restarted.stderr).toContain("option '--signal-weights <v,k,r[,d[,g]]>' argument '1,,1' is invalid");
    expect(restarted.stderr).toContain(`nothing was stopped: the daemon for ${dataDir} serves on as it was (pid ${before})`);
    expect(restarted.stderr).not.toContain('started the daemon again');
    expect(await pid()).toBe(before);
    // Nor does a start suggest a restart that would fail.
    const started = await run(['start', '--signal-weights', '1,,1']);
    expect(started.code).toBe(2);
    expect(started.stderr).toContain("argument '1,,1' is invalid");
    expect(started.stdout).not.toContain('engram restart');
    expect(await pid()).toBe(before);
  });

  test("--check, the daemon's own flag, is refused by restart (which would leave no daemon) and by start", async () => {
    expect((await run(['start', '--embedder', 'none'])).code).toBe(0);
    const status = async () => JSON.parse((await run(['status', '--json'])).stdout) as { pid: number; running: boolean };
    const before = (await status()).pid;
    const restarted = await run(['restart', '--embedder', 'none', '--check']);
    expect(restarted.code).toBe(2);
    expect(restarted.stderr).toContain('--check is a flag of engram daemon, not of engram restart');
    expect(restarted.stderr).toContain('nothing was stopped');
    expect((await status()).pid).toBe(before);
    const fresh = join(work, 'checked');
    const started = await run(['start', '--check'], fresh);
    expect(started.code).toBe(2);
    expect(started.stderr).toContain('--check is a flag of engram daemon, not of engram start');
    expect(existsSync(fresh)).toBe(false);
  });

  test('an --mcp-agent (or ENGRAM_AGENT) that is no namespace id is a refused flag: exit 2 by --check and by start, no stack trace', async () => {
    const daemon = (args: string[], env?: Record<string, string>) => runEngram(['daemon', ...args], { dataDir: null, cwd: work, timeoutMs: 120_000, ...(env ? { env } : {}) });
    const fresh = join(work, 'bad-agent');
    const checked = await daemon(['--data-dir', fresh, '--mcp-agent', ' ', '--check']);
    expect(checked.code, checked.stderr).toBe(2);
    expect(checked.stderr).toContain('--mcp-agent: must not be only whitespace');
    expect(checked.stderr).not.toMatch(/\n\s+at /);
    const fromEnv = await daemon(['--data-dir', fresh, '--check'], { ENGRAM_AGENT: 'a'.repeat(300) });
    expect(fromEnv.code, fromEnv.stderr).toBe(2);
    expect(fromEnv.stderr).toContain("from env 'ENGRAM_AGENT' is invalid");
    // Set to nothing, the variable is not given: the default namespace.
    expect((await daemon(['--data-dir', fresh, '--check'], { ENGRAM_AGENT: '' })).code).toBe(0);
    const started = await run(['start', '--embedder', 'none', '--mcp-agent', ' '], fresh);
    expect(started.code, started.stderr).toBe(2);
    expect(started.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(fresh)).toBe(false);
  });

  /** `engram daemon FLAGS --check` and `engram start FLAGS` both refuse the flags as a usage
   *  error (exit 2), and neither makes the data directory. */
  async function refusedBeforeAnythingIsMade(fresh: string, flags: string[]) {
    const checked = await runEngram(['daemon', '--data-dir', fresh, ...flags, '--check'], { dataDir: null, cwd: work, timeoutMs: 120_000 });
    expect(checked.code, checked.stderr).toBe(2);
    expect(existsSync(fresh)).toBe(false);
    const started = await run(['start', '--embedder', 'none', ...flags], fresh);
    expect(started.code, started.stderr).toBe(2);
    expect(existsSync(fresh)).toBe(false);
    return { checked, started };
  }

  test('an empty --token is refused by --check and by start (exit 2) before a store is made; an empty ENGRAM_TOKEN is no token', async () => {
    const fresh = join(work, 'empty-token');
    const { checked, started } = await refusedBeforeAnythingIsMade(fresh, ['--listen', '127.0.0.1:0', '--token', '']);
    expect(checked.stderr).toContain('--token is empty');
    expect(started.stderr).toContain('--token is empty');
    expect((await runEngram(['daemon', '--data-dir', fresh, '--listen', '127.0.0.1:0', '--check'], { dataDir: null, cwd: work, env: { ENGRAM_TOKEN: '' } })).code).toBe(0);
  });

  test('--no-auth with --http beyond loopback is refused by --check and by start (exit 2) before a store is made', async () => {
    const fresh = join(work, 'open-http');
    const { checked, started } = await refusedBeforeAnythingIsMade(fresh, ['--http', '0.0.0.0:0', '--no-auth']);
    expect(checked.stderr).toContain('--no-auth is allowed only on a loopback address');
    expect(started.stderr).toContain('drop --no-auth');
    // On loopback the pair is fine.
    expect((await runEngram(['daemon', '--data-dir', fresh, '--http', '127.0.0.1:0', '--no-auth', '--check'], { dataDir: null, cwd: work })).code).toBe(0);
  });

  test('--no-auth without --http (--mcp-http alone, whose /mcp still asks for the token) is refused by --check and by start (exit 2), naming --http --no-auth instead', async () => {
    const fresh = join(work, 'open-mcp');
    const { checked, started } = await refusedBeforeAnythingIsMade(fresh, ['--mcp-http', '127.0.0.1:0', '--no-auth']);
    expect(checked.stderr).toContain('--no-auth applies only to --http, which is not given');
    expect(checked.stderr).toContain('--http 127.0.0.1:PORT --no-auth');
    expect(started.stderr).toContain('--no-auth applies only to --http');
    // With --http it applies (to --http; --mcp-http beside it keeps its token).
    expect((await runEngram(['daemon', '--data-dir', fresh, '--http', '127.0.0.1:0', '--mcp-http', '127.0.0.1:0', '--no-auth', '--check'], { dataDir: null, cwd: work })).code).toBe(0);
  });

  test('a --consolidate-max-sources below the 3 facts a run needs (which let every consolidation find "nothing to consolidate") is refused by --check and by start (exit 2)', async () => {
    const fresh = join(work, 'max-sources');
    const said = '--consolidate-max-sources must be a whole number in [3, 1000], got "2"';
    const { checked, started } = await refusedBeforeAnythingIsMade(fresh, ['--consolidate-max-sources', '2']);
    expect(checked.stderr).toContain(said);
    expect(started.stderr).toContain(said);
    const fromEnv = await runEngram(['daemon', '--data-dir', fresh, '--check'], { dataDir: null, cwd: work, env: { ENGRAM_CONSOLIDATE_MAX_SOURCES: '2' } });
    expect(fromEnv.code, fromEnv.stderr).toBe(2);
    expect((await runEngram(['daemon', '--data-dir', fresh, '--consolidate-max-sources', '3', '--check'], { dataDir: null, cwd: work })).code).toBe(0);
  });
});
