// The store implementations the compliance suite runs against, by name (the crash writer
// process opens one by name too).
import { join } from 'node:path';
import { LevelStore } from '../../daemon/store/level/level-store.ts';
import type { MemoryStore } from '../../daemon/store/store.ts';

export interface StoreBackend {
  name: string;
  /** Opens (creating) the store kept under `dir`. */
  open(dir: string): Promise<MemoryStore>;
}

export const BACKENDS: Record<string, StoreBackend> = {
  level: { name: 'level', open: (dir) => LevelStore.open(join(dir, 'store')) },
};
