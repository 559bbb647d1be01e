// The knowledge graph's operations: typed relations between facts (Relate), entities attached to
// a fact (memory_reflect link), and reads of a fact's or an entity's neighbourhood. Relations
// live in the record of the fact they start from, so they are as durable as the fact; both ends
// are locked and must be live, so a relation never points at a fact that is gone.
import { EngramError, ErrorKind, fieldNotFound, invalidArgument, noFact } from '../../shared/errors.ts';
import { RELATION_TYPES, type GraphEdge, type GraphNode, type GraphView } from '../../shared/model.ts';
import * as check from '../../shared/validate.ts';
import { isIndexed } from '../index/derive.ts';
import type { AccessTracker } from '../lifecycle/access.ts';
import { entityKey } from '../index/graph.ts';
import type { Indexer } from '../index/indexer.ts';
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';
import { requestReused, type WritePipeline } from '../write/pipeline.ts';
import { cleanRelations } from '../write/relink.ts';
import type { FactStaging } from '../write/staging.ts';
import type { CallContext } from './context.ts';
import { preview } from './similarity.ts';

export type { GraphEdge, GraphNode, GraphView } from '../../shared/model.ts';

export interface RelateInput {
  agentId: unknown;
  fromId: unknown;
  toId: unknown;
  type: unknown;
  /** Remove the relation instead of adding it. */
  remove?: unknown;
}

export interface RelateResult {
  /** The fact the relation starts from, as stored now. */
  fact: FactRecord;
  /** false: it already was as asked (nothing written). */
  changed: boolean;
  replayed: boolean;
}

export interface GraphInput {
  agentId: unknown;
  factId?: unknown;
  entity?: unknown;
  /** How many facts naming an entity are listed (default 25, at most 200). */
  limit?: unknown;
}

/** A fact's most co-mentioned entities listed per entity. */
const CO_MENTIONS = 10;

export function checkRelationType(value: unknown, field = 'type'): string {
  if (typeof value !== 'string' || !(RELATION_TYPES as readonly string[]).includes(value)) {
    throw invalidArgument(field, `must be one of ${RELATION_TYPES.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value;
}

export class Graph {
  constructor(
    private readonly store: MemoryStore,
    private readonly pipeline: WritePipeline,
    private readonly staging: FactStaging,
    private readonly indexer: Indexer,
    /** A relate or link answers the fact as every read shows it, with its access totals (the
     *  record alone has none of the recalls since the last flush). */
    private readonly access: AccessTracker,
  ) {}

  /** Relate: adds (or removes) `from --type--> to`. Both must be live facts of the namespace. */
  relate(ctx: CallContext, input: RelateInput): Promise<RelateResult> {
    const agentId = check.agentId(input.agentId);
    const fromId = check.factId(input.fromId, 'from_id');
    const toId = check.factId(input.toId, 'to_id');
    const type = checkRelationType(input.type);
    const remove = input.remove === undefined ? false : check.boolean(input.remove, 'remove');
    if (fromId === toId) throw invalidArgument('to_id', 'a fact cannot be related to itself');
    const requestId = check.requestId(ctx.requestId);
    return this.pipeline.run<RelateResult>(ctx, {
      agentId,
      requestId,
      request: { op: 'relate', fromId, toId, type, remove },
      locks: [fromId, toId],
      plan: async () => {
        const [from, to] = await this.store.getFacts([fromId, toId].map((factId) => ({ agentId, factId })));
        if (!remove) {
          liveFact(from, fromId, 'from_id', agentId, 'relate live facts');
          liveFact(to, toId, 'to_id', agentId, 'relate live facts');
        } else if (!from) throw noFact('from_id', fromId, agentId);
        const relations = remove
          ? from!.relations.filter((r) => !(r.type === type && r.targetId === toId))
          : cleanRelations(fromId, [...from!.relations, { type, targetId: toId, createdAt: Date.now() }]);
        if (relations.length === from!.relations.length) return () => ({ changes: [], result: { fact: this.access.overlay(from!), changed: false, replayed: false }, record: { op: 'relate', factId: fromId } });
        const staged = this.staging.lifecycle(from!, { ...from!, relations, updatedAt: Date.now() });
        return () => ({ changes: [staged.change], result: { fact: this.access.overlay(staged.fact), changed: true, replayed: false }, record: { op: 'relate', factId: fromId }, apply: staged.apply });
      },
      replay: async (recorded) => {
        if (recorded.op !== 'relate') throw requestReused(requestId, recorded, 'relate');
        const [fact] = await this.store.getFacts([{ agentId, factId: fromId }]);
        if (!fact) throw noFact('from_id', fromId, agentId);
        return { fact: this.access.overlay(fact), changed: true, replayed: true };
      },
    });
  }

  /** Adds an entity to a live fact, as one transactional patch (two links at once both land). */
  linkEntity(ctx: CallContext, input: { agentId: unknown; factId: unknown; entity: unknown; type?: unknown }): Promise<FactRecord> {
    const agentId = check.agentId(input.agentId);
    const factId = check.factId(input.factId);
    const entity = entityLabel(input.entity);
    const type = input.type === undefined ? '' : check.source(input.type, 'entity_type');
    const requestId = check.requestId(ctx.requestId);
    return this.pipeline.run<FactRecord>(ctx, {
      agentId,
      requestId,
      request: { op: 'link', factId, entity, type },
      locks: [factId],
      plan: async () => {
        const [before] = await this.store.getFacts([{ agentId, factId }]);
        const fact = liveFact(before, factId, 'fact_id', agentId, 'link and type entities on live facts');
        // An entity the fact names already, in any case, is that one: its type goes on its label.
        const known = fact.entities.find((e) => entityKey(e) === entityKey(entity));
        const label = known ?? entity;
        const typed = type && fact.entityTypes[label] !== type;
        if (known && !typed) return () => ({ changes: [], result: this.access.overlay(fact), record: { op: 'link', factId } });
        const after: FactRecord = {
          ...fact,
          entities: known ? fact.entities : [...fact.entities, entity],
          entityTypes: type ? { ...fact.entityTypes, [label]: type } : fact.entityTypes,
          updatedAt: Date.now(),
        };
        const staged = await this.staging.changed(fact, after);
        return () => ({ changes: [staged.change], result: this.access.overlay(staged.fact), record: { op: 'link', factId }, apply: staged.apply });
      },
      replay: async (recorded) => {
        if (recorded.op !== 'link') throw requestReused(requestId, recorded, 'link');
        const [fact] = await this.store.getFacts([{ agentId, factId }]);
        if (!fact) throw noFact('fact_id', factId, agentId);
        return this.access.overlay(fact);
      },
    });
  }

  /** read_graph: the neighbourhood of a fact (its entities, its relations both ways, its
   *  lineage) or of an entity (the facts naming it, the entities named with it). */
  async neighbourhood(_ctx: CallContext, input: GraphInput): Promise<GraphView> {
    const agentId = check.agentId(input.agentId);
    const limit = input.limit === undefined ? 25 : check.count(input.limit, 'limit', check.MAX_GRAPH_LIMIT);
    check.graphCentre(input.factId, input.entity);
    const view = new ViewBuilder();
    if (input.factId !== undefined) await this.factNeighbourhood(agentId, check.factId(input.factId), view);
    else this.entityNeighbourhood(agentId, entityLabel(input.entity), limit, view);
    await this.describeFacts(agentId, view);
    return view.done();
  }

  private async factNeighbourhood(agentId: string, factId: string, view: ViewBuilder): Promise<void> {
    const [fact] = await this.store.getFacts([{ agentId, factId }]);
    if (!fact || fact.kind === 'alias') throw noFact('fact_id', factId, agentId);
    view.fact(fact.id);
    for (const label of fact.entities) view.edge(fact.id, view.entity(label, fact.entityTypes[label] ?? ''), 'mentions');
    for (const r of fact.relations) view.edge(fact.id, view.fact(r.targetId), r.type);
    const ns = this.indexer.namespace(agentId);
    if (ns) for (const [doc, types] of ns.graph.linksTo(fact.id)) for (const type of types) view.edge(view.fact(ns.doc(doc).factId), fact.id, type);
    // Lineage: what it summarises or replaced, and what replaced it.
    for (const source of fact.replaces) view.edge(fact.id, view.fact(source), 'consolidated_from');
    if (fact.supersededBy && check.isFactId(fact.supersededBy)) view.edge(view.fact(fact.supersededBy), fact.id, 'consolidated_from');
  }

  private entityNeighbourhood(agentId: string, label: string, limit: number, view: ViewBuilder): void {
    const ns = this.indexer.namespace(agentId);
    // No live fact names it (never did, or all of them were retired): there is no neighbourhood
    // to show, and an empty one would read as an answer; not found, as an unknown fact is.
    if (!ns || !ns.graph.hasEntity(label)) throw fieldNotFound('entity', `no live fact in namespace "${agentId}" names entity "${label}"`);
    const center = view.entity(label, '');
    // The newest facts naming it (doc order is id order).
    const docs = [...ns.graph.naming(label)].sort((a, b) => b - a);
    const coMentions = new Map<string, number>();
    for (const doc of docs) {
      for (const other of ns.doc(doc).entities) if (entityKey(other) !== entityKey(label)) coMentions.set(entityKey(other), (coMentions.get(entityKey(other)) ?? 0) + 1);
    }
    for (const doc of docs.slice(0, limit)) view.edge(view.fact(ns.doc(doc).factId), center, 'mentions');
    const top = [...coMentions].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, CO_MENTIONS);
    for (const [other, weight] of top) view.edge(center, view.entity(other, ''), 'co_mention', weight);
  }

  /** Fills in the fact nodes: text preview, kind, live or retired (or gone). */
  private async describeFacts(agentId: string, view: ViewBuilder): Promise<void> {
    const ids = view.factIds();
    const facts = await this.store.getFacts(ids.map((factId) => ({ agentId, factId })));
    ids.forEach((id, i) => view.describe(id, facts[i]));
  }

  /** The live facts related to `factId` either way (for recall's hints and receipts). */
  related(agentId: string, fact: Pick<FactRecord, 'id' | 'relations'>): { factId: string; type: string }[] {
    const out: { factId: string; type: string }[] = fact.relations.map((r) => ({ factId: r.targetId, type: r.type }));
    const ns = this.indexer.namespace(agentId);
    if (ns) for (const [doc, types] of ns.graph.linksTo(fact.id)) for (const type of types) out.push({ factId: ns.doc(doc).factId, type });
    return out;
  }
}

const entityLabel = (value: unknown): string => {
  if (typeof value !== 'string' || value.trim() === '') throw invalidArgument('entity', 'must be a non-empty string');
  return check.string(value, 'entity', check.MAX_TAG_BYTES);
};

/** The live fact a graph write changes; `instead` says what to do instead when it is retired (the
 *  same check refuses a relation and an entity's link, and each says its own). */
function liveFact(fact: FactRecord | undefined, factId: string, field: string, agentId: string, instead: string): FactRecord {
  if (!fact) throw noFact(field, factId, agentId);
  if (fact.kind === 'alias') throw invalidArgument(field, `${factId} is an alias record, not a fact`);
  if (!isIndexed(fact)) throw new EngramError(ErrorKind.FailedPrecondition, `${field}: fact ${factId} is retired (superseded by ${fact.supersededBy}); ${instead}`, field);
  return fact;
}

/** Collects a neighbourhood's nodes and edges without repeats. */
class ViewBuilder {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly edges = new Map<string, GraphEdge>();

  fact(id: string): string {
    if (!this.nodes.has(id)) this.nodes.set(id, { id, kind: 'fact', label: '', type: '', live: false });
    return id;
  }

  entity(label: string, type: string): string {
    const id = `entity:${entityKey(label)}`;
    if (!this.nodes.has(id)) this.nodes.set(id, { id, kind: 'entity', label: entityKey(label), type: '', live: true });
    this.typeShown(label, type);
    return id;
  }

  edge(from: string, to: string, type: string, weight = 1): void {
    this.edges.set(`${from}\u0000${to}\u0000${type}`, { from, to, type, weight });
  }

  factIds(): string[] {
    return [...this.nodes.values()].filter((n) => n.kind === 'fact').map((n) => n.id);
  }

  describe(id: string, fact: FactRecord | undefined): void {
    const node = this.nodes.get(id)!;
    node.label = fact ? preview(fact.text) : '';
    node.type = fact ? fact.kind : 'missing';
    node.live = fact !== undefined && isIndexed(fact);
    // Entities shown without a type (around an entity, they come from the index) take the type
    // a live fact gives them.
    if (fact && node.live) for (const [label, type] of Object.entries(fact.entityTypes)) this.typeShown(label, type);
  }

  private typeShown(label: string, type: string): void {
    const shown = this.nodes.get(`entity:${entityKey(label)}`);
    if (shown && !shown.type && type) shown.type = type;
  }

  done(): GraphView {
    return { nodes: [...this.nodes.values()], edges: [...this.edges.values()] };
  }
}

