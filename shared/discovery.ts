// Where a daemon lives and how a client finds it. The daemon writes the discovery file
// (mode 0600) once it serves; clients read it. Both sides derive every path from the data dir.
import { readFileSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import envPaths from 'env-paths';
import { EngramError, ErrorKind } from './errors.ts';

/** The name of a project store: `engram init` makes one, and commands run anywhere below it use it. */
export const PROJECT_DIR_NAME = '.engram';

/** How a daemon that lost the store lock says so: another daemon serves the directory, or is
 *  starting in it (a failed start that made the directory must then leave it to that one). */
export const SERVED_BY_ANOTHER = 'is already served by another Engram daemon';

/** The platform's per-user directories for Engram (XDG on Linux: ~/.local/share/engram, ~/.cache/engram). */
export const userPaths = () => envPaths('engram', { suffix: '' });

export interface DataDirChoice {
  dir: string;
  /** Why this one: the flag, ENGRAM_HOME, a project store found above the working directory, or the per-user default. */
  source: 'flag' | 'ENGRAM_HOME' | 'project' | 'user';
}

/** The data directory, in order: --data-dir, ENGRAM_HOME, the nearest `.engram/` directory from
 *  `cwd` up (like git's .git), else the per-user data directory. */
export function locateDataDir(explicit?: string, cwd: string = process.cwd()): DataDirChoice {
  if (explicit) return { dir: resolve(cwd, explicit), source: 'flag' };
  if (process.env.ENGRAM_HOME) return { dir: resolve(cwd, process.env.ENGRAM_HOME), source: 'ENGRAM_HOME' };
  for (let at = resolve(cwd); ; at = dirname(at)) {
    const candidate = join(at, PROJECT_DIR_NAME);
    if (isDirectory(candidate)) return { dir: candidate, source: 'project' };
    if (dirname(at) === at) break;
  }
  return { dir: userPaths().data, source: 'user' };
}

export const resolveDataDir = (explicit?: string): string => locateDataDir(explicit).dir;

/** How `engram status` explains the choice. */
export function describeChoice(choice: DataDirChoice): string {
  return {
    flag: 'given by --data-dir',
    ENGRAM_HOME: 'given by ENGRAM_HOME',
    project: 'the project store found above the working directory',
    user: 'the per-user default: no --data-dir, ENGRAM_HOME or .engram/ above the working directory',
  }[choice.source];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export const dataPaths = (dataDir: string) => ({
  store: join(dataDir, 'store'),
  vectors: join(dataDir, 'vectors'),
  socket: join(dataDir, 'engram.sock'),
  discovery: join(dataDir, 'daemon.json'),
  token: join(dataDir, 'token'),
});

export interface Discovery {
  /** gRPC target, e.g. "unix:/home/me/.engram/engram.sock". */
  address: string;
  /** Loopback TCP address ("127.0.0.1:7777") if the daemon also listens on TCP. */
  tcpAddress?: string;
  /** "127.0.0.1:43210" if the daemon also serves MCP over streamable HTTP (path /mcp, bearer token). */
  mcpHttpAddress?: string;
  /** "127.0.0.1:43210" if the daemon also serves the REST API (--http; bearer token unless --no-auth). */
  httpAddress?: string;
  /** The daemon's own arguments after `engram daemon`, as given (relative paths, and without
   *  what it took from variables): how a restart starts it when `startFlags` is absent (a file
   *  written by an older daemon). A secret flag's value is left out (`--store '<secret: not
   *  recorded>'`; `--token` goes whole); a file written before that has it. */
  args?: string[];
  /** Every setting the daemon was given, by flag or variable, as flags with absolute paths,
   *  without --data-dir and --log-file: what `engram restart` and `engram mcp` start it again
   *  with, from any shell and directory. Never a secret, by flag or variable. */
  startFlags?: string[];
  /** The variables of the daemon's secrets (ENGRAM_TOKEN, a URL with a password, the OpenAI
   *  key), which no file holds: a restart must find them set. */
  secretVariables?: string[];
  /** Those of `secretVariables` standing for a secret the daemon was given by a flag, each with
   *  its flag (`{"ENGRAM_STORE": "--store"}`): the variable gives a restarted daemon the same
   *  setting. */
  secretFlags?: Record<string, string>;
  /** Where it writes its log, if to a file. */
  logFile?: string;
  /** Bearer token required on TCP. */
  token: string;
  pid: number;
  instanceId: string;
  version: string;
  startedAt: string;
}

/** An EngramError like every other the library throws (kind unavailable, as an unreachable
 *  address is), so a caller handles "no daemon" by its kind. */
export class DaemonNotRunningError extends EngramError {
  constructor(dataDir: string, reason: string, why = '') {
    super(ErrorKind.Unavailable, `no Engram daemon is serving ${dataDir}${why ? `, ${why}` : ''} (${reason}). Start one with: engram start --data-dir ${dataDir}`);
    this.name = 'DaemonNotRunningError';
  }
}

/** `why`: how the data dir was chosen, said in the error when no daemon serves it. */
export function readDiscovery(dataDir: string, why = ''): Discovery {
  const path = dataPaths(dataDir).discovery;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new DaemonNotRunningError(dataDir, `${path} does not exist`, why);
  }
  return parseDiscovery(text, path);
}

/** The file as the daemon wrote it, or a DamagedDiscoveryError saying what to do. */
function parseDiscovery(text: string, path: string): Discovery {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DamagedDiscoveryError(path, `it is not JSON (${(error as Error).message})`);
  }
  const d = value as Partial<Discovery> | null;
  if (!d || typeof d !== 'object' || Array.isArray(d) || typeof d.address !== 'string' || d.address === '' || typeof d.token !== 'string') {
    throw new DamagedDiscoveryError(path, 'it lacks the daemon\'s address or token');
  }
  return d as Discovery;
}

/** The discovery file exists but cannot be what a daemon wrote. */
export class DamagedDiscoveryError extends EngramError {
  constructor(path: string, reason: string) {
    super(ErrorKind.FailedPrecondition, `${path} is damaged: ${reason}. Delete it and run "engram start" (a daemon still serving this directory keeps its lock, and start then says so).`);
    this.name = 'DamagedDiscoveryError';
  }
}

/** Whether a process runs. A killed daemon whose parent never waits for it (an init that does
 *  not reap, as in some containers) stays a zombie that signal 0 still reaches: not running. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // The state follows the parenthesised command name: "Z" is a zombie, "X" dead.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return true; // no /proc here: signal 0 is all there is to go by
  }
}

/** Throws DaemonNotRunningError at once when the discovery file is stale — its process is gone
 *  and nothing listens on its socket (a kill -9 or a crash leaves both behind) — instead of
 *  letting a connect retry until its deadline. A live pid, or a socket that accepts, passes. */
export async function checkServing(dataDir: string, discovery: Discovery): Promise<void> {
  if (processAlive(discovery.pid)) return;
  const path = discovery.address.startsWith('unix:') ? discovery.address.slice('unix:'.length) : null;
  if (path === null || (await socketAccepts(path))) return;
  throw new DaemonNotRunningError(dataDir, `daemon.json names pid ${discovery.pid}, which is not running: the daemon was killed or crashed`);
}

function socketAccepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ path });
    const done = (accepts: boolean) => {
      socket.destroy();
      resolve(accepts);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1000, () => done(true)); // slow, not refused: let the connect decide
  });
}
