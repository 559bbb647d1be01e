// `engram daemon`: settings (config.ts) → startDaemon(). SIGINT/SIGTERM drain in-flight calls,
// persist the indexes and close the store; a second signal exits at once.
import { CommanderError } from 'commander';
import { readDiscovery, SERVED_BY_ANOTHER } from '../shared/discovery.ts';
import { EngramError } from '../shared/errors.ts';
import { parseDaemonArgs, REFUSED_STORE, type DaemonSettings } from './config.ts';
import { createLog } from './log.ts';
import { StoreFormatError, StoreLockedError } from './store/store.ts';
import { startDaemon } from './server.ts';

function options(argv: string[]): DaemonSettings | null {
  try {
    return parseDaemonArgs(argv, { writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help') return null;
    const hint = error.code === REFUSED_STORE ? '' : '\n(engram daemon --help lists every flag)';
    process.stderr.write(`engram daemon: ${error.message.replace(/^error: /, '')}${hint}\n`);
    process.exit(2);
  }
}

/** A start-up failure a user can act on gets one line, not a stack trace. */
function explainStartFailure(error: unknown, dataDir: string): never {
  if (error instanceof StoreLockedError) {
    let holder = '';
    try {
      const running = readDiscovery(dataDir);
      holder = ` (running daemon: pid ${running.pid}, ${running.address})`;
    } catch {
      /* the other daemon may still be starting */
    }
    process.stderr.write(`engram daemon: ${dataDir} ${SERVED_BY_ANOTHER}${holder}.\n${error.message}\n`);
    process.exit(1);
  }
  const code = (error as { code?: string })?.code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    process.stderr.write(`engram daemon: cannot listen: ${(error as Error).message}. Choose another address or stop what uses it.\n`);
    process.exit(1);
  }
  if (isDamagedStore(error)) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    process.stderr.write(
      `engram daemon: the store in ${dataDir}/store cannot be read: ${cause}.
Stop nothing else; run "engram doctor --repair --data-dir ${dataDir}" (LevelDB's repair: it keeps every record it can read), then start again; if facts are missing after it, restore them from an export (engram import).
`,
    );
    process.exit(1);
  }
  if (error instanceof EngramError || error instanceof StoreFormatError) {
    process.stderr.write(`engram daemon: cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  if (isFileError(error)) {
    process.stderr.write(`engram daemon: cannot start: ${error.message}. Choose paths this user can create and write (--data-dir, --log-file, --vault).\n`);
    process.exit(1);
  }
  throw error;
}

/** A path of the settings could not be made, read or written (ENOENT, EACCES, ENOTDIR…). */
function isFileError(error: unknown): error is NodeJS.ErrnoException {
  const e = error as NodeJS.ErrnoException | undefined;
  return e instanceof Error && typeof e.code === 'string' && typeof e.syscall === 'string' && typeof e.path === 'string';
}

/** LevelDB could not open or read its files (a damaged CURRENT, MANIFEST or table). */
function isDamagedStore(error: unknown): boolean {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } } | undefined;
  const text = `${e?.message ?? ''} ${e?.cause?.message ?? ''}`;
  // Not every failed open (LEVEL_DATABASE_NOT_OPEN): a full disk or a permission is not damage;
  // a file of the store that its manifest names but is missing (a damaged CURRENT) is.
  return e?.code === 'LEVEL_CORRUPTION' || e?.cause?.code === 'LEVEL_CORRUPTION' || /Corruption:|corrupted|IO error: \S*\/store\/[^/\s]+: No such file or directory/.test(text);
}

export async function main(argv: string[]): Promise<void> {
  const settings = options(argv);
  if (!settings) return;
  // --check: the flags were taken (a refused one exited 2 above); nothing is opened or started.
  if (settings.checkOnly) return;
  let log: ReturnType<typeof createLog>;
  try {
    log = createLog({ level: settings.logLevel, ...(settings.logFile ? { file: settings.logFile } : {}) });
  } catch (error) {
    explainStartFailure(error, settings.dataDir);
  }
  // The handlers go in before start-up: the discovery file tells clients the daemon serves, and
  // a SIGTERM sent the moment it appears must find them (without one, the signal kills the
  // process outright and the next start has no clean shutdown to trust). A signal during
  // start-up stops the daemon once it has started.
  let daemon: Awaited<ReturnType<typeof startDaemon>> | undefined;
  let pending: string | undefined;
  let signals = 0;
  const stop = (signal: string) => {
    if (++signals > 1) {
      log.warn(`second ${signal}, exiting now`);
      process.exit(130);
    }
    if (!daemon) {
      pending = signal;
      log.info(`${signal} during start-up: stopping once started (send again to exit at once)`);
      return;
    }
    close(signal);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    daemon = await startDaemon({ ...settings, log });
  } catch (error) {
    explainStartFailure(error, settings.dataDir);
  }
  if (pending) close(pending);

  function close(signal: string): void {
    log.info(`${signal}: draining calls and closing the store (send again to exit at once)`);
    daemon!.close().then(
      () => {
        log.info('stopped cleanly');
        process.exit(0);
      },
      (error) => {
        log.error(`shutdown failed: ${(error as Error).stack}`);
        process.exit(1);
      },
    );
  }
}
