// Property: for any slots, pinned and recalled facts and any budget, the packed block never
// exceeds the budget counted whole with the real tokenizer, never keeps a recalled fact when a
// slot or pinned fact was cut, keeps recalled facts as a prefix of recall order, keeps every
// kind's items in their order, and accounts for every item exactly once (kept or cut, with why).
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { pack, type ItemKind, type Section } from '../../daemon/context/pack.ts';
import { tokenCounter, type CountTokens } from '../../daemon/context/tokens.ts';

let countTokens: CountTokens;
beforeAll(async () => {
  countTokens = await tokenCounter();
});

const WORDS = ['deploy', 'never', 'Friday', 'postgres', '16', 'row-level', 'security', 'en-GB', 'weekly', 'report', '{"db":', '"rls":', 'true}', 'émigré', '数据库', '🚀', 'the', 'a'];
const line = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 40 }).map((w) => `- ${w.join(' ')}\n`);
const items = (kind: ItemKind) => fc.array(line, { maxLength: 12 }).map((texts) => texts.map((text, i) => ({ kind, id: `${kind}-${i}`, text })));
const sectionsArb = fc.tuple(items('slot'), items('pinned'), items('recalled')).map(
  ([slot, pinned, recalled]): Section[] => [
    { kind: 'slot', heading: '## Memory slots', items: slot },
    { kind: 'pinned', heading: '## Pinned facts', items: pinned },
    { kind: 'recalled', heading: '## Recalled facts', items: recalled },
  ],
);

describe('packing a context to a token budget', () => {
  test('never over the budget; slots and pinned facts never give way to recalled ones; recall order kept', () => {
    fc.assert(
      fc.property(sectionsArb, fc.integer({ min: 0, max: 900 }), (sections, budget) => {
        const packed = pack(sections, budget, countTokens);
        expect(countTokens(packed.block)).toBe(packed.tokens);
        expect(packed.tokens).toBeLessThanOrEqual(budget);

        const ids = (list: { id: string }[]) => list.map((i) => i.id);
        const all = sections.flatMap((s) => s.items);
        expect([...ids(packed.kept), ...ids(packed.cut)].sort()).toEqual(ids(all).sort());
        for (const cut of packed.cut) expect(cut.reason).not.toBe('');

        const keptOf = (kind: ItemKind) => ids(packed.kept.filter((i) => i.kind === kind));
        const offered = (kind: ItemKind) => ids(sections.find((s) => s.kind === kind)!.items);
        // Each kind's kept items are in the order offered, kinds in priority order.
        for (const kind of ['slot', 'pinned', 'recalled'] as const) {
          const order = offered(kind);
          const kept = keptOf(kind);
          expect(kept).toEqual(order.filter((id) => kept.includes(id)));
        }
        expect(packed.kept.map((i) => i.kind)).toEqual([...keptOf('slot').map(() => 'slot'), ...keptOf('pinned').map(() => 'pinned'), ...keptOf('recalled').map(() => 'recalled')]);
        // Recalled facts kept are a prefix of recall order.
        expect(keptOf('recalled')).toEqual(offered('recalled').slice(0, keptOf('recalled').length));
        // A cut slot or pinned fact means no recalled fact is in.
        if (packed.cut.some((c) => c.kind !== 'recalled')) expect(keptOf('recalled')).toEqual([]);
        // Headings appear only for kinds with items, in order.
        const headings = packed.block.split('\n').filter((l) => l.startsWith('## '));
        expect(headings).toEqual(sections.filter((s) => keptOf(s.kind).length).map((s) => s.heading));
      }),
      { numRuns: 400, seed: 15 },
    );
  });

  test('with room for everything, everything is kept and nothing is cut', () => {
    const sections: Section[] = [
      { kind: 'slot', heading: '## Memory slots', items: [{ kind: 'slot', id: 's', text: '- do_not_do: "never deploy on Friday"\n' }] },
      { kind: 'pinned', heading: '## Pinned facts', items: [{ kind: 'pinned', id: 'p', text: '- the db is postgres 16\n' }] },
      { kind: 'recalled', heading: '## Recalled facts', items: [{ kind: 'recalled', id: 'r', text: '- reports go out weekly\n' }] },
    ];
    const packed = pack(sections, 1000, countTokens);
    expect(packed.cut).toEqual([]);
    expect(packed.block).toBe('## Memory slots\n- do_not_do: "never deploy on Friday"\n\n## Pinned facts\n- the db is postgres 16\n\n## Recalled facts\n- reports go out weekly\n');
    expect(packed.tokens).toBe(countTokens(packed.block));
  });

  test("a cut says its own tokens once; the reason adds only what its section's heading would have cost", () => {
    // One token per word, so the counts are plain: each line 4, the heading 3.
    const words: CountTokens = (text) => text.split(/\s+/).filter(Boolean).length;
    const recalled = (budget: number) =>
      pack([{ kind: 'recalled', heading: '## Recalled facts', items: ['r0', 'r1'].map((id) => ({ kind: 'recalled' as const, id, text: `- fact ${id} here\n` })) }], budget, words);
    // The section is open (r0 and its heading are in): r1 would have cost its own 4 tokens.
    expect(recalled(8).cut).toEqual([{ kind: 'recalled', id: 'r1', tokens: 4, reason: 'over the budget: 1 of 8 tokens left' }]);
    // Nothing is in yet: r0 would have brought the heading with it.
    expect(recalled(5).cut).toEqual([
      { kind: 'recalled', id: 'r0', tokens: 4, reason: 'over the budget: 5 of 5 tokens left (with the heading of its section it would have cost 7)' },
      { kind: 'recalled', id: 'r1', tokens: 4, reason: 'over the budget after a higher-ranked recalled fact' },
    ]);
  });
});
