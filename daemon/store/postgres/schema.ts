// The PostgreSQL layout: one schema, one table per kind of row. Names, request ids and record
// keys are bytea (UTF-8), so they may hold any character (NUL too, which text refuses) and sort
// by code point as LevelDB's keys do; JSON values are text for the same reason (jsonb refuses
// \u0000). One counter row numbers commits: taking it is the last statement of a transaction,
// so commits are numbered in the order they become visible and a follower never skips one.
import type pg from 'pg';
import { StoreFormatError } from '../store.ts';

export const SCHEMA = 'engram';
/** The layout this version writes; a database of a higher format is refused whole. */
export const PG_STORE_FORMAT = 1;
/** Commits wake followers on this channel (the payload is the commit's last change number). */
export const CHANGES_CHANNEL = 'engram_changes';

const TABLES = `
CREATE TABLE IF NOT EXISTS ${SCHEMA}.meta (name text COLLATE "C" PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.facts (agent_id bytea NOT NULL, fact_id text COLLATE "C" NOT NULL, record text NOT NULL, PRIMARY KEY (agent_id, fact_id));
CREATE TABLE IF NOT EXISTS ${SCHEMA}.postings (agent_id bytea NOT NULL, fact_id text COLLATE "C" NOT NULL, terms text NOT NULL, PRIMARY KEY (agent_id, fact_id));
CREATE TABLE IF NOT EXISTS ${SCHEMA}.vectors (agent_id bytea NOT NULL, vector_key bigint NOT NULL, vector bytea NOT NULL, PRIMARY KEY (agent_id, vector_key));
CREATE TABLE IF NOT EXISTS ${SCHEMA}.checkpoints (agent_id bytea NOT NULL, checkpoint_id text COLLATE "C" NOT NULL, record text NOT NULL, PRIMARY KEY (agent_id, checkpoint_id));
CREATE TABLE IF NOT EXISTS ${SCHEMA}.requests (agent_id bytea NOT NULL, request_id bytea NOT NULL, result text NOT NULL, PRIMARY KEY (agent_id, request_id));
CREATE TABLE IF NOT EXISTS ${SCHEMA}.records (tbl text COLLATE "C" NOT NULL, key bytea NOT NULL, value text NOT NULL, PRIMARY KEY (tbl, key));
CREATE TABLE IF NOT EXISTS ${SCHEMA}.claims (agent_id bytea NOT NULL, content_key text COLLATE "C" NOT NULL, fact_id text COLLATE "C" NOT NULL, PRIMARY KEY (agent_id, content_key));
CREATE INDEX IF NOT EXISTS claims_by_fact ON ${SCHEMA}.claims (agent_id, fact_id);
CREATE TABLE IF NOT EXISTS ${SCHEMA}.access (agent_id bytea NOT NULL, fact_id text COLLATE "C" NOT NULL, count bigint NOT NULL, last bigint NOT NULL, PRIMARY KEY (agent_id, fact_id));
CREATE TABLE IF NOT EXISTS ${SCHEMA}.changes (seq bigint NOT NULL, agent_id bytea NOT NULL, fact_id text COLLATE "C" NOT NULL, PRIMARY KEY (seq, agent_id, fact_id));
CREATE TABLE IF NOT EXISTS ${SCHEMA}.counter (one int PRIMARY KEY CHECK (one = 1), seq bigint NOT NULL, kept_after bigint NOT NULL, id_floor text COLLATE "C" NOT NULL);
INSERT INTO ${SCHEMA}.counter VALUES (1, 0, 0, '') ON CONFLICT DO NOTHING;
CREATE SEQUENCE IF NOT EXISTS ${SCHEMA}.nodes;
`;

/** The tables statistics and compaction cover, by the names the LevelDB store uses. */
export const STAT_TABLES = ['facts', 'postings', 'vectors', 'checkpoints', 'requests', 'records', 'access', 'changes', 'meta', 'claims'] as const;

/** Creates the layout if absent (under an advisory lock: daemons may start together), checks its
 *  format, and returns the store's identity. */
export async function prepareSchema(client: pg.PoolClient, where: string): Promise<string> {
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [`${SCHEMA}.schema`]);
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
    await client.query(TABLES);
    const format = await client.query<{ value: string }>(`SELECT value FROM ${SCHEMA}.meta WHERE name = 'format'`);
    const found = format.rows[0] ? (JSON.parse(format.rows[0].value) as { version: number }).version : 0;
    if (found > PG_STORE_FORMAT) throw new StoreFormatError(where, found, PG_STORE_FORMAT);
    if (found < PG_STORE_FORMAT) await client.query(`INSERT INTO ${SCHEMA}.meta VALUES ('format', $1) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, [JSON.stringify({ version: PG_STORE_FORMAT })]);
    await client.query(`INSERT INTO ${SCHEMA}.meta VALUES ('store_id', $1) ON CONFLICT DO NOTHING`, [JSON.stringify({ id: crypto.randomUUID() })]);
    const id = await client.query<{ value: string }>(`SELECT value FROM ${SCHEMA}.meta WHERE name = 'store_id'`);
    return (JSON.parse(id.rows[0]!.value) as { id: string }).id;
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`${SCHEMA}.schema`]);
  }
}
