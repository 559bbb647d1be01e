// Which store a daemon serves: the embedded LevelDB store of its data dir, or a PostgreSQL
// database several daemons share.
import { LevelStore } from './level/level-store.ts';
import { PostgresStore } from './postgres/postgres-store.ts';
import type { MemoryStore } from './store.ts';

export const isPostgresUrl = (where: string): boolean => /^postgres(ql)?:\/\//.test(where);

/** `where`: "level" (the store at `levelPath`) or a postgres:// URL. */
export function openStore(where: string, levelPath: string): Promise<MemoryStore> {
  return isPostgresUrl(where) ? PostgresStore.open(where) : LevelStore.open(levelPath);
}
