// Error kinds shared by daemon and client, and their gRPC status codes.
// The daemon throws EngramError; the bridge turns it into a status; the client turns the
// status back into an EngramError of the same kind, so both sides speak one vocabulary.
import { status } from '@grpc/grpc-js';

export const ErrorKind = {
  InvalidArgument: 'invalid_argument',
  NotFound: 'not_found',
  FailedPrecondition: 'failed_precondition',
  Unauthenticated: 'unauthenticated',
  PermissionDenied: 'permission_denied',
  ResourceExhausted: 'resource_exhausted',
  Aborted: 'aborted',
  Unavailable: 'unavailable',
  Unimplemented: 'unimplemented',
  DeadlineExceeded: 'deadline_exceeded',
  Cancelled: 'cancelled',
  Internal: 'internal',
} as const;
export type ErrorKind = (typeof ErrorKind)[keyof typeof ErrorKind];

const kindToCode: Record<ErrorKind, status> = {
  invalid_argument: status.INVALID_ARGUMENT,
  not_found: status.NOT_FOUND,
  failed_precondition: status.FAILED_PRECONDITION,
  unauthenticated: status.UNAUTHENTICATED,
  permission_denied: status.PERMISSION_DENIED,
  resource_exhausted: status.RESOURCE_EXHAUSTED,
  aborted: status.ABORTED,
  unavailable: status.UNAVAILABLE,
  unimplemented: status.UNIMPLEMENTED,
  deadline_exceeded: status.DEADLINE_EXCEEDED,
  cancelled: status.CANCELLED,
  internal: status.INTERNAL,
};

export class EngramError extends Error {
  readonly kind: ErrorKind;
  /** The request field the error is about (snake_case, as on the wire), if any. */
  readonly field?: string;

  constructor(kind: ErrorKind, message: string, field?: string) {
    super(message);
    this.name = 'EngramError';
    this.kind = kind;
    this.field = field;
  }

  get code(): status {
    return kindToCode[this.kind];
  }
}

/** Bad input: the message always starts with the field name, so a user sees what to fix. */
export function invalidArgument(field: string, problem: string): EngramError {
  return new EngramError(ErrorKind.InvalidArgument, `${field}: ${problem}`, field);
}

export function notFound(what: string): EngramError {
  return new EngramError(ErrorKind.NotFound, what);
}

/** Nothing is found by what a request field names: like invalidArgument, the message starts with
 *  the field and the error carries it, so every door can say which field to fix. */
export function fieldNotFound(field: string, problem: string): EngramError {
  return new EngramError(ErrorKind.NotFound, `${field}: ${problem}`, field);
}

/** A fact id a request field names that its namespace does not hold, in the same words wherever
 *  a fact is looked up by id. */
export function noFact(field: string, factId: string, agentId: string): EngramError {
  return fieldNotFound(field, `no fact ${factId} in namespace "${agentId}"`);
}

/** An agent with no checkpoint, where a caller asked for its latest one as an error. */
export function noCheckpoint(agentId: string): EngramError {
  return fieldNotFound('agent_id', `no checkpoint for agent ${JSON.stringify(agentId)}`);
}

export function kindFromCode(code: number): ErrorKind {
  for (const [kind, c] of Object.entries(kindToCode)) if (c === code) return kind as ErrorKind;
  return ErrorKind.Internal;
}

/** Metadata key that carries EngramError.field across the wire. */
export const FIELD_METADATA_KEY = 'engram-field';

/** An item's own error, its field named within its batch ("items[3].text: …"). Only refusals
 *  (an EngramError) belong to one item; anything else is thrown on, to fail the whole call. */
export function itemError(error: unknown, at: number): EngramError {
  if (!(error instanceof EngramError)) throw error;
  const item = `items[${at}]`;
  if (!error.field) return new EngramError(error.kind, `${item}: ${error.message}`, item);
  // A message that already opens with its field ("request_id X was already used…") is not
  // given the field again: the item's slot reads as the write alone would have.
  const named = error.message.startsWith(`${error.field}: `) || error.message.startsWith(`${error.field} `);
  const message = named ? `${item}.${error.message}` : `${item}.${error.field}: ${error.message}`;
  return new EngramError(error.kind, message, `${item}.${error.field}`);
}
