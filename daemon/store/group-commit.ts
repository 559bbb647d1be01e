// Group commit: every mutation is one atomic batch, and a write is acknowledged only once its
// batch is synced to disk. While one synced batch is being written, new mutations queue up and
// then go to disk together as the next batch, so N concurrent writers cost ~1 fsync, not N.
import type { ClassicLevel } from 'classic-level';
import type { AbstractBatchOperation } from 'abstract-level';

type Root = ClassicLevel<string, string>;
export type BatchOp = AbstractBatchOperation<Root, string, unknown>;

interface Waiter {
  ops: BatchOp[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class GroupCommitter {
  private queue: Waiter[] = [];
  private flushing: Promise<void> | null = null;

  /** `trailer` adds ops to every batch (e.g. the id floor), computed at flush time. */
  constructor(
    private readonly db: Root,
    private readonly trailer: () => BatchOp[] = () => [],
  ) {}

  /** Resolves when `ops` are durable; rejects (and nothing of them is written) if the batch fails. */
  commit(ops: BatchOp[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ops, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /** Resolves once everything queued so far is durable. */
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

  private async flush(group: Waiter[]): Promise<void> {
    const ops = group.flatMap((waiter) => waiter.ops);
    try {
      await this.db.batch([...ops, ...this.trailer()], { sync: true });
    } catch (error) {
      for (const waiter of group) waiter.reject(error);
      return;
    }
    for (const waiter of group) waiter.resolve();
  }
}
