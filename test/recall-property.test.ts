// Property: for random stores and random queries and options, recall returns a total,
// repeatable order with no duplicate text and no ineligible fact (fast-check, real daemon).
import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { Fact, RecallOptions } from '../client/index.ts';
import { useDaemon } from './fixtures/daemon.ts';
import { isTotalOrder } from './fixtures/receipts.ts';

const env = useDaemon({ embedder: 'local' });
let namespaceCounter = 0;

const WORDS = ['river', 'stone', 'garden', 'coffee', 'meeting', 'budget', 'piano', 'winter', 'train', 'letter', 'blue', 'quick'];
const TAGS = ['a', 'b', 'c'];
const DAY = 86_400_000;
const BASE = Date.UTC(2024, 0, 1);

const factArb = fc.record({
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }),
  tags: fc.subarray(TAGS),
  occurredDay: fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
  forget: fc.boolean(),
});

const optionsArb: fc.Arbitrary<RecallOptions> = fc.record(
  {
    topK: fc.integer({ min: 1, max: 12 }),
    weights: fc.record(
      // decay too: with recency it makes two order signals, whose every-fact ranking takes its own path
      { vector: fc.constantFrom(0, 0.5, 1), keyword: fc.constantFrom(0, 1, 2), recency: fc.constantFrom(0, 0.5), decay: fc.constantFrom(0, 1) },
      { requiredKeys: [] },
    ),
    minRelevance: fc.constantFrom(0, 0.3, 0.8),
    filters: fc.record(
      { tagsAny: fc.subarray(TAGS, { minLength: 1 }), occurredAfter: fc.constant(BASE + 100 * DAY) },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['topK'] },
).filter((o) => !o.weights || (o.weights.vector ?? 1) + (o.weights.keyword ?? 1) + (o.weights.recency ?? 0.5) + (o.weights.decay ?? 0) > 0);

function eligible(fact: Fact, options: RecallOptions): boolean {
  if (fact.supersededBy !== undefined || fact.kind !== 'fact') return false;
  const f = options.filters;
  if (f?.tagsAny && !f.tagsAny.some((t) => fact.tags.includes(t))) return false;
  if (f?.occurredAfter !== undefined && (fact.occurredAt ?? fact.createdAt) < f.occurredAfter) return false;
  return true;
}

test('recall is total, repeatable, distinct and eligible for random stores and queries', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(factArb, { minLength: 1, maxLength: 25 }),
      fc.array(fc.constantFrom(...WORDS, 'unknownword'), { minLength: 0, maxLength: 3 }),
      optionsArb,
      async (facts, queryWords, options) => {
        const agent = `prop-${namespaceCounter++}`;
        for (const f of facts) {
          const { fact } = await env.client.put(agent, f.words.join(' '), {
            tags: f.tags,
            occurredAt: f.occurredDay === undefined ? undefined : BASE + f.occurredDay * DAY,
          });
          if (f.forget) await env.client.forget(agent, fact.id);
        }
        const query = queryWords.join(' ');
        const first = await env.client.recallExplain(agent, query, options);
        const second = await env.client.recallExplain(agent, query, options);
        const ids = first.receipts.map((r) => r.fact.id);

        expect(second.receipts.map((r) => r.fact.id)).toEqual(ids);
        expect(isTotalOrder(first.receipts)).toBe(true);
        expect(new Set(first.receipts.map((r) => r.text)).size).toBe(ids.length);
        for (const r of first.receipts) expect(eligible(r.fact, options)).toBe(true);
        expect(ids.length).toBeLessThanOrEqual(options.topK!);
        if ((options.minRelevance ?? 0) === 0) {
          const all: Fact[] = [];
          for await (const f of env.client.listAll(agent)) all.push(f);
          const distinct = new Set(all.filter((f) => eligible(f, options)).map((f) => f.text)).size;
          expect(ids.length).toBe(Math.min(options.topK!, distinct));
        }
      },
    ),
    { numRuns: 40, seed: 20261130 },
  );
}, 120_000);
