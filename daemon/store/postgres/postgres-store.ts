// The shared store: PostgreSQL through node-postgres. Several daemons open one database; each
// mutation commits in one transaction (concurrent mutations of one daemon share a transaction,
// each behind its own savepoint, so one that cannot be stored fails alone). A request id is
// recorded under a unique key, so a request replayed through another daemon is refused by the
// database rather than written twice; a fact changed by another daemon since it was read is a
// conflict the write pipeline plans again. Every commit is numbered from one counter row and
// announced on a channel, so followers apply every daemon's changes in order.
import pg from 'pg';
import { redacted } from '../postgres-url.ts';
import { EngramError, ErrorKind } from '../../../shared/errors.ts';
import { IdGenerator } from '../ids.ts';
import { decodeFact, type FactRecord } from '../record.ts';
import type { AccessRow, ChangedFact, Change, CheckpointRecord, FactKey, Json, ListOrder, MemoryStore, Mutation, RecordTable, ScannedFact, StoredTerms, TableStats } from '../store.ts';
import { ContentClaimed, FOLLOWED_RECORD_TABLES, RECORDS_CHANGED, RequestAlreadyRecorded, WriteConflict } from '../store.ts';
import { CHANGES_CHANNEL, prepareSchema, SCHEMA, STAT_TABLES } from './schema.ts';
import { claimRelease, releaseClaims, takeClaims, type Claim } from './claims.ts';
import { watchChannel } from './watch.ts';
import { GroupCommitter, type Outcome } from '../group-commit.ts';

const T = SCHEMA;
/** Meta records that are this store's bookkeeping, not the daemon's. */
const OWN_META = ['format', 'store_id'];
const PAGE = 2000;
/** Vector keys are this daemon's node number (one per open, from a database sequence) times
 *  2^32 plus a counter, so daemons never issue the same key and a reopen never reissues one;
 *  keys copied from an embedded store are below 2^32. */
const NODE_SPAN = 2 ** 32;

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
const text = (raw: Buffer): string => raw.toString('utf8');
/** The one serialization of a fact record, so a stored version compares equal to itself. */
const factText = (fact: FactRecord): string => JSON.stringify(decodeFact(fact));

interface Statement {
  sql: string;
  params: unknown[];
  /** Rows it must touch, else another daemon changed the row since it was read. */
  expectRows?: number;
  /** What a unique violation of this statement means. */
  onDuplicate?: () => Error;
}

/** A mutation as the statements that store it. */
interface Encoded {
  statements: Statement[];
  /** The facts it changes (and the followed record tables), for the change log. */
  facts: FactKey[];
  greatestId: string;
  /** The content claims of the new facts it stores (see claims.ts). */
  claims: Claim[];
}

export class PostgresStore implements MemoryStore {
  private readonly ids: IdGenerator;
  private vectorCounter = 0;
  private knownSeq: number;
  private keptAfter: number;
  private readonly committer = new GroupCommitter<Encoded, { seq: number }>((group) => this.writeGroup(group));
  private cachedBytes = 0;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    /** A URL fit to show: no password. */
    readonly where: string,
    readonly storeId: string,
    private readonly node: number,
    counter: { seq: number; keptAfter: number; idFloor: string },
  ) {
    this.ids = new IdGenerator(counter.idFloor);
    this.knownSeq = counter.seq;
    this.keptAfter = counter.keptAfter;
    this.openedToken = `${storeId}:${counter.seq}`;
  }

  readonly openedToken: string;
  readonly openedWithLoss = null;
  /** Other daemons commit to this store too. */
  readonly shared = true;
  private readonly own = new Set<number>();

  ownsToken(token: string): boolean {
    return token.startsWith(`${this.storeId}:`);
  }

  takeOwn(seq: number): boolean {
    // Numbers below it were passed (a commit that changed no fact is never asked about).
    for (const n of this.own) if (n < seq) this.own.delete(n);
    return this.own.delete(seq);
  }

  static async open(url: string): Promise<PostgresStore> {
    const where = redacted(url);
    const pool = new pg.Pool({ connectionString: url, max: 12, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
    // An idle connection cut by a server restart must not take the daemon down: the pool drops
    // it and the next query connects anew.
    pool.on('error', () => undefined);
    // A server shutting down tells each connection so (FATAL 57P01), which pg emits as an 'error'
    // event on its client. A client checked out for a write, between two of its queries, has no
    // listener of the pool's, and an unheard 'error' event would take the daemon down; its next
    // query fails on its own, and that is what the write reports.
    pool.on('connect', (client) => client.on('error', () => undefined));
    try {
      const client = await pool.connect().catch((error: Error) => {
        throw openRefused(where, error);
      });
      try {
        const storeId = await prepareSchema(client, where);
        const counter = await client.query<{ seq: string; kept_after: string; id_floor: string }>(`SELECT seq, kept_after, id_floor FROM ${T}.counter`);
        const node = await client.query<{ n: string }>(`SELECT nextval('${T}.nodes') AS n`);
        const row = counter.rows[0]!;
        const store = new PostgresStore(pool, url, where, storeId, Number(node.rows[0]!.n), { seq: Number(row.seq), keptAfter: Number(row.kept_after), idFloor: row.id_floor });
        store.cachedBytes = Number((await client.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n')).rows[0]!.n);
        return store;
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  nextId(now: number): { id: string; time: number } {
    return this.ids.next(now);
  }

  nextVectorKey(): number {
    return this.node * NODE_SPAN + ++this.vectorCounter;
  }

  get lastSeq(): number {
    return this.knownSeq;
  }

  get changesKeptAfter(): number {
    return this.keptAfter;
  }

  /** Calls `wake` whenever another daemon may have committed (and after each reconnect). */
  watch(wake: () => void): () => void {
    return watchChannel(this.url, CHANGES_CHANNEL, wake);
  }

  /** The change number of the last commit of any daemon. */
  async currentSeq(): Promise<number> {
    const { rows } = await this.read<{ seq: string }>(`SELECT seq FROM ${T}.counter`);
    const seq = Number(rows[0]!.seq);
    if (seq > this.knownSeq) this.knownSeq = seq;
    return seq;
  }

  // ------------------------------------------------------------------------------------------
  // Reads

  private async read<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, params);
    } catch (error) {
      // A write reads first (its dedup, the facts it changes): "nothing was done" holds for both.
      throw isConnectionError(error) ? unreachable(this.where, error as Error, 'nothing was done; try again') : error;
    }
  }

  /** Rows of a keyset-paged query: `page(after)` returns rows after the last one's key. */
  private async *pages<R extends pg.QueryResultRow>(page: (last: R | undefined) => Promise<R[]>): AsyncIterable<R> {
    let last: R | undefined;
    for (;;) {
      const rows = await page(last);
      yield* rows;
      if (rows.length < PAGE) return;
      last = rows[rows.length - 1];
    }
  }

  /** One text column of a table keyed by (agent_id, fact_id), for each key (undefined where
   *  absent), in one query. */
  private async byFactKeys(table: 'facts' | 'postings', column: 'record' | 'terms', keys: readonly FactKey[]): Promise<(string | undefined)[]> {
    if (keys.length === 0) return [];
    const { rows } = await this.read<{ agent_id: Buffer; fact_id: string; value: string }>(
      `SELECT t.agent_id, t.fact_id, t.${column} AS value FROM ${T}.${table} t JOIN unnest($1::bytea[], $2::text[]) AS k(a, i) ON t.agent_id = k.a AND t.fact_id = k.i`,
      [keys.map((k) => bytes(k.agentId)), keys.map((k) => k.factId)],
    );
    const found = new Map(rows.map((r) => [`${text(r.agent_id)}\u0000${r.fact_id}`, r.value]));
    return keys.map((k) => found.get(`${k.agentId}\u0000${k.factId}`));
  }

  async getFacts(keys: readonly FactKey[]): Promise<(FactRecord | undefined)[]> {
    return (await this.byFactKeys('facts', 'record', keys)).map((record) => (record === undefined ? undefined : decodeFact(JSON.parse(record))));
  }

  async listFacts(agentId: string, afterId: string, limit: number, order: ListOrder = 'oldest'): Promise<FactRecord[]> {
    const page = order === 'newest' ? `($2 = '' OR fact_id < $2) ORDER BY fact_id DESC` : `fact_id > $2 ORDER BY fact_id`;
    const { rows } = await this.read<{ record: string }>(`SELECT record FROM ${T}.facts WHERE agent_id = $1 AND ${page} LIMIT $3`, [bytes(agentId), afterId, limit]);
    return rows.map((r) => decodeFact(JSON.parse(r.record)));
  }

  async *scanFacts(options: { agentId?: string; withTerms?: boolean } = {}): AsyncIterable<ScannedFact> {
    // The keyword row by key for each fact of the page: a join would let the planner hash the
    // whole postings table for every page.
    const terms = options.withTerms ? `, (SELECT p.terms FROM ${T}.postings p WHERE p.agent_id = f.agent_id AND p.fact_id = f.fact_id) AS terms FROM ${T}.facts f` : ` FROM ${T}.facts f`;
    const one = options.agentId !== undefined;
    type Row = { agent_id: Buffer; fact_id: string; record: string; terms?: string | null };
    const rows = this.pages<Row>(async (last) => {
      const params: unknown[] = one ? [bytes(options.agentId!)] : [];
      const where: string[] = one ? ['f.agent_id = $1'] : [];
      if (last) {
        params.push(last.agent_id, last.fact_id);
        where.push(`(f.agent_id, f.fact_id) > ($${params.length - 1}, $${params.length})`);
      }
      const sql = `SELECT f.agent_id, f.fact_id, f.record${terms}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY f.agent_id, f.fact_id LIMIT ${PAGE}`;
      return (await this.read<Row>(sql, params)).rows;
    });
    for await (const row of rows) {
      const fact = decodeFact(JSON.parse(row.record));
      if (!options.withTerms) yield { fact };
      else yield { fact, ...(row.terms ? { terms: JSON.parse(row.terms) as StoredTerms } : {}) };
    }
  }

  async countFacts(): Promise<number> {
    return Number((await this.read<{ n: string }>(`SELECT count(*) AS n FROM ${T}.facts`)).rows[0]!.n);
  }

  /** A skip scan: one index probe per namespace. */
  async namespaces(): Promise<string[]> {
    const { rows } = await this.read<{ a: Buffer }>(
      `WITH RECURSIVE t AS ((SELECT agent_id AS a FROM ${T}.facts ORDER BY agent_id LIMIT 1) UNION ALL SELECT (SELECT agent_id FROM ${T}.facts WHERE agent_id > t.a ORDER BY agent_id LIMIT 1) FROM t WHERE t.a IS NOT NULL) SELECT a FROM t WHERE a IS NOT NULL`,
    );
    return rows.map((r) => text(r.a));
  }

  async getTerms(keys: readonly FactKey[]): Promise<(StoredTerms | undefined)[]> {
    return (await this.byFactKeys('postings', 'terms', keys)).map((terms) => (terms === undefined ? undefined : (JSON.parse(terms) as StoredTerms)));
  }

  async *scanTerms(): AsyncIterable<[FactKey, StoredTerms]> {
    type Row = { agent_id: Buffer; fact_id: string; terms: string };
    const rows = this.pages<Row>(async (last) =>
      (await this.read<Row>(`SELECT agent_id, fact_id, terms FROM ${T}.postings ${last ? 'WHERE (agent_id, fact_id) > ($1, $2)' : ''} ORDER BY agent_id, fact_id LIMIT ${PAGE}`, last ? [last.agent_id, last.fact_id] : [])).rows,
    );
    for await (const row of rows) yield [{ agentId: text(row.agent_id), factId: row.fact_id }, JSON.parse(row.terms) as StoredTerms];
  }

  async getVectors(agentId: string, vectorKeys: readonly number[]): Promise<(Float32Array | undefined)[]> {
    if (vectorKeys.length === 0) return [];
    const { rows } = await this.read<{ vector_key: string; vector: Buffer }>(`SELECT vector_key, vector FROM ${T}.vectors WHERE agent_id = $1 AND vector_key = ANY($2::bigint[])`, [bytes(agentId), vectorKeys]);
    const found = new Map(rows.map((r) => [Number(r.vector_key), toFloat32(r.vector)]));
    return vectorKeys.map((key) => found.get(key));
  }

  async *scanVectors(agentId: string): AsyncIterable<[number, Float32Array]> {
    type Row = { vector_key: string; vector: Buffer };
    const rows = this.pages<Row>(async (last) =>
      (await this.read<Row>(`SELECT vector_key, vector FROM ${T}.vectors WHERE agent_id = $1 AND vector_key > $2 ORDER BY vector_key LIMIT ${PAGE}`, [bytes(agentId), last ? last.vector_key : -1])).rows,
    );
    for await (const row of rows) yield [Number(row.vector_key), toFloat32(row.vector)];
  }

  async *scanVectorKeys(): AsyncIterable<{ agentId: string; vectorKey: number }> {
    type Row = { agent_id: Buffer; vector_key: string };
    const rows = this.pages<Row>(async (last) =>
      (await this.read<Row>(`SELECT agent_id, vector_key FROM ${T}.vectors ${last ? 'WHERE (agent_id, vector_key) > ($1, $2)' : ''} ORDER BY agent_id, vector_key LIMIT ${PAGE}`, last ? [last.agent_id, last.vector_key] : [])).rows,
    );
    for await (const row of rows) yield { agentId: text(row.agent_id), vectorKey: Number(row.vector_key) };
  }

  async requestResult(agentId: string, requestId: string): Promise<Json | undefined> {
    const { rows } = await this.read<{ result: string }>(`SELECT result FROM ${T}.requests WHERE agent_id = $1 AND request_id = $2`, [bytes(agentId), bytes(requestId)]);
    return rows[0] ? (JSON.parse(rows[0].result) as Json) : undefined;
  }

  async checkpoints(agentId: string, limit?: number): Promise<CheckpointRecord[]> {
    const { rows } = await this.read<{ record: string }>(`SELECT record FROM ${T}.checkpoints WHERE agent_id = $1 ORDER BY checkpoint_id DESC${limit === undefined ? '' : ' LIMIT $2'}`, limit === undefined ? [bytes(agentId)] : [bytes(agentId), limit]);
    return rows.map((r) => JSON.parse(r.record) as CheckpointRecord);
  }

  async checkpointIds(agentId: string): Promise<string[]> {
    const { rows } = await this.read<{ checkpoint_id: string }>(`SELECT checkpoint_id FROM ${T}.checkpoints WHERE agent_id = $1 ORDER BY checkpoint_id DESC`, [bytes(agentId)]);
    return rows.map((r) => r.checkpoint_id);
  }

  async getMeta(name: string): Promise<Json | undefined> {
    const { rows } = await this.read<{ value: string }>(`SELECT value FROM ${T}.meta WHERE name = $1`, [name]);
    return rows[0] ? (JSON.parse(rows[0].value) as Json) : undefined;
  }

  async getRecord(table: RecordTable, key: string): Promise<Json | undefined> {
    const { rows } = await this.read<{ value: string }>(`SELECT value FROM ${T}.records WHERE tbl = $1 AND key = $2`, [table, bytes(key)]);
    return rows[0] ? (JSON.parse(rows[0].value) as Json) : undefined;
  }

  async *scanRecords(table: RecordTable, options: { prefix?: string; reverse?: boolean; limit?: number } = {}): AsyncIterable<[string, Json]> {
    const prefix = bytes(options.prefix ?? '');
    const [order, past] = options.reverse ? ['DESC', '<'] : ['ASC', '>'];
    const pageSize = Math.min(PAGE, options.limit ?? PAGE);
    type Row = { key: Buffer; value: string };
    const rows = this.pages<Row>(async (last) => {
      // A small limit (the newest version of a recipe: 1) reads no more rows than it needs.
      const sql = `SELECT key, value FROM ${T}.records WHERE tbl = $1 AND substring(key from 1 for length($2::bytea)) = $2::bytea ${last ? `AND key ${past} $3` : ''} ORDER BY key ${order} LIMIT ${pageSize}`;
      return (await this.read<Row>(sql, last ? [table, prefix, last.key] : [table, prefix])).rows;
    });
    let n = 0;
    for await (const row of rows) {
      if (n++ >= (options.limit ?? Infinity)) return;
      yield [text(row.key), JSON.parse(row.value) as Json];
    }
  }

  async *scanMeta(): AsyncIterable<[string, Json]> {
    const { rows } = await this.read<{ name: string; value: string }>(`SELECT name, value FROM ${T}.meta WHERE name <> ALL($1) ORDER BY name`, [OWN_META]);
    for (const row of rows) yield [row.name, JSON.parse(row.value) as Json];
  }

  async *scanCheckpoints(): AsyncIterable<CheckpointRecord> {
    type Row = { agent_id: Buffer; checkpoint_id: string; record: string };
    const rows = this.pages<Row>(async (last) =>
      (await this.read<Row>(`SELECT agent_id, checkpoint_id, record FROM ${T}.checkpoints ${last ? 'WHERE (agent_id, checkpoint_id) > ($1, $2)' : ''} ORDER BY agent_id, checkpoint_id LIMIT ${PAGE}`, last ? [last.agent_id, last.checkpoint_id] : [])).rows,
    );
    for await (const row of rows) yield JSON.parse(row.record) as CheckpointRecord;
  }

  async *scanRequests(): AsyncIterable<{ agentId: string; requestId: string; result: Json }> {
    type Row = { agent_id: Buffer; request_id: Buffer; result: string };
    const rows = this.pages<Row>(async (last) =>
      (await this.read<Row>(`SELECT agent_id, request_id, result FROM ${T}.requests ${last ? 'WHERE (agent_id, request_id) > ($1, $2)' : ''} ORDER BY agent_id, request_id LIMIT ${PAGE}`, last ? [last.agent_id, last.request_id] : [])).rows,
    );
    for await (const row of rows) yield { agentId: text(row.agent_id), requestId: text(row.request_id), result: JSON.parse(row.result) as Json };
  }

  async *scanAccess(): AsyncIterable<[FactKey, AccessRow]> {
    type Row = { agent_id: Buffer; fact_id: string; count: string; last: string };
    const rows = this.pages<Row>(async (last) =>
      (await this.read<Row>(`SELECT agent_id, fact_id, count, last FROM ${T}.access ${last ? 'WHERE (agent_id, fact_id) > ($1, $2)' : ''} ORDER BY agent_id, fact_id LIMIT ${PAGE}`, last ? [last.agent_id, last.fact_id] : [])).rows,
    );
    for await (const row of rows) yield [{ agentId: text(row.agent_id), factId: row.fact_id }, { count: Number(row.count), last: Number(row.last) }];
  }

  /** Each daemon counts the recalls it serves; the stored total is the highest any reported. */
  async writeAccess(rows: readonly [FactKey, AccessRow][]): Promise<void> {
    if (rows.length === 0) return;
    await this.read(
      `INSERT INTO ${T}.access SELECT * FROM unnest($1::bytea[], $2::text[], $3::bigint[], $4::bigint[]) ` +
        `ON CONFLICT (agent_id, fact_id) DO UPDATE SET count = GREATEST(${T}.access.count, EXCLUDED.count), last = GREATEST(${T}.access.last, EXCLUDED.last)`,
      [rows.map(([k]) => bytes(k.agentId)), rows.map(([k]) => k.factId), rows.map(([, r]) => r.count), rows.map(([, r]) => r.last)],
    );
  }

  async *changesSince(seq: number): AsyncIterable<ChangedFact> {
    const kept = Number((await this.read<{ kept_after: string }>(`SELECT kept_after FROM ${T}.counter`)).rows[0]!.kept_after);
    this.keptAfter = kept;
    if (seq < kept) throw new Error(`changes up to ${kept} were pruned; asked for changes after ${seq}`);
    type Row = { seq: string; agent_id: Buffer; fact_id: string };
    const rows = this.pages<Row>(async (last) =>
      (
        await this.read<Row>(
          `SELECT seq, agent_id, fact_id FROM ${T}.changes WHERE ${last ? '(seq, agent_id, fact_id) > ($1, $2, $3)' : 'seq > $1'} ORDER BY seq, agent_id, fact_id LIMIT ${PAGE}`,
          last ? [last.seq, last.agent_id, last.fact_id] : [seq],
        )
      ).rows,
    );
    for await (const row of rows) {
      const changed = Number(row.seq);
      if (changed > this.knownSeq) this.knownSeq = changed;
      yield { seq: changed, agentId: text(row.agent_id), factId: row.fact_id };
    }
  }

  async pruneChanges(seq: number): Promise<void> {
    const through = Math.min(seq, this.knownSeq);
    if (through <= this.keptAfter) return;
    await this.read(`UPDATE ${T}.counter SET kept_after = GREATEST(kept_after, $1)`, [through]);
    this.keptAfter = through;
    await this.read(`DELETE FROM ${T}.changes WHERE seq <= $1`, [through]);
  }

  sizeBytes(): number {
    // Asked synchronously (status): the answer is the last measured size, refreshed behind.
    void this.read<{ n: string }>('SELECT pg_database_size(current_database()) AS n')
      .then(({ rows }) => (this.cachedBytes = Number(rows[0]!.n)))
      .catch(() => undefined);
    return this.cachedBytes;
  }

  async tableStats(): Promise<TableStats[]> {
    const out: TableStats[] = [];
    for (const name of STAT_TABLES) {
      const { rows } = await this.read<{ n: string; b: string }>(`SELECT (SELECT count(*) FROM ${T}.${name}) AS n, pg_total_relation_size('${T}.${name}') AS b`);
      out.push({ name, entries: Number(rows[0]!.n), bytes: Number(rows[0]!.b) });
    }
    return out;
  }

  /** VACUUM returns the space of deleted and rewritten rows to the tables (not to the OS). */
  async compact(): Promise<void> {
    for (const name of STAT_TABLES) await this.read(`VACUUM ${T}.${name}`);
  }

  // ------------------------------------------------------------------------------------------
  // Writes

  commit(mutation: Mutation): Promise<{ seq: number }> {
    let encoded: Encoded;
    try {
      // Encoded before anything is sent: a change that cannot be stored fails alone, at once.
      encoded = this.encode(mutation);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.committer.submit(encoded);
  }

  async drain(): Promise<void> {
    await this.committer.drain();
  }

  /** One transaction for a group of mutations: each behind a savepoint, numbered together at the
   *  end (holding the counter row from there to the commit orders every daemon's commits). */
  private async writeGroup(group: Encoded[]): Promise<Outcome<{ seq: number }>[]> {
    const failed = new Map<Encoded, unknown>();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      const refused = unreachable(this.where, error as Error, 'nothing was written');
      return group.map(() => ({ error: refused }));
    }
    let commitSent = false;
    try {
      await client.query('BEGIN');
      // Claims first, all of the group's in one statement: every transaction takes them in one
      // order, so two daemons storing the same texts in opposite orders wait, never deadlock.
      await this.claimAll(client, group, failed);
      for (const p of group) {
        if (failed.has(p)) continue;
        await client.query('SAVEPOINT m');
        try {
          for (const s of p.statements) await run(client, s);
          await client.query('RELEASE SAVEPOINT m');
        } catch (error) {
          if (isConnectionError(error)) throw error;
          await client.query('ROLLBACK TO SAVEPOINT m');
          failed.set(p, error);
        }
      }
      // The claims of what was not stored are not its to hold.
      await releaseClaims(client, group.filter((p) => failed.has(p)));
      const ok = group.filter((p) => !failed.has(p));
      const first = ok.length > 0 ? await this.numberCommits(client, ok) : 0;
      commitSent = true;
      await client.query('COMMIT');
      client.release();
      if (ok.length > 0) this.knownSeq = Math.max(this.knownSeq, first + ok.length - 1);
      for (let i = 0; i < ok.length; i++) this.own.add(first + i);
      return group.map((p) => (failed.has(p) ? { error: failed.get(p) } : { ok: { seq: first + ok.indexOf(p) } }));
    } catch (error) {
      client.release(true);
      const why = commitSent ? 'the outcome is unknown: the write may or may not be stored (ask engram write-status, or resend with the same request id)' : 'nothing was written';
      const cause = isConnectionError(error) || commitSent ? unreachable(this.where, error as Error, why) : error;
      return group.map((p) => ({ error: failed.get(p) ?? cause }));
    }
  }

  /** Takes the group's content claims; a mutation that cannot take all of its own fails alone
   *  (behind a savepoint, so a statement refused here leaves the rest of the group to go on). */
  private async claimAll(client: pg.PoolClient, group: readonly Encoded[], failed: Map<Encoded, unknown>): Promise<void> {
    const claiming = group.filter((p) => p.claims.length > 0);
    if (claiming.length === 0) return;
    await client.query('SAVEPOINT c');
    try {
      for (const p of await takeClaims(client, claiming)) failed.set(p, new ContentClaimed());
      await client.query('RELEASE SAVEPOINT c');
    } catch (error) {
      if (isConnectionError(error)) throw error;
      await client.query('ROLLBACK TO SAVEPOINT c');
      for (const p of claiming) failed.set(p, refusal(error));
    }
  }

  /** Takes the next change numbers for the mutations that were stored (the counter row, held
   *  from here to the commit, orders every daemon's commits), logs the facts each changed and
   *  wakes the followers. Returns the first number. */
  private async numberCommits(client: pg.PoolClient, ok: Encoded[]): Promise<number> {
    const greatest = ok.reduce((g, p) => (p.greatestId > g ? p.greatestId : g), '');
    const { rows } = await client.query<{ seq: string }>(`UPDATE ${T}.counter SET seq = seq + $1, id_floor = GREATEST(id_floor, $2) RETURNING seq`, [ok.length, greatest]);
    const last = Number(rows[0]!.seq);
    const first = last - ok.length + 1;
    const seqs: number[] = [];
    const agents: Buffer[] = [];
    const factIds: string[] = [];
    ok.forEach((p, i) => {
      const seen = new Set<string>();
      for (const k of p.facts) {
        const key = `${k.agentId}\u0000${k.factId}`;
        if (seen.has(key)) continue;
        seen.add(key);
        seqs.push(first + i);
        agents.push(bytes(k.agentId));
        factIds.push(k.factId);
      }
    });
    if (seqs.length > 0) await client.query(`INSERT INTO ${T}.changes SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::text[])`, [seqs, agents, factIds]);
    await client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, String(last)]);
    return first;
  }

  private encode(mutation: Mutation): Encoded {
    const statements: Statement[] = [];
    const facts: FactKey[] = [];
    const claims: Claim[] = [];
    let greatestId = '';
    for (const change of mutation) {
      statements.push(...this.statementsOf(change));
      if (change.type === 'putFact' && change.claim) claims.push({ agentId: bytes(change.fact.agentId), contentKey: change.claim, factId: change.fact.id });
      if (change.type === 'putFact' || change.type === 'deleteFact') {
        facts.push({ agentId: change.fact.agentId, factId: change.fact.id });
        if (change.fact.id > greatestId) greatestId = change.fact.id;
      }
      if (change.type === 'putCheckpoint' && change.checkpoint.id > greatestId) greatestId = change.checkpoint.id;
      if ((change.type === 'putRecord' || change.type === 'deleteRecord') && FOLLOWED_RECORD_TABLES.includes(change.table)) facts.push({ agentId: RECORDS_CHANGED, factId: change.table });
    }
    return { statements, facts, greatestId, claims };
  }

  private statementsOf(change: Change): Statement[] {
    switch (change.type) {
      case 'putFact':
        return factStatements(change);
      case 'deleteFact': {
        const { fact } = change;
        const key = [bytes(fact.agentId), fact.id];
        return [
          { sql: `DELETE FROM ${T}.facts WHERE agent_id = $1 AND fact_id = $2 AND record = $3`, params: [...key, factText(fact)], expectRows: 1 },
          { sql: `DELETE FROM ${T}.access WHERE agent_id = $1 AND fact_id = $2`, params: key },
          { sql: `DELETE FROM ${T}.postings WHERE agent_id = $1 AND fact_id = $2`, params: key },
          claimRelease(key),
          ...vectorDelete(fact.agentId, fact.vectorKey),
        ];
      }
      case 'putTerms':
        return [upsert('postings', 'agent_id, fact_id', 'terms', [bytes(change.key.agentId), change.key.factId, JSON.stringify(change.terms)])];
      case 'deleteTerms':
        return [{ sql: `DELETE FROM ${T}.postings WHERE agent_id = $1 AND fact_id = $2`, params: [bytes(change.key.agentId), change.key.factId] }];
      case 'deleteVector':
        return vectorDelete(change.agentId, change.vectorKey);
      case 'putCheckpoint': {
        const c = change.checkpoint;
        return [upsert('checkpoints', 'agent_id, checkpoint_id', 'record', [bytes(c.agentId), c.id, JSON.stringify(c)])];
      }
      case 'deleteCheckpoint':
        return [{ sql: `DELETE FROM ${T}.checkpoints WHERE agent_id = $1 AND checkpoint_id = $2`, params: [bytes(change.agentId), change.checkpointId] }];
      case 'putMeta':
        return [upsert('meta', 'name', 'value', [change.name, json(change.value)])];
      case 'deleteMeta':
        return [{ sql: `DELETE FROM ${T}.meta WHERE name = $1`, params: [change.name] }];
      case 'recordRequest': {
        const { agentId, requestId } = change;
        return [{ sql: `INSERT INTO ${T}.requests VALUES ($1, $2, $3)`, params: [bytes(agentId), bytes(requestId), json(change.result)], onDuplicate: () => new RequestAlreadyRecorded(agentId, requestId) }];
      }
      case 'forgetRequest':
        return [{ sql: `DELETE FROM ${T}.requests WHERE agent_id = $1 AND request_id = $2`, params: [bytes(change.agentId), bytes(change.requestId)] }];
      case 'putRecord':
        return [upsert('records', 'tbl, key', 'value', [change.table, bytes(change.key), json(change.value)])];
      case 'deleteRecord':
        return [{ sql: `DELETE FROM ${T}.records WHERE tbl = $1 AND key = $2`, params: [change.table, bytes(change.key)] }];
    }
  }

  async close(): Promise<string> {
    await this.drain();
    let seq = this.knownSeq;
    try {
      seq = await this.currentSeq();
    } catch {
      // The server is gone: the token says what this process last knew.
    }
    await this.pool.end().catch(() => undefined);
    return `${this.storeId}:${seq}`;
  }
}

function factStatements(change: Extract<Change, { type: 'putFact' }>): Statement[] {
  const { fact, before, derived } = change;
  const key = [bytes(fact.agentId), fact.id];
  const record = factText(fact);
  const out: Statement[] = [
    before
      ? // Only over the version this write read: another daemon's change in between is a conflict.
        { sql: `UPDATE ${T}.facts SET record = $3 WHERE agent_id = $1 AND fact_id = $2 AND record = $4`, params: [...key, record, factText(before)], expectRows: 1 }
      : upsert('facts', 'agent_id, fact_id', 'record', [...key, record]),
  ];
  if (derived === 'unchanged') return out;
  if (before && before.vectorKey && before.vectorKey !== fact.vectorKey) out.push(...vectorDelete(before.agentId, before.vectorKey));
  if (derived === null) {
    out.push({ sql: `DELETE FROM ${T}.postings WHERE agent_id = $1 AND fact_id = $2`, params: key }, ...vectorDelete(fact.agentId, fact.vectorKey));
    // A retired fact says nothing any more: its content is free to be stored again.
    if (before) out.push(claimRelease(key));
    return out;
  }
  out.push(upsert('postings', 'agent_id, fact_id', 'terms', [...key, JSON.stringify(derived.terms)]));
  if (derived.vector && fact.vectorKey) {
    const v = derived.vector;
    out.push(upsert('vectors', 'agent_id, vector_key', 'vector', [key[0], fact.vectorKey, Buffer.from(v.buffer, v.byteOffset, v.byteLength)]));
  }
  return out;
}

function upsert(table: string, keyColumns: string, valueColumn: string, params: unknown[]): Statement {
  const placeholders = params.map((_, i) => `$${i + 1}`).join(', ');
  return { sql: `INSERT INTO ${T}.${table} VALUES (${placeholders}) ON CONFLICT (${keyColumns}) DO UPDATE SET ${valueColumn} = EXCLUDED.${valueColumn}`, params };
}

const vectorDelete = (agentId: string, vectorKey: number): Statement[] =>
  vectorKey ? [{ sql: `DELETE FROM ${T}.vectors WHERE agent_id = $1 AND vector_key = $2`, params: [bytes(agentId), vectorKey] }] : [];

/** JSON text of a value; throws (before anything is sent) for what has no JSON form. */
function json(value: unknown): string {
  const out = JSON.stringify(value);
  if (out === undefined) throw new TypeError('the value has no JSON form');
  return out;
}

async function run(client: pg.PoolClient, s: Statement): Promise<void> {
  let result: pg.QueryResult;
  try {
    result = await client.query(s.sql, s.params);
  } catch (error) {
    if (s.onDuplicate && (error as { code?: string }).code === '23505') throw s.onDuplicate();
    throw refusal(error);
  }
  if (s.expectRows !== undefined && result.rowCount !== s.expectRows) throw new WriteConflict();
}

/** What a statement's refusal means to the writer. */
function refusal(error: unknown): unknown {
  const code = (error as { code?: string }).code;
  // Another daemon's transaction holds rows this one needs in another order (deadlock) or
  // changed them under it: the write plans again on what is stored.
  return code === '40P01' || code === '40001' ? new WriteConflict() : error;
}

/** The server went away or refused the session (not a statement it rejected). */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return /^(08|57P)/.test(error.code ?? '');
  const code = (error as { code?: unknown })?.code;
  // A socket error (ECONNREFUSED, ENOENT for a missing socket, …) or the driver noticing the
  // connection end.
  if (typeof code === 'string' && code.startsWith('E')) return true;
  return error instanceof Error && /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed/i.test(error.message);
}

/** `next`: what to do; a running daemon reconnects by itself, one that could not open the store
 *  at start-up has to be started again. */
function unreachable(where: string, error: Error, consequence: string, next = 'Check that the server is running; Engram reconnects by itself.'): EngramError {
  return new EngramError(ErrorKind.Unavailable, `the PostgreSQL store ${where} is unreachable (${error.message || (error as { code?: string }).code}): ${consequence}. ${next}`);
}

/** Why the store could not be opened, and what to do: a missing database or a refused login
 *  is not a server that is down. */
function openRefused(where: string, error: Error): EngramError {
  const code = (error as { code?: string }).code ?? '';
  if (code === '3D000') return new EngramError(ErrorKind.FailedPrecondition, `the PostgreSQL store ${where} names a database that does not exist (${error.message}): create it first (createdb, or CREATE DATABASE as a user who may), then try again`);
  if (code.startsWith('28')) return new EngramError(ErrorKind.FailedPrecondition, `the PostgreSQL server refused the login to ${where} (${error.message}): check the user and its password (PGPASSWORD or ~/.pgpass), then try again`);
  return unreachable(where, error, 'could not open it', 'Check that the server is running, then try again.');
}

function toFloat32(raw: Buffer): Float32Array {
  const copy = new Uint8Array(raw.byteLength);
  copy.set(raw);
  return new Float32Array(copy.buffer);
}
