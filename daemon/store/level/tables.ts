// The tables of the LevelDB store: one classic-level database, one sublevel per table. LevelDB's
// own lock refuses a second process on the same directory.
import { ClassicLevel } from 'classic-level';
import type { AbstractBatchOperation, AbstractSublevel } from 'abstract-level';
import type { AccessRow, CheckpointRecord, Json, StoredTerms } from '../store.ts';
import type { FactRecord } from '../record.ts';
import { StoreLockedError } from '../store.ts';
import { checkLogReplay, copyLogsAside, dropLogCopies, type LogRecovery } from './log-recovery.ts';

export type Root = ClassicLevel<string, string>;
/** A table: one sublevel of the root database, string keys, values of type V. */
export type Table<V> = AbstractSublevel<Root, string | Buffer | Uint8Array, string, V>;

export interface Tables {
  db: Root;
  /** What the open's replay of a damaged write-ahead log dropped, if it dropped anything. */
  recovery: LogRecovery | null;
  /** agentId NUL factId → FactRecord */
  facts: Table<FactRecord>;
  /** agentId NUL factId → the fact's keyword terms: the persisted keyword index, per fact */
  postings: Table<StoredTerms>;
  /** agentId NUL vectorKey(hex) → raw float32 bytes, so indexes rebuild without re-embedding */
  vectors: Table<Uint8Array>;
  /** agentId NUL requestId → the write's result as JSON (a bare fact id, from older versions) */
  requests: Table<string>;
  /** agentId NUL factId → { count, last }: access bookkeeping, kept apart from the fact record so
   *  counting a recall never rewrites (or races with a change to) the fact itself */
  access: Table<AccessRow>;
  /** agentId NUL checkpointId → a saved agent state */
  checkpoints: Table<CheckpointRecord>;
  /** seq(hex) NUL agentId NUL factId → '': which facts each commit changed */
  changes: Table<string>;
  /** name → JSON: issued-id floor, embedder of record, tokenizer version, change-log bounds */
  meta: Table<Json>;
  /** table NUL key → JSON: the small keyed records of the memory controls (slots, their change
   *  history, recipes) */
  records: Table<Json>;
}

/** Written by versions that kept a recency table; nothing reads it any more. */
const RETIRED_TABLES = ['recency'];

/** A failed open because another process holds the store's lock (classic-level maps every
 *  platform's lock message to LEVEL_LOCKED). */
export const isLockedError = (error: unknown): boolean => (error as { cause?: { code?: string } }).cause?.code === 'LEVEL_LOCKED';

/** LevelDB's memtable (and log) size before it is written out as a table file. LevelDB's 4 MiB
 *  makes a bulk import flush and compact eight times as often: with 32 MiB its compaction thread
 *  used half the CPU (3.4 -> 1.5-1.7 s importing 100k facts). The cost: up to 64 MiB of memory
 *  (the memtable and the one being written out) and a longer log to replay after a crash. */
const WRITE_BUFFER_BYTES = 32 << 20;

/** Opens the tables. `checkFormat` runs first, before anything is written: it refuses (throws)
 *  a layout this version does not know, and the database is closed again. */
export async function openTables(path: string, checkFormat: (meta: Table<Json>) => Promise<void> = async () => {}): Promise<Tables> {
  const db = new ClassicLevel<string, string>(path, { valueEncoding: 'utf8', writeBufferSize: WRITE_BUFFER_BYTES });
  copyLogsAside(path);
  try {
    await db.open();
  } catch (error) {
    dropLogCopies(path);
    if (isLockedError(error)) throw new StoreLockedError(path);
    throw error;
  }
  const recovery = checkLogReplay(path);
  try {
    await checkFormat(db.sublevel<string, Json>('meta', { valueEncoding: 'json' }));
  } catch (error) {
    await db.close();
    throw error;
  }
  for (const name of RETIRED_TABLES) {
    const table = db.sublevel<string, string>(name, {});
    if ((await table.keys({ limit: 1 }).all()).length > 0) await table.clear();
  }
  return {
    db,
    recovery,
    facts: db.sublevel<string, FactRecord>('facts', { valueEncoding: 'json' }),
    postings: db.sublevel<string, StoredTerms>('postings', { valueEncoding: 'json' }),
    vectors: db.sublevel<string, Uint8Array>('vectors', { valueEncoding: 'view' }),
    requests: db.sublevel<string, string>('requests', { valueEncoding: 'utf8' }),
    access: db.sublevel<string, AccessRow>('access', { valueEncoding: 'json' }),
    checkpoints: db.sublevel<string, CheckpointRecord>('checkpoints', { valueEncoding: 'json' }),
    changes: db.sublevel<string, string>('changes', { valueEncoding: 'utf8' }),
    meta: db.sublevel<string, Json>('meta', { valueEncoding: 'json' }),
    records: db.sublevel<string, Json>('records', { valueEncoding: 'json' }),
  };
}

/** Closes and reopens the database (after a full disk, the only way LevelDB accepts writes
 *  again) with every table: a sublevel closes with its database and does not reopen with it. */
export async function reopenTables(tables: Tables): Promise<void> {
  await tables.db.close();
  // A database left closed would fail every read too: try the open more than once.
  for (let attempt = 1; ; attempt++) {
    try {
      await tables.db.open();
      break;
    } catch (error) {
      if (attempt === 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await Promise.all(sublevelsOf(tables).map(([, table]) => table.open()));
}

/** Every table by name (the database and what its opening reported left out). */
export function sublevelsOf(tables: Tables): [string, Table<unknown>][] {
  const { db: _db, recovery: _recovery, ...sublevels } = tables;
  return Object.entries(sublevels) as [string, Table<unknown>][];
}

/** A batch op as LevelDB takes it: the key carries its table's prefix, the value is encoded. */
export type EncodedOp = { type: 'put'; key: string; value: string | Uint8Array } | { type: 'del'; key: string };

/** Writes encoded ops straight to classic-level. abstract-level's batch() copies every op and
 *  resolves its key and value encodings again, which costs more than LevelDB's own work: 11–13 µs
 *  an op against 2.6–2.8 µs this way, in batches of 500. Only an open database is written this
 *  way; otherwise batch() gives its usual wait (opening) or error (closed). */
export function writeEncoded(db: Root, ops: EncodedOp[], options: { sync: boolean }): Promise<void> {
  if (db.status !== 'open') return db.batch(ops as AbstractBatchOperation<Root, string, string>[], options);
  return (db as unknown as { _batch(ops: EncodedOp[], options: { sync: boolean }): Promise<void> })._batch(ops, options);
}
