// A full disk. LevelDB fails the write that found no space — nothing of it is applied — and then
// refuses every later write until the database is reopened, even once space is back. So a write
// that finds the disk full is answered with a clear RESOURCE_EXHAUSTED, reads go on, and the next
// write after that reopens the database first, once the file system has room again.
import { statfsSync } from 'node:fs';
import { EngramError, ErrorKind } from '../../../shared/errors.ts';

/** Room a reopen needs: a new write-ahead log and manifest, and the memtable's next flush. */
const ROOM_TO_REOPEN = 16 * 1024 * 1024;

export const isNoSpace = (error: unknown): boolean => /no space left on device|ENOSPC/i.test(`${(error as Error)?.message} ${(error as { cause?: Error })?.cause?.message ?? ''}`);

export const diskFull = (path: string): EngramError =>
  new EngramError(ErrorKind.ResourceExhausted, `the disk holding the store (${path}) is full: nothing was written. Free some space; the next write goes through without a restart`);

/** Whether the file system holding `path` has room for a reopen. */
export function hasRoom(path: string): boolean {
  try {
    const fs = statfsSync(path);
    return fs.bavail * fs.bsize >= ROOM_TO_REOPEN;
  } catch {
    return true; // cannot tell: try
  }
}
