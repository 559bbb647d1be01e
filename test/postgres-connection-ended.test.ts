// A PostgreSQL server ends a connection (a shutdown, an administrator's pg_terminate_backend) by
// sending it FATAL 57P01, which pg emits as an 'error' event on the client. On a connection the
// store holds for a write, between two of its queries, nobody else listens for it: the process
// must hear it as that write's failure, not die of an unheard 'error' event.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { PostgresStore } from '../daemon/store/postgres/postgres-store.ts';
import { testDatabase } from './fixtures/postgres.ts';

const unheard: unknown[] = [];
const hear = (error: unknown) => unheard.push(error);

afterEach(() => {
  process.off('uncaughtException', hear);
});

describe('a PostgreSQL connection the server ends', () => {
  test('while the store holds it for a write: the next query on it fails, the process goes on, the store still serves', async () => {
    const url = await testDatabase(`ended_${randomUUID().replace(/-/g, '').slice(0, 16)}`);
    const store = await PostgresStore.open(url);
    // The pool is the store's own: a write checks a client out of it and holds it across queries.
    const held = await (store as unknown as { pool: pg.Pool }).pool.connect();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      process.on('uncaughtException', hear);
      const pid = (await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      // The FATAL notice arrives while no query runs on the held client.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(unheard).toEqual([]);
      await expect(held.query('SELECT 1')).rejects.toThrow();
      held.release(true);
      expect(await store.currentSeq()).toBeGreaterThanOrEqual(0);
    } finally {
      await admin.end();
      await store.close();
    }
  });
});
