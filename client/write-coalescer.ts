// Client-side group commit: single puts to one namespace that are issued while a call for that
// namespace is in flight wait, then go to the daemon together as one BatchPut. Each put keeps
// its own request id, result and error, so a caller sees exactly what a single Put would have
// answered; what changes is the cost: gRPC's per-call work (framing, headers, scheduling, on
// both sides) dominates a small write, and sixteen writers then pay it once per batch, not once
// each. A lone writer waits for nothing: its put goes at once, as a batch of one.

/** A batch is cut at this many bytes of text, context and meta, well under the gRPC message limit
 *  of 4 MiB for the request and for the answer. */
export const BATCH_BYTES = 1 << 20;

/** What an item adds to a batch's size, as BATCH_BYTES counts it. */
export const itemBytes = (item: { text: string; context?: string; metaJson?: string; meta?: Record<string, unknown> }): number =>
  Buffer.byteLength(item.text) + Buffer.byteLength(item.context ?? '') + Buffer.byteLength(item.metaJson ?? '') + (item.meta ? Buffer.byteLength(JSON.stringify(item.meta)) : 0);

/** One put waiting for its batch. */
interface Waiting<I, R> {
  item: I;
  requestId: string;
  bytes: number;
  /** The limits of the daemon the put was accepted for. Carried with the put, not asked of the
   *  connection when a batch forms: by then a failed call may have dropped the handshake. */
  limits: CoalescerLimits;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export interface CoalescerLimits {
  /** Items per call, at most (the daemon's max_write_batch). */
  maxItems: number;
  /** Encoded bytes of the items per call, at most (well below the message size limit). */
  maxBytes: number;
}

/** What one call made of each item: its result, or the error a single put would have thrown. */
export type ItemOutcome<R> = { ok: R } | { error: unknown };

export class WriteCoalescer<I, R> {
  private readonly queues = new Map<string, Waiting<I, R>[]>();
  /** Namespaces with a call in flight (one at a time each). */
  private readonly busy = new Set<string>();

  constructor(
    /** Sends one batch of one namespace; throws when the whole call failed (each put then fails
     *  with `failAll`'s error for it), else returns one outcome per item, in order. */
    private readonly send: (items: I[], requestIds: string[]) => Promise<ItemOutcome<R>[]>,
    /** The error one put of a failed call throws (e.g. its own UncertainWriteError). */
    private readonly failAll: (error: unknown, requestId: string) => unknown,
  ) {}

  put(namespace: string, item: I, requestId: string, bytes: number, limits: CoalescerLimits): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.queues.get(namespace);
      const waiting = { item, requestId, bytes, limits, resolve, reject };
      if (queue) queue.push(waiting);
      else this.queues.set(namespace, [waiting]);
      if (!this.busy.has(namespace)) void this.drain(namespace);
    });
  }

  private async drain(namespace: string): Promise<void> {
    this.busy.add(namespace);
    try {
      // Puts issued in the same turn of the event loop join the first batch.
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (;;) {
        const group = this.takeGroup(namespace);
        if (group.length === 0) break;
        await this.flush(group);
      }
    } catch (error) {
      // Never strand a put: whatever broke the loop fails every one still waiting.
      for (const waiting of this.queues.get(namespace)?.splice(0) ?? []) waiting.reject(error);
      this.queues.delete(namespace);
    } finally {
      this.busy.delete(namespace);
    }
  }

  /** The next batch: queued puts in order, within the limits, and never one request id twice
   *  (a repeat must be answered after the first attempt, as a replay). */
  private takeGroup(namespace: string): Waiting<I, R>[] {
    const queue = this.queues.get(namespace);
    if (!queue || queue.length === 0) {
      this.queues.delete(namespace);
      return [];
    }
    const { maxItems, maxBytes } = queue[0]!.limits;
    const ids = new Set<string>();
    let bytes = 0;
    let n = 0;
    for (const waiting of queue) {
      const full = n >= maxItems || (n > 0 && bytes + waiting.bytes > maxBytes);
      if (full || ids.has(waiting.requestId)) break;
      ids.add(waiting.requestId);
      bytes += waiting.bytes;
      n++;
    }
    return queue.splice(0, n);
  }

  private async flush(group: Waiting<I, R>[]): Promise<void> {
    let outcomes: ItemOutcome<R>[];
    try {
      outcomes = await this.send(
        group.map((w) => w.item),
        group.map((w) => w.requestId),
      );
    } catch (error) {
      for (const waiting of group) waiting.reject(this.failAll(error, waiting.requestId));
      return;
    }
    group.forEach((waiting, i) => {
      const outcome = outcomes[i]!;
      if ('ok' in outcome) waiting.resolve(outcome.ok);
      else waiting.reject(outcome.error);
    });
  }
}
