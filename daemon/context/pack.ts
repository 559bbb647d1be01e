// Packing a context block to a token budget. Sections come in priority order (slots, pinned
// facts, recalled facts), each item whole or not at all. A slot or pinned fact that does not fit
// is cut and the packer goes on with the next of its kind, since each is something the agent must
// not lose; once one is cut, no recalled fact goes in (a recalled fact never takes the place of
// one). Recalled facts stop at the first that does not fit, so what is kept is a prefix of recall
// order. The block is then counted whole, and while it exceeds the budget (a tokenizer may merge
// across item boundaries) the last item of the lowest kind goes.

export type ItemKind = 'slot' | 'pinned' | 'recalled';

export interface PackItem {
  kind: ItemKind;
  id: string;
  /** The item's lines, each ending in a newline. */
  text: string;
}

export interface Section {
  kind: ItemKind;
  heading: string;
  items: PackItem[];
}

export interface Cut {
  kind: ItemKind;
  id: string;
  /** The item's tokens counted alone, as a kept item's are. */
  tokens: number;
  /** Why, in words that name no other count of the item but what it would have cost with the
   *  heading of its section, when that made the difference. */
  reason: string;
}

export interface Packed {
  block: string;
  tokens: number;
  kept: (PackItem & { tokens: number })[];
  cut: Cut[];
}

const RANK: Record<ItemKind, number> = { slot: 0, pinned: 1, recalled: 2 };

function render(sections: readonly Section[], kept: readonly PackItem[]): string {
  const parts: string[] = [];
  for (const section of sections) {
    const items = kept.filter((item) => item.kind === section.kind);
    if (items.length) parts.push(`${section.heading}\n${items.map((i) => i.text).join('')}`);
  }
  return parts.join('\n');
}

/** A cut's own tokens are in its tokens field; its reason says the budget left and, only when the
 *  heading of its section (not in the block yet) would have come with it, what it would have cost
 *  then — so a cut never shows two counts of itself a reader cannot tell apart. */
function overBudget(left: number, budget: number, tokens: number, cost: number): string {
  return `over the budget: ${left} of ${budget} tokens left${cost > tokens ? ` (with the heading of its section it would have cost ${cost})` : ''}`;
}

export function pack(sections: readonly Section[], budget: number, count: (text: string) => number): Packed {
  const kept: (PackItem & { tokens: number })[] = [];
  const cut: Cut[] = [];
  let used = 0;
  let mustHaveCut = false;
  let recalledStopped = false;
  for (const section of sections) {
    // A heading costs its tokens and the blank line before it, once its first item is in.
    const headingCost = count(`${kept.length ? '\n' : ''}${section.heading}\n`);
    let opened = false;
    for (const item of section.items) {
      const tokens = count(item.text);
      if (item.kind === 'recalled' && (mustHaveCut || recalledStopped)) {
        cut.push({ kind: item.kind, id: item.id, tokens, reason: mustHaveCut ? 'a slot or pinned fact did not fit, so no recalled fact goes in' : 'over the budget after a higher-ranked recalled fact' });
        continue;
      }
      const cost = tokens + (opened ? 0 : headingCost);
      if (used + cost <= budget) {
        kept.push({ ...item, tokens });
        used += cost;
        opened = true;
        continue;
      }
      cut.push({ kind: item.kind, id: item.id, tokens, reason: overBudget(budget - used, budget, tokens, cost) });
      if (item.kind === 'recalled') recalledStopped = true;
      else mustHaveCut = true;
    }
  }
  let block = render(sections, kept);
  let tokens = count(block);
  while (tokens > budget && kept.length > 0) {
    const lowest = kept.reduce((worst, item, i) => (RANK[item.kind] >= RANK[kept[worst]!.kind] ? i : worst), 0);
    const [dropped] = kept.splice(lowest, 1);
    cut.push({ kind: dropped!.kind, id: dropped!.id, tokens: dropped!.tokens, reason: `the whole block counted ${tokens} tokens, over the budget of ${budget}` });
    block = render(sections, kept);
    tokens = count(block);
  }
  return { block, tokens, kept, cut };
}
