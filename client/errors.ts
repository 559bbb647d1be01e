// Errors the client library adds to the shared vocabulary (shared/errors.ts).
import { EngramError, ErrorKind } from '../shared/errors.ts';

/**
 * A write was sent but its outcome is unknown: the connection dropped or the deadline passed
 * after the request may have reached the daemon. It may or may not have been committed.
 * The library never retries it; check with `get`/`list`, or resend with the same requestId
 * (a daemon with `idempotent-write-v1` then returns the original instead of writing twice).
 */
export class UncertainWriteError extends EngramError {
  constructor(
    readonly requestId: string,
    readonly method: string,
    readonly cause: unknown,
  ) {
    super(
      ErrorKind.Unavailable,
      `${method} request ${requestId}: outcome unknown (${(cause as Error)?.message ?? cause}). ` +
        'It was not retried; check whether it was stored before writing again.',
    );
    this.name = 'UncertainWriteError';
  }
}

/** The daemon lacks a capability the call needs; nothing was sent. */
export class CapabilityError extends EngramError {
  constructor(readonly capability: string, what: string) {
    super(
      ErrorKind.FailedPrecondition,
      `${what} needs the daemon capability "${capability}", which this daemon does not advertise. ` +
        'Update Engram and restart the daemon (engram daemon), then try again.',
    );
    this.name = 'CapabilityError';
  }
}

/** Status kinds after which a sent request may or may not have been executed. */
export const UNCERTAIN_KINDS: ReadonlySet<string> = new Set([
  ErrorKind.Unavailable,
  ErrorKind.DeadlineExceeded,
  ErrorKind.Cancelled,
  ErrorKind.Internal,
]);
