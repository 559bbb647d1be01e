// The stored vectors of many facts, read in one query per namespace.
import type { FactRecord } from './record.ts';
import type { MemoryStore } from './store.ts';

export interface FactVectors {
  /** The vector stored under the fact's vector key, if read. */
  of(fact: Pick<FactRecord, 'agentId' | 'vectorKey'>): Float32Array | undefined;
}

export async function readFactVectors(store: MemoryStore, facts: Iterable<Pick<FactRecord, 'agentId' | 'vectorKey'>>): Promise<FactVectors> {
  const wanted = new Map<string, number[]>();
  for (const fact of facts) {
    if (!fact.vectorKey) continue;
    const keys = wanted.get(fact.agentId) ?? [];
    keys.push(fact.vectorKey);
    wanted.set(fact.agentId, keys);
  }
  const vectors = new Map<string, Float32Array>();
  const keyOf = (agentId: string, vectorKey: number) => `${agentId}\u0000${vectorKey}`;
  for (const [agentId, keys] of wanted) {
    const found = await store.getVectors(agentId, keys);
    keys.forEach((key, i) => found[i] && vectors.set(keyOf(agentId, key), found[i]!));
  }
  return { of: (fact) => vectors.get(keyOf(fact.agentId, fact.vectorKey)) };
}
