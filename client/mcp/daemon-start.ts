// `engram mcp` needs a daemon. If none serves the data dir, start one — detached, so it outlives
// this MCP session and the next `engram mcp` (another agent) shares it — and wait until its
// discovery file names a live process. Two MCP servers starting at once may both spawn one: the
// store lock lets only one daemon live, and both then use it.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataPaths, type Discovery } from '../../shared/discovery.ts';

const ENGRAM_BIN = fileURLToPath(new URL('../../bin/engram.js', import.meta.url));
/** A first start on a fresh machine builds the word-vector cache (10–20 s); leave room for it. */
const START_TIMEOUT_MS = 90_000;
const LOSER_GRACE_MS = 5_000;

export interface EnsuredDaemon {
  started: boolean;
  pid: number;
  /** Where a daemon we started writes its log. */
  logPath?: string;
}

export async function ensureDaemon(dataDir: string): Promise<EnsuredDaemon> {
  const running = liveDiscovery(dataDir);
  if (running) return { started: false, pid: running.pid };

  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const logPath = join(dataDir, 'daemon.log');
  const log = openSync(logPath, 'a', 0o600);
  const child = spawn(process.execPath, [ENGRAM_BIN, 'daemon', '--data-dir', dataDir], { detached: true, stdio: ['ignore', log, log], env: process.env });
  closeSync(log);
  let exit: { code: number; at: number } | undefined;
  child.once('exit', (code) => (exit = { code: code ?? -1, at: Date.now() }));
  child.unref();

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const discovery = liveDiscovery(dataDir);
    if (discovery) return { started: discovery.pid === child.pid, pid: discovery.pid, logPath };
    // Ours exited (e.g. it lost the lock race): give the winner a moment to write its discovery file.
    if (exit && Date.now() - exit.at > LOSER_GRACE_MS) {
      throw new Error(`the daemon for ${dataDir} exited with status ${exit.code} before serving:\n${tail(logPath)}`);
    }
    if (Date.now() > deadline) throw new Error(`the daemon for ${dataDir} did not start within ${START_TIMEOUT_MS / 1000} s; see ${logPath}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The discovery file, if it names a process that is alive (a kill -9 leaves a stale one). */
function liveDiscovery(dataDir: string): Discovery | undefined {
  const path = dataPaths(dataDir).discovery;
  if (!existsSync(path)) return undefined;
  try {
    const discovery = JSON.parse(readFileSync(path, 'utf8')) as Discovery;
    return isAlive(discovery.pid) ? discovery : undefined;
  } catch {
    return undefined; // being rewritten (it is renamed into place, but be safe)
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '(no log)';
  }
}
