// The data directory holds every memory in plain text (LevelDB does not encrypt), so only its
// owner may read it: the directory is 0700 and every file in it 0600, whoever created them; a
// directory another user owns, or one others may write to (they could swap files under the
// daemon), is refused with the command that fixes it. The daemon's umask makes what it writes
// later private as well.
import { chmodSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { makeDirectory } from '../../shared/make-directory.ts';
import { joinDirectory } from '../../shared/start-claim.ts';
import { join } from 'node:path';
import { EngramError, ErrorKind } from '../../shared/errors.ts';

const refuse = (message: string) => new EngramError(ErrorKind.FailedPrecondition, message);

/** Creates `dir` if needed, refuses an unsafe one, and makes everything in it private. */
export function securePrivateDir(dir: string): void {
  process.umask(0o077);
  makeDirectory(dir, 0o700);
  const stat = statSync(dir);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw refuse(`${dir} belongs to uid ${stat.uid}, not to this user (uid ${uid}): run the daemon as its owner, or choose another --data-dir`);
  }
  if ((stat.mode & 0o022) !== 0) {
    throw refuse(`${dir} may be written by other users (mode ${(stat.mode & 0o777).toString(8)}): run "chmod 700 ${dir}" and start again`);
  }
  // A start that made the directory and fails must not remove it under this daemon; the daemon
  // that start spawned (this process's parent) is the start's own to remove.
  if (!joinDirectory(dir, process.ppid)) throw refuse(`${dir} is being removed by a failed engram start that made it: start again`);
  makePrivate(dir);
}

function makePrivate(dir: string): void {
  chmod(dir, 0o700);
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue; // gone meanwhile (a compaction of a store being opened elsewhere)
    }
    if (stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) makePrivate(path);
    else if ((stat.mode & 0o077) !== 0) chmod(path, stat.mode & 0o700);
  }
}

function chmod(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw refuse(`cannot make ${path} private (${code}): it belongs to another user (a run with sudo?); give it back with "chown -R $(id -u) <data dir>" and start again`);
  }
}
