// Errors as REST answers them: an EngramError kind becomes an HTTP status, the field it names is
// renamed to the REST spelling (the core says "top_k", the URL says "k"), and anything that is
// not an EngramError is an internal error whose details go to the log, never to the caller.
import { EngramError, ErrorKind } from '../../shared/errors.ts';

/** An error the REST layer raises itself (bad JSON, 413, 405...), already in HTTP terms. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Bad request input: like the core's invalidArgument, the message starts with the field. */
export const badRequest = (field: string, problem: string) => new HttpError(400, ErrorKind.InvalidArgument, `${field}: ${problem}`, field);

const STATUS_OF_KIND: Record<ErrorKind, number> = {
  invalid_argument: 400,
  not_found: 404,
  failed_precondition: 409,
  unauthenticated: 401,
  permission_denied: 403,
  // The core's one exhausted resource is the disk (507 Insufficient Storage); a body over the
  // size limit is answered as 413 by the body reader before the core is reached.
  resource_exhausted: 507,
  aborted: 409,
  unimplemented: 501,
  unavailable: 503,
  deadline_exceeded: 504,
  cancelled: 503,
  internal: 500,
};

export interface ErrorBody {
  error: { code: string; message: string; field?: string; ref?: string };
}

export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** Set for internal errors: the caller logs it under body.error.ref. */
  internal?: unknown;
}

/** A core field name in REST's terms: renamed whole ("meta_json" → "meta"), or by its longest
 *  renamed head, the rest kept ("options.filters.tags_any[2]" → "tags_any[2]"). */
export function restField(field: string, rename: Readonly<Record<string, string>>): string {
  if (Object.hasOwn(rename, field)) return rename[field]!;
  for (let end = field.length - 1; end > 0; end--) {
    const c = field[end];
    if (c !== '.' && c !== '[') continue;
    const head = field.slice(0, end);
    if (Object.hasOwn(rename, head)) return rename[head] + field.slice(end);
  }
  return field;
}

/** `rename` maps core field names to this route's REST names (agent_id → agent, top_k → k...). */
export function errorAnswer(error: unknown, rename: Record<string, string>, ref: () => string): ErrorAnswer {
  if (error instanceof HttpError) {
    return { status: error.status, body: { error: { code: error.code, message: error.message, ...fieldOf(error.field) } }, headers: error.headers };
  }
  if (error instanceof EngramError && error.kind !== ErrorKind.Internal) {
    const field = error.field === undefined ? undefined : restField(error.field, rename);
    const message = field !== undefined && error.field !== undefined && error.message.startsWith(`${error.field}:`)
      ? `${field}${error.message.slice(error.field.length)}`
      : error.message;
    return { status: STATUS_OF_KIND[error.kind] ?? 500, body: { error: { code: error.kind, message, ...fieldOf(field) } }, headers: {} };
  }
  // Anything else may carry paths, stack frames or record contents: the caller gets a reference
  // to quote, the log gets the details.
  const id = ref();
  return {
    status: 500,
    body: { error: { code: ErrorKind.Internal, message: `internal error (ref ${id}); the daemon log has the details`, ref: id } },
    headers: {},
    internal: error,
  };
}

const fieldOf = (field: string | undefined) => (field === undefined ? {} : { field });
