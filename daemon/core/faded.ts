// The faded facts of a namespace: live, unpinned, unpromoted facts whose decay score is below a
// threshold now, weakest first (ties in id order), read from the in-memory index rows. Garbage
// collection takes them below the forget threshold, consolidation below its own.
import type { Indexer } from '../index/indexer.ts';
import { decayScore, type DecayConfig } from '../lifecycle/decay.ts';

export interface FadedFact {
  factId: string;
  score: number;
}

export function fadedFacts(indexer: Indexer, agentId: string, decay: DecayConfig, below: number, now: number): FadedFact[] {
  const ns = indexer.namespace(agentId);
  if (!ns) return [];
  const out: FadedFact[] = [];
  for (const doc of ns.docsInOrder()) {
    const info = ns.doc(doc);
    if (info.pinned || info.promoted) continue;
    const score = decayScore(decay, info, now);
    if (score < below) out.push({ factId: info.factId, score });
  }
  return out.sort((a, b) => a.score - b.score || (a.factId < b.factId ? -1 : 1));
}
