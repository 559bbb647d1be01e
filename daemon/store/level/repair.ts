// LevelDB's own repair of a damaged store directory: it salvages every readable record from the
// table and log files and rewrites the manifest. LevelDB's RepairDB does not take the store's
// lock, so the lock is taken here first: a store a daemon is serving is never repaired under it.
import { ClassicLevel } from 'classic-level';
import { StoreLockedError } from '../store.ts';
import { isLockedError } from './tables.ts';

/** Repairs the store if it does not open; false: it opened, so there was nothing to repair.
 *  `repairing` is called once the repair is certain to run (the lock was free, the store
 *  damaged), so nobody is told of a repair that does not happen. */
export async function repairLevelStore(dir: string, repairing: () => void = () => {}): Promise<boolean> {
  const db = new ClassicLevel(dir, { createIfMissing: false });
  try {
    await db.open();
  } catch (error) {
    if (isLockedError(error)) throw new StoreLockedError(dir);
    // Damaged: exactly what the repair is for (and nothing else holds it).
    repairing();
    await ClassicLevel.repair(dir);
    return true;
  }
  await db.close();
  return false;
}
