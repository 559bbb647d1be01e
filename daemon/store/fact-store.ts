// Durable operations on facts. Each mutation becomes one atomic batch across the tables (the
// fact, its keyword postings, recency entry, vector and request id) and goes through group
// commit; the promise resolves only when the batch is on disk.
import type { Tables } from './database.ts';
import type { BatchOp } from './group-commit.ts';
import { GroupCommitter } from './group-commit.ts';
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

export class FactStore {
  readonly ids: IdGenerator;
  private readonly committer: GroupCommitter;
  private readonly locks = new Map<string, Promise<unknown>>();

  private constructor(readonly tables: Tables, idFloor: string) {
    this.ids = new IdGenerator(idFloor);
    // Every batch also records the greatest id issued, so ids stay monotonic across restarts.
    this.committer = new GroupCommitter(tables.db, () => [
      { type: 'put', sublevel: tables.meta, key: ID_FLOOR_KEY, value: { id: this.ids.greatest } } as BatchOp,
    ]);
  }

  static async open(tables: Tables): Promise<FactStore> {
    const floor = (await tables.meta.get(ID_FLOOR_KEY)) as { id?: string } | undefined;
    return new FactStore(tables, floor?.id ?? '');
  }

  async get(agentId: string, factId: string): Promise<FactRecord | undefined> {
    const raw = await this.tables.facts.get(factKey(agentId, factId));
    return raw ? decodeFact(raw) : undefined;
  }

  async getMany(keys: { agentId: string; factId: string }[]): Promise<(FactRecord | undefined)[]> {
    const raws = await this.tables.facts.getMany(keys.map((k) => factKey(k.agentId, k.factId)));
    return raws.map((raw) => (raw ? decodeFact(raw) : undefined));
  }

  /** One page of a namespace, oldest first, starting after `afterId`. */
  async list(agentId: string, afterId: string, limit: number): Promise<FactRecord[]> {
    const range = namespaceRange(agentId);
    const gt = afterId ? factKey(agentId, afterId) : range.gt;
    const rows = await this.tables.facts.values({ gt, lt: range.lt, limit }).all();
    return rows.map(decodeFact);
  }

  async requestedFactId(agentId: string, requestId: string): Promise<string | undefined> {
    return this.tables.requests.get(requestKey(agentId, requestId));
  }

  /** `derived` undefined: a record no index holds (an alias). */
  insert(fact: FactRecord, derived: DerivedRows | undefined, requestId: string): Promise<void> {
    const ops = derived ? this.factOps(fact, derived) : [this.put(this.tables.facts, factKey(fact.agentId, fact.id), fact)];
    if (requestId) ops.push(this.put(this.tables.requests, requestKey(fact.agentId, requestId), fact.id));
    return this.committer.commit(ops);
  }

  /** Replaces a fact and its derived rows; `derived` undefined = the fact is no longer indexed (retired). */
  replace(before: FactRecord, after: FactRecord, derived: DerivedRows | undefined): Promise<void> {
    const ops = [...this.derivedDeleteOps(before)];
    ops.push(this.put(this.tables.facts, factKey(after.agentId, after.id), after));
    if (derived) ops.push(...this.derivedPutOps(after, derived));
    return this.committer.commit(ops);
  }

  remove(fact: FactRecord): Promise<void> {
    return this.committer.commit([
      { type: 'del', sublevel: this.tables.facts, key: factKey(fact.agentId, fact.id) } as BatchOp,
      ...this.derivedDeleteOps(fact),
    ]);
  }

  /** Unsynced bookkeeping writes (access counts): batched, and they never delay a durable write. */
  async putUnsynced(facts: FactRecord[]): Promise<void> {
    if (facts.length === 0) return;
    await this.tables.facts.batch(facts.map((f) => ({ type: 'put' as const, key: factKey(f.agentId, f.id), value: f })));
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
