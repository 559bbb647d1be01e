// Writes many facts with as few round trips as the daemon allows: batch writes (batch-write-v1)
// of up to its batch size and about a MiB each, a couple in flight so one is sent while the daemon
// commits the other; against an older daemon, one put per fact, `concurrency` in flight. Every item
// keeps its own request id, so re-running after a failure stores nothing twice.
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import { Capability } from '../../shared/capabilities.ts';
import type { BatchItem, BatchItemResult, EngramClient } from '../client.ts';
import { CapabilityError } from '../errors.ts';
import { BATCH_BYTES, itemBytes } from '../write-coalescer.ts';

export interface WriteAllOptions {
  /** Single puts in flight against a daemon without batch writes (default 16). With batches, 1
   *  keeps one batch in flight (the items commit in order); anything more keeps two. */
  concurrency?: number;
  /** Called after each batch (or put) with how many items are done. */
  onProgress?: (done: number, total: number) => void;
  /** Called with each batch's (or put's) results as they come, from item `from` on: what was
   *  done before a failure stopped the rest. */
  onWritten?: (from: number, results: readonly BatchItemResult[]) => void;
  /** Aborted: no further batch (or put) is sent, those in flight finish, and the abort reason is
   *  thrown when items are left unsent. */
  signal?: AbortSignal;
}

/** Errors about one item's content; anything else (the daemon gone, an outcome unknown, a missing
 *  capability) stops the whole write, which a re-run resumes. */
export function isItemError(error: unknown): error is EngramError {
  if (error instanceof CapabilityError || !(error instanceof EngramError)) return false;
  const kinds: string[] = [ErrorKind.InvalidArgument, ErrorKind.NotFound, ErrorKind.FailedPrecondition, ErrorKind.Aborted];
  return kinds.includes(error.kind);
}

/** One result per item, in order. The first error that is not an item's own is thrown as it is
 *  (onWritten has reported what was done by then). */
export async function writeAll(client: EngramClient, items: readonly BatchItem[], options: WriteAllOptions = {}): Promise<BatchItemResult[]> {
  check.options(options);
  const daemon = await client.hello();
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 16));
  const batched = daemon.capabilities.includes(Capability.BatchWrite) && daemon.limits.maxWriteBatch > 0;
  const groups = batched ? batches(items, daemon.limits.maxWriteBatch) : items.map((_, i) => [i, i + 1] as const);
  const results: BatchItemResult[] = new Array(items.length);
  let done = 0;
  await pool(groups, batched ? Math.min(concurrency, 2) : concurrency, async ([from, to]) => {
    const written = batched ? await client.putBatch(items.slice(from, to)) : [await putOne(client, items[from]!)];
    written.forEach((r, k) => (results[from + k] = r));
    options.onWritten?.(from, written);
    done += to - from;
    options.onProgress?.(done, items.length);
  }, options.signal);
  if (options.signal?.aborted && done < items.length) throw options.signal.reason;
  return results;
}

/** Runs `work` over the items, `size` at a time. The first failure starts nothing new (what is in
 *  flight finishes) and is thrown; an aborted `signal` starts nothing new either. */
export async function pool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (next < items.length && !failed && !signal?.aborted) {
      try {
        await work(items[next++]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}

/** [from, to) ranges of at most `maxItems` items and about BATCH_BYTES each. */
function batches(items: readonly BatchItem[], maxItems: number): (readonly [number, number])[] {
  const out: [number, number][] = [];
  let from = 0;
  let bytes = 0;
  items.forEach((item, i) => {
    const size = itemBytes(item);
    if (i > from && (i - from >= maxItems || bytes + size > BATCH_BYTES)) {
      out.push([from, i]);
      from = i;
      bytes = 0;
    }
    bytes += size;
  });
  if (from < items.length) out.push([from, items.length]);
  return out;
}

async function putOne(client: EngramClient, item: BatchItem): Promise<BatchItemResult> {
  const { agentId, text, ...options } = item;
  const requestId = options.requestId ?? '';
  try {
    const { fact, replayed, duplicate } = await client.put(agentId, text, options);
    return { requestId, factId: fact.id, replayed, duplicate };
  } catch (error) {
    if (!isItemError(error)) throw error;
    return { requestId, error };
  }
}
