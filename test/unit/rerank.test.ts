// The recipes' reranker on its own: coverage scales each score, facts the query matched stay ahead
// of filler, and a relevance floor applies to the reranked scores (not to those before the stage).
import { describe, expect, test } from 'vitest';
import { rerank } from '../../daemon/recall/rerank.ts';

const fact = (factId: string, final: number, matched = true) => ({ factId, final, createdAt: 1, matched });
const texts: Record<string, string> = { a: 'deploy window friday', b: 'deploy notes', c: 'unrelated', f: 'deploy friday window filler' };
const textOf = (r: { factId: string }) => texts[r.factId]!;

describe('the term-coverage reranker', () => {
  test('scales by coverage and keeps matched facts ahead of filler', () => {
    const { results, steps } = rerank([fact('b', 1.0), fact('c', 0.95), fact('a', 0.9), fact('f', 0.99, false)], 'deploy friday window', textOf, 10, 0);
    expect(results.map((r) => r.factId)).toEqual(['a', 'b', 'c', 'f']);
    expect(steps.map((s) => [s.coverage, s.rankBefore, s.rankAfter])).toEqual([[1, 3, 1], [1 / 3, 1, 2], [0, 2, 3], [1, 4, 4]]);
    expect(results[0]!.final).toBeCloseTo(0.9 * 1.5, 12);
  });

  test('a relevance floor is the fraction of the reranked top score, and drops filler', () => {
    // Before the stage b (1.0) would set the floor at 0.8 and keep c (0.95); after it, a leads at 1.35.
    const { results } = rerank([fact('b', 1.0), fact('c', 0.95), fact('a', 0.9), fact('f', 0.99, false)], 'deploy friday window', textOf, 10, 0.85);
    expect(results.map((r) => r.factId)).toEqual(['a', 'b']);
  });
});
