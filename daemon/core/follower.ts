// Following a shared store: other daemons commit to the same database, and this one applies
// their changes to its in-memory indexes in change order, woken by the store's notifications
// (and by a poll, should a notification be lost). `applied` is the change number up to which
// every commit is in this daemon's indexes; a read that must see a given write waits for it.
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import { MIN_CHANGE_KEY } from '../../shared/changes.ts';
import type { Log } from '../log.ts';
import type { ChangedFact, FactKey, MemoryStore, SharedStore } from '../store/store.ts';

const POLL_MS = 1000;
/** Changed facts applied together (read in one query each for records, terms and vectors). */
const BATCH = 500;

export interface FollowerTarget {
  /** Applies the stored state of these facts (deduplicated) to the indexes. */
  apply(keys: readonly FactKey[]): Promise<void>;
  /** A record table kept in memory changed. */
  recordsChanged(table: string): Promise<void>;
}

export class ChangeFollower {
  private appliedSeq: number;
  private running: Promise<void> | null = null;
  private again = false;
  private stopWatch: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly waiters = new Set<{ seq: number; resolve: () => void }>();
  private lastError = '';

  constructor(
    private readonly store: MemoryStore & SharedStore,
    private readonly target: FollowerTarget,
    private readonly recordsMarker: string,
    from: number,
    private readonly log: Log,
  ) {
    this.appliedSeq = from;
  }

  get applied(): number {
    return this.appliedSeq;
  }

  start(): void {
    this.stopWatch = this.store.watch(() => this.wake());
    this.timer = setInterval(() => this.wake(), POLL_MS).unref();
  }

  /** Catches up now (coalesced: a wake during a catch-up runs one more after it). */
  wake(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.catchUp();
      } while (this.again);
    })().finally(() => (this.running = null));
    return this.running;
  }

  /** Resolves once every change up to `seq` is applied; refuses after `timeoutMs`. */
  async waitFor(seq: number, timeoutMs: number): Promise<void> {
    if (seq <= this.appliedSeq) return;
    void this.wake();
    await new Promise<void>((resolve, reject) => {
      const waiter = { seq, resolve: () => (clearTimeout(timer), resolve()) };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        // Named after the header that asked for the change, so a client tells this refusal (the
        // daemon answered) from an unreachable daemon, and does not retry it at once.
        reject(new EngramError(ErrorKind.Unavailable, `this daemon has applied changes up to ${this.appliedSeq}, not yet ${seq}, after ${timeoutMs} ms${this.lastError ? ` (following the store: ${this.lastError})` : ''}; try again, or read through the daemon that wrote it`, MIN_CHANGE_KEY));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private async catchUp(): Promise<void> {
    try {
      // Read first: every commit up to it is in the log by then, so the log read next has them.
      const upTo = await this.store.currentSeq();
      // The poll finds nothing new most of the time: one query, then nothing more.
      if (upTo <= this.appliedSeq) return this.recovered();
      let batch: ChangedFact[] = [];
      for await (const change of this.store.changesSince(this.appliedSeq)) {
        // A batch ends on a commit boundary, so `applied` never stops inside a commit.
        if (batch.length >= BATCH && change.seq !== batch[batch.length - 1]!.seq) {
          await this.applyBatch(batch);
          batch = [];
        }
        batch.push(change);
      }
      if (batch.length > 0) await this.applyBatch(batch);
      // Commits that changed no fact have no rows: the counter said how far the log went.
      this.advance(upTo);
      this.recovered();
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.lastError) this.log.warn(`could not follow the store's changes (retrying): ${message}`);
      this.lastError = message;
    }
  }

  private recovered(): void {
    if (this.lastError) this.log.info('following the store again');
    this.lastError = '';
  }

  private async applyBatch(batch: ChangedFact[]): Promise<void> {
    const keys: FactKey[] = [];
    const tables = new Set<string>();
    for (const change of batch) {
      if (this.store.takeOwn(change.seq)) continue;
      if (change.agentId === this.recordsMarker) tables.add(change.factId);
      else keys.push({ agentId: change.agentId, factId: change.factId });
    }
    if (keys.length > 0) await this.target.apply(keys);
    for (const table of tables) await this.target.recordsChanged(table);
    this.advance(batch[batch.length - 1]!.seq);
  }

  /** Every change up to `seq` is applied: the waiters for it go on. */
  private advance(seq: number): void {
    if (seq <= this.appliedSeq) return;
    this.appliedSeq = seq;
    for (const waiter of this.waiters) {
      if (waiter.seq > seq) continue;
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }

  async stop(): Promise<void> {
    this.stopWatch?.();
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
