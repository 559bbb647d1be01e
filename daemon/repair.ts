// `engram doctor --repair [--data-dir DIR]`: LevelDB's repair of a store that no longer opens
// (a damaged CURRENT, MANIFEST or table file), run with no daemon serving the directory. What
// cannot be read is lost; the daemon then rebuilds every index from what was recovered.
import { existsSync } from 'node:fs';
import { dataPaths, resolveDataDir } from '../shared/discovery.ts';
import { repairLevelStore } from './store/level/repair.ts';
import { StoreLockedError } from './store/store.ts';

function dataDirOf(argv: string[]): string | undefined {
  const at = argv.findIndex((a) => a === '--data-dir');
  if (at >= 0) return argv[at + 1];
  return argv.find((a) => a.startsWith('--data-dir='))?.slice('--data-dir='.length);
}

export async function main(argv: string[]): Promise<number> {
  const dataDir = resolveDataDir(dataDirOf(argv));
  const store = dataPaths(dataDir).store;
  if (!existsSync(store)) {
    process.stderr.write(`engram doctor --repair: there is no store at ${store}\n`);
    return 1;
  }
  let repaired: boolean;
  try {
    repaired = await repairLevelStore(store, () => process.stderr.write(`repairing ${store} (LevelDB repair)…\n`));
  } catch (error) {
    const locked = error instanceof StoreLockedError;
    process.stderr.write(`engram doctor --repair: ${locked ? `a daemon is serving ${dataDir}: stop it first (engram stop), then repair` : `the repair failed: ${(error as Error).message}. Restore the namespace from an export (engram import)`}\n`);
    return 1;
  }
  if (!repaired) process.stdout.write(`${store} opens as it is: nothing to repair. "engram doctor" checks the indexes.\n`);
  else process.stdout.write(`repaired ${store}. Start the daemon (it rebuilds its indexes from what was recovered), then run "engram doctor".\n`);
  return 0;
}
