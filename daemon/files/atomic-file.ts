// Writing a whole file so that a reader sees the old file or the new one, never a torn one: write
// a private temporary file beside it, sync it, then rename it over the target. Concurrent writers
// (two daemons building the same cache) each use their own temporary name.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { makeDirectory } from '../../shared/make-directory.ts';
import { dirname } from 'node:path';

export function writeFileAtomically(target: string, parts: readonly Uint8Array[]): void {
  makeDirectory(dirname(target));
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(temporary, 'w', 0o600);
    try {
      for (const part of parts) writeSync(fd, part);
      fsyncSync(fd); // so a crash can never leave a renamed but empty file behind
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Syncs a file written by someone else (a library that writes its own files) before it is
 *  renamed into place, or a directory after renames in it, so a crash keeps what they say. */
export function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
