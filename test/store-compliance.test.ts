// Every store implementation runs the one compliance suite (test/store/compliance.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { openTables } from '../daemon/store/level/tables.ts';
import { StoreFormatError, StoreLockedError } from '../daemon/store/store.ts';
import { ENGRAM_BIN } from './fixtures/daemon.ts';
import { BACKENDS } from './store/backends.ts';
import { describeStoreCompliance } from './store/compliance.ts';

for (const backend of Object.values(BACKENDS)) describeStoreCompliance(backend);

describe('LevelDB store', () => {
  test('a second open of the same store is refused while the first holds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-store-lock-'));
    try {
      const first = await BACKENDS.level!.open(dir);
      await expect(BACKENDS.level!.open(dir)).rejects.toBeInstanceOf(StoreLockedError);
      await first.close();
      await (await BACKENDS.level!.open(dir)).close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a store written by a newer format is refused whole and left untouched, and the daemon says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-store-format-'));
    try {
      await (await BACKENDS.level!.open(dir)).close();
      const tables = await openTables(join(dir, 'store'));
      await tables.meta.put('format', { version: 99 });
      await tables.db.close();
      await expect(BACKENDS.level!.open(dir)).rejects.toBeInstanceOf(StoreFormatError);
      const daemon = spawnSync(process.execPath, [ENGRAM_BIN, 'daemon', '--data-dir', dir, '--embedder', 'none'], { encoding: 'utf8', timeout: 60_000 });
      expect(daemon.status).toBe(1);
      expect(daemon.stderr).toMatch(/written by a newer Engram \(store format 99; this version reads up to \d+\)/);
      expect(daemon.stderr).not.toMatch(/\n\s+at /);
      // LevelDB touches its log on every open; nothing of ours was written.
      const after = await openTables(join(dir, 'store'));
      expect(await after.meta.get('format')).toEqual({ version: 99 });
      expect(await after.facts.keys().all()).toEqual([]);
      await after.db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
