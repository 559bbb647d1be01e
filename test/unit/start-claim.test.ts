// The claim a start holds on a data directory it made (shared/start-claim.ts): it may take the
// directory back only while nobody else came to use it. Real temp dirs; the other start or daemon
// is this process calling what they call.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { joinDirectory, makeClaimedDirectory, makeOrJoin, releaseClaim, takeBack } from '../../shared/start-claim.ts';

const work = mkdtempSync(join(tmpdir(), 'engram-start-claim-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(work, `d${++n}`);

describe('a start\'s claim on the directory it made', () => {
  test('made alone, it is taken back whole, and nothing is left at its path or beside it', () => {
    const dir = join(fresh(), 'data');
    const made = makeClaimedDirectory(dir);
    expect(made).toBe(join(dir, '..'));
    writeFileSync(join(dir, 'daemon.log'), 'failed\n');
    const aside = takeBack(dir);
    expect(aside).toBeDefined();
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(join(aside!))).toEqual(expect.arrayContaining(['daemon.log']));
    rmSync(aside!, { recursive: true });
    expect(readdirSync(join(dir, '..'))).toEqual([]);
  });

  test('joined by another start or daemon, it stays, whatever the start that made it does', () => {
    const dir = fresh();
    expect(makeClaimedDirectory(dir)).toBe(dir);
    expect(joinDirectory(dir)).toBe(true);
    expect(takeBack(dir)).toBeUndefined();
    expect(existsSync(dir)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("the claimant's own daemon leaves the claim to it", () => {
    const dir = fresh();
    makeClaimedDirectory(dir);
    expect(joinDirectory(dir, process.pid)).toBe(true);
    expect(takeBack(dir)).toBeDefined();
  });

  test('a directory that existed is nobody\'s to remove: no claim is made or left', async () => {
    const dir = fresh();
    mkdirSync(dir);
    expect(makeClaimedDirectory(dir)).toBeUndefined();
    expect(await makeOrJoin(dir)).toBeUndefined();
    expect(takeBack(dir)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });

  test('a start that succeeded releases its claim: the directory stays, and is no longer its to take back', () => {
    const dir = fresh();
    makeClaimedDirectory(dir);
    releaseClaim(dir);
    expect(readdirSync(dir)).toEqual([]);
    expect(takeBack(dir)).toBeUndefined();
  });

  test('a directory being taken back is not joined; a removal mark whose start died is taken away', () => {
    const dir = fresh();
    mkdirSync(dir);
    writeFileSync(join(dir, 'start-claim.removing'), `${process.pid}\n`);
    expect(joinDirectory(dir)).toBe(false);
    writeFileSync(join(dir, 'start-claim.removing'), '2147483646\n');
    expect(joinDirectory(dir)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });
});
