// Facts waiting for an embedding, in the order they were queued (oldest first).
interface PendingFact {
  agentId: string;
  id: string;
}

export class PendingSet {
  private readonly keys = new Map<string, PendingFact>();

  get size(): number {
    return this.keys.size;
  }

  add(fact: PendingFact): void {
    this.keys.set(`${fact.agentId}\u0000${fact.id}`, { agentId: fact.agentId, id: fact.id });
  }

  delete(fact: PendingFact): void {
    this.keys.delete(`${fact.agentId}\u0000${fact.id}`);
  }

  all(): PendingFact[] {
    return [...this.keys.values()];
  }

  /** Up to n queued facts, oldest first (they stay queued until delete). */
  take(n: number): PendingFact[] {
    const out: PendingFact[] = [];
    for (const fact of this.keys.values()) {
      if (out.length === n) break;
      out.push(fact);
    }
    return out;
  }
}
