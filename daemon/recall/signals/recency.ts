// Recency: newest first. Facts the writer gave the same event time (a conversation session's
// date, say) are equally recent and share a rank, the next time taking the next rank; write
// times never tie, since ids order writes within a millisecond. Imported history thereby gets one
// recency step per event, not one per fact (LoCoMo recall@10 0.666 → 0.683 with the default
// weights; npm run bench:quality).
import type { Doc, NamespaceIndex } from '../../index/namespace.ts';
import type { OrderSignal } from '../signal.ts';

const sameEventTime = (a: Doc, b: Doc): boolean => a.eventTime && b.eventTime && a.recencyTime === b.recencyTime;

export const recencySignal = {
  name: 'recency',
  kind: 'order',

  /** Same order as `runs`: newest time first; at one time, event-time facts (oldest first)
   *  before write-time facts (newest first), in id order. */
  rankAmong(ns: NamespaceIndex, docs: readonly number[]) {
    // Each doc's row is read once, not once per comparison (this runs on every recall).
    const rows = docs.map((doc) => ({ doc, info: ns.doc(doc) }));
    rows.sort((p, q) => {
      const [x, y] = [p.info, q.info];
      return y.recencyTime - x.recencyTime || Number(y.eventTime) - Number(x.eventTime) || (x.eventTime ? ns.idOrder(p.doc, q.doc) : ns.idOrder(q.doc, p.doc));
    });
    const ranks = new Map<number, number>();
    let rank = 0;
    rows.forEach((row, i) => {
      if (i === 0 || !sameEventTime(rows[i - 1]!.info, row.info)) rank++;
      ranks.set(row.doc, rank);
    });
    return ranks;
  },

  *runs(ns: NamespaceIndex, eligible: (doc: number) => boolean) {
    for (const run of ns.recency.newestRuns((doc) => ns.doc(doc).eventTime, (a, b) => ns.idOrder(b, a))) {
      const kept = run.filter(eligible);
      if (kept.length > 0) yield kept;
    }
  },
} as const satisfies OrderSignal;
