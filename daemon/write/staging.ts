// Turns a fact's next version into what a mutation needs: the store change (the record and its
// derived rows: keyword terms, vector) and the index update to apply once it is committed. The
// one place that decides what is derived from a fact, for every writer.
import type { AccessTracker } from '../lifecycle/access.ts';
import { contentKeyOf, embeddingText, isIndexed, sameIndexInputs, termsOf, toStoredTerms } from '../index/derive.ts';
import type { Indexer } from '../index/indexer.ts';
import type { Embedded } from '../index/vector-space.ts';
import { SUPERSEDED_BY_AGENT, type FactRecord } from '../store/record.ts';
import type { Change, MemoryStore } from '../store/store.ts';

export interface Staged {
  /** The version the change stores. */
  fact: FactRecord;
  change: Change;
  apply: () => void;
}

export class FactStaging {
  constructor(
    private readonly store: MemoryStore,
    private readonly indexer: Indexer,
    private readonly access: AccessTracker,
  ) {}

  private get vectors() {
    return this.indexer.vectors;
  }

  /** A new fact (its id, created_at and updated_at still unset). Recallable facts are embedded
   *  now, unless `embedded` brings the vector of their text (a batch embeds its texts together);
   *  the returned stamp takes the id, to be called right before the commit. `contentKey`: the
   *  draft's contentKeyOf, when the writer computed it already; `claim`: the fact claims its
   *  content key (a write under dedup), so another process sharing the store cannot store it
   *  again meanwhile. */
  async created(draft: FactRecord, known: { embedded?: Embedded; contentKey?: string; claim?: boolean } = {}): Promise<() => Staged> {
    const { embedded, claim } = known;
    const contentKey = known.contentKey ?? (claim ? contentKeyOf(draft) : undefined);
    const fact = { ...draft };
    let staged: Omit<Staged, 'fact'>;
    if (!isIndexed(fact)) {
      const apply = fact.kind === 'alias' && fact.supersededBy === '' ? () => this.indexer.aliasAdded(fact) : () => {};
      staged = { change: { type: 'putFact', fact, derived: null }, apply };
    } else {
      const { vector, embedder } = embedded ?? (await this.vectors.embedForWrite(embeddingText(fact)));
      fact.embedder = embedder;
      fact.vectorKey = vector ? this.store.nextVectorKey() : 0;
      const terms = termsOf(fact);
      staged = {
        change: { type: 'putFact', fact, derived: { terms: toStoredTerms(terms), ...(vector ? { vector } : {}) }, ...(claim ? { claim: contentKey } : {}) },
        apply: () => this.indexer.indexed(fact, terms, vector, contentKey),
      };
    }
    return () => {
      const { id, time } = this.store.nextId(Date.now());
      Object.assign(fact, { id, createdAt: time, updatedAt: time });
      return { fact, ...staged };
    };
  }

  /** Embeddings of many new facts' texts, for `created`. */
  embedNew(drafts: readonly FactRecord[]): Promise<Embedded[]> {
    return this.vectors.embedManyForWrite(drafts.map(embeddingText));
  }

  /** The next version of a stored fact. `vector` given: the vector to attach (the reconciler,
   *  reindex), instead of re-embedding a changed text. */
  async changed(before: FactRecord, after: FactRecord, vector?: Embedded): Promise<Staged> {
    if (!isIndexed(after)) return this.unindexed(before, after);
    if (!vector && isIndexed(before) && sameIndexInputs(before, after)) return this.lifecycle(before, after);
    const terms = termsOf(after);
    const sameVector = !vector && embeddingText(after) === embeddingText(before) && before.vectorKey !== 0;
    if (sameVector) {
      // The stored vector stays under its key, in the store and in the index.
      return { fact: after, change: { type: 'putFact', fact: after, before, derived: { terms: toStoredTerms(terms) } }, apply: () => this.indexer.indexed(after, terms, 'kept') };
    }
    const next = vector ?? (await this.vectors.embedForWrite(embeddingText(after)));
    const value = next.vector;
    after.embedder = next.embedder;
    after.vectorKey = value ? this.store.nextVectorKey() : 0;
    return {
      fact: after,
      change: { type: 'putFact', fact: after, before, derived: { terms: toStoredTerms(terms), ...(value ? { vector: value } : {}) } },
      apply: () => this.indexer.indexed(after, terms, value),
    };
  }

  /** A version whose indexed inputs are those of `before` (pin, confidence, tags, relations…):
   *  derived rows stay as they are. */
  lifecycle(before: FactRecord, after: FactRecord): Staged {
    if (!isIndexed(after) || !isIndexed(before)) return this.unindexed(before, after);
    return { fact: after, change: { type: 'putFact', fact: after, before, derived: 'unchanged' }, apply: () => this.indexer.updated(after) };
  }

  /** A version that is not recallable: retired, or an alias record (whose expansion follows it). */
  unindexed(before: FactRecord, after: FactRecord): Staged {
    after.vectorKey = 0; // its vector row goes with its index rows: vectorKey ≠ 0 ⇔ a stored vector
    const apply = () => {
      this.indexer.removed(after);
      if (after.kind === 'alias' && after.supersededBy === '') this.indexer.aliasAdded(after);
    };
    return { fact: after, change: { type: 'putFact', fact: after, before, derived: null }, apply };
  }

  /** Everything erasing a fact takes: the fact with its rows (`deleted`), the facts it had
   *  replaced pointed past it (to what replaced it, else "agent", so no superseded_by dangles),
   *  and the request record that created it, so nothing of its text stays in the store.
   *  `unlinked`: the facts that linked to it, without those links. */
  async erasure(fact: FactRecord, unlinked: readonly Staged[] = []): Promise<{ changes: Change[]; apply: () => void }> {
    const staged = [this.deleted(fact), ...(await this.relinked(fact)), ...unlinked];
    const changes = staged.map((s) => s.change);
    if (fact.requestId) changes.push({ type: 'forgetRequest', agentId: fact.agentId, requestId: fact.requestId });
    return { changes, apply: () => staged.forEach((s) => s.apply()) };
  }

  /** The facts a deleted revision had retired, pointed past it; the fact that replaced the
   *  deleted one takes them over as its own `replaces`, so deleting it later relinks them too. */
  private async relinked(deleted: FactRecord): Promise<Staged[]> {
    const ids = deleted.replaces;
    const targets = (await this.store.getFacts(ids.map((factId) => ({ agentId: deleted.agentId, factId })))).filter(
      (t): t is FactRecord => t !== undefined && t.supersededBy === deleted.id,
    );
    if (targets.length === 0) return [];
    const now = Date.now();
    const successorId = deleted.supersededBy && deleted.supersededBy !== SUPERSEDED_BY_AGENT ? deleted.supersededBy : undefined;
    const [successor] = successorId ? await this.store.getFacts([{ agentId: deleted.agentId, factId: successorId }]) : [];
    const staged = targets.map((t) => this.unindexed(t, { ...t, supersededBy: successor ? successor.id : SUPERSEDED_BY_AGENT, updatedAt: now }));
    if (successor) {
      const replaces = [...successor.replaces.filter((id) => id !== deleted.id), ...targets.map((t) => t.id)];
      // Only its lineage changes: a live successor stays indexed as it is.
      staged.push(this.lifecycle(successor, { ...successor, replaces, updatedAt: now }));
    }
    return staged;
  }

  /** Erasing a stored fact: its record, derived rows and access counts. */
  deleted(fact: FactRecord): Staged {
    return {
      fact,
      change: { type: 'deleteFact', fact },
      apply: () => {
        this.indexer.removed(fact);
        this.access.forget(fact.agentId, fact.id);
      },
    };
  }
}
