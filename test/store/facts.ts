// Fact records for store tests: what the core would write, with the store's own ids.
import { decodeFact, type FactRecord } from '../../daemon/store/record.ts';
import type { MemoryStore } from '../../daemon/store/store.ts';

export function newFact(store: MemoryStore, agentId: string, text: string, extra: Partial<FactRecord> = {}): FactRecord {
  const { id, time } = store.nextId(Date.now());
  return decodeFact({ id, agentId, text, createdAt: time, updatedAt: time, ...extra });
}
