// The embedded store: LevelDB through classic-level. Each mutation becomes one atomic batch
// across the tables and goes through group commit, so a commit resolves only once it is synced
// and concurrent writers share a sync. Every batch also records the highest id, vector key and
// change number issued, so none is reused after a restart or a crash.
import { diskFull, hasRoom, isNoSpace } from './disk-full.ts';
import type { LogRecovery } from './log-recovery.ts';
import type { FactRecord } from '../record.ts';
import { decodeFact } from '../record.ts';
import { IdGenerator } from '../ids.ts';
import type { AccessRow, ChangedFact, Change, CheckpointRecord, DerivedRows, FactKey, Json, ListOrder, MemoryStore, Mutation, RecordTable, ScannedFact, StoredTerms, TableStats } from '../store.ts';
import { StoreFormatError } from '../store.ts';
import { BloomFilter } from './bloom.ts';
import { FactCache } from './fact-cache.ts';
import { directoryBytes, storeFingerprint } from './fingerprint.ts';
import { GroupCommitter } from '../group-commit.ts';
import { changeEntryKey, changesAfter, factKey, namespaceRange, recordKey, requestKey, splitChangeEntryKey, splitFactKey, splitVectorEntryKey, vectorEntryKey } from './keys.ts';
import { saveRequestFilter, takeRequestFilter } from './request-filter.ts';
import { ReadBatcher } from './read-batcher.ts';
import { openTables, reopenTables, sublevelsOf, writeEncoded, type EncodedOp, type Table, type Tables } from './tables.ts';
import { TermsCursor } from './terms-cursor.ts';

const FLOOR_KEY = 'id_floor';
const CHANGES_KEY = 'changes';
const FORMAT_KEY = 'format';
/** Meta records that are this store's bookkeeping, not the daemon's. */
const OWN_META = new Set([FLOOR_KEY, CHANGES_KEY, FORMAT_KEY]);
/** The layout this version writes. A store of a higher format was written by a newer version and
 *  is refused whole; a lower (or unrecorded) one is upgraded on open. Format 1: the change log,
 *  request records holding results, no recency table. */
export const STORE_FORMAT = 1;

/** What the floor record holds; a field a store written by an older version lacks is absent. */
interface IssuedFloor {
  id?: string;
  vectorKey?: number;
  seq?: number;
}

/** Read-ahead of long scans: fewer thread-pool round trips at start-up. classic-level's option
 *  passes through sublevels; abstract-level's types omit it. */
const READ_AHEAD = { highWaterMarkBytes: 4 * 1024 * 1024 } as { limit?: number };

export class LevelStore implements MemoryStore {
  private readonly ids: IdGenerator;
  private issuedVectorKey: number;
  private committedSeq: number;
  private keptAfter: number;
  private readonly committer: GroupCommitter<Mutation, { seq: number }>;
  private readonly cache = new FactCache();
  private readonly factReads = new ReadBatcher<FactRecord>((keys) => this.tables.facts.getMany(keys));
  private readonly requestReads = new ReadBatcher<string>((keys) => this.tables.requests.getMany(keys));

  private constructor(
    private readonly tables: Tables,
    private readonly path: string,
    readonly openedToken: string,
    floor: IssuedFloor,
    keptAfter: number,
    /** Every recorded request id (a filter: "certainly new" or "maybe seen"). */
    private readonly requestIds: BloomFilter,
  ) {
    this.ids = new IdGenerator(floor.id ?? '');
    this.issuedVectorKey = floor.vectorKey ?? 0;
    this.committedSeq = floor.seq ?? 0;
    this.keptAfter = keptAfter;
    this.committer = new GroupCommitter(async (mutations) => (await this.writeBatch(mutations)).map((ok) => ({ ok })));
  }

  /** Opens (creating if need be) the store at `path`; throws StoreLockedError if another
   *  process has it open. */
  static async open(path: string): Promise<LevelStore> {
    const openedToken = storeFingerprint(path);
    const tables = await openTables(path, async (meta) => {
      const format = ((await meta.get(FORMAT_KEY)) as { version?: number } | undefined)?.version ?? 0;
      if (format > STORE_FORMAT) throw new StoreFormatError(path, format, STORE_FORMAT);
      if (format < STORE_FORMAT) await meta.put(FORMAT_KEY, { version: STORE_FORMAT });
    });
    const floor = ((await tables.meta.get(FLOOR_KEY)) ?? {}) as IssuedFloor;
    const changes = ((await tables.meta.get(CHANGES_KEY)) ?? {}) as { keptAfter?: number };
    const saved = takeRequestFilter(requestFilterPath(path), openedToken);
    const store = new LevelStore(tables, path, openedToken, floor, changes.keptAfter ?? 0, saved ?? new BloomFilter());
    if (!saved) for await (const key of tables.requests.keys()) store.requestIds.add(key);
    // A store written before vector keys were recorded in the floor: never reissue a stored one.
    if (floor.vectorKey === undefined) {
      for await (const fact of tables.facts.values(READ_AHEAD)) store.issuedVectorKey = Math.max(store.issuedVectorKey, fact.vectorKey ?? 0);
    }
    return store;
  }

  nextId(now: number): { id: string; time: number } {
    return this.ids.next(now);
  }

  nextVectorKey(): number {
    return ++this.issuedVectorKey;
  }

  get openedWithLoss(): LogRecovery | null {
    return this.tables.recovery;
  }

  get lastSeq(): number {
    return this.committedSeq;
  }

  get changesKeptAfter(): number {
    return this.keptAfter;
  }

  // ------------------------------------------------------------------------------------------
  // Reads

  /** From the cache where possible; misses are read in one getMany, with the other reads of
   *  this turn. */
  async getFacts(keys: readonly FactKey[]): Promise<(FactRecord | undefined)[]> {
    const encoded = keys.map((k) => factKey(k.agentId, k.factId));
    const out = encoded.map((key) => this.cache.get(key));
    const missing = encoded.filter((_, i) => out[i] === undefined);
    if (missing.length === 0) return out;
    const token = this.cache.readToken();
    const raws = await this.factReads.getMany(missing);
    let m = 0;
    for (let i = 0; i < out.length; i++) {
      if (out[i] !== undefined) continue;
      const raw = raws[m++];
      if (!raw) continue;
      const fact = decodeFact(raw);
      this.cache.fillAfterRead(encoded[i]!, fact, token);
      out[i] = fact;
    }
    return out;
  }

  async listFacts(agentId: string, afterId: string, limit: number, order: ListOrder = 'oldest'): Promise<FactRecord[]> {
    const range = namespaceRange(agentId);
    const after = afterId ? factKey(agentId, afterId) : undefined;
    const bounds = order === 'newest' ? { gt: range.gt, lt: after ?? range.lt, reverse: true } : { gt: after ?? range.gt, lt: range.lt };
    const rows = await this.tables.facts.values({ ...bounds, limit }).all();
    return rows.map(decodeFact);
  }

  async *scanFacts(options: { agentId?: string; withTerms?: boolean } = {}): AsyncIterable<ScannedFact> {
    const range = options.agentId === undefined ? {} : namespaceRange(options.agentId);
    const terms = options.withTerms ? new TermsCursor(this.tables.postings, range) : null;
    try {
      for await (const raw of this.tables.facts.values({ ...READ_AHEAD, ...range })) {
        const fact = decodeFact(raw);
        yield terms ? { fact, terms: await terms.take(factKey(fact.agentId, fact.id)) } : { fact };
      }
    } finally {
      await terms?.close();
    }
  }

  async countFacts(): Promise<number> {
    let n = 0;
    for await (const _ of this.tables.facts.keys(READ_AHEAD)) n++;
    return n;
  }

  /** One seek per namespace: after a namespace's first key, the iterator jumps past it. */
  async namespaces(): Promise<string[]> {
    const agents: string[] = [];
    const iterator = this.tables.facts.keys();
    try {
      for (let key = await iterator.next(); key !== undefined; key = await iterator.next()) {
        const { agentId } = splitFactKey(key);
        agents.push(agentId);
        iterator.seek(namespaceRange(agentId).lt);
      }
    } finally {
      await iterator.close();
    }
    return agents;
  }

  async getTerms(keys: readonly FactKey[]): Promise<(StoredTerms | undefined)[]> {
    return this.tables.postings.getMany(keys.map((k) => factKey(k.agentId, k.factId)));
  }

  async *scanTerms(): AsyncIterable<[FactKey, StoredTerms]> {
    for await (const [key, terms] of this.tables.postings.iterator(READ_AHEAD)) yield [splitFactKey(key), terms];
  }

  async getVectors(agentId: string, vectorKeys: readonly number[]): Promise<(Float32Array | undefined)[]> {
    const rows = await this.tables.vectors.getMany(vectorKeys.map((key) => vectorEntryKey(agentId, key)));
    return rows.map((bytes) => (bytes ? toFloat32(bytes) : undefined));
  }

  async *scanVectors(agentId: string): AsyncIterable<[number, Float32Array]> {
    for await (const [key, bytes] of this.tables.vectors.iterator({ ...READ_AHEAD, ...namespaceRange(agentId) })) {
      yield [splitVectorEntryKey(key).vectorKey, toFloat32(bytes)];
    }
  }

  async *scanVectorKeys(): AsyncIterable<{ agentId: string; vectorKey: number }> {
    for await (const key of this.tables.vectors.keys()) yield splitVectorEntryKey(key);
  }

  /** Answered from memory for ids never seen (almost every write). */
  async requestResult(agentId: string, requestId: string): Promise<Json | undefined> {
    const key = requestKey(agentId, requestId);
    if (!this.requestIds.mightContain(key)) return undefined;
    const raw = await this.requestReads.get(key);
    if (raw === undefined) return undefined;
    // Older versions recorded only the id of the fact a write stored.
    return raw.startsWith('{') ? (JSON.parse(raw) as Json) : { op: 'fact', factId: raw };
  }

  async checkpoints(agentId: string, limit?: number): Promise<CheckpointRecord[]> {
    return this.tables.checkpoints.values({ ...namespaceRange(agentId), reverse: true, ...(limit === undefined ? {} : { limit }) }).all();
  }

  async checkpointIds(agentId: string): Promise<string[]> {
    const keys = await this.tables.checkpoints.keys({ ...namespaceRange(agentId), reverse: true }).all();
    return keys.map((key) => splitFactKey(key).factId);
  }

  async getMeta(name: string): Promise<Json | undefined> {
    return this.tables.meta.get(name);
  }

  async getRecord(table: RecordTable, key: string): Promise<Json | undefined> {
    return this.tables.records.get(recordKey(table, key));
  }

  async *scanRecords(table: RecordTable, options: { prefix?: string; reverse?: boolean; limit?: number } = {}): AsyncIterable<[string, Json]> {
    const from = recordKey(table, options.prefix ?? '');
    const range = { gte: from, lt: prefixEnd(from), ...(options.reverse ? { reverse: true } : {}), ...(options.limit !== undefined ? { limit: options.limit } : {}) };
    const skip = table.length + 1;
    for await (const [key, value] of this.tables.records.iterator(range)) yield [key.slice(skip), value];
  }

  async *scanMeta(): AsyncIterable<[string, Json]> {
    for await (const [name, value] of this.tables.meta.iterator()) if (!OWN_META.has(name)) yield [name, value];
  }

  async *scanCheckpoints(): AsyncIterable<CheckpointRecord> {
    yield* this.tables.checkpoints.values(READ_AHEAD);
  }

  async *scanRequests(): AsyncIterable<{ agentId: string; requestId: string; result: Json }> {
    for await (const [key, raw] of this.tables.requests.iterator(READ_AHEAD)) {
      const { agentId, factId: requestId } = splitFactKey(key);
      yield { agentId, requestId, result: raw.startsWith('{') ? (JSON.parse(raw) as Json) : { op: 'fact', factId: raw } };
    }
  }

  async *scanAccess(): AsyncIterable<[FactKey, AccessRow]> {
    for await (const [key, row] of this.tables.access.iterator()) yield [splitFactKey(key), row];
  }

  async writeAccess(rows: readonly [FactKey, AccessRow][]): Promise<void> {
    await this.written(() => this.tables.access.batch(rows.map(([k, row]) => ({ type: 'put' as const, key: factKey(k.agentId, k.factId), value: row }))));
  }

  async *changesSince(seq: number): AsyncIterable<ChangedFact> {
    if (seq < this.keptAfter) throw new Error(`changes up to ${this.keptAfter} were pruned; asked for changes after ${seq}`);
    for await (const key of this.tables.changes.keys({ gte: changesAfter(seq) })) yield splitChangeEntryKey(key);
  }

  async pruneChanges(seq: number): Promise<void> {
    const through = Math.min(seq, this.committedSeq);
    if (through <= this.keptAfter) return;
    // Bound first, rows second: a crash in between leaves rows nobody asks for, never a gap.
    await this.written(() => this.tables.meta.put(CHANGES_KEY, { keptAfter: through }, { sync: true } as object));
    this.keptAfter = through;
    await this.written(() => this.tables.changes.clear({ lt: changesAfter(through) }));
  }

  sizeBytes(): number {
    return directoryBytes(this.path);
  }

  async tableStats(): Promise<TableStats[]> {
    const out: TableStats[] = [];
    for (const [name, table] of this.namedTables()) {
      let entries = 0;
      for await (const _ of table.keys()) entries++;
      const bytes = await this.tables.db.approximateSize(table.prefix, prefixEnd(table.prefix));
      out.push({ name, entries, bytes });
    }
    return out;
  }

  async compact(): Promise<void> {
    for (const [, table] of this.namedTables()) await this.tables.db.compactRange(table.prefix, prefixEnd(table.prefix));
  }

  private namedTables(): [string, Table<unknown>][] {
    return sublevelsOf(this.tables);
  }

  // ------------------------------------------------------------------------------------------
  // Writes

  commit(mutation: Mutation): Promise<{ seq: number }> {
    return this.committer.submit(mutation);
  }

  async drain(): Promise<void> {
    await this.committer.drain();
    await this.erasing;
  }

  /** Set when a write found the disk full: LevelDB refuses writes until it is reopened. */
  private fullDisk = false;

  /** Every write to the database goes through here: one that finds the disk full is refused
   *  clearly and marks the database for a reopen, which the next write does first. */
  private async written<T>(write: () => Promise<T>): Promise<T> {
    if (this.fullDisk) await this.reopenAfterFullDisk();
    try {
      return await write();
    } catch (error) {
      if (!isNoSpace(error)) throw error;
      this.fullDisk = true;
      throw diskFull(this.path);
    }
  }

  /** Reopens the database once the disk has room again (until then: the same clear refusal).
   *  Reads in flight during the reopen may fail once; every committed write stays. */
  private async reopenAfterFullDisk(): Promise<void> {
    if (!hasRoom(this.path)) throw diskFull(this.path);
    this.reopening ??= reopenTables(this.tables).finally(() => (this.reopening = null));
    await this.reopening;
    this.fullDisk = false;
    // Should the refused write have reached the log after all, its numbers are not used again.
    const floor = ((await this.tables.meta.get(FLOOR_KEY)) ?? {}) as IssuedFloor;
    if ((floor.seq ?? 0) > this.committedSeq) this.committedSeq = floor.seq!;
    if ((floor.vectorKey ?? 0) > this.issuedVectorKey) this.issuedVectorKey = floor.vectorKey!;
  }

  private reopening: Promise<void> | null = null;

  /** One synced batch for a group of mutations, numbered in order. */
  private async writeBatch(mutations: Mutation[]): Promise<{ seq: number }[]> {
    const first = this.committedSeq + 1;
    const ops: EncodedOp[] = [];
    mutations.forEach((mutation, i) => {
      for (const change of mutation) ops.push(...this.opsOf(change, first + i));
    });
    const last = first + mutations.length - 1;
    ops.push(this.put(this.tables.meta, FLOOR_KEY, { id: this.ids.greatest, vectorKey: this.issuedVectorKey, seq: last }));
    await this.written(() => writeEncoded(this.tables.db, ops, { sync: true }));
    this.committedSeq = last;
    for (const mutation of mutations) this.afterCommit(mutation);
    return mutations.map((_, i) => ({ seq: first + i }));
  }

  private afterCommit(mutation: Mutation): void {
    for (const change of mutation) {
      if (change.type === 'putFact') this.cache.written(factKey(change.fact.agentId, change.fact.id), change.fact);
      else if (change.type === 'deleteFact') {
        this.cache.written(factKey(change.fact.agentId, change.fact.id), undefined);
        this.eraseSoon(change.fact);
      } else if (change.type === 'recordRequest') this.requestIds.add(requestKey(change.agentId, change.requestId));
    }
  }

  private erasing: Promise<void> = Promise.resolve();
  /** Keys of erased facts whose old values may still be in LevelDB's files, by table prefix. */
  private toErase = new Map<string, string[]>();

  /** LevelDB keeps a deleted value in its log and table files until they are compacted: compact
   *  the erased fact's key ranges (the memtable is flushed first), so its text leaves the disk.
   *  Erasures that pile up (a garbage collection erases thousands at once) are compacted together:
   *  each table's span from its first to its last erased key, once. */
  private eraseSoon(fact: FactRecord): void {
    const t = this.tables;
    const key = factKey(fact.agentId, fact.id);
    const keys: [string, string][] = [[t.facts.prefix, key], [t.postings.prefix, key], [t.access.prefix, key]];
    if (fact.vectorKey) keys.push([t.vectors.prefix, vectorEntryKey(fact.agentId, fact.vectorKey)]);
    if (fact.requestId) keys.push([t.requests.prefix, requestKey(fact.agentId, fact.requestId)]);
    const first = this.toErase.size === 0;
    for (const [prefix, k] of keys) {
      const list = this.toErase.get(prefix);
      if (list) list.push(prefix + k);
      else this.toErase.set(prefix, [prefix + k]);
    }
    if (!first) return; // a compaction is already queued; it takes these keys too
    this.erasing = this.erasing.then(async () => {
      const pending = this.toErase;
      this.toErase = new Map();
      for (const full of pending.values()) {
        full.sort();
        // A failed compaction only leaves the old value on disk longer (the next one takes it).
        await t.db.compactRange(full[0]!, full[full.length - 1]!).catch(() => undefined);
      }
    });
  }

  private opsOf(change: Change, seq: number): EncodedOp[] {
    const t = this.tables;
    switch (change.type) {
      case 'putFact':
        return [...this.factOps(change.fact, change.before, change.derived), this.changeOp(seq, change.fact)];
      case 'deleteFact': {
        const { fact } = change;
        const key = factKey(fact.agentId, fact.id);
        return [this.del(t.facts, key), this.del(t.access, key), this.del(t.postings, key), ...this.vectorDelete(fact), this.changeOp(seq, fact)];
      }
      case 'putTerms':
        return [this.put(t.postings, factKey(change.key.agentId, change.key.factId), change.terms)];
      case 'deleteTerms':
        return [this.del(t.postings, factKey(change.key.agentId, change.key.factId))];
      case 'deleteVector':
        return [this.del(t.vectors, vectorEntryKey(change.agentId, change.vectorKey))];
      case 'putCheckpoint':
        return [this.put(t.checkpoints, factKey(change.checkpoint.agentId, change.checkpoint.id), change.checkpoint)];
      case 'deleteCheckpoint':
        return [this.del(t.checkpoints, factKey(change.agentId, change.checkpointId))];
      case 'putMeta':
        return [this.put(t.meta, change.name, change.value)];
      case 'deleteMeta':
        return [this.del(t.meta, change.name)];
      case 'recordRequest':
        return [this.put(t.requests, requestKey(change.agentId, change.requestId), JSON.stringify(change.result))];
      case 'forgetRequest':
        return [this.del(t.requests, requestKey(change.agentId, change.requestId))];
      case 'putRecord':
        return [this.put(t.records, recordKey(change.table, change.key), change.value)];
      case 'deleteRecord':
        return [this.del(t.records, recordKey(change.table, change.key))];
    }
  }

  private factOps(fact: FactRecord, before: FactRecord | undefined, derived: DerivedRows | null | 'unchanged'): EncodedOp[] {
    const t = this.tables;
    const key = factKey(fact.agentId, fact.id);
    const ops = [this.put(t.facts, key, fact)];
    if (derived === 'unchanged') return ops;
    if (before && before.vectorKey && before.vectorKey !== fact.vectorKey) ops.push(...this.vectorDelete(before));
    if (derived === null) {
      ops.push(this.del(t.postings, key));
      if (fact.vectorKey) ops.push(...this.vectorDelete(fact));
      return ops;
    }
    ops.push(this.put(t.postings, key, derived.terms));
    if (derived.vector && fact.vectorKey) {
      const v = derived.vector;
      ops.push(this.put(t.vectors, vectorEntryKey(fact.agentId, fact.vectorKey), new Uint8Array(v.buffer, v.byteOffset, v.byteLength)));
    }
    return ops;
  }

  private vectorDelete(fact: FactRecord): EncodedOp[] {
    return fact.vectorKey ? [this.del(this.tables.vectors, vectorEntryKey(fact.agentId, fact.vectorKey))] : [];
  }

  private changeOp(seq: number, fact: FactRecord): EncodedOp {
    return this.put(this.tables.changes, changeEntryKey(seq, fact.agentId, fact.id), '');
  }

  // Ops address the root database by the table's prefix and carry encoded values, so a group commit
  // skips abstract-level's per-op work (see writeEncoded). The bytes written are the same.
  private put<V>(table: Table<V>, key: string, value: V): EncodedOp {
    return { type: 'put', key: table.prefix + key, value: table.valueEncoding().encode(value) as string | Uint8Array };
  }

  private del<V>(table: Table<V>, key: string): EncodedOp {
    return { type: 'del', key: table.prefix + key };
  }

  async close(): Promise<string> {
    await this.drain();
    await this.tables.db.close();
    const token = storeFingerprint(this.path);
    try {
      saveRequestFilter(requestFilterPath(this.path), this.requestIds, token);
    } catch {
      /* only costs the next open a scan of the requests table */
    }
    return token;
  }
}

const requestFilterPath = (storePath: string): string => `${storePath}.request-ids`;

/** LevelDB hands back views into shared buffers; copy into an aligned Float32Array. */
function toFloat32(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/** The first key after every key that starts with `prefix` (its last character + 1). */
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
