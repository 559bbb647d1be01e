// Embeddings over a fact's life: a write survives a failing provider (stored keyword-only,
// pending, embedded later by the reconciler), and a model switch is completed by a resumable
// reindex. The provider is a local HTTP server speaking Ollama's real /api/embed wire format.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ENGRAM_BIN, useDaemonPool, waitFor, type DaemonProcess } from './fixtures/daemon.ts';

const DIMS = 8;
let server: Server;
let url = '';
let failing = false;
let embedCalls = 0;

/** Deterministic, text-dependent vectors: similar texts share words, so share components. */
function vectorOf(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0.01);
  for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
    let h = 2166136261;
    for (const c of word) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
    v[h % DIMS] += 1;
  }
  return v;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      embedCalls++;
      if (req.url !== '/api/embed' || req.method !== 'POST') return res.writeHead(404).end();
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      if (failing && !input.includes('dimension probe')) return res.writeHead(503).end('{"error":"model loading"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ model, embeddings: input.map(vectorOf) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs the CLI asynchronously: the fake provider lives in this process and must keep serving. */
function runCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ENGRAM_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

const pool = useDaemonPool();
const newDir = pool.newDir;
afterEach(() => {
  failing = false;
});

function startOllamaDaemon(dataDir: string): Promise<DaemonProcess> {
  return pool.start({
    dataDir,
    args: ['--embedder', 'ollama', '--embed-url', url, '--embed-model', 'fake-embed'],
    env: { ENGRAM_RECONCILE_MS: '200' },
  });
}

describe('a failing embedding provider', () => {
  test('never fails a write: the fact is stored keyword-only, pending, and embedded later', async () => {
    const daemon = await startOllamaDaemon(newDir());
    const client = await daemon.client();
    failing = true;
    const { fact } = await client.put('p', 'the orchard apples ripen in september');
    expect(fact.embedder).toBeUndefined();
    expect((await client.stats()).pendingEmbeddings).toBe(1);
    // Keyword recall works meanwhile.
    expect((await client.recall('p', 'orchard apples')).facts[0]!.id).toBe(fact.id);

    failing = false;
    await waitFor(async () => ((await client.stats()).pendingEmbeddings === 0 ? true : undefined), 20_000);
    const after = await client.get('p', fact.id);
    expect(after.embedder).toBe('ollama:fake-embed');
    const { receipts } = await client.recallExplain('p', 'orchard apples september');
    expect(receipts[0]!.ranks.vectorRank).toBe(1);
    client.close();
  });
});

describe('switching the embedding model', () => {
  test('recall runs keyword + recency and says so until engram reindex re-embeds every fact', async () => {
    const dataDir = newDir();
    const local = await pool.start({ dataDir, embedder: 'local' });
    let client = await local.client();
    for (let i = 0; i < 40; i++) await client.put('m', `harbour note ${i} about boats and tides`);
    client.close();
    await local.stop();

    const switched = await startOllamaDaemon(dataDir);
    client = await switched.client();
    const before = await client.recall('m', 'boats tides');
    expect(before.retrieval.signals).toEqual(['keyword', 'recency']);
    expect(before.retrieval.notes.join(' ')).toMatch(/engram reindex/);
    expect((await client.stats()).pendingEmbeddings).toBe(40);

    const run = await runCli(['reindex', '--data-dir', dataDir, '--json']);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ embedded: 40, already_done: 0, embedder: 'ollama:fake-embed' });
    expect(run.stderr).toMatch(/embedding with ollama:fake-embed/);

    const after = await client.recall('m', 'boats tides');
    expect(after.retrieval.signals).toEqual(['vector', 'keyword', 'recency']);
    expect(after.retrieval.embedder).toBe('ollama:fake-embed');
    expect((await client.stats()).pendingEmbeddings).toBe(0);
    client.close();

    // The switch is durable: a restart serves the new model's vectors with no re-embedding.
    await switched.stop();
    const calls = embedCalls;
    const again = await startOllamaDaemon(dataDir);
    client = await again.client();
    expect((await client.recall('m', 'boats tides')).retrieval.signals).toContain('vector');
    expect(embedCalls - calls).toBeLessThanOrEqual(2); // the dimension probe and the query, nothing per fact
    client.close();
  });

  test('an interrupted reindex resumes: facts already done are skipped', async () => {
    const dataDir = newDir();
    const local = await pool.start({ dataDir, embedder: 'local' });
    let client = await local.client();
    for (let i = 0; i < 300; i++) await client.put('r', `ledger line ${i} on invoices`);
    client.close();
    await local.stop();

    const first = await startOllamaDaemon(dataDir);
    // Interrupt the first run by killing the daemon once some facts are re-embedded.
    const interrupted = runCli(['reindex', '--data-dir', dataDir]);
    client = await first.client();
    await waitFor(async () => ((await client.stats()).pendingEmbeddings < 300 ? true : undefined), 30_000);
    await first.kill9();
    expect((await interrupted).status).not.toBe(0);
    client.close();

    const second = await startOllamaDaemon(dataDir);
    expect(second.log()).toMatch(/reindex to ollama:fake-embed was interrupted/);
    const run = await runCli(['reindex', '--data-dir', dataDir, '--json']);
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { embedded: number; already_done: number };
    expect(report.already_done).toBeGreaterThan(0);
    expect(report.embedded + report.already_done).toBe(300);
    client = await second.client();
    expect((await client.stats()).pendingEmbeddings).toBe(0);
    client.close();
  });
});
