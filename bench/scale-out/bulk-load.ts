// The bench's own loader for the join measurement: a million facts written straight into the
// PostgreSQL layout (rows as the store writes them: records, keyword rows, 100-d unit vectors),
// many rows per statement, since a million single writes through a daemon would take the bench
// longer than the measurement it is for.
import pg from 'pg';
import { IdGenerator } from '../../daemon/store/ids.ts';
import { decodeFact } from '../../daemon/store/record.ts';
import { termsOf, toStoredTerms } from '../../daemon/index/derive.ts';
import { TOKENIZER_ID } from '../../daemon/index/tokenizer.ts';
import { PostgresStore } from '../../daemon/store/postgres/postgres-store.ts';
import { generateFacts, prng } from '../corpus.ts';

const BATCH = 5000;
const NAMESPACES = 100;
const DIMENSIONS = 100;
const EMBEDDER = 'local:wink-sg-100d-sif-v1';

export async function bulkLoad(url: string, count: number, progress: (done: number) => void): Promise<void> {
  // The layout (and the store's bookkeeping) as a daemon would create it.
  await (await PostgresStore.open(url)).close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const texts = generateFacts(20_000, 11);
    const ids = new IdGenerator();
    const random = prng(5);
    let vectorKey = 0;
    for (let done = 0; done < count; ) {
      const n = Math.min(BATCH, count - done);
      const agents: Buffer[] = [];
      const factIds: string[] = [];
      const records: string[] = [];
      const terms: string[] = [];
      const vectorKeys: number[] = [];
      const vectors: Buffer[] = [];
      for (let i = 0; i < n; i++) {
        const { id, time } = ids.next(1_700_000_000_000 + done + i);
        const agentId = `ns-${(done + i) % NAMESPACES}`;
        const key = ++vectorKey;
        const fact = decodeFact({ id, agentId, text: `${texts[(done + i) % texts.length]} (${done + i})`, createdAt: time, updatedAt: time, embedder: EMBEDDER, vectorKey: key });
        agents.push(Buffer.from(agentId));
        factIds.push(id);
        records.push(JSON.stringify(fact));
        terms.push(JSON.stringify(toStoredTerms(termsOf(fact))));
        vectorKeys.push(key);
        const v = Float32Array.from({ length: DIMENSIONS }, () => random() - 0.5);
        const norm = Math.hypot(...v);
        vectors.push(Buffer.from(v.map((x) => x / norm).buffer));
      }
      await client.query('INSERT INTO engram.facts SELECT * FROM unnest($1::bytea[], $2::text[], $3::text[])', [agents, factIds, records]);
      await client.query('INSERT INTO engram.postings SELECT * FROM unnest($1::bytea[], $2::text[], $3::text[])', [agents, factIds, terms]);
      await client.query('INSERT INTO engram.vectors SELECT * FROM unnest($1::bytea[], $2::bigint[], $3::bytea[])', [agents, vectorKeys, vectors]);
      done += n;
      if (done % 100_000 < BATCH || done === count) progress(done);
    }
    await client.query("UPDATE engram.counter SET seq = 1, id_floor = $1", [ids.greatest]);
    for (const [name, value] of [['embedder', { id: EMBEDDER, dimensions: DIMENSIONS }], ['tokenizer', { id: TOKENIZER_ID }]] as const) {
      await client.query('INSERT INTO engram.meta VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value', [name, JSON.stringify(value)]);
    }
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}
