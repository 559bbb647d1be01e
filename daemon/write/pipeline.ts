// The one path every mutation takes: (validated by the caller) → request-id check against the
// stored result → write barrier → per-fact locks → plan → one atomic commit → index update.
// A repeated request id is answered from the result recorded with the first write, for every
// kind of mutation; concurrent repeats wait for the first and get the same answer.
import { digestOf } from '../../shared/digest.ts';
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import type { CallContext } from '../core/context.ts';
import { checkAlive, noteChange } from '../core/context.ts';
import { ContentClaimed, isShared, RequestAlreadyRecorded, WriteConflict, type Change, type Json, type MemoryStore } from '../store/store.ts';
import type { WriteBarrier } from './barrier.ts';
import { canonicalJson } from '../../shared/canonical-json.ts';
import { KeyedLocks } from './locks.ts';

/** Where the request ids of writes that belong to no agent live: names no agent can have (agent
 *  ids never contain NUL). Slots and recipes share one; agent tokens have their own. */
export const CONTROLS_NAMESPACE = '\u0000controls';
export const TOKENS_NAMESPACE = '\u0000tokens';

/** What a write commits, decided by its plan. */
export interface Commit<R> {
  changes: Change[];
  result: R;
  /** What a repeat of this request id is answered from; absent = nothing to record. */
  record?: Json;
  /** Brings the in-memory indexes in step; runs right after the commit, synchronously. */
  apply?: () => void;
}

export interface WriteOp<R> {
  /** The namespace the request id belongs to. */
  agentId: string;
  /** The caller's request id; "" = no replay protection. */
  requestId: string;
  /** Keys (fact ids, or another name within agentId) whose stored state the plan reads and changes. */
  locks: readonly string[];
  /** Reads what it needs (under the locks), embeds, and decides; throws to refuse. Its result
   *  finishes the write synchronously, right before the commit: new ids are taken there, so
   *  facts commit (and are indexed) in id order. `held`: the keys it runs under; a plan that
   *  finds it must change a fact it does not hold throws RelockNeeded. */
  plan(held: ReadonlySet<string>): Promise<() => Commit<R>>;
  /** The answer to a repeat, from the first write's record. */
  replay(recorded: Json): Promise<R>;
  /** Issued by a job that already holds the barrier exclusively (so it must not wait for it). */
  withinExclusive?: boolean;
  /** The validated request (what the write was asked to do, never a time it took): its digest is
   *  recorded with the result, and a repeat of the request id asking for something else is
   *  refused rather than answered with the first write. Absent: repeats are not compared. */
  request?: unknown;
}

/** A digest of a request, stable across key order. */
export function requestDigest(request: unknown): string {
  return digestOf('sha256', canonicalJson(request) ?? '', 'base64url').slice(0, 22);
}

/** Plans a write may make before conflicts with other daemons' writes make it give up. */
const MAX_CONFLICTS = 8;

/** The lock of one key (a fact id, or another name) within a namespace. */
const lockKey = (agentId: string, key: string): string => `${agentId}\u0000${key}`;

const requestKey = (op: { agentId: string; requestId: string }): string => `${op.agentId}\u0000${op.requestId}`;

export class WritePipeline {
  private readonly locks = new KeyedLocks();
  private readonly inflight = new Map<string, Promise<unknown>>();

  /** `caughtUp`: resolves once this process has applied every commit the store holds (a shared
   *  store's other writers): a write that met another's content claim plans again after it, so
   *  its dedup finds that fact. */
  constructor(
    private readonly store: MemoryStore,
    readonly barrier: WriteBarrier,
    private readonly caughtUp: () => Promise<void> = async () => {},
  ) {}

  async run<R>(ctx: CallContext, op: WriteOp<R>): Promise<R> {
    // A concurrent repeat waits for the first attempt, then is answered like any later repeat.
    if (op.requestId) while (this.inflight.has(requestKey(op))) await this.inflight.get(requestKey(op))!.catch(() => undefined);
    return (await this.runInOrder(ctx, [op])).results[0]!;
  }

  /** Several writes, started in the given order: the request ids are claimed (a concurrent
   *  repeat waits for this attempt) and their records read together; repeats are answered from
   *  their records, and the rest are written together (see writeTogether), in order — so a
   *  batch's writes take ids and commit in item order (of two identical items the first stores,
   *  the second is its duplicate). Resolves with a promise of each one's result. An id another
   *  attempt holds waits for it, as any repeat does. `prepare` runs once the records are read,
   *  before any write starts, with the positions of the ops that may write (not answered from a
   *  record): work a batch does for its new writes only, such as embedding. `planned` resolves
   *  once every write has taken its ids (or failed): a write started after it commits after them. */
  async runInOrder<R>(ctx: CallContext, ops: readonly WriteOp<R>[], prepare?: (writing: readonly number[]) => Promise<void>): Promise<{ results: Promise<R>[]; planned: Promise<void> }> {
    const claims = ops.map((op) => (op.requestId ? this.claim<R>(requestKey(op)) : null));
    let recorded: (Json | undefined)[];
    try {
      recorded = await Promise.all(ops.map((op, i) => (claims[i] ? this.store.requestResult(op.agentId, op.requestId) : undefined)));
      await prepare?.(ops.flatMap((_, i) => (recorded[i] ? [] : [i])));
    } catch (error) {
      for (const claim of claims) claim?.settle(Promise.reject(error));
      throw error;
    }
    const results: Promise<R>[] = new Array(ops.length);
    const fresh: number[] = [];
    ops.forEach((op, i) => {
      const claim = claims[i];
      if (op.requestId && !claim) results[i] = this.run(ctx, op);
      else if (claim && recorded[i]) {
        claim.settle(this.replay(ctx, op, recorded[i]!));
        results[i] = claim.done;
      } else fresh.push(i);
    });
    const { results: written, planned } = this.writeTogether(ctx, fresh.map((i) => ops[i]!));
    fresh.forEach((i, k) => {
      const claim = claims[i];
      if (!claim) results[i] = written[k]!;
      else {
        claim.settle(written[k]!);
        results[i] = claim.done;
      }
    });
    return { results, planned };
  }

  /** New writes of one call, in order. Consecutive writes that lock nothing in common are
   *  independent, so they go as one group: one turn of the barrier and the locks, every plan,
   *  then one commit and the index updates in order — for a batch of a thousand new facts, the
   *  bookkeeping of one write instead of a thousand. A write that shares a lock with an earlier
   *  one of its group starts the next group (it must plan on what the earlier one committed). */
  private writeTogether<R>(ctx: CallContext, ops: readonly WriteOp<R>[]): { results: Promise<R>[]; planned: Promise<void> } {
    const out: Promise<R>[] = [];
    const planned: Promise<void>[] = [];
    /** Starts a write (or group), noting when it has taken its ids: told by the write itself, or
     *  at the latest when it settles (one that failed before planning commits nothing). */
    const tracked = <T>(start: (onPlanned: () => void) => Promise<T>): Promise<T> => {
      const { promise, resolve } = signal();
      planned.push(promise);
      const written = start(resolve);
      void written.then(resolve, resolve);
      return written;
    };
    for (const group of independentGroups(ops)) {
      if (group.length === 1) {
        out.push(tracked((onPlanned) => this.write(ctx, group[0]!, onPlanned)));
        continue;
      }
      const outcomes = tracked((onPlanned) => this.writeGroup(ctx, group, onPlanned));
      group.forEach((op, k) =>
        out.push(
          outcomes.then((all) => {
            const outcome = all[k]!;
            if ('ok' in outcome) return outcome.ok;
            // Nothing of it was written with the group: it goes again alone.
            if ('alone' in outcome) return this.write(ctx, op);
            throw outcome.error;
          }),
        ),
      );
    }
    return { results: out, planned: Promise.all(planned).then(() => undefined) };
  }

  /** One group (see writeTogether). A plan that refuses fails its own write; a write whose plan
   *  must lock more, or a group whose commit meets another daemon's write, goes again alone. */
  private writeGroup<R>(ctx: CallContext, group: readonly WriteOp<R>[], onPlanned: () => void): Promise<GroupOutcome<R>[]> {
    const keys = group.flatMap((op) => op.locks.map((id) => lockKey(op.agentId, id)));
    const run = () =>
      this.locks.with(keys, async (): Promise<GroupOutcome<R>[]> => {
        checkAlive(ctx);
        const finishes = await Promise.all(group.map((op) => op.plan(new Set(op.locks)).catch((error: unknown) => new Refused(error))));
        // The caller may have gone while the plans ran; nothing is written for it then.
        checkAlive(ctx);
        const planned: (Commit<R> | Refused)[] = finishes.map((finish) => (finish instanceof Refused ? finish : finish()));
        onPlanned();
        const changes: Change[] = [];
        planned.forEach((p, k) => {
          if (!(p instanceof Refused)) changes.push(...this.changesOf(group[k]!, p));
        });
        if (changes.length > 0) {
          try {
            noteChange(ctx, (await this.store.commit(changes)).seq);
          } catch (error) {
            // Nothing of the group was written: another daemon's write met one of them (each
            // then plans again alone) or the store refused one of them (each is tried alone,
            // so only that one fails). A store that is unreachable or full fails them all.
            if (error instanceof EngramError) return group.map(() => ({ error }));
            return group.map(() => ({ alone: true as const }));
          }
        }
        return planned.map((p) => {
          if (p instanceof Refused) return p.error instanceof RelockNeeded || p.error instanceof WriteConflict ? { alone: true as const } : { error: p.error };
          p.apply?.();
          return { ok: p.result };
        });
      });
    return group[0]!.withinExclusive ? run() : this.barrier.shared(run);
  }

  /** What a planned write commits: its changes and, under a request id, the record a repeat is
   *  answered from. */
  private changesOf<R>(op: WriteOp<R>, planned: Commit<R>): Change[] {
    if (!op.requestId || !planned.record) return planned.changes;
    const result = op.request === undefined ? planned.record : { ...planned.record, digest: requestDigest(op.request) };
    return [...planned.changes, { type: 'recordRequest', agentId: op.agentId, requestId: op.requestId, result }];
  }

  /** A repeat: the first write's answer, unless the repeat asks for a different write. */
  private async replay<R>(ctx: CallContext, op: WriteOp<R>, recorded: Json): Promise<R> {
    // The first write committed at some change up to the store's last: a read after this
    // answer must see it, on whichever daemon.
    noteChange(ctx, isShared(this.store) ? await this.store.currentSeq() : this.store.lastSeq);
    if (op.request !== undefined && typeof recorded.digest === 'string' && recorded.digest !== requestDigest(op.request)) {
      throw new EngramError(ErrorKind.FailedPrecondition, `request_id ${op.requestId} was already used by a different ${String(recorded.op)} write; a new write needs a new request id`, 'request_id');
    }
    return op.replay(recorded);
  }

  /** Takes a request id for one attempt, or null if another attempt holds it. */
  private claim<R>(key: string): { done: Promise<R>; settle: (work: Promise<R>) => void } | null {
    if (this.inflight.has(key)) return null;
    let settle!: (work: Promise<R>) => void;
    const done = new Promise<R>((resolve) => (settle = resolve));
    this.inflight.set(key, done);
    const release = () => {
      if (this.inflight.get(key) === done) this.inflight.delete(key);
    };
    done.then(release, release);
    return { done, settle };
  }

  /** `onPlanned`: called once the write has taken its ids. */
  private write<R>(ctx: CallContext, op: WriteOp<R>, onPlanned?: () => void): Promise<R> {
    let conflicts = 0;
    const attempt = async (keys: readonly string[]): Promise<R> => {
      try {
        return await this.locked(ctx, op, keys, onPlanned);
      } catch (error) {
        if (error instanceof RelockNeeded) return attempt([...keys, ...error.keys]);
        // Another daemon sharing the store changed a fact this write read: plan again on what
        // is stored now.
        if (error instanceof WriteConflict && ++conflicts < MAX_CONFLICTS) {
          if (error instanceof ContentClaimed) await this.caughtUp();
          // A little jitter, so two daemons that collided do not collide again in step.
          else await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * conflicts));
          return attempt(keys);
        }
        if (error instanceof WriteConflict) throw new EngramError(ErrorKind.Aborted, `the facts this write changes kept changing through other daemons (${MAX_CONFLICTS} attempts); nothing was written: try again`);
        // Another daemon committed this request id meanwhile: answered from its record.
        if (error instanceof RequestAlreadyRecorded) {
          const recorded = await this.store.requestResult(op.agentId, op.requestId);
          if (recorded) return this.replay(ctx, op, recorded);
        }
        throw error;
      }
    };
    const first = () => attempt(op.locks);
    return op.withinExclusive ? first() : this.barrier.shared(first);
  }

  private locked<R>(ctx: CallContext, op: WriteOp<R>, keys: readonly string[], onPlanned?: () => void): Promise<R> {
    const held = new Set(keys);
    return this.locks.with(keys.map((id) => lockKey(op.agentId, id)), async () => {
      checkAlive(ctx);
      const finish = await op.plan(held);
      // The caller may have gone while the plan ran; nothing is written for it then.
      checkAlive(ctx);
      const planned = finish();
      onPlanned?.();
      const changes = this.changesOf(op, planned);
      if (changes.length > 0) noteChange(ctx, (await this.store.commit(changes)).seq);
      // Synchronously after the commit: a save of derived state never sees a committed change
      // that is not yet applied.
      planned.apply?.();
      return planned.result;
    });
  }

  /** The results recorded for a request id in each of `agentIds` that has one, once every
   *  attempt with that id still running there has finished (so the answer no longer changes
   *  while the caller reads it); empty: nothing committed with it in any of them. */
  async recordedResults(agentIds: readonly string[], requestId: string): Promise<{ agentId: string; recorded: Json }[]> {
    const keys = new Set(agentIds.map((agentId) => requestKey({ agentId, requestId })));
    for (;;) {
      const running = [...this.inflight].find(([key]) => keys.has(key));
      if (!running) break;
      await running[1].catch(() => undefined);
    }
    const found: { agentId: string; recorded: Json }[] = [];
    for (const agentId of agentIds) {
      const recorded = await this.store.requestResult(agentId, requestId);
      if (recorded) found.push({ agentId, recorded });
    }
    return found;
  }

  /** Runs `work` holding these facts' locks, as a write to them would (following another
   *  daemon's changes must not interleave with this daemon's own writes to the same facts). */
  withFactLocks<T>(keys: readonly { agentId: string; factId: string }[], work: () => Promise<T>): Promise<T> {
    return this.locks.with(keys.map((k) => lockKey(k.agentId, k.factId)), work);
  }

  /** For jobs that must not race writers (rebuilds): runs `work` with every write held back. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.barrier.exclusive(work);
  }

  /** The same, until the returned release is called. */
  holdWrites(): Promise<() => void> {
    return this.barrier.hold();
  }
}

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** What became of one write of a group: its result, its error, or "write it again alone". */
type GroupOutcome<R> = { ok: R } | { error: unknown } | { alone: true };

/** A plan that threw, kept apart from the group's others. */
class Refused {
  constructor(readonly error: unknown) {}
}

/** `ops` cut into runs in which no two lock a key in common (in order; exclusive-barrier jobs
 *  and writes of other namespaces' keys are grouped the same way). */
function independentGroups<R>(ops: readonly WriteOp<R>[]): WriteOp<R>[][] {
  const groups: WriteOp<R>[][] = [];
  let group: WriteOp<R>[] = [];
  let held = new Set<string>();
  for (const op of ops) {
    const keys = op.locks.map((id) => lockKey(op.agentId, id));
    const clash = keys.some((key) => held.has(key)) || (group.length > 0 && group[0]!.withinExclusive !== op.withinExclusive);
    if (clash) {
      groups.push(group);
      group = [];
      held = new Set();
    }
    group.push(op);
    for (const key of keys) held.add(key);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Thrown by a plan that must also change facts it does not hold (a fact that came to link to
 *  the one it retires after its locks were chosen): the write starts over holding them too. */
export class RelockNeeded extends Error {
  constructor(readonly keys: readonly string[]) {
    super(`the write must also lock ${keys.join(', ')}`);
    this.name = 'RelockNeeded';
  }
}

/** A repeat of a request id that was first used for another kind of write. */
export function requestReused(requestId: string, recorded: Json, expected: string): EngramError {
  return new EngramError(ErrorKind.FailedPrecondition, `request_id ${requestId} was already used by a ${String(recorded.op)} write, not ${expected}`, 'request_id');
}
