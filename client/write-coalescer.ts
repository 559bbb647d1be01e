// Client-side group commit: single puts to one namespace that are issued while calls for that
// namespace are in flight wait, then go to the daemon together as one BatchPut. Each put keeps
// its own request id, result and error, so a caller sees exactly what a single Put would have
// answered; what changes is the cost: gRPC's per-call work (framing, headers, scheduling, on
// both sides) dominates a small write, and sixteen writers then pay it once per batch, not once
// each. A lone writer waits for nothing: its put goes at once, as a batch of one.

/** A batch is cut at this many bytes of text, context and meta, well under the gRPC message limit
 *  of 4 MiB for the request and for the answer. */
export const BATCH_BYTES = 1 << 20;

/** What an item adds to a batch's size, as BATCH_BYTES counts it. */
export const itemBytes = (item: { text: string; context?: string; metaJson?: string; meta?: Record<string, unknown>; restore?: { replaces?: readonly string[] } }): number =>
  Buffer.byteLength(item.text) + Buffer.byteLength(item.context ?? '') + Buffer.byteLength(item.metaJson ?? '') + (item.meta ? Buffer.byteLength(JSON.stringify(item.meta)) : 0) +
  // A restored summary may name a thousand facts it replaced: 26 bytes each, and their framing.
  (item.restore?.replaces?.length ?? 0) * 28;

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

/** Calls in flight per namespace. Two let one batch cross the socket and get decoded while the
 *  one before it waits for its disk sync; more only split the waiting puts into smaller batches. */
export const CALLS_IN_FLIGHT = 2;

/** One namespace's puts: those waiting, and what is on the way to the daemon. */
interface Lane<I, R> {
  queue: Waiting<I, R>[];
  calls: number;
  /** Request ids of the puts in flight: a repeat waits until its first attempt has answered. */
  sent: Set<string>;
  /** A batch is about to form (at the next turn of the event loop). */
  forming: boolean;
}

export class WriteCoalescer<I, R> {
  private readonly lanes = new Map<string, Lane<I, R>>();

  constructor(
    /** Sends one batch of one namespace; throws when the whole call failed (each put then fails
     *  with `failAll`'s error for it), else returns one outcome per item, in order. */
    private readonly send: (items: I[], requestIds: string[]) => Promise<ItemOutcome<R>[]>,
    /** The error one put of a failed call throws (e.g. its own UncertainWriteError). */
    private readonly failAll: (error: unknown, requestId: string) => unknown,
    private readonly callsInFlight = CALLS_IN_FLIGHT,
  ) {}

  put(namespace: string, item: I, requestId: string, bytes: number, limits: CoalescerLimits): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let lane = this.lanes.get(namespace);
      if (!lane) this.lanes.set(namespace, (lane = { queue: [], calls: 0, sent: new Set(), forming: false }));
      lane.queue.push({ item, requestId, bytes, limits, resolve, reject });
      this.schedule(namespace, lane);
    });
  }

  /** Forms the next batch at the next turn, so puts issued in this turn of the event loop (and
   *  those that the answers of the last call set off) join it. */
  private schedule(namespace: string, lane: Lane<I, R>): void {
    if (lane.forming || lane.calls >= this.callsInFlight || lane.queue.length === 0) return;
    lane.forming = true;
    setImmediate(() => {
      lane.forming = false;
      this.start(namespace, lane);
    });
  }

  /** Sends the next batch. Only schedule() calls it, and one at a time per lane (`forming`), so
   *  the lane still has room for a call. */
  private start(namespace: string, lane: Lane<I, R>): void {
    const group = this.takeGroup(lane);
    if (group.length === 0) return this.retireIfIdle(namespace, lane);
    lane.calls++;
    for (const waiting of group) lane.sent.add(waiting.requestId);
    void this.flush(group)
      .catch((error: unknown) => {
        // Never strand a put: whatever broke the call fails every put of it.
        for (const waiting of group) waiting.reject(error);
      })
      .finally(() => {
        lane.calls--;
        for (const waiting of group) lane.sent.delete(waiting.requestId);
        this.retireIfIdle(namespace, lane);
        this.schedule(namespace, lane);
      });
    this.schedule(namespace, lane);
  }

  /** A lane with nothing waiting and nothing on its way is dropped (the next put makes a new one). */
  private retireIfIdle(namespace: string, lane: Lane<I, R>): void {
    if (lane.calls === 0 && lane.queue.length === 0) this.lanes.delete(namespace);
  }

  /** The next batch: queued puts in order, within the limits, and never a request id that is in
   *  flight or already in the batch (a repeat must be answered after the first attempt, as a
   *  replay). */
  private takeGroup(lane: Lane<I, R>): Waiting<I, R>[] {
    const queue = lane.queue;
    if (queue.length === 0) return [];
    const { maxItems, maxBytes } = queue[0]!.limits;
    const ids = new Set<string>();
    let bytes = 0;
    let n = 0;
    for (const waiting of queue) {
      const full = n >= maxItems || (n > 0 && bytes + waiting.bytes > maxBytes);
      if (full || ids.has(waiting.requestId) || lane.sent.has(waiting.requestId)) break;
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
