// A start-up that indexes a large store says how far it got: the load reports every
// LOAD_PROGRESS_STEP facts read, from the stored keyword rows or from the texts alike.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { Catalog } from '../../daemon/index/catalog.ts';
import { LOAD_PROGRESS_STEP, loadCatalog } from '../../daemon/index/load.ts';
import { LevelStore } from '../../daemon/store/level/level-store.ts';
import type { Change } from '../../daemon/store/store.ts';
import { newFact } from '../store/facts.ts';

const dir = mkdtempSync(join(tmpdir(), 'engram-load-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loading the indexes from a store', () => {
  test('reports every LOAD_PROGRESS_STEP facts read, and the count it read', async () => {
    const store = await LevelStore.open(join(dir, 'store'));
    const total = 2 * LOAD_PROGRESS_STEP + 500;
    for (let from = 0; from < total; from += 1000) {
      const changes: Change[] = [];
      for (let i = from; i < Math.min(total, from + 1000); i++) {
        changes.push({ type: 'putFact', fact: newFact(store, 'big', `fact number ${i} about the harbour`), derived: { terms: { length: 1, terms: [['harbour', 1]] } } });
      }
      await store.commit(changes);
    }
    for (const storedTerms of [true, false]) {
      const reported: number[] = [];
      const loaded = await loadCatalog(store, new Catalog(), null, storedTerms, (read) => reported.push(read));
      expect(loaded.facts).toBe(total);
      expect(reported).toEqual([LOAD_PROGRESS_STEP, 2 * LOAD_PROGRESS_STEP]);
    }
    await store.close();
  });
});
