// Two `engram start` at once in a data directory that does not exist yet: one makes it, the other
// finds it made. A start that fails removes a directory it made (test/start-failures.test.ts), but
// never while another start, or its daemon, uses it. Real parts: the built `engram` command,
// detached daemons, a temp dir, and a local server speaking Ollama's /api/embed that holds the
// second daemon's dimension probe, so that daemon is inside the directory (its store open, its
// lock held) and not yet serving when the first start gives up.
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { runEngram } from './fixtures/cli.ts';
import { waitFor } from './fixtures/daemon.ts';

const work = mkdtempSync(join(tmpdir(), 'engram-start-race-'));
const run = (args: string[], dir: string) => runEngram(['--data-dir', dir, ...args], { dataDir: null, cwd: work, timeoutMs: 120_000 });

/** Ollama's embed endpoint, answering nothing until `release()`. */
function heldEmbedder() {
  let held = 0;
  let open = false;
  const answer = (res: ServerResponse, body: string) => {
    const { input } = JSON.parse(body) as { input: string[] };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ embeddings: input.map(() => [1, 0.5, 0.25, 0.125]) }));
  };
  const pending: (() => void)[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (open) return answer(res, body);
      held++;
      pending.push(() => answer(res, body));
    });
  });
  return {
    listen: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    held: () => held,
    release() {
      open = true;
      pending.splice(0).forEach((go) => go());
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const embedder = heldEmbedder();
const busy = createServer();
const started: string[] = [];
afterAll(async () => {
  embedder.release();
  for (const dir of started) await run(['stop'], dir);
  await embedder.close();
  busy.close();
  rmSync(work, { recursive: true, force: true });
});

test('a start that made the directory and fails leaves it to the start beside it, whose daemon is still starting there', { timeout: 180_000 }, async () => {
  const url = await embedder.listen();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const port = (busy.address() as AddressInfo).port;
  const dataDir = join(work, 'fresh', 'data');
  started.push(dataDir);

  // The first start makes the directory; its daemon waits (before anything else) until the gate
  // file exists, then cannot serve HTTP on a busy port (exit 1), and the start waits a few seconds
  // for a winner before it gives up. (No spaces in the hook: NODE_OPTIONS is split on them.)
  const gate = join(work, 'gate');
  const held = `--import=data:text/javascript,import{existsSync}from'node:fs';if(process.argv[2]==='daemon')while(!existsSync('${gate}'))await(new(Promise)((r)=>setTimeout(r,50)));`;
  const failing = runEngram(['--data-dir', dataDir, 'start', '--embedder', 'none', '--http', `127.0.0.1:${port}`], { dataDir: null, cwd: work, timeoutMs: 120_000, env: { NODE_OPTIONS: held } });
  await waitFor(async () => (existsSync(dataDir) ? true : undefined), 30_000);
  // The second finds it made; its daemon takes the store and waits for its embedder's probe.
  const winning = run(['start', '--embedder', 'ollama', '--embed-url', url, '--embed-model', 'held'], dataDir);
  await waitFor(async () => (embedder.held() > 0 ? true : undefined), 60_000);
  writeFileSync(gate, '');

  const failed = await failing;
  expect(failed.code, failed.stderr).toBe(1);
  expect(failed.stderr).toContain(`cannot serve HTTP on 127.0.0.1:${port}`);
  expect(failed.stderr).toContain(`(its log: ${join(dataDir, 'daemon.log')})`);
  expect(existsSync(join(dataDir, 'store'))).toBe(true);

  embedder.release();
  const won = await winning;
  expect(won.code, won.stderr).toBe(0);
  // The daemon serves from the directory as it is on disk: a fact written now is there after a restart.
  const remembered = await run(['remember', 'alice', 'Written beside a failed start', '--json'], dataDir);
  expect(remembered.code, remembered.stderr).toBe(0);
  const { fact } = JSON.parse(remembered.stdout) as { fact: { id: string } };
  expect((await run(['restart'], dataDir)).code).toBe(0);
  const got = await run(['get', 'alice', fact.id, '--json'], dataDir);
  expect(got.code, got.stderr).toBe(0);
  expect(JSON.parse(got.stdout).fact.text).toBe('Written beside a failed start');
});
