// LevelDB's own repair of a damaged store directory: it salvages every readable record from the
// table and log files and rewrites the manifest. LevelDB's RepairDB does not take the store's
// lock, so the lock is taken here first: a store a daemon is serving is never repaired under it.
import { ClassicLevel } from 'classic-level';
import { StoreLockedError } from '../store.ts';

export async function repairLevelStore(dir: string): Promise<void> {
  const db = new ClassicLevel(dir, { createIfMissing: false });
  try {
    await db.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED' || /lock/i.test(cause?.message ?? '')) throw new StoreLockedError(dir);
    // Damaged: exactly what the repair is for (and nothing else holds it).
  }
  if (db.status === 'open') await db.close();
  await ClassicLevel.repair(dir);
}
