// Counts for `engram stats` / `status`: read from the facts table, the source of truth.
import { statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Memory } from '../memory.ts';
import { dataPaths } from '../../shared/discovery.ts';
import { namespaceRange } from './keys.ts';
import { decodeFact } from './record.ts';
import { isIndexed } from '../index/derive.ts';

export type { Stats } from '../../shared/model.ts';
import type { Stats } from '../../shared/model.ts';

export async function computeStats(memory: Memory, agentId: string | undefined): Promise<Stats> {
  const stats: Stats = {
    factCount: 0, liveCount: 0, retiredCount: 0, pinnedCount: 0, textBytes: 0,
    oldestCreatedAt: 0, newestCreatedAt: 0, agentCount: 0, vectorCount: 0, pendingEmbeddings: 0,
    storeBytes: directoryBytes(dataPaths(memory.options.dataDir).store),
    embedder: memory.vectorsOff ? `${memory.embedder.id} (vectors off: ${memory.vectorsOff})` : memory.embedder.id,
  };
  const agents = new Set<string>();
  const range = agentId === undefined ? {} : namespaceRange(agentId);
  for await (const raw of memory.tables.facts.values(range)) {
    const fact = decodeFact(raw);
    agents.add(fact.agentId);
    stats.factCount++;
    if (fact.supersededBy) stats.retiredCount++;
    else stats.liveCount++;
    if (fact.pinned) stats.pinnedCount++;
    stats.textBytes += Buffer.byteLength(fact.text, 'utf8');
    if (!stats.oldestCreatedAt || fact.createdAt < stats.oldestCreatedAt) stats.oldestCreatedAt = fact.createdAt;
    stats.newestCreatedAt = Math.max(stats.newestCreatedAt, fact.createdAt);
    if (fact.vectorKey && !fact.supersededBy) stats.vectorCount++;
    // Waiting for a vector from the running model: failed at write time, or made by another model (reindex).
    if (memory.embedder.dimensions > 0 && isIndexed(fact) && fact.embedder !== memory.embedder.id) stats.pendingEmbeddings++;
  }
  stats.agentCount = agents.size;
  return stats;
}

function directoryBytes(dir: string): number {
  try {
    return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
  } catch {
    return 0;
  }
}
