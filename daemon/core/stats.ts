// Counts for `engram stats` / `status`: read from the facts, the source of truth.
import type { Stats } from '../../shared/model.ts';
import { isIndexed } from '../index/derive.ts';
import { effectiveLabel } from '../lifecycle/confidence.ts';
import type { VectorSpace } from '../index/vector-space.ts';
import type { MemoryStore } from '../store/store.ts';

export type { Stats } from '../../shared/model.ts';

export async function computeStats(store: MemoryStore, vectors: VectorSpace, agentId: string | undefined): Promise<Stats> {
  const { embedder } = vectors;
  const stats: Stats = {
    factCount: 0, liveCount: 0, retiredCount: 0, pinnedCount: 0, textBytes: 0,
    oldestCreatedAt: 0, newestCreatedAt: 0, agentCount: 0, vectorCount: 0, pendingEmbeddings: 0,
    storeBytes: store.sizeBytes(),
    liveByConfidence: { verified: 0, inferred: 0, unverified: 0 },
    embedder: vectors.off ? `${embedder.id} (vectors off: ${vectors.off})` : embedder.id,
  };
  const agents = new Set<string>();
  for await (const { fact } of store.scanFacts(agentId === undefined ? {} : { agentId })) {
    // An alias record maps words for recall; it is not something the agent remembered (the
    // metrics' fact gauge leaves it out too).
    if (fact.kind === 'alias') continue;
    agents.add(fact.agentId);
    stats.factCount++;
    if (fact.supersededBy) stats.retiredCount++;
    else {
      stats.liveCount++;
      stats.liveByConfidence[effectiveLabel(fact.confidence)]++;
    }
    if (fact.pinned) stats.pinnedCount++;
    stats.textBytes += Buffer.byteLength(fact.text, 'utf8');
    if (!stats.oldestCreatedAt || fact.createdAt < stats.oldestCreatedAt) stats.oldestCreatedAt = fact.createdAt;
    stats.newestCreatedAt = Math.max(stats.newestCreatedAt, fact.createdAt);
    if (fact.vectorKey && !fact.supersededBy) stats.vectorCount++;
    // Waiting for a vector from the running model: failed at write time, or made by another model (reindex).
    if (embedder.dimensions > 0 && isIndexed(fact) && fact.embedder !== embedder.id) stats.pendingEmbeddings++;
  }
  stats.agentCount = agents.size;
  return stats;
}
