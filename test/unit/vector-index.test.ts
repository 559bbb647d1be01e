// The in-memory vector index over real USearch: adding a key it already holds replaces the vector
// (a daemon following a shared store may apply one fact's state twice) instead of failing.
import { describe, expect, test } from 'vitest';
import { VectorIndex } from '../../daemon/index/vectors.ts';

const unit = (...v: number[]) => {
  const n = Math.hypot(...v);
  return Float32Array.from(v.map((x) => x / n));
};

describe('vector index', () => {
  test('a key added again, before or after its batch joined the graph, keeps only the later vector', () => {
    const index = new VectorIndex(3);
    index.add(1, unit(1, 0, 0));
    index.add(1, unit(0, 1, 0)); // twice while pending
    index.add(2, unit(0, 0, 1));
    index.flushPending();
    expect(index.size).toBe(2);
    expect(index.search(unit(0, 1, 0), 1)[0]?.key).toBe(1);
    index.add(2, unit(0, 1, 0.1)); // again once in the graph
    index.flushPending();
    expect(index.size).toBe(2);
    // Its old vector is gone: nothing lies at (0, 0, 1) any more.
    expect(index.search(unit(0, 1, 0.1), 1)[0]?.key).toBe(2);
    expect(Math.min(...index.search(unit(0, 0, 1), 2).map((h) => h.distance))).toBeGreaterThan(0.5);
  });
});
