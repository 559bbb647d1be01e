// The store implementations the compliance suite runs against, by name (the crash writer
// process opens one by name too). The PostgreSQL one keeps each test directory's store in a
// database of its own on the test server (test/fixtures/global-setup.ts starts it).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { LevelStore } from '../../daemon/store/level/level-store.ts';
import { PostgresStore } from '../../daemon/store/postgres/postgres-store.ts';
import type { MemoryStore } from '../../daemon/store/store.ts';
import { testDatabase } from '../fixtures/postgres.ts';

export interface StoreBackend {
  name: string;
  /** Opens (creating) the store kept under `dir`. */
  open(dir: string): Promise<MemoryStore>;
}

export const BACKENDS: Record<string, StoreBackend> = {
  level: { name: 'level', open: (dir) => LevelStore.open(join(dir, 'store')) },
  postgres: { name: 'postgres', open: async (dir) => PostgresStore.open(await testDatabase(`store_${createHash('sha1').update(dir).digest('hex').slice(0, 16)}`)) },
};
