// Default recall weights belong to the embedder: the offline word vectors are a light signal
// beside BM25, a sentence model a full one. The effective defaults are advertised at handshake,
// applied to every recall that does not set its own, and shown by `engram status`.
import { execFile } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { runEngram } from './fixtures/cli.ts';
import { ENGRAM_BIN, useDaemon, useDaemonPool } from './fixtures/daemon.ts';

const pool = useDaemonPool();
// A daemon of each embedder with its default weights, shared by the tests that only read them
// (and write to namespaces of their own).
const local = useDaemon({ embedder: 'local' });
const none = useDaemon({ embedder: 'none' });

describe('default signal weights', () => {
  test('each embedder brings its own: local weights vectors lightly, none not at all', async () => {
    const { client } = local;
    expect(client.daemon.defaultWeights).toEqual({ vector: 0.2, keyword: 1, recency: 0.5, decay: 0, graph: 0 });
    await client.put('w', 'The boiler service code is 4471');
    const { retrieval } = await client.recall('w', 'boiler code');
    expect(retrieval.weights).toEqual({ vector: 0.2, keyword: 1, recency: 0.5, decay: 0, graph: 0 });

    const noVectors = none.client;
    expect(noVectors.daemon.defaultWeights).toEqual({ vector: 0, keyword: 1, recency: 0.5, decay: 0, graph: 0 });
  });

  test('--signal-weights overrides the embedder, and per-call weights override both', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), embedder: 'local', args: ['--signal-weights', '1,1,0.25'] });
    const client = await daemon.client();
    expect(client.daemon.defaultWeights).toEqual({ vector: 1, keyword: 1, recency: 0.25, decay: 0, graph: 0 });
    await client.put('w', 'Deploys happen on Tuesdays');
    expect((await client.recall('w', 'deploys')).retrieval.weights).toEqual({ vector: 1, keyword: 1, recency: 0.25, decay: 0, graph: 0 });
    expect((await client.recall('w', 'deploys', { weights: { vector: 0.5 } })).retrieval.weights).toEqual({ vector: 0.5, keyword: 1, recency: 0.25, decay: 0, graph: 0 });
    client.close();
  });

  test('a store whose embedder changes takes the new embedder\'s defaults', async () => {
    const dataDir = pool.newDir();
    const first = await pool.start({ dataDir, embedder: 'local' });
    const before = await first.client();
    await before.put('w', 'The staging database runs Postgres 16');
    before.close();
    await first.stop();
    const second = await pool.start({ dataDir, embedder: 'none' });
    const after = await second.client();
    expect(after.daemon.defaultWeights).toEqual({ vector: 0, keyword: 1, recency: 0.5, decay: 0, graph: 0 });
    expect((await after.recall('w', 'staging database')).retrieval.weights).toEqual({ vector: 0, keyword: 1, recency: 0.5, decay: 0, graph: 0 });
    after.close();
  });

  test('--compat v0.2 ranks with the weights of release 0.2.0 and does not advertise them', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), embedder: 'local', args: ['--compat', 'v0.2'] });
    const client = await daemon.client();
    expect(client.daemon.capabilities).not.toContain('embedder-weights-v1');
    expect(client.daemon.defaultWeights).toBeUndefined();
    await client.put('w', 'Deploys happen on Tuesdays');
    expect((await client.recall('w', 'deploys')).retrieval.weights).toEqual({ vector: 1, keyword: 1, recency: 0.5, decay: 0, graph: 0 });
    client.close();
  });

  test('engram status shows the recall defaults, in text and JSON', async () => {
    const { daemon } = local;
    const [text, json] = await Promise.all([
      runEngram(['status'], { dataDir: daemon.dataDir, cwd: daemon.dataDir, timeoutMs: 30_000 }),
      runEngram(['status', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir, timeoutMs: 30_000 }),
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^weights {3}v=0\.2 kw=1 rec=0\.5 \(recall defaults\)$/m);
    expect(JSON.parse(json.stdout).daemon.default_signal_weights).toEqual({ vector: 0.2, keyword: 1, recency: 0.5, decay: 0, graph: 0 });
  });
});

describe('--signal-weights and ENGRAM_SIGNAL_WEIGHTS take plain decimal numbers', () => {
  /** `engram daemon` with these flags; a value it accepted would serve until the timeout kills it. */
  const daemonRun = (dataDir: string, args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [ENGRAM_BIN, 'daemon', '--data-dir', dataDir, '--embedder', 'none', ...args], { env: { ...process.env, ...env }, timeout: 20_000 }, (error, _stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
      );
    });

  test.each([
    ['an empty item', '1,,1', 'keyword', ''],
    ['a hex item', '0x10,1,1', 'vector', '0x10'],
    ['an empty last item', '1,1,', 'recency', ''],
    ['an overflow', '1,1,1e400', 'recency', '1e400'],
  ])('%s stops start-up with exit 2 naming the flag and the item', async (_name, weights, signal, item) => {
    const [flag, variable] = await Promise.all([daemonRun(pool.newDir(), ['--signal-weights', weights]), daemonRun(pool.newDir(), [], { ENGRAM_SIGNAL_WEIGHTS: weights })]);
    expect(flag.code, flag.stderr).toBe(2);
    expect(flag.stderr).toContain(`--signal-weights: ${signal}: must be a number, got "${item}" (in "${weights}")`);
    expect(variable.code, variable.stderr).toBe(2);
    expect(variable.stderr).toContain("from env 'ENGRAM_SIGNAL_WEIGHTS'");
    expect(variable.stderr).toContain(`--signal-weights: ${signal}: must be a number, got "${item}"`);
  });

  test('engram start --signal-weights 1,,1 starts nothing and says why', async () => {
    const dataDir = pool.newDir();
    try {
      const run = await runEngram(['start', '--embedder', 'none', '--signal-weights', '1,,1'], { dataDir, cwd: dataDir, timeoutMs: 30_000 });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('--signal-weights: keyword: must be a number, got "" (in "1,,1")');
    } finally {
      await runEngram(['stop'], { dataDir, cwd: dataDir, timeoutMs: 30_000 }); // should one have started
    }
  });

  test('the decimal forms accepted before still are: spaces, .5, 1e-3', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--signal-weights', ' 1, .5 ,1e-3'] });
    const client = await daemon.client();
    expect(client.daemon.defaultWeights).toEqual({ vector: 1, keyword: 0.5, recency: 0.001, decay: 0, graph: 0 });
    client.close();
  });
});
