// `engram status` says the daemon is up whenever it answers: with its PostgreSQL server down (the
// store's state and the reason shown, exit 3, not "not running" with exit 1; over REST /healthz
// stays 200 and /readyz answers 503), and for a caller holding an agent token (what the token may
// see, the whole store's counts left out with why).
import { afterAll, describe, expect, test } from 'vitest';
import { runEngram } from './fixtures/cli.ts';
import { useDaemonPool } from './fixtures/daemon.ts';
import { startPostgres, type PostgresServer } from './fixtures/postgres.ts';

const pool = useDaemonPool();

describe('engram status with the PostgreSQL server down', () => {
  let server: PostgresServer | undefined;
  afterAll(() => server?.destroy());

  test('the daemon is running (pid, address), its store unreachable with the reason, exit 3, /readyz 503 and /healthz 200; once the server is back, exit 0 and /readyz 200', async () => {
    server = await startPostgres();
    const url = await server.createDatabase('status');
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--store', url, '--http', '127.0.0.1:0'] });
    const status = (...args: string[]) => runEngram(['status', ...args], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    const get = async (path: string) => {
      const res = await fetch(`http://${daemon.discovery.httpAddress}${path}`);
      return { status: res.status, json: await res.json() };
    };
    expect(await get('/readyz')).toEqual({ status: 200, json: { status: 'ready', store: 'reachable' } });
    server.stop();

    expect(await get('/healthz')).toEqual({ status: 200, json: { status: 'ok' } });
    expect(await get('/readyz')).toEqual({ status: 503, json: { status: 'unready', store: 'unreachable' } });

    const json = await status('--json');
    expect(json.code, json.stderr).toBe(3);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({ running: true, pid: daemon.child.pid, address: daemon.discovery.address, store_reachable: false, store: null, counts_not_shown: 'the daemon cannot reach its store' });
    expect(out.daemon).toMatchObject({ store: 'postgres' });
    expect(out.store_error).toMatch(/PostgreSQL store .* is unreachable/);
    const text = await status();
    expect(text.code, text.stderr).toBe(3);
    expect(text.stdout).toContain(`pid ${daemon.child.pid}`);
    expect(text.stdout).toMatch(/^store {5}UNREACHABLE: the PostgreSQL store .* is unreachable/m);

    server.start();
    const back = await status('--json');
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ running: true, store_reachable: true, store_error: null, store: { fact_count: 0 } });
    expect(await get('/readyz')).toEqual({ status: 200, json: { status: 'ready', store: 'reachable' } });
  }, 120_000);
});

describe('engram status with an agent token', () => {
  test('shows the daemon, version and capabilities, and the counts of the namespaces the token may read instead of the whole store', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const admin = await daemon.client();
    await admin.put('libtest', 'the library test keeps one fact');
    await admin.put('other', 'another namespace the token may not read');
    const { token } = await admin.createToken({ agents: ['libtest'], rights: ['read'] });
    admin.close();
    const status = (...args: string[]) => runEngram(['status', ...args], { dataDir: daemon.dataDir, cwd: daemon.dataDir, env: { ENGRAM_TOKEN: token } });

    const json = await status('--json');
    expect(json.code, json.stderr).toBe(0);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({ running: true, pid: daemon.child.pid, store_reachable: true, store: null, counts_not_shown: 'this token may read only some namespaces: libtest' });
    expect(out.daemon.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(out.daemon.capabilities).toContain('agent-tokens-v1');
    expect(out.namespaces).toMatchObject([{ agent_id: 'libtest', live_count: 1 }]);
    const text = await status();
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^daemon {4}engram \d+\.\d+\.\d+/m);
    expect(text.stdout).toContain('counts    not shown (this token may read only some namespaces: libtest)');
    expect(text.stdout).toMatch(/^namespace libtest\n {2}facts {5}1 \(1 live/m);
    expect(text.stdout).not.toContain('other');
  });

  test('a token that may read no namespace is not told the store holds no facts', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const admin = await daemon.client();
    await admin.put('alice', 'alice already has a fact');
    const { token } = await admin.createToken({ agents: ['alice'], rights: ['write'] });
    admin.close();
    const run = (...args: string[]) => runEngram(args, { dataDir: daemon.dataDir, cwd: daemon.dataDir, env: { ENGRAM_TOKEN: token } });
    const status = JSON.parse((await run('status', '--json')).stdout);
    expect(status.counts_not_shown).toBe('this token reads no namespace that holds facts: it may read none (a token without the read right), or those it may read are empty');
    const agents = await run('agents');
    expect(agents.code, agents.stderr).toBe(0);
    expect(agents.stdout).toBe('No namespace this token may read holds facts (a token without the read right reads none).\n');
  });
});
