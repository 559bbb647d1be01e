// Engram as a user installs it: the packed tarball installed into a fresh project outside the
// repository, then the README's library example run with plain node and type-checked by tsc, the
// CLI run from different directories, a project store made by `engram init`, and an agent host
// started from an unrelated directory with the config `engram mcp --print-config` prints.
import { execFile, execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { removeDir, ROOT } from './fixtures/daemon.ts';
import { processAlive } from '../shared/discovery.ts';

let home: string;
let project: string;
let engramJs: string;
/** The environment of every command: a private per-user data directory, no ENGRAM_* overrides. */
let env: NodeJS.ProcessEnv;

/** Installs a tarball of this working tree (as built by the global setup) into a new project, as
 *  `npm install engram-x.tgz` would. */
function installPackedTarball(into: string): string {
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', into, '--silent'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  const dir = join(into, 'project');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'an-app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(into, packed)], { cwd: dir, stdio: 'pipe' });
  return dir;
}

/** A process run to its end, without blocking the test's event loop (so others run beside it). */
function exec(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number }): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

function engram(args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [engramJs, ...args], { cwd, env, encoding: 'utf8', timeout: 120_000 });
}

function ok(args: string[], cwd: string): string {
  const run = engram(args, cwd);
  expect(run.status, `engram ${args.join(' ')}\n${run.stderr}`).toBe(0);
  return run.stdout;
}

/** The README's library example, as a user copies it. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Client library'));
  return /```ts\n([\s\S]*?)```/.exec(section)![1]!;
}

beforeAll(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'engram-pkg-')));
  project = installPackedTarball(home);
  engramJs = join(project, 'node_modules', 'engram', 'dist', 'engram.js');
  env = { ...process.env, XDG_DATA_HOME: join(home, 'xdg-data'), ENGRAM_EMBEDDER: 'none' };
  for (const name of ['ENGRAM_HOME', 'ENGRAM_TOKEN', 'ENGRAM_LOG_FILE']) delete env[name];
}, 300_000);

afterAll(() => {
  for (const dir of [project, join(home, 'elsewhere'), join(home, 'repo-like')]) engram(['stop'], dir);
  removeDir(home);
});

describe('the installed package', () => {
  test('the tarball holds only what a user runs', () => {
    const installed = readdirSync(join(project, 'node_modules', 'engram')).sort();
    expect(installed).toEqual(['LICENSE', 'README.md', 'dist', 'package.json', 'proto']);
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'engram', 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
  });

  test('engram start from one directory and remember/recall from another share the per-user store', () => {
    const elsewhere = join(home, 'elsewhere');
    mkdirSync(elsewhere);
    expect(ok(['start'], project)).toMatch(/^started the daemon for .*xdg-data\/engram: pid \d+/);
    expect(ok(['start'], elsewhere)).toMatch(/already serving/);
    ok(['remember', 'pkg', 'The build server is called hopper'], elsewhere);
    expect(ok(['recall', 'pkg', 'build server'], project)).toContain('The build server is called hopper');
    const status = JSON.parse(ok(['status', '--json'], elsewhere));
    expect(status).toMatchObject({ data_dir: join(home, 'xdg-data', 'engram'), data_dir_source: 'user', log: join(home, 'xdg-data', 'engram', 'daemon.log') });
    expect(ok(['logs', '-n', '20'], elsewhere)).toMatch(/INFO.*serving /);
  });

  test("the README's library example runs with plain node and type-checks under tsc --strict (nodenext and bundler)", async () => {
    const example = readmeExample();
    writeFileSync(join(project, 'example.mjs'), example);
    writeFileSync(join(project, 'example.ts'), example);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    // The run and the two type checks are independent processes: all three at once, each type
    // check with a tsconfig of its own beside the example.
    const checks = [['nodenext', 'nodenext'], ['esnext', 'bundler']].map(([module, resolution]) => {
      const config = { compilerOptions: { strict: true, noEmit: true, target: 'es2022', module, moduleResolution: resolution, skipLibCheck: false }, files: ['example.ts'] };
      writeFileSync(join(project, `tsconfig.${module}.json`), JSON.stringify(config));
      return exec(process.execPath, [tsc, '-p', `tsconfig.${module}.json`], { cwd: project }).then((checked) => ({ module, ...checked }));
    });
    const run = await exec(process.execPath, ['example.mjs'], { cwd: project, env, timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('idempotent-write-v1');
    for (const checked of await Promise.all(checks)) {
      expect({ module: checked.module, status: checked.status, out: checked.stdout }).toMatchObject({ status: 0 });
    }
  });

  test('an app names every type the methods take and return, imported from the package, under tsc --strict', async () => {
    // KgHint, WriteStatus, TokenInfo, Right, RelationType, GraphView, ConsolidationRun and Limits
    // were in the methods' signatures but not importable: an app could not name them.
    const app = `import type { ConsolidationCounters, ConsolidationRun, EngramClient, Fact, FactKindName, Grant, GraphEdge, GraphNode, GraphView, ImportOptions, ImportProgress, KgHint, Limits, Relation, RelationType, Right, TokenInfo, WriteStatus } from 'engram';
export async function use(client: EngramClient, fact: Fact): Promise<void> {
  const hints: KgHint[] = (await client.recall('a', 'q')).hints;
  const status: WriteStatus<Fact> = await client.writeStatus('r');
  const tokens: TokenInfo[] = await client.listTokens();
  const rights: readonly Right[] = tokens[0]?.rights ?? [];
  const grant: Grant | undefined = tokens[0];
  const type: RelationType = 'supports';
  await client.relate('a', fact.id, type, fact.id);
  const graph: GraphView = await client.readGraph('a', { entity: 'x' });
  const nodes: GraphNode[] = graph.nodes;
  const edges: GraphEdge[] = graph.edges;
  const run: ConsolidationRun = await client.consolidate('a');
  const counters: ConsolidationCounters = await client.consolidationStatus();
  const limits: Limits = client.daemon.limits;
  const kind: FactKindName = fact.kind;
  const progress = (p: ImportProgress): void => void p.done;
  const options: ImportOptions = { onProgress: progress };
  void [hints, status, rights, grant, nodes, edges, run, counters, limits, kind, options, [] as Relation[]];
}
`;
    writeFileSync(join(project, 'app-types.ts'), app);
    const config = { compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: false }, files: ['app-types.ts'] };
    writeFileSync(join(project, 'tsconfig.app-types.json'), JSON.stringify(config));
    const checked = await exec(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.app-types.json'], { cwd: project });
    expect({ status: checked.status, out: checked.stdout }).toEqual({ status: 0, out: '' });
  });

  test('engram init makes a project store that commands in a subdirectory find', () => {
    const repo = join(home, 'repo-like');
    const deep = join(repo, 'src', 'deep');
    mkdirSync(deep, { recursive: true });
    expect(ok(['init'], repo)).toContain(join(repo, '.engram'));
    expect(ok(['start'], deep)).toContain(`started the daemon for ${join(repo, '.engram')}`);
    ok(['remember', 'pkg', 'Only the project store knows this'], deep);
    const status = JSON.parse(ok(['status', '--json'], deep));
    expect(status).toMatchObject({ data_dir: join(repo, '.engram'), data_dir_source: 'project' });
    expect(ok(['recall', 'pkg', 'project store'], repo)).toContain('Only the project store knows this');
    // The per-user store (from outside the project) does not have it.
    expect(ok(['recall', 'pkg', 'project store', '--json'], project)).not.toContain('Only the project store knows this');
  });

  test('an MCP host started from an unrelated directory with the printed config finds what the CLI stored', async () => {
    const config = JSON.parse(ok(['mcp', '--print-config'], project)) as { mcpServers: { engram: { command: string; args: string[] } } };
    const entry = config.mcpServers.engram;
    expect(entry.command).toBe(process.execPath);
    expect(entry.args).toEqual([realpathSync(engramJs), 'mcp']);
    const unrelated = mkdtempSync(join(tmpdir(), 'engram-host-'));
    const transport = new StdioClientTransport({ command: entry.command, args: entry.args, cwd: unrelated, env: env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'host', version: '1' });
    try {
      await client.connect(transport);
      const result = (await client.callTool({ name: 'memory_search', arguments: { agent_id: 'pkg', query: 'build server' } })) as { structuredContent?: { facts: string[] } };
      expect(result.structuredContent?.facts).toContain('The build server is called hopper');
    } finally {
      await client.close();
      removeDir(unrelated);
    }
  });

  test('engram stop stops the daemon and waits for it; a second stop says none serves', () => {
    const status = JSON.parse(ok(['status', '--json'], project)) as { pid: number };
    expect(ok(['stop'], project)).toContain(`stopped the daemon for ${join(home, 'xdg-data', 'engram')} (pid ${status.pid})`);
    expect(processAlive(status.pid)).toBe(false); // gone, or a zombie its parent has not reaped yet
    expect(ok(['stop'], project)).toMatch(/no daemon is serving/);
    expect(engram(['status'], project).status).toBe(1);
  });
});
