// Releases side by side, for real: every kept release tarball (test/compat/releases/) is installed
// into a temporary directory and its own client (CLI and library) runs against today's daemon,
// today's client against its daemon, and both daemons open the same store directory in turn —
// or, where the store format moved on, the older one refuses the newer store rather than misread it.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STORE_FORMAT } from '../../daemon/store/level/level-store.ts';
import { ENGRAM_BIN, removeDir, ROOT, startDaemon, waitFor } from '../fixtures/daemon.ts';

const RELEASES = join(ROOT, 'test', 'compat', 'releases');
/** The store format each release writes (a release before formats were recorded wrote 1). */
const RELEASE_STORE_FORMAT: Record<string, number> = { '0.1.0': 1, '0.2.0': 1 };

const releases = readdirSync(RELEASES)
  .map((file) => /^engram-(\d+\.\d+\.\d+)\.tgz$/.exec(file)?.[1])
  .filter((v): v is string => v !== undefined);

for (const version of releases) {
  describe(`release ${version} beside today's build`, () => {
    let home: string;
    let oldBin: string;
    let env: NodeJS.ProcessEnv;
    const children: ChildProcess[] = [];

    beforeAll(() => {
      home = realpathSync(mkdtempSync(join(tmpdir(), `engram-release-${version}-`)));
      const dir = join(home, 'install');
      mkdirSync(dir);
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'old-app', private: true, type: 'module' }));
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(RELEASES, `engram-${version}.tgz`)], { cwd: dir, stdio: 'pipe' });
      const manifest = JSON.parse(readFileSync(join(dir, 'node_modules', 'engram', 'package.json'), 'utf8')) as { version: string; bin: { engram: string } };
      expect(manifest.version).toBe(version);
      oldBin = join(dir, 'node_modules', 'engram', manifest.bin.engram);
      env = { ...process.env, XDG_DATA_HOME: join(home, 'xdg'), ENGRAM_EMBEDDER: 'none' };
      delete env.ENGRAM_HOME;
      delete env.ENGRAM_TOKEN;
    }, 300_000);

    afterAll(async () => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      removeDir(home);
    });

    const run = (bin: string, args: string[]) => spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8', timeout: 60_000, cwd: home });
    const ok = (bin: string, args: string[]) => {
      const r = run(bin, args);
      expect(r.status, `${bin} ${args.join(' ')}\n${r.stderr}`).toBe(0);
      return r.stdout;
    };

    /** The release's daemon in the foreground; resolves once it serves `dataDir`. */
    async function startOldDaemon(dataDir: string): Promise<{ stop(): Promise<number | null>; log(): string }> {
      const child = spawn(process.execPath, [oldBin, 'daemon', '--data-dir', dataDir, '--embedder', 'none'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      let log = '';
      child.stderr!.on('data', (chunk) => (log += chunk));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      await waitFor(
        async () => {
          if (child.exitCode !== null) throw new Error(`the ${version} daemon exited with ${child.exitCode}:\n${log}`);
          const path = join(dataDir, 'daemon.json');
          return existsSync(path) && JSON.parse(readFileSync(path, 'utf8')).pid === child.pid ? 'serving' : undefined;
        },
        60_000,
        () => log,
      );
      return {
        log: () => log,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          return exited;
        },
      };
    }

    test(`its CLI and library work against today's daemon`, async () => {
      const daemon = await startDaemon({ dataDir: join(home, 'today') });
      try {
        ok(oldBin, ['--data-dir', daemon.dataDir, 'remember', 'cross', `written by the ${version} CLI`]);
        const recalled = JSON.parse(ok(oldBin, ['--data-dir', daemon.dataDir, 'recall', 'cross', 'written', '--json'])) as { facts: { text: string }[] };
        expect(recalled.facts.map((f) => f.text)).toEqual([`written by the ${version} CLI`]);
        // The release's library, as an app that embeds it would call it.
        const script = join(home, 'install', 'app.mjs');
        writeFileSync(
          script,
          `import { connect } from 'engram';\nconst m = await connect({ dataDir: ${JSON.stringify(daemon.dataDir)} });\n` +
            `await m.put('cross', 'written by the ${version} library');\nconst { facts } = await m.recall('cross', 'library');\n` +
            `console.log(JSON.stringify({ version: m.daemon.daemonVersion, facts: facts.map((f) => f.text) }));\nm.close();\n`,
        );
        // Releases before the built package ran from TypeScript sources through tsx.
        const loader = existsSync(join(home, 'install', 'node_modules', 'engram', 'dist')) ? [] : ['--import', 'tsx'];
        const app = spawnSync(process.execPath, [...loader, script], { cwd: join(home, 'install'), env, encoding: 'utf8', timeout: 60_000 });
        expect(app.status, app.stderr).toBe(0);
        const seen = JSON.parse(app.stdout) as { version: string; facts: string[] };
        expect(seen.facts).toContain(`written by the ${version} library`);
        expect(seen.version).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
      } finally {
        await daemon.stop();
      }
    });

    test(`today's CLI works against its daemon`, async () => {
      const dataDir = join(home, 'old');
      const daemon = await startOldDaemon(dataDir);
      try {
        ok(ENGRAM_BIN, ['--data-dir', dataDir, 'remember', 'cross', 'written by today against the old daemon']);
        const recalled = JSON.parse(ok(ENGRAM_BIN, ['--data-dir', dataDir, 'recall', 'cross', 'old daemon', '--json'])) as { facts: { text: string }[] };
        expect(recalled.facts.map((f) => f.text)).toEqual(['written by today against the old daemon']);
        // An alias said again: a daemon from before `duplicate` on aliases never says so.
        ok(ENGRAM_BIN, ['--data-dir', dataDir, 'alias', 'cross', 'k8s', 'kubernetes']);
        const again = JSON.parse(ok(ENGRAM_BIN, ['--data-dir', dataDir, 'alias', 'cross', 'k8s', 'kubernetes', '--json'])) as { stored: boolean; duplicate: boolean };
        expect(again).toMatchObject({ stored: true, duplicate: false });
        const status = JSON.parse(ok(ENGRAM_BIN, ['--data-dir', dataDir, 'status', '--json'])) as { daemon: { version: string } };
        expect(status.daemon.version).toBe(version);
      } finally {
        expect(await daemon.stop()).toBe(0);
      }
    });

    test('both daemons open the same store in turn, or the older refuses a newer store format', async () => {
      const dataDir = join(home, 'shared-store');
      const old = await startOldDaemon(dataDir);
      ok(ENGRAM_BIN, ['--data-dir', dataDir, 'remember', 'cross', 'stored by the old daemon']);
      expect(await old.stop()).toBe(0);

      const today = await startDaemon({ dataDir });
      const c = await today.client();
      expect((await c.recall('cross', 'old daemon')).facts.map((f) => f.text)).toEqual(['stored by the old daemon']);
      await c.put('cross', 'stored by today');
      c.close();
      expect(await today.stop()).toBe(0);

      const releaseFormat = RELEASE_STORE_FORMAT[version] ?? STORE_FORMAT;
      if (STORE_FORMAT > releaseFormat) {
        const refused = run(oldBin, ['daemon', '--data-dir', dataDir, '--embedder', 'none']);
        expect(refused.status).not.toBe(0);
        expect(refused.stderr).toMatch(/newer Engram/);
        return;
      }
      const again = await startOldDaemon(dataDir);
      try {
        const listed = JSON.parse(ok(oldBin, ['--data-dir', dataDir, 'list', 'cross', '--json'])) as { facts: { text: string }[] };
        expect(listed.facts.map((f) => f.text).sort()).toEqual(['stored by the old daemon', 'stored by today']);
      } finally {
        await again.stop();
      }
    });
  });
}
