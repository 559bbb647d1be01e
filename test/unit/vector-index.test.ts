// The in-memory vector index over real USearch: adding a key it already holds replaces the vector
// (a daemon following a shared store may apply one fact's state twice) instead of failing; a saved
// graph loads only if it stores its vectors as this version's graphs do.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { STOPPED_LOADING, VectorIndex } from '../../daemon/index/vectors.ts';
import { GRAPH_THREAD_NAME } from '../../daemon/index/graph-thread.ts';

const unit = (...v: number[]) => {
  const n = Math.hypot(...v);
  return Float32Array.from(v.map((x) => x / n));
};

/** Runs `use` on an index of these vectors saved at `base` in a temporary directory (removed after). */
async function withSavedIndex(vectors: [number, Float32Array][], use: (base: string, dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-vectors-'));
  try {
    const base = join(dir, 'agent');
    const index = new VectorIndex(3);
    for (const [key, vector] of vectors) index.add(key, vector);
    await index.save(base, { agentId: 'a', embedder: 'test', dimensions: 3, coveredSeq: 2 });
    await use(base, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('vector index', () => {
  test('a key added again, before or after its batch joined the graph, keeps only the later vector', async () => {
    const index = new VectorIndex(3);
    index.add(1, unit(1, 0, 0));
    index.add(1, unit(0, 1, 0)); // twice while pending
    index.add(2, unit(0, 0, 1));
    index.flushPending();
    expect(index.size).toBe(2);
    expect((await index.search(unit(0, 1, 0), 1))[0]?.key).toBe(1);
    index.add(2, unit(0, 1, 0.1)); // again once in the graph
    index.flushPending();
    expect(index.size).toBe(2);
    // Its old vector is gone: nothing lies at (0, 0, 1) any more.
    expect((await index.search(unit(0, 1, 0.1), 1))[0]?.key).toBe(2);
    expect(Math.min(...(await index.search(unit(0, 0, 1), 2)).map((h) => h.distance))).toBeGreaterThan(0.5);
  });

  test('a saved graph loads again; one saved with other vectors (16-bit before i8 graphs, 32-bit before f16 ones) is not loaded, so it is rebuilt', async () => {
    await withSavedIndex([[7, unit(1, 0, 0)], [8, unit(0, 1, 0)]], async (base) => {
      const loaded = await VectorIndex.load(base, 'test', 3);
      if (!loaded || loaded === STOPPED_LOADING) throw new Error(`not loaded: ${loaded}`);
      expect((await loaded.index.search(unit(0, 1, 0.1), 1))[0]?.key).toBe(8);
      expect(loaded.info.scalar).toBe('i8');
      expect(existsSync(`${base}.usearch.loading`)).toBe(false);

      const info = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as Record<string, unknown>;
      writeFileSync(`${base}.json`, JSON.stringify({ ...info, scalar: 'f16' })); // as the version before i8 wrote it
      expect(await VectorIndex.load(base, 'test', 3)).toBeNull();
      delete info.scalar; // as the versions before f16 wrote it
      writeFileSync(`${base}.json`, JSON.stringify(info));
      expect(await VectorIndex.load(base, 'test', 3)).toBeNull();
    });
  });

  // A load that aborts the process (a library bug reading a file it wrote) leaves its mark: the
  // next start must not try that file again, or every start would abort.
  test('a saved graph whose last load took the process down is not loaded again but removed, so it is rebuilt', async () => {
    await withSavedIndex([[7, unit(1, 0, 0)]], async (base, dir) => {
      writeFileSync(`${base}.usearch.loading`, ''); // what a load that aborted the process leaves
      expect(await VectorIndex.load(base, 'test', 3)).toBe(STOPPED_LOADING);
      expect(readdirSync(dir)).toEqual([]);
      expect(await VectorIndex.load(base, 'test', 3)).toBeNull();
    });
  });

  // An operator finds the graph's inserts in `top -H` by name, not as one more "node" thread.
  test.runIf(process.platform === 'linux')('the graph thread is named in the operating system', async () => {
    const index = new VectorIndex(3);
    index.add(1, unit(1, 0, 0));
    index.flushPending();
    await index.search(unit(1, 0, 0), 1);
    const names = readdirSync('/proc/self/task').map((tid) => readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim());
    expect(names).toContain(GRAPH_THREAD_NAME);
  });
});
