// A daemon started with the default store in a directory whose last start served a PostgreSQL
// store would make a new, empty LevelDB store beside the database and serve it: every agent of
// the directory would then write to a private store instead of the shared one, and nothing would
// say so. Whatever started it (engram daemon in a terminal, a service manager, a start that lost
// the settings), it is refused before anything is made; a store given by flag or variable,
// `--store level` included, is the user's choice and is taken.
import { readLastStart } from '../shared/last-start.ts';

/** Why a daemon for `dataDir` must not start with the default store, or undefined when it may.
 *  `storeSource`: commander's source of the store setting ('default' when neither --store nor
 *  ENGRAM_STORE gave it). */
export function refusedDefaultStore(dataDir: string, storeSource: string | undefined): string | undefined {
  if (storeSource !== 'default' && storeSource !== undefined) return undefined;
  const served = readLastStart(dataDir)?.postgresStore;
  if (!served) return undefined;
  return `${dataDir} last served the PostgreSQL store ${served}, and no store is given (the default would make a new, empty embedded store here): give --store with its URL, or set ENGRAM_STORE to it, to serve it again; or give --store level to make a new embedded store in ${dataDir}; nothing was started`;
}
