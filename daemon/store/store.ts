// The store interface: everything durable, in domain terms. The daemon's other parts know
// nothing of keys, tables or a database library; they read through these methods and change
// the store only by committing a whole mutation, which is atomic and durable when it resolves.
// Every implementation runs the compliance suite in test/store/ (LevelDB today).
import type { FactRecord } from './record.ts';
import type { TableStats } from '../../shared/model.ts';
export type { TableStats } from '../../shared/model.ts';

export type Json = Record<string, unknown>;

export type ListOrder = 'oldest' | 'newest';

export interface FactKey {
  agentId: string;
  factId: string;
}

/** The keyword terms of one fact as the store keeps them: [term, tf] pairs and the term count. */
export interface StoredTerms {
  length: number;
  terms: [string, number][];
}

/** What the derived indexes need of a live, recallable fact, kept with it so they rebuild
 *  without re-tokenising or re-embedding. */
export interface DerivedRows {
  terms: StoredTerms;
  /** Stored under fact.vectorKey. Absent while fact.vectorKey equals the previous version's:
   *  the stored vector stays as it is. */
  vector?: Float32Array;
}

export interface CheckpointRecord {
  id: string;
  agentId: string;
  createdAt: number;
  state: string;
  messageCount?: number;
}

/** Access statistics of one fact (recall bumps them); kept apart from the fact record. */
export interface AccessRow {
  count: number;
  last: number;
}

/** Tables of small keyed records kept beside the facts (memory controls): their values are JSON
 *  objects, their keys strings that order lexically. */
export type RecordTable = 'slots' | 'slotChanges' | 'recipes' | 'tokens';

/** One part of a mutation. */
export type Change =
  /** Writes a fact record. `derived`: the rows of a recallable fact; null = it is not indexed
   *  (an alias, or retired), so its rows go; 'unchanged' = only the record changes. `before` is
   *  the stored version it replaces, if any (its vector row goes when the vector key changes).
   *  `claim`: a new fact written under write dedup claims its content key. A store several
   *  processes write keeps one live claimant per content of a namespace (a commit whose claim
   *  another live fact holds fails with ContentClaimed) and drops a fact's claim when it is
   *  retired or erased; a store one process holds ignores claims (the daemon's locks suffice). */
  | { type: 'putFact'; fact: FactRecord; before?: FactRecord; derived: DerivedRows | null | 'unchanged'; claim?: string }
  /** Erases a fact with its derived rows and access statistics; the store then also drops the
   *  superseded versions of those rows from its files, so nothing of the text stays on disk. */
  | { type: 'deleteFact'; fact: FactRecord }
  /** Repairs of derived rows (doctor). */
  | { type: 'putTerms'; key: FactKey; terms: StoredTerms }
  | { type: 'deleteTerms'; key: FactKey }
  | { type: 'deleteVector'; agentId: string; vectorKey: number }
  | { type: 'putCheckpoint'; checkpoint: CheckpointRecord }
  | { type: 'deleteCheckpoint'; agentId: string; checkpointId: string }
  | { type: 'putMeta'; name: string; value: Json }
  | { type: 'deleteMeta'; name: string }
  /** The idempotency record: a repeat of (agentId, requestId) is answered from `result`. */
  | { type: 'recordRequest'; agentId: string; requestId: string; result: Json }
  | { type: 'forgetRequest'; agentId: string; requestId: string }
  | { type: 'putRecord'; table: RecordTable; key: string; value: Json }
  | { type: 'deleteRecord'; table: RecordTable; key: string };

export type Mutation = readonly Change[];

export interface ScannedFact {
  fact: FactRecord;
  /** With `withTerms`: the fact's stored keyword terms (undefined when it has none). */
  terms?: StoredTerms;
}

/** A fact changed by the commit with change number `seq`. */
export interface ChangedFact extends FactKey {
  seq: number;
}

export interface MemoryStore {
  /** Identifies the store's content as it was when this process opened it; `close()` returns
   *  the token of the content it leaves. Equal tokens: nothing wrote the store in between. */
  readonly openedToken: string;

  /** A new fact or checkpoint id: time-ordered, never issued twice by this store. */
  nextId(now: number): { id: string; time: number };
  /** A new vector key: never issued twice, so a saved vector index can trust the keys it holds. */
  nextVectorKey(): number;

  getFacts(keys: readonly FactKey[]): Promise<(FactRecord | undefined)[]>;
  /** One page of a namespace in id order (= creation order), after `afterId`; newest first:
   *  in reverse id order, before `afterId`. */
  listFacts(agentId: string, afterId: string, limit: number, order?: ListOrder): Promise<FactRecord[]>;
  /** Every fact (of one namespace, or all), by namespace then id. */
  scanFacts(options?: { agentId?: string; withTerms?: boolean }): AsyncIterable<ScannedFact>;
  /** How many facts the store holds, live and retired. */
  countFacts(): Promise<number>;
  /** Namespaces holding at least one fact, sorted. */
  namespaces(): Promise<string[]>;
  /** The stored keyword rows of these facts (undefined where a fact has none). */
  getTerms(keys: readonly FactKey[]): Promise<(StoredTerms | undefined)[]>;
  /** Every stored keyword row, including rows whose fact is gone (doctor). */
  scanTerms(): AsyncIterable<[FactKey, StoredTerms]>;

  getVectors(agentId: string, vectorKeys: readonly number[]): Promise<(Float32Array | undefined)[]>;
  /** A namespace's stored vectors by key. */
  scanVectors(agentId: string): AsyncIterable<[number, Float32Array]>;
  /** Every stored vector's key, including rows no fact points to (doctor). */
  scanVectorKeys(): AsyncIterable<{ agentId: string; vectorKey: number }>;

  /** The result recorded with an earlier write of (agentId, requestId). */
  requestResult(agentId: string, requestId: string): Promise<Json | undefined>;
  /** Writes lost when the store opened (a damaged write-ahead log whose replay skipped them), or
   *  null: said at start-up and by doctor. */
  readonly openedWithLoss?: { droppedBytes: number; reasons: string[]; keptIn: string } | null;

  /** An agent's checkpoints, newest first. */
  checkpoints(agentId: string, limit?: number): Promise<CheckpointRecord[]>;
  /** The ids of an agent's checkpoints, newest first (without reading their states). */
  checkpointIds(agentId: string): Promise<string[]>;

  getMeta(name: string): Promise<Json | undefined>;

  getRecord(table: RecordTable, key: string): Promise<Json | undefined>;
  /** A record table in key order (or reversed), only the keys starting with `prefix` if given. */
  scanRecords(table: RecordTable, options?: { prefix?: string; reverse?: boolean; limit?: number }): AsyncIterable<[string, Json]>;

  /** The rest of what the store holds, whole, for copying it to another store (engram migrate):
   *  meta records (not the store's own bookkeeping), checkpoints and request records. */
  scanMeta(): AsyncIterable<[string, Json]>;
  scanCheckpoints(): AsyncIterable<CheckpointRecord>;
  scanRequests(): AsyncIterable<{ agentId: string; requestId: string; result: Json }>;

  /** Access statistics are bookkeeping, not acknowledged writes: written without a sync. */
  scanAccess(): AsyncIterable<[FactKey, AccessRow]>;
  writeAccess(rows: readonly [FactKey, AccessRow][]): Promise<void>;

  /** The change number of the last committed mutation (0: none). Numbers increase in commit
   *  order and are never reused, also across a crash. */
  readonly lastSeq: number;
  /** Facts changed by commits after `seq`, in change order (a fact may appear more than once).
   *  Only changes after `changesKeptAfter` are kept: asking for older ones throws. */
  changesSince(seq: number): AsyncIterable<ChangedFact>;
  readonly changesKeptAfter: number;
  /** Forgets changes up to `seq` once every derived structure that needs them covers them. */
  pruneChanges(seq: number): Promise<void>;

  /** Applies a whole mutation atomically; resolves once it is durable, with its change number.
   *  Concurrent commits may share one disk sync; they take numbers in the order they resolve. */
  commit(mutation: Mutation): Promise<{ seq: number }>;
  /** Resolves once every commit started so far has settled, and what deletes erased is gone from
   *  the store's files. */
  drain(): Promise<void>;

  /** Bytes the store occupies on disk (approximate). */
  sizeBytes(): number;
  /** Entries and approximate bytes of each table (a scan of every key: maintenance only). */
  tableStats(): Promise<TableStats[]>;
  /** Rewrites the store's files without what deletes, rewrites and retirements left behind;
   *  resolves once done. Writes go on meanwhile. */
  compact(): Promise<void>;
  close(): Promise<string>;
}

/** The store was written by a newer Engram whose layout this one does not know. */
export class StoreFormatError extends Error {
  constructor(where: string, found: number, known: number) {
    super(`the store at ${where} was written by a newer Engram (store format ${found}; this version reads up to ${known}). Upgrade Engram to open it; this version will not touch it.`);
    this.name = 'StoreFormatError';
  }
}

/** A second process holds the store: the caller refuses to start. */
export class StoreLockedError extends Error {
  constructor(where: string) {
    super(
      `the store at ${where} is locked: another Engram daemon is already serving this data directory. ` +
        'Stop it first (engram status shows its pid), or pass a different --data-dir.',
    );
    this.name = 'StoreLockedError';
  }
}

/** A store other processes commit to as well (a shared database): the daemon follows their
 *  commits through the change log. */
export interface SharedStore {
  readonly shared: true;
  /** The database's identity: the same for every process that opens it. */
  readonly storeId: string;
  /** Whether a change token (`openedToken`, `close()`'s) is of this database, at any change. */
  ownsToken(token: string): boolean;
  /** Whether this process committed change `seq` (asked once per number: the answer is then
   *  forgotten). Its own commits are in its indexes already. */
  takeOwn(seq: number): boolean;
  /** Calls `wake` whenever another process may have committed; returns a stop function. */
  watch(wake: () => void): () => void;
  /** The change number of the last commit by any process. */
  currentSeq(): Promise<number>;
}

/** A shared store also logs changes of these record tables, which daemons keep in memory, as
 *  the pseudo-fact (RECORDS_CHANGED, table name). */
export const RECORDS_CHANGED = '\u0000records';
export const FOLLOWED_RECORD_TABLES: readonly RecordTable[] = ['slots', 'tokens'];

export const isShared = (store: MemoryStore): store is MemoryStore & SharedStore => (store as Partial<SharedStore>).shared === true;

/** A fact changed since the write read it (another process wrote it): the write plans again. */
export class WriteConflict extends Error {
  constructor() {
    super('the fact changed since this write read it');
    this.name = 'WriteConflict';
  }
}

/** Another process stored a live fact that says the same (its content claim) since this write
 *  looked: the write plans again once this process has followed that commit, and finds it. */
export class ContentClaimed extends WriteConflict {
  constructor() {
    super();
    this.message = 'another live fact of the namespace says the same';
    this.name = 'ContentClaimed';
  }
}

/** The request id was recorded meanwhile by another process: the write is answered from it. */
export class RequestAlreadyRecorded extends Error {
  constructor(
    readonly agentId: string,
    readonly requestId: string,
  ) {
    super(`request ${requestId} was already recorded`);
    this.name = 'RequestAlreadyRecorded';
  }
}
