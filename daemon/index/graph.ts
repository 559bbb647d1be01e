// The knowledge graph of one namespace, in memory: which live facts name each entity, and which
// live facts link to each fact. Derived from the live facts' own records (their entities and
// relations), so it rebuilds with the other indexes and can never hold an edge the store lacks.
// Co-mention edges (two entities named by one fact) are read from it, not stored: they follow
// the facts they come from, so retiring a fact takes its co-mentions with it.

/** The part of a doc the graph reads. */
export interface GraphDoc {
  factId: string;
  entities: readonly string[];
  relations: readonly { type: string; targetId: string }[];
}

/** One entity as a graph node: entities are matched case-insensitively. */
export const entityKey = (label: string): string => label.normalize('NFC').toLowerCase().trim();

export class FactGraph {
  /** entity key → the live docs that name it. */
  private readonly byEntity = new Map<string, Set<number>>();
  /** fact id → live docs linking to it → the relation types. */
  private readonly incoming = new Map<string, Map<number, Set<string>>>();
  private relationCount = 0;

  add(doc: number, info: GraphDoc): void {
    for (const label of info.entities) {
      const key = entityKey(label);
      let docs = this.byEntity.get(key);
      if (!docs) this.byEntity.set(key, (docs = new Set()));
      docs.add(doc);
    }
    for (const r of info.relations) {
      let from = this.incoming.get(r.targetId);
      if (!from) this.incoming.set(r.targetId, (from = new Map()));
      let types = from.get(doc);
      if (!types) from.set(doc, (types = new Set()));
      if (!types.has(r.type)) this.relationCount++;
      types.add(r.type);
    }
  }

  remove(doc: number, info: GraphDoc): void {
    for (const label of info.entities) {
      const key = entityKey(label);
      const docs = this.byEntity.get(key);
      docs?.delete(doc);
      if (docs?.size === 0) this.byEntity.delete(key);
    }
    for (const r of info.relations) {
      const from = this.incoming.get(r.targetId);
      const types = from?.get(doc);
      if (types?.delete(r.type)) this.relationCount--;
      if (types?.size === 0) from!.delete(doc);
      if (from?.size === 0) this.incoming.delete(r.targetId);
    }
  }

  /** The live docs naming an entity. */
  naming(label: string): ReadonlySet<number> {
    return this.byEntity.get(entityKey(label)) ?? EMPTY;
  }

  /** The live docs with a relation to this fact, each with its relation types. */
  linksTo(factId: string): ReadonlyMap<number, ReadonlySet<string>> {
    return this.incoming.get(factId) ?? EMPTY_LINKS;
  }

  /** Whether any live fact links to this one. */
  isLinked(factId: string): boolean {
    return this.incoming.has(factId);
  }

  hasEntity(label: string): boolean {
    return this.byEntity.has(entityKey(label));
  }

  /** Every entity with the number of live facts naming it. */
  *entities(): Generator<[string, number]> {
    for (const [key, docs] of this.byEntity) yield [key, docs.size];
  }

  get entityCount(): number {
    return this.byEntity.size;
  }

  /** Relations between live facts and any fact (a target may be retired: doctor reports it). */
  get relations(): number {
    return this.relationCount;
  }
}

const EMPTY: ReadonlySet<number> = new Set();
const EMPTY_LINKS: ReadonlyMap<number, ReadonlySet<string>> = new Map();
