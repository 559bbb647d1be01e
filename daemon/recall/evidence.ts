// The supporting records a recipe with include_evidence attaches to each result: what a summary
// consolidated (its sources, retired into it) and the facts linked to it as "supports". Read at
// recall time from the store and the graph index, so they are never stale.
import type { Evidence } from '../../shared/model.ts';
import type { Indexer } from '../index/indexer.ts';
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';

/** At most this many records per result: a summary of hundreds of facts still answers quickly. */
export const MAX_EVIDENCE = 20;

interface Wanted {
  kind: Evidence['kind'];
  agentId: string;
  factId: string;
}

function wantedFor(indexer: Indexer, fact: FactRecord): Wanted[] {
  // A revision also lists what it replaced, but an earlier wording is not evidence for it.
  const sources = fact.kind === 'summary' ? fact.replaces : [];
  const out: Wanted[] = sources.map((factId) => ({ kind: 'summary_source', agentId: fact.agentId, factId }));
  const ns = indexer.namespace(fact.agentId);
  if (ns) {
    for (const [doc, types] of ns.graph.linksTo(fact.id)) {
      if (types.has('supports')) out.push({ kind: 'supports', agentId: fact.agentId, factId: ns.doc(doc).factId });
    }
  }
  return out.slice(0, MAX_EVIDENCE);
}

/** One list per fact, same order. */
export async function evidenceOf(indexer: Indexer, store: MemoryStore, facts: readonly FactRecord[]): Promise<Evidence[][]> {
  const wanted = facts.map((fact) => wantedFor(indexer, fact));
  const stored = await store.getFacts(wanted.flat().map(({ agentId, factId }) => ({ agentId, factId })));
  let i = 0;
  return wanted.map((list) =>
    list.map((w) => {
      const f = stored[i++];
      return { kind: w.kind, ref: w.factId, text: f?.text ?? '', retired: f ? f.supersededBy !== '' : false };
    }),
  );
}
