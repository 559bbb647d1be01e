import { describe, test, expect } from 'vitest';
import { BM25, KeywordIndex } from '../../daemon/index/keyword.ts';
import { termFrequencies, terms } from '../../daemon/index/tokenizer.ts';

function addText(index: KeywordIndex, doc: number, text: string): void {
  const { tf, length } = termFrequencies(text);
  index.add(doc, tf, length);
}

function indexOf(texts: Record<number, string>): KeywordIndex {
  const index = new KeywordIndex();
  for (const [doc, text] of Object.entries(texts)) addText(index, Number(doc), text);
  return index;
}

const docs = (hits: { doc: number }[]) => hits.map((h) => h.doc);

/** BM25 of one term in one doc, written out from the formula. */
function bm25(n: number, df: number, tf: number, dl: number, avgdl: number): number {
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  return (idf * tf * (BM25.k1 + 1)) / (tf + BM25.k1 * (1 - BM25.b + (BM25.b * dl) / avgdl));
}

describe('KeywordIndex ranking', () => {
  test('a doc with the rare query term ranks above one with a common term', () => {
    const index = indexOf({
      0: 'cat sleeps',
      1: 'cat eats',
      2: 'cat plays',
      3: 'zebra runs',
    });
    const hits = index.search(terms('cat zebra'));
    expect(hits[0].doc).toBe(3);
    expect(docs(hits)).toEqual([3, 0, 1, 2]);
  });

  test('a shorter doc beats a longer one for the same tf', () => {
    const index = indexOf({
      0: 'coffee with oat milk every morning before standup meetings',
      1: 'coffee black',
    });
    expect(docs(index.search(['coffe']))).toEqual([1, 0]);
  });

  test('only docs containing a query term are returned; unknown terms match nothing', () => {
    const index = indexOf({ 0: 'alpha beta', 1: 'gamma delta' });
    expect(docs(index.search(['alpha']))).toEqual([0]);
    expect(index.search(['unknown'])).toEqual([]);
    expect(index.search([])).toEqual([]);
  });

  test('equal scores are ordered by doc ascending, whatever the insertion order', () => {
    const index = new KeywordIndex();
    for (const doc of [5, 2, 9, 0]) addText(index, doc, 'same words here');
    expect(docs(index.search(['word']))).toEqual([0, 2, 5, 9]);
  });

  test('score matches a hand computation of BM25', () => {
    const index = indexOf({ 0: 'apple pear', 1: 'apple fig', 2: 'apple kiwi', 3: 'plum kiwi banana melon' });
    const [hit] = index.search(['pear']);
    // N = 4, df(pear) = 1, tf = 1, dl = 2, avgdl = (2 + 2 + 2 + 4) / 4
    expect(hit.doc).toBe(0);
    expect(hit.score).toBeCloseTo(bm25(4, 1, 1, 2, 2.5), 12);
  });

  test('a wide query over thousands of docs scores each doc as the formula sums it, term by term in term order, search after search', () => {
    const texts: Record<number, string> = {};
    for (let i = 0; i < 3000; i++) texts[i] = `w${i % 13} w${i % 29} w${i % 7} ${'filler '.repeat(i % 5)}w${i % 101}`;
    const index = indexOf(texts);
    for (let i = 0; i < 3000; i += 9) {
      index.remove(i);
      delete texts[i];
    }
    const live = Object.entries(texts).map(([doc, text]) => ({ doc: Number(doc), ...termFrequencies(text) }));
    const avgdl = live.reduce((sum, d) => sum + d.length, 0) / live.length;
    const expected = (query: string[]) => {
      const unique = [...new Set(query)].sort();
      const df = new Map(unique.map((t) => [t, live.filter((d) => d.tf.has(t)).length]));
      return live
        .map(({ doc, tf, length }) => {
          let score = 0;
          let found = false;
          for (const t of unique) {
            if (!tf.has(t)) continue;
            found = true;
            score += bm25(live.length, df.get(t)!, tf.get(t)!, length, avgdl);
          }
          return { doc, score, found };
        })
        .filter((h) => h.found)
        .sort((a, b) => b.score - a.score || a.doc - b.doc)
        .map(({ doc, score }) => ({ doc, score }));
    };
    // Different queries one after another: nothing of one search may leak into the next.
    for (const query of [terms('w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 filler'), terms('w17 w3'), terms('w100 w0 w12 w28 filler')]) {
      expect(index.search(query)).toEqual(expected(query));
    }
  });

  test('duplicate and reordered query terms give the identical result', () => {
    const index = indexOf({ 0: 'red green blue', 1: 'green blue', 2: 'blue sky', 3: 'red car' });
    const a = index.search(['red', 'green', 'blue']);
    expect(index.search(['blue', 'red', 'green', 'red'])).toEqual(a);
  });

  test('the same search twice gives the identical array', () => {
    const texts: Record<number, string> = {};
    for (let i = 0; i < 200; i++) texts[i] = `note ${i % 7} about topic${i % 13} and topic${i % 5} ${'filler '.repeat(i % 4)}`;
    const index = indexOf(texts);
    const query = terms('note about topic3 topic4 filler');
    expect(index.search(query)).toEqual(index.search(query));
  });

  test('limit keeps the first hits of the full ranking', () => {
    const texts: Record<number, string> = {};
    for (let i = 0; i < 100; i++) texts[i] = `shared ${i % 3 === 0 ? 'shared' : ''} ${'pad '.repeat(i % 5)}`;
    const index = indexOf(texts);
    const all = index.search(['share', 'pad']);
    expect(all).toHaveLength(100);
    for (const limit of [1, 7, 33, 99, 100, 500]) {
      expect(index.search(['share', 'pad'], { limit })).toEqual(all.slice(0, limit));
    }
    expect(index.search(['share'], { limit: 0 })).toEqual([]);
  });
});

describe('KeywordIndex with an eligibility filter', () => {
  // Docs 0..2 all contain "apple"; doc 3 is longer and has none.
  const texts = { 0: 'apple pear', 1: 'apple fig', 2: 'apple kiwi', 3: 'plum kiwi banana melon' };

  test('ineligible docs are not returned', () => {
    const index = indexOf(texts);
    const eligible = (doc: number) => doc === 0 || doc === 3;
    expect(docs(index.search(['appl'], { eligible }))).toEqual([0]);
  });

  test('N, avgdl and df are computed over eligible docs only', () => {
    const index = indexOf(texts);
    const unfiltered = index.search(['appl'])[0];
    const filtered = index.search(['appl'], { eligible: (doc) => doc === 0 || doc === 3 })[0];
    // Unfiltered: N = 4, df = 3, avgdl = 10 / 4. Filtered: N = 2, df = 1, avgdl = 6 / 2.
    expect(unfiltered.score).toBeCloseTo(bm25(4, 3, 1, 2, 2.5), 12);
    expect(filtered.score).toBeCloseTo(bm25(2, 1, 1, 2, 3), 12);
    expect(filtered.score).not.toBe(unfiltered.score);
  });

  test('an always-true filter changes nothing', () => {
    const index = indexOf(texts);
    expect(index.search(['appl', 'kiwi'], { eligible: () => true })).toEqual(index.search(['appl', 'kiwi']));
  });

  test('no eligible doc means no hits', () => {
    expect(indexOf(texts).search(['appl'], { eligible: () => false })).toEqual([]);
  });
});

describe('KeywordIndex maintenance', () => {
  test('add, has, size, documentFrequency, vocabulary', () => {
    const index = indexOf({ 0: 'red apple', 1: 'green apple' });
    expect(index.size).toBe(2);
    expect(index.has(1)).toBe(true);
    expect(index.has(2)).toBe(false);
    expect(index.documentFrequency('appl')).toBe(2);
    expect(index.documentFrequency('red')).toBe(1);
    expect(index.documentFrequency('blue')).toBe(0);
    expect([...index.vocabulary()].sort()).toEqual(['appl', 'green', 'red']);
  });

  test('adding a doc twice throws and leaves the index unchanged', () => {
    const index = indexOf({ 0: 'red apple' });
    expect(() => addText(index, 0, 'blue sky')).toThrow();
    expect(index.size).toBe(1);
    expect(index.documentFrequency('sky')).toBe(0);
  });

  test('invalid input is rejected', () => {
    const index = new KeywordIndex();
    expect(() => index.add(-1, new Map([['a', 1]]), 1)).toThrow(RangeError);
    expect(() => index.add(1.5, new Map([['a', 1]]), 1)).toThrow(RangeError);
    expect(() => index.add(0, new Map([['a', 0]]), 1)).toThrow(RangeError);
    expect(() => index.add(0, new Map([['a', 3]]), 2)).toThrow(RangeError);
    expect(index.size).toBe(0);
  });

  test('a removed doc is no longer found and no longer counted', () => {
    const index = indexOf({ 0: 'red apple', 1: 'green apple', 2: 'red car' });
    index.remove(0);
    expect(index.has(0)).toBe(false);
    expect(index.size).toBe(2);
    expect(docs(index.search(['red', 'appl']))).toEqual([1, 2]); // equal scores now: doc order
    expect(docs(index.search(['red']))).toEqual([2]);
    expect(index.documentFrequency('appl')).toBe(1);
    index.remove(2);
    expect([...index.vocabulary()].sort()).toEqual(['appl', 'green']);
    index.remove(42); // absent: no-op
    expect(index.size).toBe(1);
  });

  test('scores after removal equal those of an index built without the removed docs', () => {
    const texts: Record<number, string> = {};
    for (let i = 0; i < 500; i++) texts[i] = `word${i % 11} word${i % 7} ${i % 3 ? 'common' : 'rare'} ${'x '.repeat(i % 6)}`;
    const index = indexOf(texts);
    const kept: Record<number, string> = {};
    for (let i = 0; i < 500; i++) {
      if (i % 4 === 0 || i % 5 === 0) index.remove(i); // enough to force compactions
      else kept[i] = texts[i];
    }
    const query = terms('word3 word4 rare common x');
    expect(index.search(query)).toEqual(indexOf(kept).search(query));
    expect(index.size).toBe(Object.keys(kept).length);
  });

  test('a removed doc can be added again', () => {
    const texts: Record<number, string> = {};
    for (let i = 0; i < 8; i++) texts[i] = `red item${i}`;
    const index = indexOf(texts);
    index.remove(3);
    addText(index, 3, 'red car again');
    expect(index.documentFrequency('red')).toBe(8);
    expect(docs(index.search(['car']))).toEqual([3]);
    expect(index.search(['red'])).toEqual(indexOf({ ...texts, 3: 'red car again' }).search(['red']));
  });
});
