// The full recall contract (issue: recall engine): weights, relevance floor, batch, aliases,
// weak-match feedback, event time and filters — against a real daemon.
import { describe, expect, test } from 'vitest';
import { CapabilityError } from '../client/index.ts';
import { removeDir, startDaemon, useDaemon } from './fixtures/daemon.ts';
import { isTotalOrder } from './fixtures/receipts.ts';

const env = useDaemon({ embedder: 'local' });
const DAY = 86_400_000;

async function putAll(agent: string, texts: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const text of texts) ids.push((await env.client.put(agent, text)).fact.id);
  return ids;
}

describe('signal weights and relevance floor', () => {
  test('recency-only weights return the K newest facts, newest first', async () => {
    const ids = await putAll('w-recency', Array.from({ length: 12 }, (_, i) => `ledger entry ${i} about apples`));
    const { facts, retrieval } = await env.client.recall('w-recency', 'apples', { topK: 5, weights: { vector: 0, keyword: 0 } });
    expect(facts.map((f) => f.id)).toEqual(ids.slice(-5).reverse());
    expect(retrieval.signals).toEqual(['recency']);
  });

  test('keyword-only weights put a keyword match first regardless of age', async () => {
    await env.client.put('w-keyword', 'The boiler service code is 4471');
    await putAll('w-keyword', Array.from({ length: 10 }, (_, i) => `newer unrelated note ${i}`));
    const { facts, retrieval } = await env.client.recall('w-keyword', 'boiler code', { topK: 3, weights: { vector: 0, recency: 0, keyword: 1 } });
    expect(facts[0]!.text).toBe('The boiler service code is 4471');
    expect(retrieval.signals).toEqual(['keyword']);
    expect(retrieval.weights).toEqual({ vector: 0, keyword: 1, recency: 0, decay: 0, graph: 0 });
  });

  test('unset weights keep the defaults; an explicit 0 turns only that signal off', async () => {
    const { retrieval } = await env.client.recall('w-keyword', 'boiler', { weights: { recency: 0 } });
    expect(retrieval.weights).toEqual({ ...env.client.daemon.defaultWeights, recency: 0 });
    expect(retrieval.signals).toEqual(['vector', 'keyword']);
  });

  test('min_relevance 0 returns exactly top_k; > 0 cuts relative to the top score and keeps the top', async () => {
    expect((await env.client.recall('w-keyword', 'boiler code', { topK: 8, minRelevance: 0 })).facts).toHaveLength(8);
    const { receipts } = await env.client.recallExplain('w-keyword', 'boiler code', { topK: 8, minRelevance: 0.6 });
    expect(receipts.length).toBeGreaterThanOrEqual(1);
    expect(receipts.length).toBeLessThan(8);
    const top = receipts[0]!.weight;
    for (const r of receipts) expect(r.weight).toBeGreaterThanOrEqual(top * 0.6);
    const strict = await env.client.recall('w-keyword', 'boiler code', { topK: 8, minRelevance: 1 });
    expect(strict.facts.map((f) => f.text)).toEqual(['The boiler service code is 4471']);
  });

  test('out-of-range options are rejected with the field named', async () => {
    await expect(env.client.recall('w-keyword', 'x', { minRelevance: 1.5 })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'options.min_relevance' });
    await expect(env.client.recall('w-keyword', 'x', { weights: { keyword: -1 } })).rejects.toMatchObject({ field: 'options.signal_weights.keyword' });
    await expect(env.client.recall('w-keyword', 'x', { weights: { keyword: 0, vector: 0, recency: 0 } })).rejects.toMatchObject({ field: 'options.signal_weights' });
  });
});

describe('keyword fields', () => {
  test("a fact's own words outweigh the same words in another fact's context", async () => {
    // Same words, same lengths: only the field they sit in differs.
    const inContext = await env.client.put('w-fields', 'Reminder from Sam', { context: 'the boiler service code is 4471' });
    const inText = await env.client.put('w-fields', 'the boiler service code is 4471', { context: 'Reminder from Sam' });
    const { facts } = await env.client.recall('w-fields', 'boiler service code', { weights: { vector: 0, recency: 0, keyword: 1 } });
    expect(facts.map((f) => f.id)).toEqual([inText.fact.id, inContext.fact.id]);
  });
});

describe('word-vector expansion', () => {
  test("a query word finds facts that use its nearest words, reported in expanded_terms", async () => {
    const film = await env.client.put('w-expand', 'Mia watched a great film last night');
    await env.client.put('w-expand', 'The printer on floor two is jammed');
    const { facts, matches, retrieval } = await env.client.recall('w-expand', 'movie', { weights: { vector: 0, recency: 0, keyword: 1 } });
    expect(facts[0]!.id).toBe(film.fact.id);
    expect(matches![0]!).toMatchObject({ matched: true, signals: ['keyword'] });
    expect(matches![1]!.matched).toBe(false);
    expect(retrieval.expandedTerms).toContain('film');
    // Only words the namespace uses are added: nothing here says "films" or "movies".
    expect(retrieval.expandedTerms).toEqual(['film']);
  });

  test('without vectors there is no expansion', async () => {
    const none = await startDaemon({ embedder: 'none' });
    try {
      const client = await none.client();
      await client.put('w-expand', 'Mia watched a great film last night');
      const { matches, retrieval } = await client.recall('w-expand', 'movie');
      expect(matches!.every((m) => !m.matched)).toBe(true);
      expect(retrieval.expandedTerms).toEqual([]);
      client.close();
    } finally {
      await none.stop();
      removeDir(none.dataDir);
    }
  });
});

describe('BatchRecall', () => {
  test('results come in input order; a bad query fails only its own slot', async () => {
    await putAll('batch', ['Kim owns a red bicycle', 'Kim is learning Spanish', 'The office plant needs water weekly']);
    const tooLong = 'x'.repeat(40_000);
    const res = await env.client.batchRecall('batch', ['bicycle', tooLong, 'Spanish'], { topK: 2 });
    expect(res.results.map((r) => r.query)).toEqual(['bicycle', tooLong, 'Spanish']);
    expect(res.results[0]!.facts[0]!.text).toBe('Kim owns a red bicycle');
    expect(res.results[1]!.error).toMatch(/queries\[1\]/);
    expect(res.results[1]!.facts).toEqual([]);
    expect(res.results[2]!.facts[0]!.text).toBe('Kim is learning Spanish');
  });

  test('merged orders by best input rank, then queries hit, then first appearance', async () => {
    const res = await env.client.batchRecall('batch', ['Kim bicycle', 'Kim Spanish'], { topK: 3 });
    const lists = res.results.map((r) => r.facts.map((f) => f.id));
    const best = (id: string) => Math.min(...lists.map((l) => (l.includes(id) ? l.indexOf(id) : Infinity)));
    const hits = (id: string) => lists.filter((l) => l.includes(id)).length;
    const merged = res.merged.map((f) => f.id);
    expect(new Set(merged).size).toBe(merged.length);
    for (let i = 1; i < merged.length; i++) {
      const [a, b] = [merged[i - 1]!, merged[i]!];
      expect(best(a) < best(b) || (best(a) === best(b) && hits(a) >= hits(b))).toBe(true);
    }
    expect(merged.slice(0, 2).sort()).toEqual([lists[0]![0], lists[1]![0]].sort());
  });
});

describe('aliases', () => {
  test('single-token pairs expand both ways; multi-token equivalents forward only', async () => {
    await putAll('alias', ['Our kubernetes cluster runs on three nodes', 'Each employee gets 25 days of paid time off', 'k8s upgrades happen monthly']);
    await env.client.alias('alias', 'k8s', ['kubernetes']);
    await env.client.alias('alias', 'pto', ['paid time off']);
    const kw = { weights: { vector: 0, recency: 0, keyword: 1 }, topK: 5 };
    const viaAlias = await env.client.recall('alias', 'k8s', kw);
    expect(viaAlias.facts.map((f) => f.text)).toContain('Our kubernetes cluster runs on three nodes');
    expect(viaAlias.retrieval.expandedTerms).toEqual(['kubernet']);
    const reverse = await env.client.recall('alias', 'kubernetes', kw);
    expect(reverse.facts.map((f) => f.text)).toContain('k8s upgrades happen monthly');
    expect((await env.client.recall('alias', 'pto', kw)).facts[0]!.text).toBe('Each employee gets 25 days of paid time off');
    const noReverse = await env.client.recall('alias', 'paid time off', kw);
    expect(noReverse.retrieval.expandedTerms).toEqual([]);
  });

  test('alias records are never returned, never counted, never embedded', async () => {
    const recency = await env.client.recall('alias', '', { weights: { vector: 0, keyword: 0 }, topK: 50 });
    expect(recency.facts.every((f) => f.kind === 'fact')).toBe(true);
    expect(recency.facts.some((f) => f.text.includes(' = '))).toBe(false);
    const listed = (await env.client.list('alias')).facts.filter((f) => f.kind === 'alias');
    expect(listed).toHaveLength(2);
    expect(listed.every((f) => f.embedder === undefined)).toBe(true);
    // Document frequencies ignore alias records: the eligible count is the 3 real facts.
    expect(recency.retrieval.eligibleCount).toBe(3);
  });

  test('a superseded alias stops expanding', async () => {
    const { fact } = await env.client.alias('alias-retire', 'vpn', ['tunnel']);
    await env.client.put('alias-retire', 'The tunnel password rotates weekly');
    expect((await env.client.recall('alias-retire', 'vpn', { weights: { vector: 0, recency: 0 } })).retrieval.expandedTerms).toEqual(['tunnel']);
    await env.client.forget('alias-retire', fact.id);
    const after = await env.client.recallExplain('alias-retire', 'vpn', { weights: { vector: 0, recency: 0 } });
    expect(after.retrieval.expandedTerms).toEqual([]);
    expect(after.receipts.every((r) => r.ranks.keywordRank === 0)).toBe(true);
  });

  test('the same alias again is the one stored: one record, however often an agent repeats it', async () => {
    const first = await env.client.alias('alias-again', 'coffee', ['espresso']);
    const again = await Promise.all([env.client.alias('alias-again', 'coffee', ['espresso']), env.client.alias('alias-again', 'Coffee', ['espresso'])]);
    expect(again.map((a) => a.fact.id)).toEqual([first.fact.id, first.fact.id]);
    const other = await env.client.alias('alias-again', 'coffee', ['latte']);
    expect(other.fact.id).not.toBe(first.fact.id);
    expect((await env.client.list('alias-again')).facts.filter((f) => f.kind === 'alias')).toHaveLength(2);
  });

  test('a query word an alias maps to stored words gets no weak-match advice; unknown words are named as typed', async () => {
    await env.client.put('alias-advice', 'I drink espresso daily');
    await env.client.alias('alias-advice', 'coffee', ['espresso']);
    const viaAlias = await env.client.recall('alias-advice', 'coffee', { minRelevance: 0 });
    expect(viaAlias.facts.map((f) => f.text)).toEqual(['I drink espresso daily']);
    expect(viaAlias.feedback).toBeUndefined();
    const unknown = await env.client.recall('alias-advice', 'cookies', { minRelevance: 0 });
    expect(unknown.feedback?.unknownTerms).toEqual(['cookies']);
  });

  test('an alias term with no searchable word is rejected', async () => {
    await expect(env.client.alias('alias', 'the', ['a thing'])).rejects.toMatchObject({ kind: 'invalid_argument', field: 'term' });
  });

  test('an equivalent that searches for nothing, or for what the term does, is rejected naming it, and nothing is stored', async () => {
    const aliases = async () => (await env.client.list('alias-self')).facts.filter((f) => f.kind === 'alias').length;
    await expect(env.client.alias('alias-self', 'tea', ['tea'])).rejects.toMatchObject({ kind: 'invalid_argument', field: 'equivalents[0]', message: expect.stringContaining('would add nothing') });
    await expect(env.client.alias('alias-self', 'tea', ['chai', 'Teas'])).rejects.toMatchObject({ kind: 'invalid_argument', field: 'equivalents[1]' });
    await expect(env.client.alias('alias-self', 'tea', ['chai', 'the'])).rejects.toMatchObject({ kind: 'invalid_argument', field: 'equivalents[1]', message: expect.stringContaining('no searchable word') });
    expect(await aliases()).toBe(0);
    await env.client.alias('alias-self', 'tea', ['chai']);
    expect(await aliases()).toBe(1);
  });
});

describe('weak-match feedback', () => {
  test('a query that barely overlaps the vocabulary gets feedback, and the same facts in the same order', async () => {
    await putAll('weak', ['The quarterly budget review is on Thursday', 'Budget owners must submit forecasts']);
    const withOptions = await env.client.recall('weak', 'budjet foracast', { minRelevance: 0 });
    const legacy = await env.client.recall('weak', 'budjet foracast');
    expect(withOptions.facts.map((f) => f.id)).toEqual(legacy.facts.map((f) => f.id));
    expect(withOptions.feedback).toBeDefined();
    expect(withOptions.feedback!.knownTerms).toBe(0);
    expect(withOptions.feedback!.queryTerms).toBe(2);
    expect(withOptions.feedback!.nearbyTerms).toContain('budget');
    expect(withOptions.feedback!.nearbyTerms.length).toBeLessThanOrEqual(10);
    expect(withOptions.feedback!.advice).toMatch(/alias/);
  });

  test('a well-matched query gets no feedback', async () => {
    expect((await env.client.recall('weak', 'budget review', { minRelevance: 0 })).feedback).toBeUndefined();
  });
});

describe('event time and filters', () => {
  const now = Date.now();

  test('recency ranks by occurred_at when a fact has one', async () => {
    await env.client.put('event', 'trip to Lisbon', { occurredAt: now - 300 * DAY });
    await env.client.put('event', 'trip to Oslo', { occurredAt: now - 2 * DAY });
    await env.client.put('event', 'trip to Rome', { occurredAt: now - 40 * DAY });
    const { facts } = await env.client.recall('event', '', { weights: { vector: 0, keyword: 0 }, topK: 3 });
    expect(facts.map((f) => f.text)).toEqual(['trip to Oslo', 'trip to Rome', 'trip to Lisbon']);
  });

  test('facts with the same event time share a recency rank, the next time takes the next rank; write times never tie', async () => {
    const day1 = now - 10 * DAY;
    const day2 = now - 3 * DAY;
    const session = async (occurredAt: number, texts: string[]) => {
      const ids: string[] = [];
      for (const text of texts) ids.push((await env.client.put('same-moment', text, { occurredAt })).fact.id);
      return ids;
    };
    const first = await session(day1, ['kayak club: we met at the pier', 'kayak club: the river was calm', 'kayak club: lunch by the boathouse']);
    const second = await session(day2, ['kayak club: the race was windy', 'kayak club: we came third']);
    const written = await putAll('same-moment', ['kayak club: new paddles ordered', 'kayak club: dues paid']); // write times only
    const rankOf = (receipts: { fact: { id: string }; ranks: { recencyRank: number } }[]) => new Map(receipts.map((r) => [r.fact.id, r.ranks.recencyRank]));

    const matched = rankOf((await env.client.recallExplain('same-moment', 'kayak club', { topK: 7, weights: { vector: 0 } })).receipts);
    const recencyOnly = await env.client.recallExplain('same-moment', '', { topK: 7, weights: { vector: 0, keyword: 0 } });
    for (const ranks of [matched, rankOf(recencyOnly.receipts)]) {
      expect(written.map((id) => ranks.get(id))).toEqual([2, 1]); // newest write first, one rank each
      expect(second.map((id) => ranks.get(id))).toEqual([3, 3]);
      expect(first.map((id) => ranks.get(id))).toEqual([4, 4, 4]);
    }
    // Equal recency, equal score: the total order's tie-break (created_at, then id) orders them.
    expect(recencyOnly.receipts.map((r) => r.fact.id)).toEqual([...written.reverse(), ...second, ...first]);
    expect(isTotalOrder(recencyOnly.receipts)).toBe(true);
  });

  test('window_days keeps only facts whose event time is recent', async () => {
    const { facts, retrieval } = await env.client.recall('event', 'trip', { filters: { windowDays: 60 } });
    expect(facts.map((f) => f.text).sort()).toEqual(['trip to Oslo', 'trip to Rome']);
    expect(retrieval.filtered).toBe(true);
    expect(retrieval.eligibleCount).toBe(2);
  });

  test('occurred and created ranges filter before ranking', async () => {
    const occurred = await env.client.recall('event', 'trip', { filters: { occurredBefore: now - 30 * DAY } });
    expect(occurred.facts.map((f) => f.text).sort()).toEqual(['trip to Lisbon', 'trip to Rome']);
    const created = await env.client.recall('event', 'trip', { filters: { createdAfter: now + DAY } });
    expect(created.facts).toEqual([]);
  });

  test('tags: any and all', async () => {
    await env.client.put('tags', 'alpha report', { tags: ['work', 'q1'] });
    await env.client.put('tags', 'beta report', { tags: ['work'] });
    await env.client.put('tags', 'gamma report', { tags: ['home'] });
    const any = await env.client.recall('tags', 'report', { filters: { tagsAny: ['q1', 'home'] } });
    expect(any.facts.map((f) => f.text).sort()).toEqual(['alpha report', 'gamma report']);
    const all = await env.client.recall('tags', 'report', { filters: { tagsAll: ['work', 'q1'] } });
    expect(all.facts.map((f) => f.text)).toEqual(['alpha report']);
  });

  test('a filtered vector search finds eligible facts past ineligible neighbours (exact over a small eligible set)', async () => {
    // 150 near-identical facts crowd the neighbourhood of the query; the one eligible fact is tagged.
    for (let i = 0; i < 150; i++) await env.client.put('widen', `coffee espresso beans roast number ${i}`);
    await env.client.put('widen', 'tea leaves from the mountain garden', { tags: ['keep'] });
    const { receipts, retrieval } = await env.client.recallExplain('widen', 'coffee espresso roast', {
      filters: { tagsAny: ['keep'] },
      weights: { keyword: 0, recency: 0, vector: 1 },
    });
    expect(receipts.map((r) => r.text)).toEqual(['tea leaves from the mountain garden']);
    expect(receipts[0]!.ranks.vectorRank).toBe(1);
    // Small eligible set: searched exactly (every eligible vector), not through the HNSW graph.
    expect(retrieval.vectorSearched).toBe(1);
  });
});

describe('negotiation of the new options', () => {
  test('against a legacy daemon, options fail before sending; plain recall still works', async () => {
    const legacy = await startDaemon({ args: ['--compat', 'legacy'] });
    try {
      const c = await legacy.client();
      await c.put('old', 'legacy fact');
      expect((await c.recall('old', 'legacy', { topK: 3 })).facts).toHaveLength(1);
      await expect(c.recall('old', 'legacy', { minRelevance: 0.5 })).rejects.toBeInstanceOf(CapabilityError);
      await expect(c.batchRecall('old', ['a'])).rejects.toBeInstanceOf(CapabilityError);
      await expect(c.alias('old', 'a1', ['b1'])).rejects.toBeInstanceOf(CapabilityError);
      expect((await c.list('old')).facts).toHaveLength(1);
      c.close();
    } finally {
      await legacy.stop();
      removeDir(legacy.dataDir);
    }
  });
});
