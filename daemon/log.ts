// The daemon's log: structured (pino JSON lines: time, level, msg) with levels. A detached daemon
// writes to its log file; in the foreground it writes to stderr, as readable lines on a terminal.
// `engram logs` renders the file the same way (client/cli/commands/lifecycle.ts).
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import pino from 'pino';
import { makeDirectory } from '../shared/make-directory.ts';

/** What the daemon's parts log through. */
export interface Log {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogOptions {
  level: LogLevel;
  /** A file to append JSON lines to; absent = stderr. */
  file?: string;
}

export function createLog(options: LogOptions): Log {
  const base = { level: options.level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime };
  if (options.file) {
    // Its directory made here, not by pino (whose recursive mkdir never returns under /proc).
    makeDirectory(dirname(options.file));
    return pino(base, pino.destination({ dest: options.file, sync: true }));
  }
  if (process.stderr.isTTY) {
    // Loaded only for a terminal: a detached daemon (most) would pay its start-up cost for nothing.
    // Required, not import()ed: the log is made synchronously, before anything else of the daemon.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    return pino(base, pretty({ destination: 2, sync: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' }));
  }
  return pino(base, pino.destination({ dest: 2, sync: true }));
}

/** A log that keeps nothing (tools that open the core in-process). */
export const SILENT: Log = { debug() {}, info() {}, warn() {}, error() {} };
