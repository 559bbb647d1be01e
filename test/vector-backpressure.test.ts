// Writes wait while a namespace's HNSW graph lags too far behind them: the next search or save
// waits for everything queued before it, so the queue is kept to MAX_PENDING (a bulk load of 200k
// facts once stalled a batch write past its 30 s deadline). Real USearch, on its thread.
import { describe, expect, test } from 'vitest';
import { MAX_PENDING, VectorIndex } from '../daemon/index/vectors.ts';

const DIMENSIONS = 16;

function unitVector(seed: number): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  for (let i = 0; i < DIMENSIONS; i++) v[i] = Math.sin(seed * 12.9898 + i * 78.233) * 43758.5453 % 1;
  const norm = Math.hypot(...v);
  return v.map((c) => c / norm);
}

const settledWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe('vector graph backpressure', () => {
  test('room() waits while MAX_PENDING vectors wait for the graph, and resolves once the background flush drains them', async () => {
    const index = new VectorIndex(DIMENSIONS);
    await index.room(); // empty: no wait
    const total = MAX_PENDING + 1500;
    for (let key = 1; key <= total; key++) index.add(key, unitVector(key));
    expect(index.pendingCount).toBe(total);
    const room = index.room();
    // Nothing was inserted synchronously: a writer arriving now waits.
    expect(index.pendingCount).toBeGreaterThanOrEqual(MAX_PENDING);
    expect(await settledWithin(room, 0)).toBe(false);
    expect(await settledWithin(room, 30_000)).toBe(true);
    expect(index.pendingCount).toBeLessThan(MAX_PENDING);
    // Every vector reaches the graph: a search finds a late key's own vector.
    expect((await index.search(unitVector(total), 5)).map((hit) => hit.key)).toContain(total);
    expect(index.size).toBe(total);
  });

  test("one namespace's rebuild does not hold another's inserts behind it: the graph thread takes them in turn", async () => {
    // A rebuild after a crash hands a namespace every stored vector at once; the graph thread
    // takes batches in order, and another namespace's writes waited for all of them.
    const rebuilt = new VectorIndex(DIMENSIONS);
    const rebuilding = 30_000;
    for (let key = 1; key <= rebuilding; key++) rebuilt.add(key, unitVector(key));
    rebuilt.flushSome();
    const other = new VectorIndex(DIMENSIONS);
    for (let key = 1; key <= 300; key++) other.add(key, unitVector(-key));
    other.flushSome();
    await waitUntil(() => other.pendingCount === 0);
    // The other namespace's vectors are in; most of the rebuild is still to come.
    expect(rebuilt.pendingCount).toBeGreaterThan(rebuilding / 2);
    // And the rebuild goes on by itself to the end.
    await waitUntil(() => rebuilt.pendingCount === 0);
    expect((await rebuilt.search(unitVector(rebuilding), 5)).map((hit) => hit.key)).toContain(rebuilding);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 6000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
