// LevelDB replays its write-ahead log (`*.log`) when it opens, and skips a damaged stretch of it
// without failing: the writes in it are gone, and nothing says so but a line in the database's
// own LOG file. So the logs are copied aside before every open, and after it that LOG is read:
// when the replay dropped anything, the copies are kept for forensics and the loss is reported.
import { copyFileSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { makeDirectory } from '../../../shared/make-directory.ts';
import { dirname, join } from 'node:path';

/** What this open's replay dropped, and where the logs as they were before it are kept. */
export interface LogRecovery {
  droppedBytes: number;
  /** LevelDB's own lines about it. */
  reasons: string[];
  /** The folder holding the write-ahead logs as they were before the open. */
  keptIn: string;
}

/** Per process: a second daemon starting beside the first (and refused by the lock) must not
 *  touch the first one's copies. */
const beforeOpen = (path: string) => `${path}.logs-before-open-${process.pid}`;

/** Copies the store's write-ahead logs aside; call before LevelDB opens the store. */
export function copyLogsAside(path: string): void {
  const aside = beforeOpen(path);
  rmSync(aside, { recursive: true, force: true });
  let logs: string[];
  try {
    logs = readdirSync(path).filter((name) => name.endsWith('.log'));
  } catch {
    return; // a new store: nothing to replay
  }
  if (logs.length === 0) return;
  makeDirectory(aside, 0o700);
  for (const name of logs) copyFileSync(join(path, name), join(aside, name));
}

/** After the open: what the replay dropped (keeping the copies), or null (and the copies go). */
export function checkLogReplay(path: string, now = new Date()): LogRecovery | null {
  const aside = beforeOpen(path);
  let text = '';
  try {
    text = readFileSync(join(path, 'LOG'), 'utf8');
  } catch {
    /* no LOG: nothing was replayed */
  }
  const reasons = text.split('\n').filter((line) => /dropping \d+ bytes/.test(line));
  if (reasons.length === 0) {
    rmSync(aside, { recursive: true, force: true });
    return null;
  }
  const droppedBytes = reasons.reduce((n, line) => n + Number(/dropping (\d+) bytes/.exec(line)![1]), 0);
  const keptIn = join(dirname(path), `damaged-log-${now.toISOString().replace(/[:.]/g, '-')}`);
  renameSync(aside, keptIn);
  return { droppedBytes, reasons: reasons.map((line) => line.replace(/^\S+ \S+ /, '')), keptIn };
}

/** The copies of a failed open are not needed. */
export function dropLogCopies(path: string): void {
  rmSync(beforeOpen(path), { recursive: true, force: true });
}
