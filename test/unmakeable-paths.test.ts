// A path that cannot be made must fail at once with one clear line. Node's own recursive mkdir
// never returns for a path under /proc (it retries procfs's ENOENT forever), so `engram init
// /proc/x`, a mistyped --data-dir or --log-file hung at full CPU; now each level is made on its own.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { makeDirectory } from '../shared/make-directory.ts';
import { runEngram } from './fixtures/cli.ts';

const work = mkdtempSync(join(tmpdir(), 'engram-unmakeable-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const UNMAKEABLE = '/proc/engram-no-such-dir/inner';
const linux = process.platform === 'linux';
const run = (args: string[]) => runEngram(args, { dataDir: null, cwd: work, timeoutMs: 20_000 });

describe('making a directory', () => {
  test('makes the missing parents, each with the mode asked for', () => {
    const deep = join(work, 'a', 'b', 'c');
    makeDirectory(deep, 0o700);
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(statSync(join(work, 'a')).mode & 0o777).toBe(0o700);
    makeDirectory(deep); // already there: nothing to do
  });

  test.runIf(linux)('under /proc fails with ENOENT instead of never returning', () => {
    expect(() => makeDirectory(UNMAKEABLE)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});

describe.runIf(linux)('a path the command cannot make', () => {
  test('engram init names it and exits 2', async () => {
    const { code, stderr } = await run(['init', UNMAKEABLE]);
    expect(code).toBe(2);
    expect(stderr).toContain(`cannot make ${UNMAKEABLE}/.engram (ENOENT): choose a directory you can write to`);
  });

  test('engram start names the data directory and exits 1', async () => {
    const { code, stderr } = await run(['--data-dir', UNMAKEABLE, 'start']);
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot make the data directory ${UNMAKEABLE} (ENOENT)`);
  });

  test('engram daemon with such a --data-dir or --log-file: one line, no stack trace, exit 1', async () => {
    for (const args of [['daemon', '--data-dir', UNMAKEABLE], ['daemon', '--data-dir', join(work, 'data'), '--log-file', `${UNMAKEABLE}/daemon.log`]]) {
      const { code, stderr } = await run(args);
      expect(code, args.join(' ')).toBe(1);
      expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^engram daemon: cannot start: ENOENT: .*mkdir .*Choose paths this user can create and write/)]);
    }
  });
});
