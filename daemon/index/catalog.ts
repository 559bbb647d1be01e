// All namespaces' in-memory indexes, by agent id.
import { NamespaceIndex } from './namespace.ts';

export class Catalog {
  private readonly namespaces = new Map<string, NamespaceIndex>();

  get(agentId: string): NamespaceIndex | undefined {
    return this.namespaces.get(agentId);
  }

  ensure(agentId: string): NamespaceIndex {
    let ns = this.namespaces.get(agentId);
    if (!ns) {
      ns = new NamespaceIndex(agentId);
      this.namespaces.set(agentId, ns);
    }
    return ns;
  }

  /** Adds a namespace restored from a snapshot. */
  restore(ns: NamespaceIndex): void {
    this.namespaces.set(ns.agentId, ns);
  }

  all(): IterableIterator<NamespaceIndex> {
    return this.namespaces.values();
  }

  clear(): void {
    this.namespaces.clear();
  }
}
