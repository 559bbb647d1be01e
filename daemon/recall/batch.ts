// The merged view of a batch recall: every distinct fact any query returned, ordered by its best
// position in any query's list, then by how many queries returned it (more first), then by
// first appearance (query order, then position).
import type { FactRecord } from '../store/record.ts';

interface Entry {
  fact: FactRecord;
  bestRank: number;
  hits: number;
  firstSeen: number;
}

export function mergeBatch(lists: readonly FactRecord[][]): FactRecord[] {
  const entries = new Map<string, Entry>();
  let seen = 0;
  for (const list of lists) {
    list.forEach((fact, rank) => {
      const key = `${fact.agentId}\u0000${fact.id}`;
      const entry = entries.get(key);
      if (entry) {
        entry.bestRank = Math.min(entry.bestRank, rank);
        entry.hits++;
      } else {
        entries.set(key, { fact, bestRank: rank, hits: 1, firstSeen: seen++ });
      }
    });
  }
  return [...entries.values()]
    .sort((a, b) => a.bestRank - b.bestRank || b.hits - a.hits || a.firstSeen - b.firstSeen)
    .map((e) => e.fact);
}
