// Every mutation the core offers, each as one write through the pipeline: inputs are checked
// here before anything runs, the plan reads the stored state under the fact's lock, and the
// result recorded under the request id answers any repeat.
import { EngramError, ErrorKind, invalidArgument, itemError, noFact } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import { SHARED_AGENT_ID, type Limits } from '../../shared/validate.ts';
import { aliasText, type AliasMeta } from '../index/aliases.ts';
import { contentKeyOf, isIndexed } from '../index/derive.ts';
import type { Indexer } from '../index/indexer.ts';
import { terms } from '../index/tokenizer.ts';
import type { AccessTracker } from '../lifecycle/access.ts';
import { checkState, expiredBy, newCheckpoint } from '../lifecycle/checkpoints.ts';
import { applyPatch, checkPatch, type PatchInput } from '../lifecycle/patch.ts';
import { checkTargets, checkTargetStates, replacementLabel, retired } from '../lifecycle/revise.ts';
import { planReplacement, type FactPatch } from '../lifecycle/update.ts';
import type { FactKindName, FactRecord } from '../store/record.ts';
import { decodeFact, SUPERSEDED_BY_AGENT } from '../store/record.ts';
import type { Change, CheckpointRecord, Json, MemoryStore } from '../store/store.ts';
import type { FactStaging, Staged } from '../write/staging.ts';
import type { Embedded } from '../index/vector-space.ts';
import { RelockNeeded, requestReused, type Commit, type WriteOp, type WritePipeline } from '../write/pipeline.ts';
import { Relinker } from '../write/relink.ts';
import type { EntityNamer } from '../analysis/entities.ts';
import { checkRestore, RESTORE_FIELD, type FactRestore } from '../../shared/restore.ts';
import type { CallContext } from './context.ts';

export interface WriteInput {
  agentId: unknown;
  text: unknown;
  occurredAt?: unknown;
  tags?: unknown;
  entities?: unknown;
  source?: unknown;
  context?: unknown;
  meta?: unknown;
  confidence?: unknown;
  /** Store a copy even when an identical live fact exists. */
  allowDuplicate?: unknown;
  /** Importance in [0, 2]; absent: 1. */
  strength?: unknown;
  /** What an export carried of the fact that a new one is otherwise assigned (a FactRestore). */
  restore?: unknown;
}

export interface PutResult {
  fact: FactRecord;
  /** The request id had been committed before: this is the original fact, nothing was written. */
  replayed: boolean;
  /** An identical live fact existed (same normalized text, event time and context): this is it,
   *  nothing was written. */
  duplicate: boolean;
}

/** How a write finds a live fact that already says what it would store (then it stores nothing),
 *  and the lock that keeps two such writes at once from both storing it. */
interface SameFact {
  lock: string;
  find: () => Promise<FactRecord | undefined>;
}

/** One item of a batch write: a put with its own request id. */
export interface BatchItemInput extends WriteInput {
  requestId?: unknown;
}

/** What one item of a batch came to: its result, or why nothing of it was written. */
export type BatchSlot = { result: PutResult; error?: undefined } | { result?: undefined; error: EngramError };

function checkBatch(value: unknown, limits: Limits): BatchItemInput[] {
  if (!Array.isArray(value)) throw invalidArgument('items', `must be a list, got ${check.kindOf(value)}`);
  if (value.length === 0) throw invalidArgument('items', 'must hold at least one item');
  if (value.length > limits.maxWriteBatch) throw invalidArgument('items', `at most ${limits.maxWriteBatch} items per batch, got ${value.length}`);
  return value as BatchItemInput[];
}

/** A batch item that passed its checks, with its place in the batch. */
interface ValidItem {
  at: number;
  requestId: string;
  agentId: string;
  fields: CheckedFields;
  dedup: boolean;
  restore?: FactRestore;
}

/** Items of a batch written at a time. A write's objects (its draft, plan, changes, promises) then
 *  die young, within their chunk, instead of living through the whole call: a thousand items'
 *  worth outlives every minor GC of the call and is copied into the old generation, which costs
 *  more than the writes themselves. Two 1000-item calls at a time, embedder none, in-process:
 *  minor GCs took 1,255 ms for 30k facts written whole, 1,011 in chunks of 100, 705 of 50 and
 *  714 of 25; the daemon's thread 97-105 us a fact whole, 70-85 in chunks of 50. */
const WRITE_CHUNK = 50;

export interface ReviseInput extends WriteInput {
  targetIds: unknown;
}

/** What a merge's new fact takes over from the facts it replaces: their use, the types of their
 *  entities, and a pin. */
export interface Carried {
  useCount: number;
  lastUsedAt: number;
  entityTypes?: Record<string, string>;
  pinned?: true;
  /** Set with `pinned`: a pinned fact always has a pin time (pinned facts are ordered by it). */
  pinnedAt?: number;
}

export interface ReviseResult {
  replacement: FactRecord;
  retiredIds: string[];
  /** Kept for the protocol: the replacement and its retirements commit together, so none fail alone. */
  failures: { factId: string; error: string }[];
  replayed: boolean;
}

/** A new fact before the store gives it an id (stamped right before its commit). */
const draftFact = (agentId: string, fields: CheckedFields, kind: FactKindName): FactRecord => decodeFact({ id: '', agentId, kind, ...fields });

/** A new fact given what a restore says of it (the rest stays a new fact's). */
const restored = (draft: FactRecord, r: FactRestore): FactRecord => ({
  ...draft,
  ...(r.useCount !== undefined ? { useCount: r.useCount } : {}),
  ...(r.lastUsedAt !== undefined ? { lastUsedAt: r.lastUsedAt } : {}),
  ...(r.reviewCount !== undefined ? { reviewCount: r.reviewCount } : {}),
  ...(r.crossDomainCount !== undefined ? { crossDomainCount: r.crossDomainCount } : {}),
  ...(r.kind ? { kind: r.kind } : {}),
  ...(r.replaces ? { replaces: r.replaces } : {}),
  ...(r.promotedAt !== undefined ? { promotedAt: r.promotedAt } : {}),
});

/** The same, carrying the request id that writes it ("" = none). */
const newDraft = (agentId: string, requestId: string, fields: CheckedFields, kind: FactKindName): FactRecord => ({ ...draftFact(agentId, fields, kind), ...(requestId ? { requestId } : {}) });

/** A fact's fields as a writer gives them, checked. */
interface CheckedFields {
  text: string;
  /** Set only by writes with options; absent keeps the legacy empty label. */
  confidence?: string;
  occurredAt?: number;
  tags: string[];
  entities: string[];
  source: string;
  context: string;
  meta: string;
  strength?: number;
  entityTypes?: Record<string, string>;
}

export class Writes {
  constructor(
    private readonly store: MemoryStore,
    private readonly pipeline: WritePipeline,
    private readonly staging: FactStaging,
    private readonly access: AccessTracker,
    private readonly limits: Limits,
    private readonly checkpointKeep: number,
    private readonly indexer: Indexer,
    /** Whether identical writes return the existing fact (off under profiles from before it). */
    private readonly dedup: boolean,
    private readonly relinker: Relinker,
    /** A fact's entities as stored: the writer's, else (graph on) those its text names. */
    private readonly nameEntities: EntityNamer,
  ) {}

  /** Put (and PutWithOptions when `confidence` is given: an explicit label, checked exactly). */
  async put(ctx: CallContext, input: WriteInput): Promise<PutResult> {
    const { agentId, fields, dedup, restore } = this.checkPut(input);
    await this.vectorRoom([agentId]);
    return this.pipeline.run(ctx, this.insertOp(newDraft(agentId, check.requestId(ctx.requestId), fields, 'fact'), dedup, undefined, undefined, restore));
  }

  /** Waits while the namespaces' vector graphs lag too far behind their writes (MAX_PENDING);
   *  the usual case, room to spare, costs a lookup and no await. */
  private async vectorRoom(agentIds: readonly string[]): Promise<void> {
    for (const agentId of agentIds) {
      const vectors = this.indexer.namespace(agentId)?.vectors;
      if (vectors?.full) await vectors.room();
    }
  }

  private checkPut(input: WriteInput): { agentId: string; fields: CheckedFields; dedup: boolean; restore?: FactRestore } {
    const agentId = check.agentId(input.agentId);
    const fields = this.checkFields(input);
    if (input.confidence !== undefined) fields.confidence = check.confidenceLabel(input.confidence, 'options.confidence');
    const allowDuplicate = input.allowDuplicate === undefined ? false : check.boolean(input.allowDuplicate, 'options.allow_duplicate');
    const restore = input.restore === undefined ? undefined : checkRestore(input.restore, Date.now());
    return { agentId, fields: this.named(fields), dedup: this.dedup && !allowDuplicate, ...(restore ? { restore } : {}) };
  }

  /** BatchPut: many puts in one call. Every item is checked before anything of it runs, and a bad
   *  item fails only its own slot (naming `items[i].<field>`). Then the valid ones are written in
   *  item order, WRITE_CHUNK at a time: each chunk's new texts embedded in one provider call, and
   *  each item one write through the pipeline — its own request id, dedup and lock — written
   *  together (writeTogether), so they share one commit. */
  async putBatch(ctx: CallContext, input: { items: unknown }): Promise<BatchSlot[]> {
    const items = checkBatch(input.items, this.limits);
    const slots: BatchSlot[] = new Array(items.length);
    const valid: ValidItem[] = [];
    items.forEach((item, at) => {
      try {
        valid.push({ at, requestId: item.requestId === undefined ? '' : check.requestId(item.requestId), ...this.checkPut(item) });
      } catch (error) {
        slots[at] = { error: itemError(error, at) };
      }
    });
    // A chunk starts once the one before it has taken its ids (so they commit in item order), and
    // waits for the one before that: one chunk commits while the next plans.
    let previous: Promise<void> = Promise.resolve();
    for (let from = 0; from < valid.length; from += WRITE_CHUNK) {
      const started = await this.startChunk(ctx, valid.slice(from, from + WRITE_CHUNK), slots);
      if ('failed' in started) {
        await previous;
        // Nothing of this chunk or those after it was written (the store could not be read):
        // each of their items says so in its slot; the chunks before it stand.
        const { failed } = started;
        const why = failed instanceof EngramError ? failed : new EngramError(ErrorKind.Internal, `the daemon could not write this item: ${(failed as Error)?.message ?? String(failed)}; nothing of it was written`);
        for (const v of valid.slice(from)) slots[v.at] = { error: itemError(why, v.at) };
        return slots;
      }
      await started.planned;
      await previous;
      previous = started.done;
    }
    await previous;
    return slots;
  }

  /** Starts writing checked items of a batch: `planned` once they have taken their ids, `done`
   *  once each is answered in its slot; `failed`: what stopped it before anything was written. */
  private async startChunk(ctx: CallContext, valid: readonly ValidItem[], slots: BatchSlot[]): Promise<{ planned: Promise<void>; done: Promise<void> } | { failed: unknown }> {
    await this.vectorRoom(valid.map((v) => v.agentId));
    const drafts = valid.map((v) => newDraft(v.agentId, v.requestId, v.fields, 'fact'));
    // Only the items that will be written are embedded: a re-sent batch is answered from its records.
    const vectors: Embedded[] = new Array(drafts.length);
    const ops = valid.map((v, k) => this.insertOp(drafts[k]!, v.dedup, () => vectors[k], undefined, v.restore));
    let started: { results: Promise<PutResult>[]; planned: Promise<void> };
    try {
      started = await this.pipeline.runInOrder(ctx, ops, async (writing) => {
        const embedded = await this.staging.embedNew(writing.map((k) => drafts[k]!));
        writing.forEach((k, j) => (vectors[k] = embedded[j]!));
      });
    } catch (error) {
      return { failed: error };
    }
    const done = Promise.all(
      started.results.map(async (write, k) => {
        const at = valid[k]!.at;
        try {
          slots[at] = { result: await write };
        } catch (error) {
          slots[at] = { error: itemError(error, at) };
        }
      }),
    ).then(() => undefined);
    return { planned: started.planned, done };
  }

  /** PutShared: the same write into the shared namespace. */
  putShared(ctx: CallContext, input: Omit<WriteInput, 'agentId'>): Promise<PutResult> {
    return this.put(ctx, { ...input, agentId: SHARED_AGENT_ID });
  }

  /** Stores "term = equivalents" as an alias record of the namespace. */
  alias(ctx: CallContext, input: { agentId: unknown; term: unknown; equivalents: unknown }): Promise<PutResult> {
    const agentId = check.agentId(input.agentId);
    const term = check.factText(input.term, this.limits, 'term');
    if (terms(term).length === 0) throw invalidArgument('term', 'has no searchable word (only stopwords or punctuation)');
    const equivalents = check.tags(input.equivalents, 'equivalents');
    if (equivalents.length === 0) throw invalidArgument('equivalents', 'must name at least one equivalent');
    equivalents.forEach((equivalent, i) => checkEquivalent(term, equivalent, `equivalents[${i}]`));
    const meta: AliasMeta = { alias_term: term, alias_equivalents: equivalents };
    const fields: CheckedFields = { text: aliasText(term, equivalents), tags: [], entities: [], source: '', context: '', meta: JSON.stringify(meta) };
    // The same alias again is the one stored (as a fact said again is): it would add nothing.
    const same: SameFact = {
      lock: `alias:${terms(fields.text).join(' ')}`,
      find: async () => {
        const aliasId = this.indexer.namespace(agentId)?.aliases.idSaying(term, equivalents);
        const [fact] = aliasId ? await this.store.getFacts([{ agentId, factId: aliasId }]) : [];
        return fact && fact.supersededBy === '' ? fact : undefined;
      },
    };
    return this.pipeline.run(ctx, this.insertOp(newDraft(agentId, check.requestId(ctx.requestId), fields, 'alias'), false, undefined, same));
  }

  /** The write of a new fact; with `dedup`, a live fact that says the same is returned instead
   *  (writes of one content take one lock, so two identical writes at once still store it once).
   *  `embedded`: its text's vector, when a batch embedded it already (asked for when the write
   *  plans, after the batch has embedded what it writes). `restore`: what an export said of the
   *  fact, given to the stored one — not to the request a repeat is compared with, which is what
   *  the fact says: a re-run of an import begun before restores were sent replays it. */
  private insertOp(draft: FactRecord, dedup: boolean, embedded?: () => Embedded | undefined, same?: SameFact, restore?: FactRestore): WriteOp<PutResult> {
    const { agentId } = draft;
    const requestId = draft.requestId ?? '';
    const contentKey = contentKeyOf(draft);
    const sameAs = same ?? (dedup ? { lock: `content:${contentKey}`, find: () => this.liveFactSaying(agentId, contentKey) } : undefined);
    return {
      agentId,
      requestId,
      // What the caller asked for, not what the daemon derived (entities it extracts may differ
      // between versions), and meta by value (its key order is the sender's).
      request: { op: 'put', kind: draft.kind, text: draft.text, occurredAt: draft.occurredAt, tags: draft.tags, source: draft.source, context: draft.context, meta: draft.meta ? (JSON.parse(draft.meta) as unknown) : {}, confidence: draft.confidence, strength: draft.strength },
      // The facts it replaces stay as checked until it commits (a delete locks them too).
      locks: [...(sameAs ? [sameAs.lock] : []), ...(restore?.replaces ?? [])],
      plan: async () => {
        if (restore?.replaces) await this.checkReplaced(agentId, restore.replaces);
        const existing = await sameAs?.find();
        if (existing) {
          return (): Commit<PutResult> => ({ changes: [], result: { fact: existing, replayed: false, duplicate: true }, record: { op: 'fact', factId: existing.id, duplicate: true } });
        }
        const stamp = await this.staging.created(restore ? restored(draft, restore) : draft, { embedded: embedded?.(), contentKey, claim: dedup && !same });
        return (): Commit<PutResult> => {
          const { fact, change, apply } = stamp();
          return { changes: [change], result: { fact, replayed: false, duplicate: false }, record: { op: 'fact', factId: fact.id }, apply };
        };
      },
      replay: async (recorded) => ({ fact: await this.recordedFact(agentId, requestId, recorded, 'fact'), replayed: true, duplicate: recorded.duplicate === true }),
    };
  }

  /** A restore's `replaces` names facts of the namespace (live or retired), never an alias record. */
  private async checkReplaced(agentId: string, ids: readonly string[]): Promise<void> {
    const facts = await this.store.getFacts(ids.map((factId) => ({ agentId, factId })));
    facts.forEach((fact, i) => {
      const field = `${RESTORE_FIELD}.replaces[${i}]`;
      if (!fact) throw invalidArgument(field, `names no fact of namespace "${agentId}" (${ids[i]}); nothing was written`);
      if (fact.kind === 'alias') throw invalidArgument(field, `${ids[i]} is an alias record, not a fact`);
    });
  }

  private async liveFactSaying(agentId: string, contentKey: string): Promise<FactRecord | undefined> {
    const factId = this.indexer.factSaying(agentId, contentKey);
    if (!factId) return undefined;
    const [fact] = await this.store.getFacts([{ agentId, factId }]);
    return fact && isIndexed(fact) ? this.access.overlay(fact) : undefined;
  }

  /** Replaces live facts by one new fact, all in one commit. `carried`: what the new fact takes
   *  over from what it replaces (a consolidation), instead of starting afresh. */
  revise(ctx: CallContext, input: ReviseInput, carried?: Carried): Promise<ReviseResult> {
    // Its lineage is its targets and its use starts afresh (or is carried): nothing to restore.
    if (input.restore !== undefined) throw invalidArgument(RESTORE_FIELD, 'a revision takes no restore (only a put does)');
    const agentId = check.agentId(input.agentId);
    const targetIds = checkTargets(input.targetIds, this.limits);
    const fields = this.checkFields(input);
    const explicit = input.confidence === undefined ? undefined : check.confidenceLabel(input.confidence, 'options.confidence');
    const requestId = check.requestId(ctx.requestId);
    // The replacement's entities are derived as a put's are; the request keeps what the caller
    // sent (a repeat is compared with that, not with what this version derives).
    const { entityTypes, ...use } = carried ?? {};
    const named = this.named(entityTypes ? { ...fields, entityTypes } : fields);
    return this.pipeline.run(ctx, {
      agentId,
      requestId,
      request: { op: 'revise', targetIds, fields, explicit },
      // The facts linking to the targets are re-pointed to the replacement in the same commit.
      locks: [...targetIds, ...this.relinker.linking(agentId, targetIds)],
      plan: async (held) => {
        const targets = checkTargetStates(await this.store.getFacts(targetIds.map((factId) => ({ agentId, factId }))), targetIds);
        const linking = await this.relinker.read(agentId, targetIds, held);
        const base = draftFact(agentId, { ...named, confidence: replacementLabel(explicit, targets) }, 'fact');
        const draft = { ...base, ...use, replaces: targetIds, relations: Relinker.inherited(base, targets), ...(requestId ? { requestId } : {}) };
        const stamp = await this.staging.created(draft);
        return (): Commit<ReviseResult> => {
          const replacement = stamp();
          const now = replacement.fact.createdAt;
          const retirements = targets.map((t) => this.staging.unindexed(t, retired(t, replacement.fact.id, now)));
          const staged = [replacement, ...retirements, ...this.relinker.relinked(linking, targetIds, replacement.fact.id, now)];
          return {
            changes: staged.map((s) => s.change),
            result: { replacement: replacement.fact, retiredIds: targetIds, failures: [], replayed: false },
            record: { op: 'revise', factId: replacement.fact.id, retiredIds: targetIds },
            apply: () => staged.forEach((s) => s.apply()),
          };
        };
      },
      replay: async (recorded) => {
        const replacement = await this.recordedFact(agentId, requestId, recorded, 'revise', 'fact');
        // Older versions recorded only the replacement's id.
        const retiredIds = Array.isArray(recorded.retiredIds) ? (recorded.retiredIds as string[]) : await this.retiredBy(agentId, targetIds, replacement.id);
        return { replacement, retiredIds, failures: [], replayed: true };
      },
    });
  }

  private async retiredBy(agentId: string, targetIds: string[], replacementId: string): Promise<string[]> {
    const targets = await this.store.getFacts(targetIds.map((factId) => ({ agentId, factId })));
    return targetIds.filter((_, i) => targets[i]?.supersededBy === replacementId);
  }

  /** PatchFact: pin, unpin, forget, confidence. */
  patch(ctx: CallContext, input: PatchInput): Promise<FactRecord> {
    const patch = checkPatch(input);
    return this.change(ctx, patch.agentId, patch.factId, 'fact_id', 'patch', async (before) => applyPatch(before, patch, Date.now()), patch);
  }

  /** Legacy UpdateFact: the caller sends back a whole fact it read and changed. */
  update(ctx: CallContext, agentIdInput: unknown, patch: FactPatch): Promise<FactRecord> {
    const agentId = check.agentId(agentIdInput);
    const factId = check.factId(patch.id, 'fact.id');
    // Not compared on a repeat: a legacy client resending an uncertain UpdateFact read the fact
    // again, which the first attempt may have changed (its updated_at, at least).
    return this.change(ctx, agentId, factId, 'fact.id', 'update', async (before) => {
      const after = this.renamed(before, planReplacement(before, patch, this.limits, Date.now()));
      if (after.supersededBy !== before.supersededBy && check.isFactId(after.supersededBy)) await this.checkSuccessor(agentId, after);
      return after;
    });
  }

  /** A new text names its own entities, as on every write that sets a text. A legacy client sends
   *  back the entities it read: those count as given only if they are not the ones the old text
   *  named by itself (with extraction off, or entities a writer chose, they stand). */
  private renamed(before: FactRecord, after: FactRecord): FactRecord {
    if (after.text === before.text || !sameList(after.entities, before.entities)) return after;
    const derived = (text: string) => this.nameEntities(text, { entities: [] });
    if (!sameList(before.entities, derived(before.text).entities)) return after;
    const named = derived(after.text);
    return { ...after, entities: named.entities, entityTypes: named.entityTypes ?? {} };
  }

  /** A retirement names its successor ("agent" = forgotten): a fact of the same namespace, never itself. */
  private async checkSuccessor(agentId: string, fact: FactRecord): Promise<void> {
    const id = check.factId(fact.supersededBy, 'fact.superseded_by');
    if (id === fact.id) throw invalidArgument('fact.superseded_by', 'cannot name the fact itself');
    const [successor] = await this.store.getFacts([{ agentId, factId: id }]);
    if (!successor) throw invalidArgument('fact.superseded_by', `names no fact of namespace "${agentId}" (${id}); to retire a fact without a successor, use forget`);
  }

  /** A read-modify-write of one stored fact. One that retires it drops the links other facts
   *  had to it in the same commit (a retirement without a successor fact: forget, UpdateFact).
   *  `field` is the request field that names the fact, for the error when there is none. */
  private change(ctx: CallContext, agentId: string, factId: string, field: string, op: string, next: (before: FactRecord) => Promise<FactRecord>, request?: unknown): Promise<FactRecord> {
    const requestId = check.requestId(ctx.requestId);
    return this.pipeline.run(ctx, {
      agentId,
      requestId,
      ...(request !== undefined ? { request: { op, request } } : {}),
      locks: [factId, ...this.relinker.linking(agentId, [factId])],
      plan: async (held) => {
        const before = await this.stored(agentId, factId, field);
        const planned = await next(before);
        // Nothing to change (a repeated forget or pin): nothing of the fact is written, only the
        // request's record, so a repeat answers as the first did.
        if (planned === before) return () => ({ changes: [], result: this.access.overlay(before), record: { op, factId } });
        const retiring = isIndexed(before) && !isIndexed(planned);
        // A retired fact keeps no relations: a relation only ever joins two live facts.
        const after = retiring ? { ...planned, relations: [] } : planned;
        const linking = retiring ? await this.relinker.read(agentId, [factId], held) : [];
        const staged = [await this.staging.changed(before, after), ...this.relinker.relinked(linking, [factId], undefined, after.updatedAt)];
        const fact = staged[0]!.fact;
        return () => ({ changes: staged.map((s) => s.change), result: this.access.overlay(fact), record: { op, factId }, apply: () => staged.forEach((s) => s.apply()) });
      },
      replay: async (recorded) => this.recordedFact(agentId, requestId, recorded, op),
    });
  }

  /** Delete: erases the fact with every row derived from it and the request record that
   *  created it, so nothing of its text stays in the store. The facts it had replaced point past
   *  it (to what replaced it, else "agent"), so no superseded_by dangles. A repeat returns the
   *  erased fact's identity (its content is gone). */
  delete(ctx: CallContext, agentIdInput: unknown, factIdInput: unknown): Promise<FactRecord> {
    const agentId = check.agentId(agentIdInput);
    const factId = check.factId(factIdInput);
    const requestId = check.requestId(ctx.requestId);
    return this.pipeline.run(ctx, {
      agentId,
      requestId,
      request: { op: 'delete', factId },
      locks: [factId, ...this.relinker.linking(agentId, [factId])],
      plan: async (held) => {
        const fact = await this.stored(agentId, factId, 'fact_id');
        // The facts it replaced and its successor are pointed past it: they are locked too.
        const lineage = [...fact.replaces, ...(check.isFactId(fact.supersededBy) ? [fact.supersededBy] : [])].filter((id) => !held.has(id));
        if (lineage.length) throw new RelockNeeded(lineage);
        const linking = isIndexed(fact) ? await this.relinker.read(agentId, [factId], held) : [];
        const { changes, apply } = await this.staging.erasure(fact, this.relinker.relinked(linking, [factId], undefined, Date.now()));
        const result = this.access.overlay(fact);
        const record = { op: 'delete', factId, agentId, createdAt: fact.createdAt, kind: fact.kind };
        return () => ({ changes, result, record, apply });
      },
      replay: async (recorded) => {
        if (recorded.op !== 'delete') throw requestReused(requestId, recorded, 'delete');
        const { factId: id, createdAt, kind } = recorded as { factId: string; createdAt: number; kind: FactKindName };
        return decodeFact({ id, agentId, text: '', createdAt, updatedAt: createdAt, kind });
      },
    });
  }

  /** SaveCheckpoint, dropping the agent's checkpoints beyond the newest `checkpointKeep`. */
  saveCheckpoint(ctx: CallContext, input: { agentId: unknown; state: unknown }): Promise<CheckpointRecord> {
    const agentId = check.agentId(input.agentId);
    const state = checkState(input.state);
    const requestId = check.requestId(ctx.requestId);
    return this.pipeline.run(ctx, {
      agentId,
      requestId,
      request: { op: 'checkpoint', state },
      locks: ['checkpoints'],
      plan: async () => {
        const expired = expiredBy(await this.store.checkpointIds(agentId), this.checkpointKeep);
        return (): Commit<CheckpointRecord> => {
          const { id, time } = this.store.nextId(Date.now());
          const checkpoint = newCheckpoint(agentId, id, time, state);
          return {
            changes: [{ type: 'putCheckpoint', checkpoint }, ...expired.map((checkpointId) => ({ type: 'deleteCheckpoint' as const, agentId, checkpointId }))],
            result: checkpoint,
            record: { op: 'checkpoint', checkpointId: id },
          };
        };
      },
      replay: async (recorded) => {
        if (recorded.op !== 'checkpoint') throw requestReused(requestId, recorded, 'checkpoint');
        const saved = (await this.store.checkpoints(agentId)).find((c) => c.id === recorded.checkpointId);
        if (!saved) throw new EngramError(ErrorKind.FailedPrecondition, `request_id ${requestId} saved checkpoint ${String(recorded.checkpointId)}, which has since expired`, 'request_id');
        return saved;
      },
    });
  }

  /** Gives a live fact its vector from the current embedder (reconciler, reindex). False when the
   *  fact changed meanwhile (retired, deleted, or already embedded). */
  attachVector(ctx: CallContext, agentId: string, factId: string, vector: Float32Array | null, embedder: string, withinExclusive = false): Promise<boolean> {
    return this.pipeline.run(ctx, {
      agentId,
      requestId: '',
      withinExclusive,
      locks: [factId],
      plan: async () => {
        const [before] = await this.store.getFacts([{ agentId, factId }]);
        if (!before || !isIndexed(before) || before.embedder === embedder) return () => ({ changes: [], result: false });
        const { change, apply } = await this.staging.changed(before, { ...before }, { vector, embedder });
        return () => ({ changes: [change], result: true, apply });
      },
      replay: async () => false,
    });
  }

  private async stored(agentId: string, factId: string, field: string): Promise<FactRecord> {
    const [fact] = await this.store.getFacts([{ agentId, factId }]);
    if (!fact) throw noFact(field, factId, agentId);
    return fact;
  }

  /** The fact a recorded write produced, as it is now. */
  private async recordedFact(agentId: string, requestId: string, recorded: Json, ...ops: string[]): Promise<FactRecord> {
    // A bare fact id recorded by an older version answers any fact write.
    if (!ops.includes(String(recorded.op)) && recorded.op !== 'fact') throw requestReused(requestId, recorded, ops[0]!);
    const [fact] = await this.store.getFacts([{ agentId, factId: String(recorded.factId) }]);
    if (!fact) {
      throw new EngramError(ErrorKind.FailedPrecondition, `request_id ${requestId} was committed as fact ${String(recorded.factId)}, which has since been deleted`, 'request_id');
    }
    return this.access.overlay(fact);
  }

  /** The fields with the entities a write stores (nameEntities); the same object when those are
   *  the writer's (every put without --kg: no copy per fact on the bulk-write path). */
  private named(fields: CheckedFields): CheckedFields {
    const entities = this.nameEntities(fields.text, fields);
    return entities === fields ? fields : { ...fields, ...entities };
  }

  /** Validates the record fields of a write (text, tags, times…). */
  private checkFields(input: WriteInput): CheckedFields {
    const fields: CheckedFields = {
      text: check.factText(input.text, this.limits),
      tags: input.tags === undefined ? [] : check.tags(input.tags),
      entities: input.entities === undefined ? [] : check.tags(input.entities, 'entities'),
      source: input.source === undefined ? '' : check.source(input.source),
      context: input.context === undefined || input.context === '' ? '' : check.factText(input.context, this.limits, 'context'),
      meta: input.meta === undefined ? '' : check.metaJson(input.meta, this.limits),
    };
    if (input.occurredAt !== undefined) fields.occurredAt = check.timestampMs(input.occurredAt, 'occurred_at_ms');
    if (input.strength !== undefined) fields.strength = check.strength(input.strength, 'options.strength');
    return fields;
  }
}

/** An equivalent that searches for nothing, or for exactly what the term does ("tea = teas"),
 *  would store an alias that widens no query: refused, as a term without a word is. */
function checkEquivalent(term: string, equivalent: string, field: string): void {
  const keywords = terms(equivalent);
  if (keywords.length === 0) throw invalidArgument(field, 'has no searchable word (only stopwords or punctuation)');
  if (keywords.join(' ') === terms(term).join(' ')) throw invalidArgument(field, `searches for what the term does (${keywords.join(' ')}), so the alias would add nothing`);
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
