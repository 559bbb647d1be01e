// Making a directory and its missing parents. Node's own recursive mkdir (Node 20) never returns
// for a path under /proc: its loop retries the ENOENT that procfs answers forever, so a mistyped
// --data-dir or `engram init /proc/x` would hang at full CPU. Each missing level is made on its own
// instead, and the first that cannot be made is the error (ENOENT, EACCES, ENOTDIR…).
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** `mode` applies to each directory made (the umask still narrows it). Returns the outermost
 *  directory this call made (the others it made are inside it), undefined when it made none: what
 *  a caller that fails may remove again, and nothing another process made. */
export function makeDirectory(path: string, mode?: number): string | undefined {
  const missing: string[] = [];
  for (let at = resolve(path); !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break; // a root that does not exist: mkdir says why
  }
  let made: string | undefined;
  for (const dir of missing) {
    try {
      mkdirSync(dir, mode === undefined ? undefined : { mode });
      made ??= dir;
    } catch (error) {
      // Another process made it meanwhile: as good as made here (but not this call's to remove).
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return made;
}
