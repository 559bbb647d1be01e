// `engram mcp` outlives the daemon it talks to: an agent host keeps one for hours. When that
// daemon stops (engram stop, a crash), the next tool call starts it again (local mode) and goes
// on; a write that may have reached the old daemon is never resent; a daemon that cannot be had
// (it will not start, or --address, which never starts one) fails the call at once, saying what
// to do. Real parts: `engram mcp` processes with the SDK's own client, real daemons.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { processAlive as isAlive, type Discovery } from '../shared/discovery.ts';
import { runEngram } from './fixtures/cli.ts';
import { removeDir, startDaemon, tempDataDir, waitFor } from './fixtures/daemon.ts';
import { openStdio, type McpSession } from './fixtures/mcp.ts';

const discoveryOf = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as Discovery;
const texts = (listed: { facts: { text: string }[] }) => listed.facts.map((f) => f.text);
const restartLine = (dataDir: string) => new RegExp(`the daemon serving ${escape(dataDir)} had stopped; started a new one \\(pid \\d+`, 'g');

describe('engram mcp when its daemon stops', () => {
  const dirs: string[] = [];
  const pids = new Set<number>();
  const sessions: McpSession[] = [];
  /** A fresh data dir (not made yet: engram mcp makes it for the daemon it starts). */
  const newDataDir = () => {
    const root = tempDataDir('engram-mcp-restart-');
    dirs.push(root);
    return join(root, 'data');
  };
  const open = async (args: string[]) => {
    const session = await openStdio(args, { ENGRAM_EMBEDDER: 'none' });
    sessions.push(session);
    return session;
  };
  /** The daemon now serving `dataDir`, remembered so it is stopped after the tests. */
  const serving = (dataDir: string) => {
    const { pid } = discoveryOf(dataDir);
    pids.add(pid);
    return pid;
  };
  const killed = async (pid: number, signal: NodeJS.Signals) => {
    process.kill(pid, signal);
    await waitFor(async () => (isAlive(pid) ? undefined : true), 30_000);
  };

  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    for (const pid of pids) await waitFor(async () => (isAlive(pid) ? undefined : true), 30_000);
    dirs.forEach(removeDir);
  });

  test('after engram stop, and after kill -9, the next call starts the daemon again and says so; writes after it are stored once', async () => {
    const dataDir = newDataDir();
    const mcp = await open(['--data-dir', dataDir]);
    await mcp.ok('memory_add', { agent_id: 'a', text: 'Written before the stop' });
    const first = serving(dataDir);

    const stopped = await runEngram(['stop'], { dataDir, cwd: dataDir });
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(isAlive(first)).toBe(false);
    // A write first: the stopped daemon closed the connection, so the write never left (nothing
    // accepted the new one) and is sent, once, to the daemon this call starts.
    await mcp.ok('memory_add', { agent_id: 'a', text: 'Written after the stop' });
    const second = serving(dataDir);
    expect(second).not.toBe(first);
    expect(mcp.stderr().match(restartLine(dataDir))).toHaveLength(1);

    // A crash: a read first. (A write sent at the very moment of the crash could not be told
    // from one the daemon committed before dying; that case is the next test's.)
    await killed(second, 'SIGKILL');
    expect(texts(await mcp.ok('memory_list', { agent_id: 'a' })).sort()).toEqual(['Written after the stop', 'Written before the stop']);
    const third = serving(dataDir);
    expect(third).not.toBe(second);
    expect(mcp.stderr().match(restartLine(dataDir))).toHaveLength(2);
    await mcp.ok('memory_add', { agent_id: 'a', text: 'Written after the crash' });
    expect(texts(await mcp.ok('memory_list', { agent_id: 'a' })).sort()).toEqual(['Written after the crash', 'Written after the stop', 'Written before the stop']);
  });

  test('a daemon started with flags comes back with the same flags after a crash, and after engram stop', async () => {
    const dataDir = newDataDir();
    const started = await runEngram(['start', '--embedder', 'none', '--http', '127.0.0.1:0'], { dataDir, cwd: join(dataDir, '..') });
    expect(started.code, started.stderr).toBe(0);
    const first = serving(dataDir);
    expect(discoveryOf(dataDir).httpAddress).toBeTruthy();
    const mcp = await open(['--data-dir', dataDir]);
    await mcp.ok('memory_add', { agent_id: 'f', text: 'Written before the crash' });

    await killed(first, 'SIGKILL');
    expect(texts(await mcp.ok('memory_list', { agent_id: 'f' }))).toEqual(['Written before the crash']);
    const second = serving(dataDir);
    expect(second).not.toBe(first);
    // The HTTP door the user started it with is back (a default daemon would have none).
    expect(discoveryOf(dataDir).httpAddress).toBeTruthy();

    // A clean stop removes the discovery file: the flags this session saw are used.
    expect((await runEngram(['stop'], { dataDir, cwd: dataDir })).code).toBe(0);
    expect(texts(await mcp.ok('memory_list', { agent_id: 'f' }))).toEqual(['Written before the crash']);
    serving(dataDir);
    expect(discoveryOf(dataDir).httpAddress).toBeTruthy();
  });

  test('a write in flight when the daemon dies is reported as uncertain and not resent; the next call restarts the daemon', async () => {
    const dataDir = newDataDir();
    const mcp = await open(['--data-dir', dataDir]);
    await mcp.ok('memory_add', { agent_id: 'w', text: 'Committed before the crash' });
    const pid = serving(dataDir);

    // Frozen, the daemon takes the request off the socket never: the write is sent and has no
    // answer when the daemon dies. Its outcome is unknown to the client, so it must not be resent
    // to the new daemon (a resend is how a write gets stored twice).
    process.kill(pid, 'SIGSTOP');
    const inFlight = mcp.call('memory_add', { agent_id: 'w', text: 'In flight at the crash' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await killed(pid, 'SIGKILL');
    const result = await inFlight;
    const said = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    expect(result.isError, said).toBe(true);
    expect(said).toMatch(/outcome unknown/);
    expect(said).toMatch(/not retried/);
    // Advice an agent can follow: it has no request id, and no tool takes one.
    expect(said).toMatch(/Look for it with memory_search or memory_list before sending it again/);
    expect(said).not.toMatch(/writeStatus|request id|request_id/);

    expect(texts(await mcp.ok('memory_list', { agent_id: 'w' }))).toEqual(['Committed before the crash']);
    expect(serving(dataDir)).not.toBe(pid);
    expect(mcp.stderr().match(restartLine(dataDir))).toHaveLength(1);
  });

  test('two engram mcp restarting the daemon at once both end up on the one daemon that lives', async () => {
    const dataDir = newDataDir();
    const [one, two] = [await open(['--data-dir', dataDir]), await open(['--data-dir', dataDir])];
    const first = serving(dataDir);
    await killed(first, 'SIGKILL');

    await Promise.all([one.ok('memory_list', { agent_id: 'r' }), two.ok('memory_list', { agent_id: 'r' })]);
    const survivor = serving(dataDir);
    expect(isAlive(survivor)).toBe(true);
    // The one that started it says so; the other found it serving.
    expect((one.stderr().match(restartLine(dataDir)) ?? []).length + (two.stderr().match(restartLine(dataDir)) ?? []).length).toBe(1);
    await one.ok('memory_add', { agent_id: 'r', text: 'Through the first session' });
    await two.ok('memory_add', { agent_id: 'r', text: 'Through the second session' });
    for (const session of [one, two]) {
      expect(texts(await session.ok('memory_list', { agent_id: 'r' })).sort()).toEqual(['Through the first session', 'Through the second session']);
    }
  });

  test('a daemon that cannot be started again fails the call with why and what to do', async () => {
    const dataDir = newDataDir();
    const mcp = await open(['--data-dir', dataDir]);
    await mcp.ok('memory_add', { agent_id: 'u', text: 'Before the data dir went' });
    await killed(serving(dataDir), 'SIGKILL');
    // The data dir is gone and a file is in its place: no daemon can be made there.
    rmSync(dataDir, { recursive: true, force: true });
    writeFileSync(dataDir, 'not a directory');

    const said = await mcp.fails('memory_search', { agent_id: 'u', query: 'data dir' });
    expect(said).toContain(`the Engram daemon for ${dataDir} is not running and could not be started: `);
    expect(said).toContain(`start it with engram start --data-dir ${dataDir}`);
  });

  test('with --address it never starts a daemon: a call to a stopped one fails at once, saying so', async () => {
    const daemon = await startDaemon();
    dirs.push(daemon.dataDir);
    const unused = join(daemon.dataDir, 'unused');
    const mcp = await open(['--address', daemon.discovery.address, '--data-dir', unused]);
    await mcp.ok('memory_add', { agent_id: 'x', text: 'Reached through --address' });
    await daemon.stop();

    const said = await mcp.fails('memory_search', { agent_id: 'x', query: 'address' });
    expect(said).toContain(`cannot reach the Engram daemon at ${daemon.discovery.address}`);
    expect(said).toContain(`engram mcp --address ${daemon.discovery.address} never starts a daemon`);
    expect(existsSync(join(daemon.dataDir, 'daemon.json'))).toBe(false);
    expect(existsSync(unused)).toBe(false);
    expect(mcp.stderr()).not.toMatch(/started/);
  });

  test('with --address and no daemon there yet, the session still opens (one stderr line says why); each call fails saying the address and what to do, until the daemon starts there', async () => {
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const token = 'a-token-for-the-daemon-to-come';
    // An agent host only shows "server disconnected" for a server that exits before the handshake.
    const mcp = await open(['--address', address, '--token', token]);
    expect(mcp.tools.map((t) => t.name)).toContain('memory_add');
    await waitFor(async () => mcp.stderr() || undefined, 10_000);
    expect(mcp.stderr()).toMatch(new RegExp(`^engram mcp: cannot reach the Engram daemon at ${escape(address)}.*; the tools are served, and each call fails saying so until it is reachable\\n$`));

    const said = await mcp.fails('memory_add', { agent_id: 'later', text: 'Written once the daemon is up' });
    expect(said).toContain(`cannot reach the Engram daemon at ${address}`);
    expect(said).toContain(`engram mcp --address ${address} never starts a daemon: start it where it runs (engram start), or correct --address`);

    const daemon = await startDaemon({ args: ['--listen', address, '--token', token] });
    dirs.push(daemon.dataDir);
    pids.add(daemon.child.pid!);
    await mcp.ok('memory_add', { agent_id: 'later', text: 'Written once the daemon is up' });
    expect(texts(await mcp.ok('memory_list', { agent_id: 'later' }))).toEqual(['Written once the daemon is up']);
    expect(existsSync(join(daemon.dataDir, 'daemon.json'))).toBe(true);
  });
});

/** A TCP port nothing listens on (the kernel's pick, released at once). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
