// The layering rules of .dependency-cruiser.cjs hold over the whole code base: no import cycles,
// classic-level only behind the store interface, front doors only through the core, client/ and
// daemon/ apart. A violation fails with dependency-cruiser's report of each offending import.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from './fixtures/daemon.ts';

describe('import graph', () => {
  test('every module keeps to the layering rules', () => {
    const depcruise = join(ROOT, 'node_modules', '.bin', 'depcruise');
    const run = spawnSync(depcruise, ['daemon', 'client', 'shared', 'bin', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.error).toBeUndefined();
    expect({ status: run.status, report: run.stdout + run.stderr }).toMatchObject({ status: 0 });
    expect(run.stdout).toMatch(/no dependency violations found \((\d{3,}) modules/);
  });
});
