// Group commit: a write is acknowledged only once it is durable. While one group is being
// written, new submissions queue up and then go together as the next group, so N concurrent
// writers cost ~1 sync (LevelDB) or one transaction (PostgreSQL), not N. `write` turns a whole
// group into one atomic batch, or reports which items failed alone.

/** What became of one item of a group. */
export type Outcome<R> = { ok: R } | { error: unknown };

interface Waiter<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class GroupCommitter<T, R> {
  private queue: Waiter<T, R>[] = [];
  private flushing: Promise<void> | null = null;

  /** `write` returns one outcome per item, in order. If it throws instead, nothing of the group
   *  was written, and each item is tried again alone. */
  constructor(private readonly write: (items: T[]) => Promise<Outcome<R>[]>) {}

  /** Resolves when `item` is durable; rejects (and nothing of it is written) if it fails. */
  submit(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /** Resolves once everything submitted so far has settled. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flushLoop(): Promise<void> {
    // Let writers that arrive in the same tick join the first group.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const group = this.queue;
      this.queue = [];
      await this.flush(group);
    }
    this.flushing = null;
  }

  private async flush(group: Waiter<T, R>[]): Promise<void> {
    let outcomes: Outcome<R>[];
    try {
      outcomes = await this.write(group.map((w) => w.item));
    } catch (error) {
      // One bad item must not fail the writers it happened to share a group with: each is
      // retried alone, so only the items that cannot be written fail (nothing of them written).
      if (group.length === 1) group[0]!.reject(error);
      else for (const waiter of group) await this.flush([waiter]);
      return;
    }
    // Settled in submission order, which is the order their results were assigned.
    group.forEach((waiter, i) => {
      const outcome = outcomes[i]!;
      if ('ok' in outcome) waiter.resolve(outcome.ok);
      else waiter.reject(outcome.error);
    });
  }
}
