// Content claims: write dedup across daemons. Each daemon finds "a live fact already says this"
// in its own index, which cannot see a fact another daemon is storing at the same moment. So a
// new fact written under dedup also claims its content key in a table whose primary key allows
// one claimant per content of a namespace: of two daemons storing the same text at once, the
// second's commit finds the first's claim, and that write plans again and finds the first fact.
// A fact's claim goes when it is retired or erased, so its words can be stored again.
import type pg from 'pg';
import { SCHEMA } from './schema.ts';

const T = SCHEMA;

export interface Claim {
  agentId: Buffer;
  contentKey: string;
  factId: string;
}

const keyOf = (agentId: Buffer, contentKey: string): string => `${agentId.toString('hex')}\u0000${contentKey}`;

/** The claims as three parallel arrays, for unnest(). */
const columns = (claims: readonly Claim[]): [Buffer[], string[], string[]] => [claims.map((c) => c.agentId), claims.map((c) => c.contentKey), claims.map((c) => c.factId)];

const VALUES = 'unnest($1::bytea[], $2::text[], $3::text[]) AS v(agent_id, content_key, fact_id)';

/** Takes the claims of every mutation of a transaction, in one statement and in key order (so
 *  transactions that want the same claims wait on each other in one order and never deadlock).
 *  A claim held already passes to the new fact if its fact is no longer live (erased, or
 *  retired by a daemon of a version that kept no claims); a live one holds it. Returns the
 *  mutations that could not take all of theirs. */
export async function takeClaims<M extends { claims: readonly Claim[] }>(client: pg.PoolClient, mutations: readonly M[]): Promise<M[]> {
  const wanted = mutations.flatMap((m) => m.claims);
  if (wanted.length === 0) return [];
  const inserted = await client.query<{ agent_id: Buffer; content_key: string }>(
    `INSERT INTO ${T}.claims SELECT * FROM ${VALUES} ORDER BY agent_id, content_key ON CONFLICT DO NOTHING RETURNING agent_id, content_key`,
    columns(wanted),
  );
  const taken = new Set(inserted.rows.map((r) => keyOf(r.agent_id, r.content_key)));
  const held = wanted.filter((c) => !taken.has(keyOf(c.agentId, c.contentKey)));
  if (held.length > 0) {
    // A statement of its own sees the claimants' commits (the insert waited for them).
    const passed = await client.query<{ agent_id: Buffer; content_key: string }>(
      `UPDATE ${T}.claims AS c SET fact_id = v.fact_id FROM ${VALUES} WHERE c.agent_id = v.agent_id AND c.content_key = v.content_key ` +
        `AND NOT EXISTS (SELECT 1 FROM ${T}.facts f WHERE f.agent_id = c.agent_id AND f.fact_id = c.fact_id AND f.record::json ->> 'supersededBy' = '') RETURNING c.agent_id, c.content_key`,
      columns(held),
    );
    for (const r of passed.rows) taken.add(keyOf(r.agent_id, r.content_key));
  }
  return mutations.filter((m) => m.claims.some((c) => !taken.has(keyOf(c.agentId, c.contentKey))));
}

/** Gives back the claims these mutations took (they were not stored after all). */
export async function releaseClaims(client: pg.PoolClient, mutations: readonly { claims: readonly Claim[] }[]): Promise<void> {
  const claims = mutations.flatMap((m) => m.claims);
  if (claims.length === 0) return;
  await client.query(`DELETE FROM ${T}.claims AS c USING ${VALUES} WHERE c.agent_id = v.agent_id AND c.content_key = v.content_key AND c.fact_id = v.fact_id`, columns(claims));
}

/** Drops the claim of a fact that is retired or erased. */
export const claimRelease = (key: unknown[]): { sql: string; params: unknown[] } => ({ sql: `DELETE FROM ${T}.claims WHERE agent_id = $1 AND fact_id = $2`, params: key });
