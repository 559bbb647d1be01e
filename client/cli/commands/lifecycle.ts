// The daemon's lifecycle from the command line: init (a project store), start (detached), stop,
// restart, logs.
import { createReadStream, existsSync, statSync, watch } from 'node:fs';
import { makeDirectory } from '../../../shared/make-directory.ts';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { locateDataDir, PROJECT_DIR_NAME } from '../../../shared/discovery.ts';
import { DaemonStartError, liveDiscovery, logPathOf, missingSecrets, missingSecretsMessage, passedOnSecrets, recordedStart, refusedArgs, startRecorded, stopDaemon, type RecordedStart } from '../../daemon-control.ts';
import { droppedSettings, restoredSettings } from '../../recorded-settings.ts';
import { out, printJson, positiveInt, usage, type Cli } from '../context.ts';

/** start and restart pass every flag after them to the daemon, whose flags are its own command's
 *  (the CLI cannot list them: it never loads the daemon). */
const DAEMON_FLAGS_HELP = `
Daemon flags: every flag of engram daemon may follow (--store, --embedder, --listen, --http,
--token, --vault, ...); engram daemon --help lists them all.`;

/** What a starting daemon says while it gets ready, on stderr (stdout keeps the result). */
const say = (line: string): void => void process.stderr.write(`${line}\n`);

export function registerLifecycleCommands({ program, globals, setExit }: Cli): void {
  program
    .command('init')
    .description(`make a project store: ${PROJECT_DIR_NAME}/ here, used by every command run in this directory or below it`)
    .argument('[dir]', 'where to make it (default: the working directory)')
    .option('--json', 'print JSON')
    .action((dir: string | undefined, _o, cmd: Command) => {
      const opts = globals(cmd);
      const target = join(resolve(dir ?? '.'), PROJECT_DIR_NAME);
      const existed = existsSync(target);
      if (existed && !statSync(target).isDirectory()) usage(`${target} exists and is not a directory`);
      try {
        makeDirectory(target, 0o700);
      } catch (error) {
        usage(`cannot make ${target} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): choose a directory you can write to`);
      }
      if (opts.json) printJson({ data_dir: target, created: !existed });
      else out(existed ? `${target} is already a project store` : `made the project store ${target}; engram commands run below ${resolve(target, '..')} now use it (start its daemon with engram start)`);
    });

  program
    .command('start')
    .description('start the daemon in the background and wait until it serves (flags after start go to engram daemon; without any, it starts with the settings of its last start)')
    .usage('[--json] [daemon flags...]')
    .addHelpText('after', DAEMON_FLAGS_HELP)
    .option('--json', 'print JSON')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      const args = daemonArgs(cmd);
      refuseCheckFlag('start', args);
      const { dir } = locateDataDir(opts.dataDir);
      // A start that finds a daemon serving suggests restarting it with the flags: not with ones
      // the daemon would refuse (a start with none serving reports the daemon's own refusal).
      await refuseBadFlagsWhileServing(dir, args, (pid) => `a daemon is already serving ${dir} (pid ${pid}); nothing started`);
      const start = liveDiscovery(dir) ? typed(args) : startArgs(dir, args);
      const daemon = await startRecorded(dir, start, say);
      if (opts.json) printJson({ data_dir: dir, started: daemon.started, pid: daemon.pid, address: daemon.address, log: daemon.logPath ?? null });
      else if (!daemon.started) {
        // Flags given to a start that starts nothing would silently not apply: say so, and how.
        const flags = args.join(' ');
        out(`a daemon is already serving ${dir} (pid ${daemon.pid}, ${daemon.address}); nothing started${flags ? `, so ${flags} did not apply (engram restart ${flags} restarts it with them)` : ''}`);
      }
      else out(`started the daemon for ${dir}: pid ${daemon.pid}, ${daemon.address}, log ${daemon.logPath}`);
    });

  program
    .command('stop')
    .description('stop the daemon cleanly (it finishes calls in flight and saves its indexes) and wait for it')
    .option('--json', 'print JSON')
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      const { dir } = locateDataDir(opts.dataDir);
      const stopped = await stopDaemon(dir);
      if (opts.json) printJson({ data_dir: dir, stopped: stopped.stopped, pid: stopped.pid ?? null });
      else out(stopped.stopped ? `stopped the daemon for ${dir} (pid ${stopped.pid})` : `no daemon is serving ${dir}; nothing stopped`);
    });

  program
    .command('restart')
    .description('stop the daemon and start it again with the settings it had, from flags or variables (or with the flags given after restart)')
    .usage('[--json] [daemon flags...]')
    .addHelpText('after', DAEMON_FLAGS_HELP)
    .option('--json', 'print JSON')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      const args = daemonArgs(cmd);
      refuseCheckFlag('restart', args);
      const { dir } = locateDataDir(opts.dataDir);
      // Flags the daemon would refuse are refused before the daemon that serves is stopped.
      await refuseBadFlagsWhileServing(dir, args, (pid) => `nothing was stopped: the daemon for ${dir} serves on as it was (pid ${pid})`);
      // Read before the stop, which removes the file: the daemon's settings, flags and variables.
      const previous: RecordedStart = recordedStart(dir) ?? { flags: [], secretVariables: [] };
      const missing = missingSecrets(previous);
      if (args.length === 0) refuseMissingSecrets(dir, previous, missing);
      const stopped = await stopDaemon(dir);
      if (args.length === 0) sayRestored(dir, previous);
      else sayDropped(previous, args, missing);
      const daemon = await startRecorded(dir, args.length > 0 ? typed(args) : previous, say).catch(async (error: unknown) => {
        // A bad flag or a busy port must not leave the directory without the daemon it had: the
        // one that served starts again as it was, and the failure is still reported.
        if (!stopped.stopped || args.length === 0 || !(error instanceof DaemonStartError)) throw error;
        if (missing.length > 0) throw new DaemonStartError(`${error.message}\nthe daemon it had was not started again: ${missingSecretsMessage(dir, previous, missing)}`, error.exitCode);
        sayPassedOn(previous);
        const again = await startRecorded(dir, previous, say);
        throw new DaemonStartError(`${error.message}\nstarted the daemon again with the flags it had: pid ${again.pid}, ${again.address}`, error.exitCode);
      });
      if (opts.json) printJson({ data_dir: dir, stopped_pid: stopped.pid ?? null, pid: daemon.pid, address: daemon.address, log: daemon.logPath ?? null });
      else out(`${stopped.stopped ? `stopped pid ${stopped.pid}; ` : ''}started the daemon for ${dir}: pid ${daemon.pid}, ${daemon.address}, log ${daemon.logPath}`);
    });

  program
    .command('logs')
    .description("the daemon's log, readable (-f: keep printing as it grows)")
    .option('-f, --follow', 'keep printing new lines until interrupted')
    .option('-n, --lines <n>', 'only the last N lines', positiveInt('--lines'))
    .option('--json', 'print the raw JSON lines')
    .action(async (o: { follow?: boolean; lines?: number }, cmd: Command) => {
      const opts = globals(cmd);
      const { dir } = locateDataDir(opts.dataDir);
      const path = liveDiscovery(dir)?.logFile ?? logPathOf(dir);
      if (!existsSync(path)) {
        process.stderr.write(`engram: no log at ${path} (a daemon started with engram start or engram mcp writes one; a daemon in the foreground logs to its terminal)\n`);
        setExit(1);
        return;
      }
      const render = opts.json ? (line: string) => line : await readable();
      const offset = await printLines(path, 0, o.lines, render);
      if (o.follow) await follow(path, offset, render);
    });
}

/** Before a start or restart acts on a daemon that serves `dir`: throws the daemon's refusal of
 *  `args` (exit 2, as a refused start), followed by what was left as it was (`outcome`, given the
 *  serving pid). With none serving, the start itself reports a refusal. */
async function refuseBadFlagsWhileServing(dir: string, args: readonly string[], outcome: (pid: number) => string): Promise<void> {
  const running = liveDiscovery(dir);
  if (!running || args.length === 0) return;
  const refusal = await refusedArgs(dir, args);
  if (refusal !== undefined) throw new DaemonStartError(`${refusal}\n${outcome(running.pid)}`, 2);
}

/** A restart (or a start) that restores the daemon's settings, with the variable of a secret it
 *  had (from that variable or from a flag) unset here, would start it with other ones (another
 *  store, another token): refused (exit 2) before anything is stopped, naming what to set. */
function refuseMissingSecrets(dir: string, previous: RecordedStart, missing: readonly string[], command = 'restart'): void {
  if (missing.length === 0) return;
  const running = liveDiscovery(dir);
  const outcome = running ? `nothing was stopped: the daemon for ${dir} serves on as it was (pid ${running.pid})` : 'nothing was started';
  throw new DaemonStartError(`${missingSecretsMessage(dir, previous, missing)}; or give the daemon's flags after engram ${command}.\n${outcome}`, 2);
}

/** The flags a start with none serving gives the daemon, and the variables it passes on. Without
 *  flags of its own, the settings recorded for the directory (its last start's, kept after a
 *  stop), as a service manager brings a service back as configured; flags given replace them all,
 *  as they do for a restart. */
function startArgs(dir: string, args: string[]): RecordedStart {
  const previous = recordedStart(dir);
  if (!previous) return typed(args);
  const missing = missingSecrets(previous);
  if (args.length > 0) {
    sayDropped(previous, args, missing);
    return typed(args);
  }
  refuseMissingSecrets(dir, previous, missing, 'start');
  sayRestored(dir, previous);
  return previous;
}

/** Flags typed on this command line: a start of their own, with no recorded secret to restore. */
const typed = (flags: string[]): RecordedStart => ({ flags, secretVariables: [] });

const sayPassedOn = (start: RecordedStart): void => {
  const line = passedOnSecrets(start);
  if (line) say(`engram: ${line}`);
};

/** Tells that the daemon is started with settings the user did not type this time. */
const sayRestored = (dir: string, start: RecordedStart): void => {
  const line = restoredSettings(start);
  if (line) say(`engram: starting the daemon for ${dir} ${line}`);
  sayPassedOn(start);
};

const sayDropped = (start: RecordedStart, args: readonly string[], missing: readonly string[]): void => {
  const line = droppedSettings(start, args, missing);
  if (line) say(`engram: ${line}`);
};

/** `--check` passed on to the daemon would start one that only checks its flags and exits: a
 *  restart would stop the daemon that served and leave none. Start and restart check the flags
 *  they pass on themselves. */
function refuseCheckFlag(command: string, args: readonly string[]): void {
  if (args.includes('--check')) usage(`--check is a flag of engram daemon, not of engram ${command}, which checks the flags it passes on itself; nothing was ${command === 'start' ? 'started' : 'stopped'} (engram daemon --check FLAGS checks flags alone)`);
}

/** The flags start and restart pass on to the daemon: those after the command, and --token
 *  when given on the command line. --token is also every command's own flag (the client's
 *  token), which commander takes wherever it stands; a start has no call to make with it, and
 *  the README lists it among the daemon's flags, so it is the daemon's. */
function daemonArgs(cmd: Command): string[] {
  const token = cmd.getOptionValueSourceWithGlobals('token') === 'cli' ? (cmd.optsWithGlobals() as { token?: string }).token : undefined;
  return token === undefined ? [...cmd.args] : [...cmd.args, '--token', token];
}

/** JSON log lines as "time LEVEL message"; any other line as it is. The formatter is loaded
 *  here, not with the CLI: every other command would pay for loading it. */
async function readable(): Promise<(line: string) => string> {
  const { prettyFactory } = await import('pino-pretty');
  const pretty = prettyFactory({ colorize: Boolean(process.stdout.isTTY), ignore: 'pid,hostname', translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l' });
  return (line) => {
    if (!line.startsWith('{')) return line;
    try {
      return pretty(JSON.parse(line)).replace(/\n$/, '');
    } catch {
      return line;
    }
  };
}

/** Prints the file from `start` (the last `last` lines only, if given); returns where it ended. */
async function printLines(path: string, start: number, last: number | undefined, render: (line: string) => string): Promise<number> {
  const end = statSync(path).size;
  const lines: string[] = [];
  const reader = createInterface({ input: createReadStream(path, { start, end: Math.max(start, end - 1) }), crlfDelay: Infinity });
  for await (const line of reader) {
    if (last === undefined) out(render(line));
    else {
      lines.push(line);
      if (lines.length > last) lines.shift();
    }
  }
  for (const line of lines) out(render(line));
  return end;
}

async function follow(path: string, from: number, render: (line: string) => string): Promise<never> {
  let offset = from;
  let reading = Promise.resolve();
  const more = () => {
    reading = reading.then(async () => {
      const size = statSync(path).size;
      if (size < offset) offset = 0; // the file was truncated or replaced
      if (size > offset) offset = await printLines(path, offset, undefined, render);
    });
  };
  watch(path, more);
  setInterval(more, 1000); // watch events can be missed on some file systems
  return new Promise<never>(() => {});
}
