// Group commit: a write is acknowledged only once it is synced to disk. While one synced batch is
// being written, new submissions queue up and then go to disk together as the next batch, so N
// concurrent writers cost ~1 fsync, not N. `write` turns a whole group into one atomic batch.

interface Waiter<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class GroupCommitter<T, R> {
  private queue: Waiter<T, R>[] = [];
  private flushing: Promise<void> | null = null;

  /** `write` must write every item or none, and return one result per item, in order. */
  constructor(private readonly write: (items: T[]) => Promise<R[]>) {}

  /** Resolves when `item` is durable; rejects (and nothing of it is written) if its batch fails. */
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
    // Let writers that arrive in the same tick join the first batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const group = this.queue;
      this.queue = [];
      await this.flush(group);
    }
    this.flushing = null;
  }

  private async flush(group: Waiter<T, R>[]): Promise<void> {
    let results: R[];
    try {
      results = await this.write(group.map((w) => w.item));
    } catch (error) {
      // One bad item must not fail the writers it happened to share a batch with: each is
      // retried alone, so only the items that cannot be written fail (nothing of them written).
      if (group.length === 1) group[0]!.reject(error);
      else for (const waiter of group) await this.flush([waiter]);
      return;
    }
    // Resolved in submission order, which is the order their results were assigned.
    group.forEach((waiter, i) => waiter.resolve(results[i]!));
  }
}
