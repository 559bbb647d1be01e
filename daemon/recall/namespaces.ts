// RecallAll: an agent's ranking and the shared namespace's ranking combined by namespace RRF
// (each list position p scores 1 / (k + p)). Equal scores are broken by agent-list position,
// then shared-list position, then text, so the merged order is total. Facts the query matched
// are fused first and filler after, so one namespace's filler never outranks the other's match.
import type { RankedFact } from './rank.ts';
import { RRF_K } from './fusion.ts';

interface Entry {
  fact: RankedFact;
  text: string;
  score: number;
  agentPos: number;
  sharedPos: number;
}

export function mergeNamespaces(
  agent: RankedFact[],
  shared: RankedFact[],
  textOf: (fact: RankedFact) => string,
  topK: number,
): RankedFact[] {
  const matched = (list: RankedFact[], yes: boolean) => list.filter((f) => f.matched === yes);
  const seen = new Set<string>();
  const out: RankedFact[] = [];
  for (const entry of [...fuse(matched(agent, true), matched(shared, true), textOf), ...fuse(matched(agent, false), matched(shared, false), textOf)]) {
    if (out.length === topK) break;
    if (seen.has(entry.text)) continue;
    seen.add(entry.text);
    out.push(entry.fact);
  }
  return out;
}

function fuse(agent: RankedFact[], shared: RankedFact[], textOf: (fact: RankedFact) => string): Entry[] {
  const entries: Entry[] = [
    ...agent.map((fact, i) => ({ fact, text: textOf(fact), score: 1 / (RRF_K + i + 1), agentPos: i, sharedPos: Infinity })),
    ...shared.map((fact, i) => ({ fact, text: textOf(fact), score: 1 / (RRF_K + i + 1), agentPos: Infinity, sharedPos: i })),
  ];
  return entries.sort(
    (a, b) =>
      b.score - a.score ||
      a.agentPos - b.agentPos ||
      a.sharedPos - b.sharedPos ||
      (a.text < b.text ? -1 : a.text > b.text ? 1 : 0),
  );
}
