// Access bookkeeping: recall bumps access_count and last_accessed_at on the facts it returns.
// A recall must not wait for a disk write, so deltas collect in memory, show on every read at
// once, and are written in one unsynced batch per interval. They are statistics, not
// acknowledged writes: a crash may lose the last interval's counts, never a fact.
import type { FactStore } from '../store/fact-store.ts';
import { factKey } from '../store/keys.ts';
import type { FactRecord } from '../store/record.ts';

interface Delta {
  agentId: string;
  factId: string;
  count: number;
  lastAccessedAt: number;
}

export class AccessTracker {
  private pending = new Map<string, Delta>();
  /** Deltas being written right now: still shown by overlay until they are on disk. */
  private writing = new Map<string, Delta>();

  record(facts: readonly { agentId: string; id: string }[], now: number): void {
    for (const fact of facts) {
      const key = factKey(fact.agentId, fact.id);
      const delta = this.pending.get(key) ?? { agentId: fact.agentId, factId: fact.id, count: 0, lastAccessedAt: 0 };
      delta.count++;
      delta.lastAccessedAt = now;
      this.pending.set(key, delta);
    }
  }

  /** The fact as readers should see it: stored counts plus accesses not yet written. */
  overlay(fact: FactRecord): FactRecord {
    const key = factKey(fact.agentId, fact.id);
    let result = fact;
    for (const delta of [this.writing.get(key), this.pending.get(key)]) {
      if (delta) result = applyDelta(result, delta);
    }
    return result;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Writes pending deltas; each fact is re-read under its lock so a concurrent mutation is never undone. */
  async flush(store: FactStore): Promise<void> {
    this.writing = this.pending;
    this.pending = new Map();
    await Promise.all(
      [...this.writing.values()].map((delta) =>
        store.withLock(delta.agentId, delta.factId, async () => {
          const fact = await store.get(delta.agentId, delta.factId);
          if (!fact) return; // deleted meanwhile: nothing to count
          await store.putUnsynced([applyDelta(fact, delta)]);
        }),
      ),
    );
    this.writing = new Map();
  }
}

function applyDelta(fact: FactRecord, delta: Delta): FactRecord {
  return {
    ...fact,
    accessCount: fact.accessCount + delta.count,
    lastAccessedAt: Math.max(fact.lastAccessedAt, delta.lastAccessedAt),
  };
}
