// Answers as large as the daemon's limits allow reach the caller: 600 facts of 9.8 KB each (well
// within the 32 KiB text limit) are about 6 MB in one recall at top_k 1,000 and an export — past
// grpc-js's 4 MiB default, which once made them fail with RESOURCE_EXHAUSTED — and a list page is
// sized by bytes as well as by count.
import { describe, expect, test } from 'vitest';
import { runEngram } from './fixtures/cli.ts';
import { useDaemonPool } from './fixtures/daemon.ts';

const pool = useDaemonPool();

describe('large answers', () => {
  test('a 1,000-fact page, a recall at top_k 1,000 and an export of 6 MB of facts all arrive', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client();
    const texts = Array.from({ length: 600 }, (_, i) => `alpha note ${i} ${'lorem ipsum dolor sit amet '.repeat(360)}`.slice(0, 9800));
    const results = await client.putBatch(texts.map((text) => ({ agentId: 'big', text })));
    expect(results.every((r) => !r.error)).toBe(true);

    // A page is sized by bytes too: 6 MB of facts come in two pages of at most 4 MiB.
    const page = await client.list('big', { pageSize: 1000 });
    expect(page.facts.length).toBeGreaterThan(300);
    expect(page.facts.length).toBeLessThan(600);
    expect(page.facts.reduce((n, f) => n + f.text.length, 0)).toBeLessThanOrEqual(4 * 1024 * 1024);
    const rest = await client.list('big', { pageSize: 1000, pageToken: page.nextPageToken });
    expect(page.facts.length + rest.facts.length).toBe(600);
    expect(rest.nextPageToken).toBe('');
    expect((await client.recall('big', 'alpha note', { topK: 1000 })).facts).toHaveLength(600);
    const exported = await runEngram(['export', 'big'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout.trim().split('\n')).toHaveLength(600);
    const listed = await runEngram(['list', 'big', '--limit', '1000'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(listed.code, listed.stderr).toBe(0);
  });

  test('one batch recall is bounded: queries × top_k and the queries\' bytes have a budget, refused by the library, REST and the daemon alike', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0'] });
    const client = await daemon.client();
    await client.put('big', 'alpha note about the harbour');
    expect(client.daemon.limits).toMatchObject({ maxBatchResults: 16_384, maxBatchQueryBytes: 262_144 });
    const many = Array.from({ length: 64 }, (_, i) => `alpha query ${i}`);
    await expect(client.batchRecall('big', many, { topK: 1000 })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'queries', message: expect.stringContaining('at most 16384') });
    const long = Array.from({ length: 64 }, (_, i) => `alpha ${i} ${'harbour '.repeat(4000)}`.slice(0, 30_000));
    await expect(client.batchRecall('big', long)).rejects.toMatchObject({ kind: 'invalid_argument', field: 'queries' });
    expect((await client.batchRecall('big', many, { topK: 256 })).results).toHaveLength(64);

    // The daemon enforces it for callers that do not check first.
    const rest = await fetch(`http://${daemon.discovery.httpAddress}/v1/recall/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.discovery.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: 'big', queries: many, top_k: 1000 }),
    });
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { error: { field: string } }).error.field).toBe('queries');
    client.close();
  });
});
