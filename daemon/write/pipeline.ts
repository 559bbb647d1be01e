// The one path every mutation takes: (validated by the caller) → request-id check against the
// stored result → write barrier → per-fact locks → plan → one atomic commit → index update.
// A repeated request id is answered from the result recorded with the first write, for every
// kind of mutation; concurrent repeats wait for the first and get the same answer.
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import type { CallContext } from '../core/context.ts';
import { checkAlive } from '../core/context.ts';
import type { Change, Json, MemoryStore } from '../store/store.ts';
import type { WriteBarrier } from './barrier.ts';
import { KeyedLocks } from './locks.ts';

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
   *  facts commit (and are indexed) in id order. */
  plan(): Promise<() => Commit<R>>;
  /** The answer to a repeat, from the first write's record. */
  replay(recorded: Json): Promise<R>;
  /** Issued by a job that already holds the barrier exclusively (so it must not wait for it). */
  withinExclusive?: boolean;
}

export class WritePipeline {
  private readonly locks = new KeyedLocks();
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: MemoryStore,
    readonly barrier: WriteBarrier,
  ) {}

  async run<R>(ctx: CallContext, op: WriteOp<R>): Promise<R> {
    return (await this.runInOrder(ctx, [op]))[0]!;
  }

  /** Several writes, started in the given order: each one's request id is checked (and claimed)
   *  before the next is looked at, and each takes its locks when it starts, so the writes lock,
   *  take ids and commit in that order (a batch keeps its items' order; of two identical items
   *  the first stores and the second is its duplicate). Resolves once all have started, with a
   *  promise of each one's result. A repeat is answered from the first write's record; concurrent
   *  repeats wait for the first and get the same answer. */
  async runInOrder<R>(ctx: CallContext, ops: readonly WriteOp<R>[]): Promise<Promise<R>[]> {
    const started: Promise<R>[] = [];
    for (const op of ops) {
      if (!op.requestId) {
        started.push(this.write(ctx, op));
        continue;
      }
      const key = `${op.agentId}\u0000${op.requestId}`;
      while (this.inflight.has(key)) await this.inflight.get(key)!.catch(() => undefined);
      // Claimed before the record is read, so a concurrent repeat waits for this attempt.
      let settle!: (work: Promise<R>) => void;
      const claim = new Promise<R>((resolve) => (settle = resolve));
      this.inflight.set(key, claim);
      const release = () => {
        if (this.inflight.get(key) === claim) this.inflight.delete(key);
      };
      claim.then(release, release);
      try {
        const recorded = await this.store.requestResult(op.agentId, op.requestId);
        settle(recorded ? op.replay(recorded) : this.write(ctx, op));
      } catch (error) {
        settle(Promise.reject(error));
      }
      started.push(claim);
    }
    return started;
  }

  private write<R>(ctx: CallContext, op: WriteOp<R>): Promise<R> {
    const locked = () =>
      this.locks.with(op.locks.map((id) => `${op.agentId}\u0000${id}`), async () => {
        checkAlive(ctx);
        const finish = await op.plan();
        // The caller may have gone while the plan ran; nothing is written for it then.
        checkAlive(ctx);
        const planned = finish();
        const changes = [...planned.changes];
        if (op.requestId && planned.record) changes.push({ type: 'recordRequest', agentId: op.agentId, requestId: op.requestId, result: planned.record });
        if (changes.length > 0) await this.store.commit(changes);
        // Synchronously after the commit: a save of derived state never sees a committed change
        // that is not yet applied.
        planned.apply?.();
        return planned.result;
      });
    return op.withinExclusive ? locked() : this.barrier.shared(locked);
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

/** A repeat of a request id that was first used for another kind of write. */
export function requestReused(requestId: string, recorded: Json, expected: string): EngramError {
  return new EngramError(ErrorKind.FailedPrecondition, `request_id ${requestId} was already used by a ${String(recorded.op)} write, not ${expected}`, 'request_id');
}
