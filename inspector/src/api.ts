// The page's only way to the daemon: its REST API, with the session cookie. Answers are typed
// by the REST schemas themselves (a type-only import: nothing of the daemon is bundled), so the
// page and the API cannot drift apart unnoticed. Each write's change number is sent back on
// later reads, so a page always shows what it just did, even behind several daemons.
import type { ResponseName, ResponseOf } from '../../daemon/http/rest/schemas.ts';

export type { ResponseOf } from '../../daemon/http/rest/schemas.ts';
export type Fact = ResponseOf<'Fact'>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Fired when the daemon no longer accepts the session: the page shows the sign-in again. */
export const SIGNED_OUT = 'engram:signed-out';

type QueryValue = string | number | boolean | readonly string[] | undefined;
let lastChange = 0;

export function url(path: string, query: Record<string, QueryValue> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (Array.isArray(value)) value.forEach((v) => params.append(name, v));
    else params.append(name, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

export async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, options: { query?: Record<string, QueryValue>; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const held = localStorage.getItem(SESSION_KEY);
  if (held) headers['engram-session'] = held;
  if (lastChange) headers['engram-min-change'] = String(lastChange);
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url(path, options.query), { method, headers, credentials: 'same-origin', body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const change = Number(response.headers.get('engram-change') ?? 0);
  if (change > lastChange) lastChange = change;
  const json = (await response.json().catch(() => ({}))) as { error?: { message: string; field?: string } };
  if (response.status === 401 && !path.startsWith('/inspector/')) window.dispatchEvent(new Event(SIGNED_OUT));
  if (!response.ok) throw new ApiError(response.status, json.error?.message ?? `${response.status} ${response.statusText}`, json.error?.field);
  return json as T;
}

export const get = <N extends ResponseName>(_name: N, path: string, query?: Record<string, QueryValue>) => call<ResponseOf<N>>('GET', path, { query });
export const post = <N extends ResponseName>(_name: N, path: string, body: unknown) => call<ResponseOf<N>>('POST', path, { body });
export const del = <N extends ResponseName>(_name: N, path: string, query?: Record<string, QueryValue>) => call<ResponseOf<N>>('DELETE', path, { query });

export interface Session {
  signed_in: boolean;
  auth_required: boolean;
  principal?: string;
  /** The session id, answered once at sign-in. */
  session?: string;
}

/** Where the page keeps its session id: this origin's storage (scheme, host and port), which
 *  no other local server's page can read. */
const SESSION_KEY = 'engram-session';

export const session = {
  current: () => call<Session>('GET', '/inspector/session'),
  async signIn(credential: { token: string } | { ticket: string }): Promise<Session> {
    const answer = await call<Session>('POST', '/inspector/session', { body: credential });
    if (answer.session) localStorage.setItem(SESSION_KEY, answer.session);
    return answer;
  },
  async signOut(): Promise<Session> {
    const answer = await call<Session>('DELETE', '/inspector/session');
    localStorage.removeItem(SESSION_KEY);
    return answer;
  },
};
