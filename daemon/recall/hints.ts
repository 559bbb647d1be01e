// The knowledge graph's part in recall: the links a receipt lists, and the hint tail — up to
// three neighbours of the returned facts (facts related to them, then entities named with
// theirs), appended after the ranked facts. Hints never displace a ranked fact, never repeat one,
// and never name a retired fact; they carry no confidence receipt, so any min_confidence
// suppresses them, and explain never adds them.
import type { KgHint } from '../../shared/model.ts';
import { isIndexed } from '../index/derive.ts';
import { entityKey } from '../index/graph.ts';
import type { Indexer } from '../index/indexer.ts';
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';
import type { RecallPlan } from './plan.ts';

export type { KgHint } from '../../shared/model.ts';

export const MAX_HINTS = 3;

/** What retrieval metadata says of the hint tail ("" when the graph is off for the call). */
export function kgMode(plan: RecallPlan): string {
  if (plan.confidence?.minConfidence) return 'suppressed_min_confidence';
  return plan.kg ? 'hints_without_confidence_receipts' : '';
}

/** A fact's links as its receipt lists them: "type:id" (to), "<-type:id" (from),
 *  "consolidated_from:id" (what it summarises), "mentions:label". */
export function kgLinks(indexer: Indexer, fact: FactRecord): string[] {
  const out = fact.relations.map((r) => `${r.type}:${r.targetId}`);
  const ns = indexer.namespace(fact.agentId);
  if (ns) for (const [doc, types] of ns.graph.linksTo(fact.id)) for (const type of types) out.push(`<-${type}:${ns.doc(doc).factId}`);
  for (const source of fact.replaces) out.push(`consolidated_from:${source}`);
  for (const label of fact.entities) out.push(`mentions:${entityKey(label)}`);
  return out;
}

/** Up to three neighbours of the returned facts, in their order. */
export async function hintTail(indexer: Indexer, store: MemoryStore, facts: readonly FactRecord[]): Promise<KgHint[]> {
  const returned = new Set(facts.map((f) => `${f.agentId}\u0000${f.id}`));
  const candidates: { agentId: string; factId: string; relation: string; via: string }[] = [];
  for (const fact of facts) {
    for (const r of fact.relations) candidates.push({ agentId: fact.agentId, factId: r.targetId, relation: r.type, via: fact.id });
    const ns = indexer.namespace(fact.agentId);
    if (ns) for (const [doc, types] of ns.graph.linksTo(fact.id)) for (const type of types) candidates.push({ agentId: fact.agentId, factId: ns.doc(doc).factId, relation: type, via: fact.id });
  }
  const fresh = candidates.filter((c) => !returned.has(`${c.agentId}\u0000${c.factId}`)).slice(0, 4 * MAX_HINTS);
  const stored = await store.getFacts(fresh.map((c) => ({ agentId: c.agentId, factId: c.factId })));
  const hints: KgHint[] = [];
  const labels = new Set<string>();
  const add = (hint: KgHint) => {
    if (hints.length < MAX_HINTS && !labels.has(hint.label)) {
      labels.add(hint.label);
      hints.push(hint);
    }
  };
  fresh.forEach((c, i) => {
    const f = stored[i];
    if (f && isIndexed(f)) add({ label: f.text, kind: 'fact', factId: f.id, relation: c.relation, via: c.via });
  });
  for (const fact of facts) for (const hint of coMentioned(indexer, fact)) add(hint);
  return hints;
}

/** Entities named together with one of the fact's own (not its own), most co-mentioned first. */
function coMentioned(indexer: Indexer, fact: FactRecord): KgHint[] {
  const ns = indexer.namespace(fact.agentId);
  if (!ns) return [];
  const own = new Set(fact.entities.map(entityKey));
  const counts = new Map<string, number>();
  for (const label of own) {
    for (const doc of ns.graph.naming(label)) {
      for (const other of ns.doc(doc).entities) {
        const key = entityKey(other);
        if (!own.has(key)) counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_HINTS)
    .map(([label]) => ({ label, kind: 'entity', factId: '', relation: 'co_mention', via: fact.id }));
}
