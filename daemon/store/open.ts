// Which store a daemon serves: the embedded LevelDB store of its data dir, or a PostgreSQL
// database several daemons share.
import { LevelStore } from './level/level-store.ts';
import { isPostgresUrl } from './postgres-url.ts';
import type { MemoryStore } from './store.ts';

/** `where`: "level" (the store at `levelPath`) or a postgres:// URL. The PostgreSQL driver is
 *  loaded only for a PostgreSQL store. */
export async function openStore(where: string, levelPath: string): Promise<MemoryStore> {
  if (!isPostgresUrl(where)) return LevelStore.open(levelPath);
  const { PostgresStore } = await import('./postgres/postgres-store.ts');
  return PostgresStore.open(where);
}
