// Decay: the facts worth keeping first — used often, used lately, strong (lifecycle/decay.ts).
// Its weight is 0 by default, so recall orders as it always did unless a caller or the daemon's
// configuration asks for it. Facts with equal scores share a rank.
import type { NamespaceIndex } from '../../index/namespace.ts';
import { decayScore } from '../../lifecycle/decay.ts';
import type { OrderSignal, SignalContext } from '../signal.ts';

/** Docs with their scores at the call's time, best first; equal scores in doc (id) order. */
function scored(ns: NamespaceIndex, docs: Iterable<number>, at: SignalContext): { doc: number; score: number }[] {
  const rows: { doc: number; score: number }[] = [];
  for (const doc of docs) rows.push({ doc, score: decayScore(at.decay, ns.doc(doc), at.now) });
  return rows.sort((a, b) => b.score - a.score || a.doc - b.doc);
}

export const decaySignal = {
  name: 'decay',
  kind: 'order',

  rankAmong(ns: NamespaceIndex, docs: readonly number[], at: SignalContext) {
    const ranks = new Map<number, number>();
    let rank = 0;
    let last = NaN;
    for (const { doc, score } of scored(ns, docs, at)) {
      if (score !== last) rank++;
      last = score;
      ranks.set(doc, rank);
    }
    return ranks;
  },

  *runs(ns: NamespaceIndex, eligible: (doc: number) => boolean, at: SignalContext) {
    const rows = scored(ns, [...ns.docsInOrder()].filter(eligible), at);
    for (let i = 0; i < rows.length; ) {
      const run: number[] = [];
      const score = rows[i]!.score;
      while (i < rows.length && rows[i]!.score === score) run.push(rows[i++]!.doc);
      yield run;
    }
  },
} as const satisfies OrderSignal;
