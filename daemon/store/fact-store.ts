// Durable operations on facts. Each mutation becomes one atomic batch across the tables (the
// fact, its keyword postings, recency entry, vector and request id) and goes through group
// commit; the promise resolves only when the batch is on disk.
import type { Tables } from './database.ts';
import type { BatchOp } from './group-commit.ts';
import { GroupCommitter } from './group-commit.ts';
import { BloomFilter } from './bloom.ts';
import { FactCache } from './fact-cache.ts';
import { IdGenerator } from './ids.ts';
import { factKey, namespaceRange, recencyEntryKey, requestKey, vectorEntryKey } from './keys.ts';
import type { FactRecord } from './record.ts';
import { decodeFact } from './record.ts';

export interface DerivedRows {
  /** The fact's keyword terms as [term, tf] pairs, and its term count. */
  postings: { length: number; terms: [string, number][] };
  /** The fact's vector, if it has one (stored under record.vectorKey). */
  vector?: Float32Array;
}

const ID_FLOOR_KEY = 'id_floor';

/** What the id floor record holds; a field a store written by an older version lacks is absent. */
interface IssuedFloor {
  id?: string;
  vectorKey?: number;
}

export class FactStore {
  readonly ids: IdGenerator;
  /** The next vector key to hand out. Like ids, vector keys are never reused — a saved vector
   *  index trusts every key it covers — so the highest one issued is recorded with every batch. */
  private nextVectorKey: number;
  private readonly committer: GroupCommitter;
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly cache = new FactCache();

  private constructor(
    readonly tables: Tables,
    floor: IssuedFloor,
    /** Every committed request id (a filter: "certainly new" or "maybe seen"). */
    readonly requestIds: BloomFilter,
  ) {
    this.ids = new IdGenerator(floor.id ?? '');
    this.nextVectorKey = (floor.vectorKey ?? 0) + 1;
    // Every batch also records the greatest id and vector key issued, so neither is reused after a restart.
    this.committer = new GroupCommitter(tables.db, () => [
      { type: 'put', sublevel: tables.meta, key: ID_FLOOR_KEY, value: { id: this.ids.greatest, vectorKey: this.nextVectorKey - 1 } } as BatchOp,
    ]);
  }

  takeVectorKey(): number {
    return this.nextVectorKey++;
  }

  /** The highest vector key issued so far (0: none). */
  get issuedVectorKey(): number {
    return this.nextVectorKey - 1;
  }

  /** Never hand out `key` or below (a store written before the floor recorded vector keys). */
  skipVectorKeysUpTo(key: number): void {
    this.nextVectorKey = Math.max(this.nextVectorKey, key + 1);
  }

  /** `requestIds`: the filter as a snapshot saved it; without one, it is built from the table. */
  static async open(tables: Tables, requestIds?: BloomFilter): Promise<FactStore> {
    const floor = ((await tables.meta.get(ID_FLOOR_KEY)) ?? {}) as IssuedFloor;
    const store = new FactStore(tables, floor, requestIds ?? new BloomFilter());
    if (!requestIds) await store.loadRequestIds();
    return store;
  }

  async get(agentId: string, factId: string): Promise<FactRecord | undefined> {
    const [fact] = await this.getMany([{ agentId, factId }]);
    return fact;
  }

  /** Records by key, from the cache where possible; misses are read in one LevelDB getMany. */
  async getMany(keys: { agentId: string; factId: string }[]): Promise<(FactRecord | undefined)[]> {
    const encoded = keys.map((k) => factKey(k.agentId, k.factId));
    const out = encoded.map((key) => this.cache.get(key));
    const missing = encoded.filter((_, i) => out[i] === undefined);
    if (missing.length === 0) return out;
    const token = this.cache.readToken();
    const raws = await this.tables.facts.getMany(missing);
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

  /** One page of a namespace, oldest first, starting after `afterId`. */
  async list(agentId: string, afterId: string, limit: number): Promise<FactRecord[]> {
    const range = namespaceRange(agentId);
    const gt = afterId ? factKey(agentId, afterId) : range.gt;
    const rows = await this.tables.facts.values({ gt, lt: range.lt, limit }).all();
    return rows.map(decodeFact);
  }

  /** The fact a committed request id produced, if any. Answered from memory for new ids. */
  async requestedFactId(agentId: string, requestId: string): Promise<string | undefined> {
    const key = requestKey(agentId, requestId);
    if (!this.requestIds.mightContain(key)) return undefined;
    return this.tables.requests.get(key);
  }

  /** Start-up: remember every committed request id. */
  async loadRequestIds(): Promise<void> {
    for await (const key of this.tables.requests.keys()) this.requestIds.add(key);
  }

  /** `derived` undefined: a record no index holds (an alias). */
  insert(fact: FactRecord, derived: DerivedRows | undefined, requestId: string): Promise<void> {
    const ops = derived ? this.factOps(fact, derived) : [this.put(this.tables.facts, factKey(fact.agentId, fact.id), fact)];
    const key = requestId ? requestKey(fact.agentId, requestId) : '';
    if (key) ops.push(this.put(this.tables.requests, key, fact.id));
    // One continuation whether or not there is a request id: writers committed in one batch then
    // resume in commit order, which is id order, so the index numbers their docs in id order.
    return this.commit(ops, fact, fact).then(() => {
      if (key) this.requestIds.add(key);
    });
  }

  /** Replaces a fact and its derived rows; `derived` undefined = the fact is no longer indexed (retired). */
  replace(before: FactRecord, after: FactRecord, derived: DerivedRows | undefined): Promise<void> {
    const ops = [...this.derivedDeleteOps(before)];
    ops.push(this.put(this.tables.facts, factKey(after.agentId, after.id), after));
    if (derived) ops.push(...this.derivedPutOps(after, derived));
    return this.commit(ops, after, after);
  }

  /** Rewrites only the fact row: for changes no derived row depends on (pin, confidence, tags…). */
  replaceRecord(after: FactRecord): Promise<void> {
    return this.commit([this.put(this.tables.facts, factKey(after.agentId, after.id), after)], after, after);
  }

  remove(fact: FactRecord): Promise<void> {
    return this.commit([
      { type: 'del', sublevel: this.tables.facts, key: factKey(fact.agentId, fact.id) } as BatchOp,
      { type: 'del', sublevel: this.tables.access, key: factKey(fact.agentId, fact.id) } as BatchOp,
      ...this.derivedDeleteOps(fact),
    ], fact, undefined);
  }

  /** Commits a batch durably, then updates the cache for the one fact it changed. */
  private async commit(ops: BatchOp[], fact: FactRecord, after: FactRecord | undefined): Promise<void> {
    await this.committer.commit(ops);
    this.cache.written(factKey(fact.agentId, fact.id), after);
  }

  /** A durable batch that touches no fact (checkpoints): group-committed like every write. */
  commitRaw(ops: BatchOp[]): Promise<void> {
    return this.committer.commit(ops);
  }

  /** Serialises read-modify-write mutations of one fact. */
  async withLock<T>(agentId: string, factId: string, work: () => Promise<T>): Promise<T> {
    const key = factKey(agentId, factId);
    const previous = this.locks.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.catch(() => undefined);
    this.locks.set(key, settled);
    settled.then(() => this.locks.get(key) === settled && this.locks.delete(key));
    return run;
  }

  drain(): Promise<void> {
    return this.committer.drain();
  }

  private factOps(fact: FactRecord, derived: DerivedRows): BatchOp[] {
    return [this.put(this.tables.facts, factKey(fact.agentId, fact.id), fact), ...this.derivedPutOps(fact, derived)];
  }

  private derivedPutOps(fact: FactRecord, derived: DerivedRows): BatchOp[] {
    const ops = [
      this.put(this.tables.postings, factKey(fact.agentId, fact.id), derived.postings),
      this.put(this.tables.recency, recencyEntryKey(fact.agentId, recencyTime(fact), fact.id), ''),
    ];
    if (derived.vector && fact.vectorKey) {
      const bytes = new Uint8Array(derived.vector.buffer, derived.vector.byteOffset, derived.vector.byteLength);
      ops.push(this.put(this.tables.vectors, vectorEntryKey(fact.agentId, fact.vectorKey), bytes));
    }
    return ops;
  }

  private derivedDeleteOps(fact: FactRecord): BatchOp[] {
    const del = (sublevel: unknown, key: string) => ({ type: 'del', sublevel, key }) as BatchOp;
    const ops = [
      del(this.tables.postings, factKey(fact.agentId, fact.id)),
      del(this.tables.recency, recencyEntryKey(fact.agentId, recencyTime(fact), fact.id)),
    ];
    if (fact.vectorKey) ops.push(del(this.tables.vectors, vectorEntryKey(fact.agentId, fact.vectorKey)));
    return ops;
  }

  private put(sublevel: unknown, key: string, value: unknown): BatchOp {
    return { type: 'put', sublevel, key, value } as BatchOp;
  }
}

/** The time recency ranks a fact by: when it happened if the writer said so, else when it was written. */
export const recencyTime = (fact: FactRecord): number => fact.occurredAt ?? fact.createdAt;
