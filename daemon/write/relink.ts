// What retiring or erasing a fact does to the graph, so a relation only ever joins two live facts:
// the live facts linking to it are re-pointed to its successor (the fact that replaces or
// summarises it), or lose that link when there is none; its own links move to the successor (the
// retired version keeps none). Every fact changed is locked by the write that changes it: the linking facts are
// looked up when the write's locks are chosen and checked again under them (RelockNeeded).
import type { Relation } from '../../shared/model.ts';
import type { Indexer } from '../index/indexer.ts';
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';
import { RelockNeeded } from './pipeline.ts';
import type { FactStaging, Staged } from './staging.ts';

/** Relations without repeats or links to the fact itself, oldest first. */
export function cleanRelations(ownerId: string, relations: readonly Relation[]): Relation[] {
  const seen = new Set<string>();
  const out: Relation[] = [];
  for (const r of relations) {
    const key = `${r.type}\u0000${r.targetId}`;
    if (r.targetId === ownerId || seen.has(key)) continue;
    seen.add(key);
    out.push(r);
  }
  return out;
}

/** The relations of `owner` with links to the retired facts re-pointed to the successor
 *  (or dropped without one). */
const repointed = (owner: FactRecord, retired: ReadonlySet<string>, successorId: string | undefined): Relation[] =>
  cleanRelations(
    owner.id,
    owner.relations.flatMap((r) => (!retired.has(r.targetId) ? [r] : successorId ? [{ ...r, targetId: successorId }] : [])),
  );

export class Relinker {
  constructor(
    private readonly store: MemoryStore,
    private readonly indexer: Indexer,
    private readonly staging: FactStaging,
  ) {}

  /** The live facts linking to any of these (besides themselves), as lock keys. */
  linking(agentId: string, factIds: readonly string[]): string[] {
    const ns = this.indexer.namespace(agentId);
    if (!ns) return [];
    const own = new Set(factIds);
    const out = new Set<string>();
    for (const id of factIds) for (const doc of ns.graph.linksTo(id).keys()) if (!own.has(ns.doc(doc).factId)) out.add(ns.doc(doc).factId);
    return [...out].sort();
  }

  /** Under the write's locks: the stored facts linking to the retired ones. Throws RelockNeeded
   *  when one is not held (it linked after the locks were chosen). */
  async read(agentId: string, retiredIds: readonly string[], held: ReadonlySet<string>): Promise<FactRecord[]> {
    const ids = this.linking(agentId, retiredIds);
    const missing = ids.filter((id) => !held.has(id));
    if (missing.length) throw new RelockNeeded(missing);
    const facts = await this.store.getFacts(ids.map((factId) => ({ agentId, factId })));
    return facts.filter((f): f is FactRecord => f !== undefined);
  }

  /** The versions of the linking facts once the retired ones are gone, re-pointed to
   *  `successorId` when there is one. */
  relinked(linking: readonly FactRecord[], retiredIds: readonly string[], successorId: string | undefined, now: number): Staged[] {
    const retired = new Set(retiredIds);
    return linking.map((owner) => this.staging.lifecycle(owner, { ...owner, relations: repointed(owner, retired, successorId), updatedAt: now }));
  }

  /** The relations a successor takes over from the facts it replaces: theirs added to its own,
   *  links among them and to it dropped. */
  static inherited(successor: Pick<FactRecord, 'id' | 'relations'>, retired: readonly FactRecord[]): Relation[] {
    const ids = new Set(retired.map((f) => f.id));
    const taken = retired.flatMap((f) => f.relations).filter((r) => !ids.has(r.targetId));
    return cleanRelations(successor.id, [...successor.relations, ...taken]);
  }
}
