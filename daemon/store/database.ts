// The LevelDB store: one classic-level database, one sublevel per table. Opened only by the
// daemon; LevelDB's own lock refuses a second daemon on the same directory.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import type { AbstractSublevel } from 'abstract-level';
import type { FactRecord } from './record.ts';

type Json = Record<string, unknown>;
type Root = ClassicLevel<string, string>;
/** A table: one sublevel of the root database, string keys, values of type V. */
export type Table<V> = AbstractSublevel<Root, string | Buffer | Uint8Array, string, V>;

export interface CheckpointRecord {
  id: string;
  agentId: string;
  createdAt: number;
  state: string;
  messageCount?: number;
}

export interface AccessRow {
  count: number;
  last: number;
}

export interface StoredPostings {
  length: number;
  terms: [string, number][];
}

export interface Tables {
  db: Root;
  /** storeFingerprint of the store's directory just before this open. */
  fingerprint: string;
  /** agentId NUL factId → FactRecord */
  facts: Table<FactRecord>;
  /** agentId NUL factId → the fact's keyword terms: the persisted keyword index, per fact */
  postings: Table<StoredPostings>;
  /** agentId NUL time(hex) NUL factId → '': the namespace in recency order */
  recency: Table<string>;
  /** agentId NUL vectorKey(hex) → raw float32 bytes, so indexes rebuild without re-embedding */
  vectors: Table<Uint8Array>;
  /** agentId NUL requestId → factId: replay protection for writes */
  requests: Table<string>;
  /** agentId NUL factId → { count, last }: access bookkeeping, kept apart from the fact record so
   *  counting a recall never rewrites (or races with a change to) the fact itself */
  access: Table<AccessRow>;
  /** agentId NUL checkpointId → a saved agent state */
  checkpoints: Table<CheckpointRecord>;
  /** name → JSON: id floor, embedder of record, tokenizer version */
  meta: Table<Json>;
}

export class StoreLockedError extends Error {
  constructor(path: string) {
    super(
      `the store at ${path} is locked: another Engram daemon is already serving this data directory. ` +
        'Stop it first (engram status shows its pid), or pass a different --data-dir.',
    );
    this.name = 'StoreLockedError';
  }
}

/**
 * Names, sizes and modification times of the store's files. LevelDB appends every write to its log
 * and never rewrites a table file in place, so any write — by this daemon, another version, or a
 * tool — and even a bare open changes it. Two equal fingerprints mean an untouched store.
 */
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

export async function openTables(path: string): Promise<Tables> {
  const fingerprint = storeFingerprint(path);
  const db = new ClassicLevel<string, string>(path, { valueEncoding: 'utf8' });
  try {
    await db.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED' || /lock/i.test(cause?.message ?? '')) throw new StoreLockedError(path);
    throw error;
  }
  return {
    db,
    fingerprint,
    facts: db.sublevel<string, FactRecord>('facts', { valueEncoding: 'json' }),
    postings: db.sublevel<string, StoredPostings>('postings', { valueEncoding: 'json' }),
    recency: db.sublevel<string, string>('recency', { valueEncoding: 'utf8' }),
    vectors: db.sublevel<string, Uint8Array>('vectors', { valueEncoding: 'view' }),
    requests: db.sublevel<string, string>('requests', { valueEncoding: 'utf8' }),
    access: db.sublevel<string, AccessRow>('access', { valueEncoding: 'json' }),
    checkpoints: db.sublevel<string, CheckpointRecord>('checkpoints', { valueEncoding: 'json' }),
    meta: db.sublevel<string, Json>('meta', { valueEncoding: 'json' }),
  };
}
