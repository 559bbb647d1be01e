// Every store implementation runs the one compliance suite (test/store/compliance.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { StoreLockedError } from '../daemon/store/store.ts';
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
});
