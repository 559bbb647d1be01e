// Access bookkeeping: recall bumps the access count and last-access time of the facts it
// returns. The counts live in their own table, not in the fact record, so counting never
// rewrites a fact or races with a change to it. They are statistics, not acknowledged writes:
// totals are kept in memory (shown on every read at once) and the changed ones are written in
// one unsynced batch per interval, so a crash may lose the last interval's counts, never a fact.
import type { FactRecord } from '../store/record.ts';
import type { AccessRow, FactKey, MemoryStore } from '../store/store.ts';

const keyOf = (agentId: string, factId: string): string => `${agentId}\u0000${factId}`;

export class AccessTracker {
  private readonly totals = new Map<string, AccessRow>();
  private dirty = new Map<string, FactKey>();

  /** Loads the stored totals (start-up). */
  async load(store: MemoryStore): Promise<void> {
    for await (const [key, row] of store.scanAccess()) this.totals.set(keyOf(key.agentId, key.factId), row);
  }

  record(facts: readonly { agentId: string; id: string }[], now: number): void {
    for (const fact of facts) {
      const key = keyOf(fact.agentId, fact.id);
      const row = this.totals.get(key);
      this.totals.set(key, { count: (row?.count ?? 0) + 1, last: now });
      this.dirty.set(key, { agentId: fact.agentId, factId: fact.id });
    }
  }

  /** The fact as readers see it: its record plus the access totals. */
  overlay(fact: FactRecord): FactRecord {
    const row = this.totals.get(keyOf(fact.agentId, fact.id));
    if (!row) return fact;
    return { ...fact, accessCount: fact.accessCount + row.count, lastAccessedAt: Math.max(fact.lastAccessedAt, row.last) };
  }

  /** A deleted fact's counts go with it (its row is deleted in the same batch as the fact). */
  forget(agentId: string, factId: string): void {
    const key = keyOf(agentId, factId);
    this.totals.delete(key);
    this.dirty.delete(key);
  }

  get pendingWrites(): number {
    return this.dirty.size;
  }

  /** Writes every changed total in one unsynced batch. */
  async flush(store: MemoryStore): Promise<void> {
    if (this.dirty.size === 0) return;
    const changed = [...this.dirty];
    this.dirty = new Map();
    const rows = changed.flatMap(([key, factKey]): [FactKey, AccessRow][] => {
      const row = this.totals.get(key);
      return row ? [[factKey, row]] : [];
    });
    await store.writeAccess(rows);
  }
}
