// `engram mcp` (stdio) with the SDK's own Client: the whole wire contract against a real
// `engram mcp` process in front of a real daemon, then the start-up behaviour: no daemon → it
// starts one and says so on stderr; a second `engram mcp` shares that daemon; after the daemon is
// killed it starts a new one (and the CLI says at once that none runs).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { processAlive as isAlive, type Discovery } from '../shared/discovery.ts';
import { runEngram } from './fixtures/cli.ts';
import { removeDir, startDaemon, tempDataDir, useDaemon, waitFor } from './fixtures/daemon.ts';
import { openStdio } from './fixtures/mcp.ts';
import { describeMcpContract } from './fixtures/mcp-contract.ts';

describeMcpContract('stdio (engram mcp)', async () => {
  const daemon = await startDaemon();
  const session = await openStdio(['--data-dir', daemon.dataDir]);
  return { session, daemon };
});

describe('engram mcp start-up', () => {
  // The daemon of the tests that start none themselves: each uses a namespace of its own.
  const serving = useDaemon();
  const dirs: string[] = [];
  const pids: number[] = [];
  afterAll(async () => {
    // Stop the daemons these tests made engram mcp start (by pid, from their discovery files).
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    for (const pid of pids) await waitFor(async () => (isAlive(pid) ? undefined : true), 30_000);
    dirs.forEach(removeDir);
  });

  test('with no daemon serving the data dir it starts one, says so on stderr, and a second engram mcp shares it', async () => {
    // A data dir that does not exist yet: engram mcp must create it for the daemon it starts.
    const root = tempDataDir('engram-mcp-autostart-');
    dirs.push(root);
    const dataDir = join(root, 'data');
    const first = await openStdio(['--data-dir', dataDir], { ENGRAM_EMBEDDER: 'none' });
    const discovery = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as Discovery;
    pids.push(discovery.pid);
    expect(first.stderr()).toMatch(new RegExp(`no daemon was serving ${escape(dataDir)}; started one \\(pid ${discovery.pid}`));
    expect(existsSync(join(dataDir, 'daemon.log'))).toBe(true);
    await first.ok('memory_add', { agent_id: 'agent-a', text: 'Started on demand by engram mcp' });

    const second = await openStdio(['--data-dir', dataDir], { ENGRAM_EMBEDDER: 'none' });
    expect(second.stderr()).not.toMatch(/started one/);
    expect((await second.ok('memory_search', { agent_id: 'agent-a', query: 'started on demand' })).facts).toEqual(['Started on demand by engram mcp']);
    await Promise.all([first.close(), second.close()]);
    // The daemon outlives its MCP sessions: it is shared, not owned.
    expect(isAlive(discovery.pid)).toBe(true);
  });

  test('after its daemon is killed (kill -9), the CLI says at once that none runs, and engram mcp starts a new one that has every acknowledged fact', async () => {
    const root = tempDataDir('engram-mcp-restart-');
    dirs.push(root);
    const dataDir = join(root, 'data');
    const discoveryOf = () => JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as Discovery;
    const first = await openStdio(['--data-dir', dataDir], { ENGRAM_EMBEDDER: 'none' });
    const killed = discoveryOf().pid;
    pids.push(killed);
    await first.ok('memory_add', { agent_id: 'agent-k', text: 'Written just before the crash' });
    await first.close();
    process.kill(killed, 'SIGKILL');
    await waitFor(async () => (isAlive(killed) ? undefined : true), 10_000);

    // The discovery file and socket are left behind; they name no running daemon.
    const status = await runEngram(['status'], { dataDir, cwd: root });
    expect(status.code).toBe(1);
    expect(status.stderr).toContain(`daemon.json names pid ${killed}, which is not running`);
    expect(status.stderr).toContain(`engram start --data-dir ${dataDir}`);

    const second = await openStdio(['--data-dir', dataDir], { ENGRAM_EMBEDDER: 'none' });
    const restarted = discoveryOf().pid;
    pids.push(restarted);
    expect(restarted).not.toBe(killed);
    expect(second.stderr()).toMatch(/no daemon was serving .*; started one/);
    expect((await second.ok('memory_search', { agent_id: 'agent-k', query: 'before the crash' })).facts).toEqual(['Written just before the crash']);
    await second.close();
  });

  test('a line that is not JSON, or not JSON-RPC, is answered with -32700 / -32600 (id null), and the next request still is', async () => {
    const { daemon } = serving;
    const input = ['this is not json', '{"jsonrpc":"2.0","id":1,"method":"ping"}', '{"foo":1}', ''].join('\n');
    const run = await runEngram(['mcp', '--data-dir', daemon.dataDir], { dataDir: null, cwd: daemon.dataDir, input });
    expect(run.code, run.stderr).toBe(0);
    const answers = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number | null; error?: { code: number }; result?: unknown });
    expect(answers.filter((a) => a.id === null).map((a) => a.error!.code).sort()).toEqual([-32700, -32600].sort());
    expect(answers.find((a) => a.id === 1)).toMatchObject({ result: {} });
  });

  test('--tools serves only the tools named; another is an unknown tool, and an unknown name in the list is a usage error', async () => {
    const { daemon } = serving;
    const session = await openStdio(['--data-dir', daemon.dataDir, '--tools', 'memory_add, memory_search']);
    try {
      expect(session.tools.map((t) => t.name).sort()).toEqual(['memory_add', 'memory_search']);
      await session.ok('memory_add', { agent_id: 'few-tools', text: 'Only two tools are served here' });
      expect((await session.ok('memory_search', { agent_id: 'few-tools', query: 'two tools' })).facts).toEqual(['Only two tools are served here']);
      await expect(session.client.callTool({ name: 'memory_list', arguments: { agent_id: 'few-tools' } })).rejects.toThrow(/unknown tool: memory_list/);
    } finally {
      await session.close();
    }
    const bad = await runEngram(['mcp', '--data-dir', daemon.dataDir, '--tools', 'memory_add,memory_serch'], { dataDir: null, cwd: daemon.dataDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tools: no tool named memory_serch');
    // --print-config checks the flags it copies, so a host is never given a server that will not start.
    const printed = await runEngram(['mcp', '--print-config', '--tools', 'memory_add,memory_serch', '--agent', ' '], { dataDir: null, cwd: daemon.dataDir });
    expect(printed).toMatchObject({ code: 2, stdout: '' });
    expect(printed.stderr).toContain('--agent must name a namespace');
  });

  test('--address names a daemon directly and never starts one', async () => {
    const { daemon } = serving;
    const session = await openStdio(['--address', daemon.discovery.address, '--data-dir', join(daemon.dataDir, 'unused')]);
    await session.ok('memory_add', { agent_id: 'by-address', text: 'Reached through --address' });
    expect(session.stderr()).not.toMatch(/started one/);
    expect(existsSync(join(daemon.dataDir, 'unused'))).toBe(false);
    await session.close();
  });
});

describe('memory_add_batch through engram mcp', () => {
  const serving = useDaemon();

  test('a fact whose value a rule refuses (an empty tag, a blank entity, a text over the limit) fails in its own slot, named facts[i].field as REST names items[i].field; the others are stored', async () => {
    const session = await openStdio(['--data-dir', serving.daemon.dataDir]);
    try {
      const a = 'batch-rules';
      const batch = await session.ok<{ results: { fact_id?: string; error?: string }[] }>('memory_add_batch', {
        agent_id: a,
        facts: [
          { text: 'The release train leaves on Thursdays', tags: ['ops'] },
          { text: 'An empty tag labels nothing', tags: ['ops', ''] },
          { text: 'A blank entity names nobody', entities: ['  '] },
          { text: 'x'.repeat(40_000) },
          { text: 'The code freeze starts on the 20th', tags: ['ops'] },
        ],
      });
      expect(batch).toMatchObject({ agent_id: a, stored: 2, duplicates: 0, failed: 3 });
      expect(batch.results.map((r) => r.error)).toEqual([undefined, 'facts[1].tags[1]: must not be empty', 'facts[2].entities[0]: must not be empty', expect.stringMatching(/^facts\[3\]\.text: /), undefined]);
      expect(batch.results.filter((r) => r.fact_id).length).toBe(2);
      const listed = (await session.ok<{ facts: { text: string }[] }>('memory_list', { agent_id: a })).facts.map((f) => f.text).sort();
      expect(listed).toEqual(['The code freeze starts on the 20th', 'The release train leaves on Thursdays']);

      // A value of the wrong type is the call's own mistake: the whole call is refused, naming it, and nothing is stored.
      expect(await session.fails('memory_add_batch', { agent_id: a, facts: [{ text: 'Never stored' }, { text: 'Nor this', tags: 'ops' }] })).toMatch(/^facts\[1\]\.tags/);
      expect(await session.fails('memory_add_batch', { agent_id: a, facts: [{ text: 'Never stored' }, { text: 'Nor this', entities: [7] }] })).toMatch(/^facts\[1\]\.entities\[0\]/);
      expect((await session.ok<{ facts: unknown[] }>('memory_list', { agent_id: a })).facts).toHaveLength(2);
    } finally {
      await session.close();
    }
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
