// Running the daemon from the client side: start it detached (it outlives the command that
// started it, and every later command and agent shares it), stop it cleanly, and tell whether one
// serves a data dir. Used by `engram start|stop|restart` and by `engram mcp`, which starts a
// daemon when none serves. Only the `engram` command calls these: it is the script that runs.
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, fstatSync, openSync, readFileSync, readSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { makeOrJoin, releaseClaim, takeBack } from '../shared/start-claim.ts';
import { dirname, join, resolve } from 'node:path';
import { isAgentToken } from '../shared/agent-token.ts';
import { dataPaths, processAlive, readDiscovery, SERVED_BY_ANOTHER, type Discovery } from '../shared/discovery.ts';
import { readLastStart } from '../shared/last-start.ts';
import { connect } from './client.ts';
import { EngramError, ErrorKind } from '../shared/errors.ts';

/** A first start on a fresh machine builds the word-vector cache (10–20 s); leave room for it. */
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 60_000;
const LOSER_GRACE_MS = 5_000;

export const logPathOf = (dataDir: string): string => join(dataDir, 'daemon.log');

/** A daemon that exited, or never answered, before serving. The message holds what it said (the
 *  lines this start added to its log); `exitCode` is what a command should end with: 2 when the
 *  daemon refused its flags (a usage error, as `engram daemon` itself exits), else 1. */
export class DaemonStartError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'DaemonStartError';
  }
}

export interface StartedDaemon {
  /** false: one was already serving, nothing was started. */
  started: boolean;
  pid: number;
  address: string;
  logPath?: string;
}

/** The discovery file, if it names a process that is alive (a kill -9 leaves a stale one). */
export function liveDiscovery(dataDir: string): Discovery | undefined {
  const path = dataPaths(dataDir).discovery;
  if (!existsSync(path)) return undefined;
  try {
    const discovery = JSON.parse(readFileSync(path, 'utf8')) as Discovery;
    return processAlive(discovery.pid) ? discovery : undefined;
  } catch {
    return undefined; // being rewritten (it is renamed into place, but be safe)
  }
}

/** The environment a daemon is started with. An agent token in ENGRAM_TOKEN is this command's
 *  credential (`ENGRAM_TOKEN=… engram mcp` starts a daemon when none serves), never the daemon's
 *  own token, which the daemon would take from the same variable. */
function daemonEnv(): NodeJS.ProcessEnv {
  const token = process.env.ENGRAM_TOKEN;
  if (token === undefined || !isAgentToken(token)) return process.env;
  const { ENGRAM_TOKEN: _agents, ...env } = process.env;
  return env;
}

/** How long a start runs before what the daemon says is shown as it goes. */
const PROGRESS_AFTER_MS = 1000;

/** Starts `engram daemon --data-dir DIR ...args` detached, logging to DIR/daemon.log, and waits
 *  until it answers. A daemon already serving DIR is left alone. Two starts at once may both
 *  spawn one: the store lock lets only one live, and both then report it. `onProgress` is told
 *  what the daemon says while a slow start gets ready; `secrets` are variables its environment
 *  gets beside this process's (restoredSecrets). */
export async function startDetached(dataDir: string, args: readonly string[] = [], onProgress?: (line: string) => void, secrets: Record<string, string> = {}): Promise<StartedDaemon> {
  const running = liveDiscovery(dataDir);
  if (running) return { started: false, pid: running.pid, address: running.address, ...(running.logFile ? { logPath: running.logFile } : {}) };

  // A start that fails in a directory it made leaves nothing behind (a mistyped flag or a busy
  // port is not worth a stray directory holding a log and a token), unless another start or daemon
  // came to use it meanwhile (start-claim.ts); what it logged is in the error.
  let made: string | undefined;
  try {
    made = await makeOrJoin(dataDir, 0o700);
  } catch (error) {
    throw new EngramError(ErrorKind.FailedPrecondition, `cannot make the data directory ${dataDir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): choose one you can write to (--data-dir or ENGRAM_HOME)`);
  }
  try {
    return await startIn(dataDir, made, args, onProgress, secrets);
  } finally {
    // Whatever the outcome, a directory this start did not remove is no longer its to remove.
    if (made) releaseClaim(dataDir);
  }
}

/** Spawns the daemon in a directory that exists (`made`: the outermost one this start made) and
 *  waits until it serves or fails. */
async function startIn(dataDir: string, made: string | undefined, args: readonly string[], onProgress: ((line: string) => void) | undefined, secrets: Record<string, string>): Promise<StartedDaemon> {
  const logPath = logPathOf(dataDir);
  // What this start adds to the log is what explains its failure; earlier starts' lines are not.
  const logFrom = existsSync(logPath) ? statSync(logPath).size : 0;
  // Whatever the daemon writes before its logger runs (a bad flag, a busy port) lands in the log too.
  const early = openSync(logPath, 'a', 0o600);
  const command = [process.argv[1]!, 'daemon', '--data-dir', dataDir, '--log-file', logPath, ...args];
  const child = spawn(process.execPath, command, { detached: true, stdio: ['ignore', 'ignore', early], env: { ...daemonEnv(), ...secrets } });
  closeSync(early);
  // How it ended, in words: a crash has no exit status, only the signal that killed it.
  let exit: { code: number | null; how: string; at: number } | undefined;
  child.once('exit', (code, signal) => (exit = { code, how: code === null ? `killed by ${signal ?? 'a signal'}` : `exit status ${code}`, at: Date.now() }));
  child.unref();

  const deadline = Date.now() + START_TIMEOUT_MS;
  // Shown only once the start takes a while: a start that fails at once reports its lines in
  // its error, once.
  const showFrom = Date.now() + PROGRESS_AFTER_MS;
  let shown = logFrom;
  for (;;) {
    if (onProgress && Date.now() > showFrom) shown = showProgress(logPath, shown, onProgress);
    const discovery = liveDiscovery(dataDir);
    if (discovery && (await answers(dataDir))) return { started: discovery.pid === child.pid, pid: discovery.pid, address: discovery.address, logPath };
    // Ours exited (e.g. it lost the lock race): give the winner a moment to write its discovery file.
    // Not after exit status 2: refused flags are refused before the store is opened, so no race
    // was lost and there is no winner to wait for.
    if (exit && (exit.code === 2 || Date.now() - exit.at > LOSER_GRACE_MS)) {
      const said = startLines(logPath, logFrom);
      const where = made ? removeMade(made, dataDir, said) : `(its log: ${logPath})`;
      throw new DaemonStartError(`the daemon for ${dataDir} did not start (${exit.how}):\n${said.text}\n${where}`, exit.code === 2 ? 2 : 1);
    }
    if (Date.now() > deadline) throw new DaemonStartError(`the daemon for ${dataDir} did not start within ${START_TIMEOUT_MS / 1000} s; see engram logs --data-dir ${dataDir}`, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Why the daemon would refuse these arguments (its own message, as `engram daemon` prints it),
 *  or undefined when it would take them. Asked of `engram daemon --check` with the arguments a
 *  start would give it, so a restart can refuse a bad flag before it stops the daemon that
 *  serves: the flags are the daemon's, and only its parser knows them. */
export async function refusedArgs(dataDir: string, args: readonly string[]): Promise<string | undefined> {
  const command = [process.argv[1]!, 'daemon', '--check', '--data-dir', dataDir, '--log-file', logPathOf(dataDir), ...args];
  const child = spawn(process.execPath, command, { stdio: ['ignore', 'ignore', 'pipe'], env: daemonEnv() });
  let said = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
  const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('close', resolve));
  return code === 2 ? said.trimEnd() : undefined;
}

/** What a starting daemon says before it serves, as it says it: the plain "engram: …" lines it
 *  writes to the log (a first start builds the word-vector cache for a while, and says so).
 *  Returns where the next look starts (only whole lines are shown). */
function showProgress(logPath: string, from: number, show: (line: string) => void): number {
  const added = logAfter(logPath, from);
  if (!added) return from;
  const whole = added.subarray(0, added.lastIndexOf(0x0a) + 1);
  for (const line of whole.toString('utf8').split('\n')) if (line.startsWith('engram: ')) show(line);
  return from + whole.length;
}

/** The bytes a log gained after offset `from` (undefined when it cannot be read). Only those are
 *  read: a start looks every 50 ms, and a daemon's log may have grown long over its life. */
function logAfter(path: string, from: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const length = Math.max(0, fstatSync(fd).size - from);
    const bytes = Buffer.alloc(length);
    const read = readSync(fd, bytes, 0, length, from);
    return bytes.subarray(0, read);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Removes what a failed start made: the data directory, with what its daemon wrote there, and
 *  the parents made for it while they are empty (a start beside this one may have made its own
 *  directory in one). Never a directory a daemon serves, or is starting in (ours then lost the
 *  store lock to it), nor one another start or daemon came to use (it took this start's claim).
 *  A log the error (`said`) did not show whole is copied out first, to the system's temporary
 *  directory. Returns where things are, for the error. */
function removeMade(made: string, dataDir: string, said: { text: string; whole: boolean }): string {
  const logPath = logPathOf(dataDir);
  const stays = `(its log: ${logPath})`;
  if (liveDiscovery(dataDir) || said.text.includes(SERVED_BY_ANOTHER)) return stays;
  let kept: string | undefined;
  try {
    if (!said.whole) copyFileSync(logPath, (kept = join(tmpdir(), `engram-failed-start-${Date.now()}-${process.pid}.log`)));
  } catch {
    return stays; // the log explains the failure: without a copy of it, everything stays
  }
  // Another start or daemon that came to the directory meanwhile took this start's claim on it.
  const aside = takeBack(dataDir);
  if (!aside) {
    if (kept) rmSync(kept, { force: true });
    return stays;
  }
  try {
    rmSync(aside, { recursive: true, force: true });
  } catch {
    return `(${dataDir} did not exist before; what this start left there is in ${aside}, which could not all be removed)`;
  }
  try {
    // Innermost first; rmdir refuses a parent that is not empty, which then stays.
    for (let dir = resolve(dataDir); dir !== made && dirname(dir) !== dir; ) rmdirSync((dir = dirname(dir)));
  } catch {
    // A parent another start made its own directory in meanwhile stays, as it should.
  }
  return kept ? `(${dataDir} did not exist before and was removed; its whole log: ${kept})` : `(${dataDir} did not exist before; nothing was left there)`;
}

export interface StoppedDaemon {
  /** false: none was serving. */
  stopped: boolean;
  pid?: number;
}

/** The daemon's arguments without the ones a start sets itself. */
function withoutOwnFlags(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--data-dir' || args[i] === '--log-file') i++;
    else out.push(args[i]!);
  }
  return out;
}

/** How a daemon is started again as it was. */
export interface RecordedStart {
  /** Its settings as flags (without those a start sets itself). */
  flags: string[];
  /** The variables holding its secrets: no file has them, so a start that restores its settings
   *  passes on the starter's own. */
  secretVariables: string[];
  /** Those it was given by a flag, each with the flag (the variable gives the same setting). */
  secretFlags?: Record<string, string>;
  /** Its own token, when it had it from --token or ENGRAM_TOKEN rather than its token file: the
   *  discovery file holds it by design (clients of the directory read it there), so a start
   *  gives it again (restoredSecrets) when the starter has no ENGRAM_TOKEN of its own. */
  token?: string;
}

/** How the daemon of DIR was started, as its discovery file records it (a crashed daemon's file
 *  is still there), else as its last start left it; undefined without either. A file written
 *  before `startFlags` existed has only the daemon's arguments as given: what it took from
 *  variables is lost, and relative paths are read against the restarter's directory. */
export function recordedStart(dataDir: string): RecordedStart | undefined {
  let discovery: Discovery;
  try {
    discovery = readDiscovery(dataDir);
  } catch {
    return lastStart(dataDir); // stopped cleanly: its settings are in the file a stop leaves
  }
  const flags = discovery.startFlags ?? (discovery.args ? withoutOwnFlags(discovery.args) : undefined);
  if (!flags) return undefined;
  const secretVariables = discovery.secretVariables ?? [];
  return { flags, secretVariables, secretFlags: discovery.secretFlags ?? {}, ...(secretVariables.includes('ENGRAM_TOKEN') ? { token: discovery.token } : {}) };
}

/** Starts DIR's daemon with a start's settings: its flags, and the secrets it had that this
 *  process's environment does not hold (restoredSecrets). Flags a user typed are a start of
 *  their own, with no record: `{ flags, secretVariables: [] }`. */
export function startRecorded(dataDir: string, start: RecordedStart, onProgress?: (line: string) => void): Promise<StartedDaemon> {
  return startDetached(dataDir, start.flags, onProgress, restoredSecrets(start));
}

/** The variables a start restoring `start` gives its daemon beyond this process's environment:
 *  the daemon's own token from the record, unless this environment has one (an agent token in
 *  ENGRAM_TOKEN is never the daemon's: daemonEnv). In the environment, never as an argument,
 *  which every user of the machine can read in the process list. */
function restoredSecrets(start: RecordedStart): Record<string, string> {
  return start.token !== undefined && !daemonEnv().ENGRAM_TOKEN ? { ENGRAM_TOKEN: start.token } : {};
}

/** The settings of DIR's last start, kept after the daemon stopped (shared/last-start.ts). */
function lastStart(dataDir: string): RecordedStart | undefined {
  const last = readLastStart(dataDir);
  return last && { flags: last.startFlags, secretVariables: last.secretVariables, secretFlags: last.secretFlags ?? {} };
}

/** The secret variables a start from this process would not pass on: unset or empty here, or an
 *  agent token in ENGRAM_TOKEN, which is never the daemon's (daemonEnv). */
export function missingSecrets(start: RecordedStart): string[] {
  const env = { ...daemonEnv(), ...restoredSecrets(start) };
  return start.secretVariables.filter((name) => !env[name]);
}

/** Why a daemon cannot be started again as it was from here, and what to set. Without those
 *  variables it would start with other settings (a LevelDB store in place of its database,
 *  another token), so it is not started at all. */
export function missingSecretsMessage(dataDir: string, start: RecordedStart, missing: readonly string[]): string {
  const flags = start.secretFlags ?? {};
  const fromEnv = missing.filter((name) => !flags[name]);
  const fromFlags = missing.filter((name) => flags[name]);
  const had = [
    ...(fromFlags.length ? [`had ${fromFlags.map((name) => flags[name]).join(', ')} on its command line`] : []),
    ...(fromEnv.length ? [`took ${fromEnv.join(', ')} from its environment`] : []),
  ].join(' and ');
  const wanted = missing.map((name) => (flags[name] ? `${name} (to the value it had in ${flags[name]})` : name)).join(', ');
  const token = missing.includes('ENGRAM_TOKEN') ? " (ENGRAM_TOKEN: the daemon's own token, not an agent token)" : '';
  return `the daemon for ${dataDir} ${had}, and secrets are never written to a file, so starting it again as it was needs ${wanted} set here, with the same value${missing.length > 1 ? 's' : ''}${token}`;
}

/** What a start that restores the settings of a daemon tells the user about its secrets: which
 *  variables it passes on from its own environment (undefined when there are none). */
export function passedOnSecrets(start: RecordedStart): string | undefined {
  const restored = restoredSecrets(start);
  const fromHere = start.secretVariables.filter((name) => !(name in restored));
  const flags = start.secretFlags ?? {};
  const named = fromHere.map((name) => (flags[name] ? `${name} (for ${flags[name]})` : name)).join(', ');
  const said = [
    ...(fromHere.length ? [`passing on ${named} from this environment, as the daemon had ${fromHere.length > 1 ? 'them' : 'it'} (secrets are never written to a file)`] : []),
    ...(restored.ENGRAM_TOKEN ? ["giving the daemon its own token again, from its discovery file (which holds it for the directory's clients), in ENGRAM_TOKEN"] : []),
  ];
  return said.length ? said.join('; ') : undefined;
}

/** Asks the daemon serving DIR to stop (SIGTERM: it drains calls, saves its indexes and closes
 *  the store) and waits until its process is gone. */
export async function stopDaemon(dataDir: string): Promise<StoppedDaemon> {
  const running = liveDiscovery(dataDir);
  if (!running) return { stopped: false };
  process.kill(running.pid, 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (processAlive(running.pid)) {
    if (Date.now() > deadline) throw new EngramError(ErrorKind.DeadlineExceeded, `the daemon (pid ${running.pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s; it may still be saving its indexes. Check engram logs, or kill it (the store survives a kill).`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { stopped: true, pid: running.pid };
}

async function answers(dataDir: string): Promise<boolean> {
  try {
    const client = await connect({ dataDir, connectTimeoutMs: 1000, timeoutMs: 2000 });
    client.close();
    return true;
  } catch {
    return false;
  }
}

/** What a start wrote to the log from `from` on: the daemon's own lines as they are, and of its
 *  JSON log lines the warnings and errors' messages (its last ten lines in all). `whole`: that is
 *  every line it wrote, as it wrote it (else the log holds more: a stack trace's start, a JSON
 *  entry's details). */
function startLines(path: string, from: number): { text: string; whole: boolean } {
  const added = logAfter(path, from);
  if (!added) return { text: '(it left no log)', whole: true };
  const written = added.toString('utf8').split('\n').filter((line) => line.trim());
  const lines = written.flatMap((line) => {
    if (!line.startsWith('{')) return [line];
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string };
      return (entry.level ?? 0) >= 40 && entry.msg ? [entry.msg] : [];
    } catch {
      return [line];
    }
  });
  const shown = lines.slice(-10);
  return { text: shown.length ? shown.join('\n') : '(it logged nothing)', whole: shown.length === written.length && !written.some((line) => line.startsWith('{')) };
}
