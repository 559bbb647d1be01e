// The client's end of the daemon's write stream (capability write-stream-v1): coalesced batches go
// as messages of one long-lived stream instead of one BatchPut call each, which spares both sides
// gRPC's per-call work (a new HTTP/2 stream, headers, trailers) — most of what a small write costs.
//
// A batch keeps a unary call's guarantees. Its answer comes in a reply carrying its sequence
// number. One not answered when the stream fails, or within the call timeout, fails as that call
// would have (UNAVAILABLE, DEADLINE_EXCEEDED): the caller reports it as uncertain and never sends
// it again. A stream that left a batch unanswered that long may be stuck (a frozen daemon, a lost
// peer): later batches take a new stream, and the old one is cancelled once nothing waits on it.
// The stream opens on the first batch and ends once nothing has waited for a moment, so an idle
// client holds no open call (and a script that forgets close() still exits).
import * as grpc from '@grpc/grpc-js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { errorStatus, RpcError, type BidiCall } from '../shared/grpc/bridge.ts';
import type { BatchPutRequestSchema, BatchPutResponse, WriteStreamRequestSchema, WriteStreamResponse, WriteStreamResponseSchema } from '../shared/gen/engram/v1/memory_pb.ts';

type Stream = BidiCall<typeof WriteStreamRequestSchema, typeof WriteStreamResponseSchema>;

interface Waiter {
  stream: Stream;
  resolve: (response: BatchPutResponse) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

/** How long the stream stays open with nothing waiting: long enough for the next batch of a busy
 *  writer to find it open, short enough that a finished program is not held up. */
const IDLE_MS = 200;

export class WriteStream {
  private stream: Stream | null = null;
  private nextSequence = 1n;
  private readonly waiting = new Map<bigint, Waiter>();
  private idle: NodeJS.Timeout | null = null;
  /** Each stream's reading of its replies, until the stream ends. */
  private readonly reading = new Set<Promise<void>>();

  constructor(
    private readonly open: () => Stream,
    private readonly timeoutMs: number,
    /** Told the change number each batch committed (what a unary write's trailer says). */
    private readonly committed: (change: number) => void,
  ) {}

  /** Sends one batch; resolves with its answer, or rejects as the BatchPut call would have. */
  send(batch: MessageInitShape<typeof BatchPutRequestSchema>): Promise<BatchPutResponse> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const stream = (this.stream ??= this.start());
    const sequence = this.nextSequence++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.timedOut(sequence), this.timeoutMs);
      this.waiting.set(sequence, { stream, resolve, reject, timer });
      try {
        stream.send({ sequence, batch });
      } catch (error) {
        this.settle(sequence, error); // unencodable: refused before anything was sent
      }
    });
  }

  /** Ends the stream once the batches sent are answered. A daemon that never ends it (frozen)
   *  gets the call timeout, then the stream is cancelled: it must not hold the program open. */
  close(): void {
    if (this.idle) clearTimeout(this.idle);
    const stream = this.stream;
    this.stream = null;
    if (!stream) return;
    stream.end();
    setTimeout(() => stream.cancel(), this.timeoutMs).unref();
  }

  /** Resolves once every stream has ended (close() ends the current one). */
  async ended(): Promise<void> {
    while (this.reading.size > 0) await Promise.all(this.reading);
  }

  private start(): Stream {
    const stream = this.open();
    const reading: Promise<void> = this.read(stream).finally(() => this.reading.delete(reading));
    this.reading.add(reading);
    return stream;
  }

  private async read(stream: Stream): Promise<void> {
    let failure: unknown;
    try {
      for await (const reply of stream.replies) this.answer(reply);
      failure = new RpcError(errorStatus(grpc.status.UNAVAILABLE, 'the daemon ended the write stream before answering (it may be stopping)'));
    } catch (error) {
      failure = error;
    }
    if (this.stream === stream) this.stream = null;
    for (const [sequence, waiter] of this.waiting) if (waiter.stream === stream) this.settle(sequence, failure);
  }

  private answer(reply: WriteStreamResponse): void {
    if (reply.change > 0n) this.committed(Number(reply.change));
    const { error, batch } = reply;
    this.settle(reply.sequence, error ? new RpcError(errorStatus(error.code, error.message, error.field || undefined)) : undefined, batch);
  }

  private timedOut(sequence: bigint): void {
    const waiter = this.waiting.get(sequence);
    if (waiter && this.stream === waiter.stream) this.stream = null; // retired: see the top
    this.settle(sequence, new RpcError(errorStatus(grpc.status.DEADLINE_EXCEEDED, `no answer to the write within ${this.timeoutMs} ms`)));
  }

  private settle(sequence: bigint, error: unknown, response?: BatchPutResponse): void {
    const waiter = this.waiting.get(sequence);
    if (!waiter) return; // answered after its timeout: its caller was already told
    this.waiting.delete(sequence);
    clearTimeout(waiter.timer);
    if (error !== undefined) waiter.reject(error);
    else if (response) waiter.resolve(response);
    else waiter.reject(new RpcError(errorStatus(grpc.status.INTERNAL, 'the daemon answered a write with neither a result nor an error')));
    if (this.waitsOn(waiter.stream)) return;
    if (this.stream === waiter.stream) this.endWhenIdle();
    else waiter.stream.cancel(); // retired, and nothing waits on it any more
  }

  /** Whether a batch sent on `stream` still waits (a handful at most: no copy of the map). */
  private waitsOn(stream: Stream): boolean {
    for (const waiter of this.waiting.values()) if (waiter.stream === stream) return true;
    return false;
  }

  private endWhenIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = null;
      if (this.waiting.size === 0) this.close();
    }, IDLE_MS);
    this.idle.unref();
  }
}
