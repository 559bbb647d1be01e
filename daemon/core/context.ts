// What every call into the core carries besides its arguments: who is calling (resolved once by
// the front door that received the call), the caller's request id, and when to give up.
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import type { Grant } from '../../shared/model.ts';

/** Who a call comes from. Every door resolves one the same way; authorisation reads it. */
export interface Principal {
  /** A stable name for logs and change history: "local", "token", "daemon", "token:ID". */
  readonly id: string;
  /** How the caller proved who it is. */
  readonly via: 'unix-socket' | 'bearer-token' | 'agent-token' | 'loopback' | 'internal';
  /** What an agent token allows; absent = the whole daemon. */
  readonly grant?: Grant;
}

export interface CallContext {
  readonly principal: Principal;
  /** The caller's request id for a write ("" when it sent none: no replay protection). */
  readonly requestId: string;
  /** Milliseconds since the epoch after which the caller no longer waits; absent = none. */
  readonly deadline?: number;
  /** Aborted when the caller goes away. */
  readonly signal: AbortSignal;
  /** Where the call's writes note the highest change number they committed, for the door to
   *  hand back (read-your-writes); absent = nobody asks. */
  readonly changes?: ChangeTracker;
}

export interface ChangeTracker {
  wrote: number;
}

/** A write of this call committed (or, replayed, was found committed by) change `seq`. */
export function noteChange(ctx: CallContext, seq: number): void {
  if (ctx.changes && seq > ctx.changes.wrote) ctx.changes.wrote = seq;
}

/** The daemon itself: start-up, background jobs. */
export const DAEMON: Principal = { id: 'daemon', via: 'internal' };

const NEVER = new AbortController().signal;

export function callContext(principal: Principal, extra: Partial<Omit<CallContext, 'principal'>> = {}): CallContext {
  return {
    principal,
    requestId: extra.requestId ?? '',
    signal: extra.signal ?? NEVER,
    ...(extra.deadline !== undefined ? { deadline: extra.deadline } : {}),
    ...(extra.changes ? { changes: extra.changes } : {}),
  };
}

/** The same call with another request id (a door that makes one up for a caller that sent none). */
export const withRequestId = (ctx: CallContext, requestId: string): CallContext => ({ ...ctx, requestId });

/** Throws when the caller has gone or its deadline has passed: work not yet committed stops. */
export function checkAlive(ctx: CallContext): void {
  if (ctx.signal.aborted) throw new EngramError(ErrorKind.Cancelled, 'the call was cancelled by the caller; nothing was written');
  if (ctx.deadline !== undefined && Date.now() > ctx.deadline) {
    throw new EngramError(ErrorKind.DeadlineExceeded, 'the call passed its deadline; nothing was written');
  }
}
