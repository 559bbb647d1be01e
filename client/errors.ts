// Errors the client library adds to the shared vocabulary (shared/errors.ts).
import { Capability } from '../shared/capabilities.ts';
import { EngramError, ErrorKind } from '../shared/errors.ts';

/** How an uncertain write is finished, which depends on what the daemon can do: ask it
 *  (write-status-v1), resend with the same request id, which it stores at most once
 *  (idempotent-write-v1), or, with neither, look for the write before writing it again. */
export type UncertainFinish = 'writeStatus' | 'resend' | 'inspect';

export function finishFor(capabilities: readonly string[]): UncertainFinish {
  if (capabilities.includes(Capability.WriteStatus)) return 'writeStatus';
  return capabilities.includes(Capability.IdempotentWrite) ? 'resend' : 'inspect';
}

const ADVICE: Record<UncertainFinish, (batch: boolean) => string> = {
  writeStatus: (batch) =>
    batch ? 'resend the same items with the same request ids (each is stored at most once).' : 'writeStatus(requestId) tells whether it committed before trying again.',
  resend: (batch) =>
    `this daemon cannot tell whether it committed (no write-status-v1): resend ${batch ? 'the same items with the same request ids' : 'it with the same requestId'}, which it stores at most once.`,
  inspect: () =>
    'this daemon can neither tell whether it committed (no write-status-v1) nor recognise a resend (no idempotent-write-v1): look for it (list or get) before writing it again.',
};

/**
 * A write was sent but its outcome is unknown: the connection dropped or the deadline passed
 * after the request may have reached the daemon. It may or may not have been committed.
 * The library never retries it. `finish` says how to settle it on the daemon it was sent to:
 * `client.writeStatus(err.requestId)` (write-status-v1), a resend with the same requestId
 * (idempotent-write-v1: the original is returned instead of writing twice), or, on a daemon with
 * neither, looking for the write before writing it again.
 */
export class UncertainWriteError extends EngramError {
  /** The request id of the write (the first item's, for a batch). */
  readonly requestId: string;

  constructor(
    /** Every request id the call carried: one, or one per item of a batch. */
    readonly requestIds: readonly string[],
    readonly method: string,
    readonly cause: unknown,
    /** What the daemon the write was sent to lets the caller do about it. */
    readonly finish: UncertainFinish = 'writeStatus',
  ) {
    const what = requestIds.length === 0 ? '' : requestIds.length === 1 ? ` request ${requestIds[0]}` : ` of ${requestIds.length} items`;
    super(
      ErrorKind.Unavailable,
      `${method}${what}: outcome unknown (${(cause as Error)?.message ?? cause}). It was not retried; ` +
        (requestIds.length === 0 ? 'check whether it took effect before trying again.' : ADVICE[finish](requestIds.length > 1)),
    );
    this.name = 'UncertainWriteError';
    this.requestId = requestIds[0] ?? '';
  }
}

/** No daemon could be reached at `address` (nothing listens there, or the connection attempt
 *  hung): the call failed before anything was sent, so trying it again is always safe. */
export class UnreachableError extends EngramError {
  constructor(readonly address: string, why: string) {
    super(ErrorKind.Unavailable, `cannot reach the Engram daemon at ${address}: ${why}. Is it running? (engram status)`);
    this.name = 'UnreachableError';
  }
}

/** The daemon lacks a capability the call needs; nothing was sent. */
export class CapabilityError extends EngramError {
  /** `profile`: the release profile the daemon says it serves ("current", "v0.2", …; "" or
   *  "legacy" when it does not say). A daemon of this release held to an older profile with
   *  --compat needs only a restart without it, not an update. */
  constructor(readonly capability: string, what: string, profile = '') {
    const compat = profile !== '' && profile !== 'current' && profile !== 'legacy';
    super(
      ErrorKind.FailedPrecondition,
      `${what}: this daemon does not advertise the capability "${capability}" it needs. ` +
        'Update Engram and restart the daemon (engram daemon), then try again' +
        (compat ? ` (this daemon serves the ${profile} release profile: restarting it without --compat is enough).` : '.'),
    );
    this.name = 'CapabilityError';
  }
}

/** What the CLI and `engram mcp` say when the daemon refuses the token they presented (wrong,
 *  revoked, or none over TCP). The daemon was reached and answered, so this points at the token
 *  the user gave, not at the daemon; `said` is the daemon's own reason. */
export function refusedTokenMessage(said: string): string {
  return `the daemon refused the token: ${said}. Check ENGRAM_TOKEN (or --token), e.g. create a new one with engram token create`;
}

/** Status kinds after which a sent request may or may not have been executed. */
export const UNCERTAIN_KINDS: ReadonlySet<string> = new Set([
  ErrorKind.Unavailable,
  ErrorKind.DeadlineExceeded,
  ErrorKind.Cancelled,
  ErrorKind.Internal,
]);
