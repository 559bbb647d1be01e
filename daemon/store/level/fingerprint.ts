// Names, sizes and modification times of the store's files. LevelDB appends every write to its log
// and never rewrites a table file in place, so any write — by this daemon, another version, or a
// tool — and even a bare open changes it. Two equal fingerprints mean an untouched store.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function storeFingerprint(path: string): string {
  if (!existsSync(path)) return '';
  const files = readdirSync(path).sort();
  return createHash('sha256')
    .update(JSON.stringify(files.map((name) => {
      const stat = statSync(join(path, name));
      return [name, stat.size, stat.mtimeMs];
    })))
    .digest('hex');
}

export function directoryBytes(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  // LevelDB deletes files as it compacts: one gone between the listing and its stat counts 0,
  // not the whole directory.
  return names.reduce((sum, name) => sum + (statSync(join(dir, name), { throwIfNoEntry: false })?.size ?? 0), 0);
}
