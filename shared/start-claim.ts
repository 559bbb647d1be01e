// Who may remove a data directory a failed start made. A start that fails in a directory it made
// removes it (a mistyped flag is not worth a stray directory), but two starts at once on a new
// directory share it, and the one that fails must not remove it under the other, or under the
// daemon that other start has running there. So the start that makes the directory publishes it
// with a claim file in it (made in a private directory, renamed into place: the directory is never
// seen without it); every other start, and every daemon but the claimant's own, takes the claim
// away before it uses the directory; and a failed start removes the directory only by renaming its
// claim to a removal mark, which fails once anyone has taken it. One file, two atomic renames or
// unlinks of it: a join and a removal never both succeed.
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { processAlive } from './discovery.ts';
import { makeDirectory } from './make-directory.ts';

const CLAIM = 'start-claim';
const REMOVING = 'start-claim.removing';

/** Makes `dir` (and missing parents) holding this process's claim. Returns the outermost directory
 *  made, which this process may remove again while the claim holds (removeIfUnjoined); undefined
 *  when `dir` already existed: someone else's. */
export function makeClaimedDirectory(dir: string, mode = 0o700): string | undefined {
  const target = resolve(dir);
  const above = makeDirectory(dirname(target), mode);
  if (exists(target)) return undefined;
  const draft = mkdtempSync(join(dirname(target), `.${basename(target)}-`));
  try {
    writeFileSync(join(draft, CLAIM), `${process.pid}\n`, { mode: 0o600 });
    // Replaces nothing but an empty directory made this very moment; one with anything in it
    // (another start's claim) fails, and that start made it.
    renameSync(draft, target);
    return above ?? target;
  } catch (error) {
    rmSync(draft, { recursive: true, force: true });
    if (['EEXIST', 'ENOTEMPTY'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
}

/** Takes the claim of the start that made `dir`, so that start never removes it: said by every
 *  start and daemon before they use a directory they did not make. The claimant's own daemon
 *  (`ownClaimant`: its parent) leaves it to the claimant. Returns false when the claimant is
 *  removing it (its start failed first): the caller makes it again once it is gone. */
export function joinDirectory(dir: string, ownClaimant?: number): boolean {
  const before = identity(dir);
  if (before === undefined) return false;
  const claimant = claimantOf(dir);
  if (claimant !== undefined && claimant === ownClaimant) return true;
  rmSync(join(dir, CLAIM), { force: true });
  // A removal that took the claim first has marked the directory, or moved it away already.
  return !removing(dir) && identity(dir) === before;
}

/** Whether the start that made `dir` is removing it: its mark is there and that start runs (a start
 *  killed while removing leaves a mark that is no longer true, and is taken away). */
function removing(dir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dir, REMOVING), 'utf8').trim());
  } catch {
    return false;
  }
  if (processAlive(pid)) return true;
  rmSync(join(dir, REMOVING), { force: true });
  return false;
}

/** Makes `dir` as makeClaimedDirectory does, or joins it when it exists; a directory found being
 *  removed is waited for and made again. Returns what makeClaimedDirectory returns. */
export async function makeOrJoin(dir: string, mode = 0o700): Promise<string | undefined> {
  for (;;) {
    const made = makeClaimedDirectory(dir, mode);
    if (made !== undefined || joinDirectory(dir)) return made;
    await removalOver(dir);
  }
}

/** Waits until a removal joinDirectory found is over: the directory moved away, or the mark gone. */
async function removalOver(dir: string): Promise<void> {
  const at = identity(dir);
  while (at !== undefined && identity(dir) === at && removing(dir)) await new Promise((r) => setTimeout(r, 20));
}

/** Takes `dir` back from its path if this process's claim is still in it (no start or daemon
 *  joined): renamed aside, where nobody finds it, for the caller to remove. Returns where it now
 *  is, or undefined when it stays (someone joined, or it cannot be moved). */
export function takeBack(dir: string): string | undefined {
  const target = resolve(dir);
  if (claimantOf(target) !== process.pid) return undefined;
  try {
    renameSync(join(target, CLAIM), join(target, REMOVING));
  } catch {
    return undefined; // taken by a start or daemon that joined
  }
  const aside = join(dirname(target), `.${basename(target)}-removed-${process.pid}`);
  try {
    renameSync(target, aside);
    return aside;
  } catch {
    // It stays, no longer claimed; a start waiting on the mark goes on once it is gone.
    rmSync(join(target, REMOVING), { force: true });
    return undefined;
  }
}

/** Drops this process's claim on `dir`: its start is over and left the directory in use. */
export function releaseClaim(dir: string): void {
  if (claimantOf(dir) !== process.pid) return;
  try {
    unlinkSync(join(dir, CLAIM));
  } catch {
    // taken meanwhile by a start that joined: as good
  }
}

function claimantOf(dir: string): number | undefined {
  try {
    return Number(readFileSync(join(dir, CLAIM), 'utf8').trim());
  } catch {
    return undefined;
  }
}

/** Device and inode: a directory removed and made again at the same path is another one. */
function identity(dir: string): string | undefined {
  try {
    const { dev, ino } = statSync(dir);
    return `${dev}:${ino}`;
  } catch {
    return undefined;
  }
}

function exists(path: string): boolean {
  return identity(path) !== undefined;
}
