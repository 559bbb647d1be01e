// Route matching. Routes are declared with OpenAPI-style templates ("/v1/facts/{id}") so the
// route table and the OpenAPI document speak one vocabulary and can be compared mechanically.
import type { IncomingMessage } from 'node:http';
import type { Memory } from '../../memory.ts';
import { badRequest, HttpError } from './errors.ts';
import { ErrorKind } from '../../../shared/errors.ts';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface RequestContext {
  memory: Memory;
  req: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Reads the body as a JSON object (413 over 1 MiB, 400 if malformed). */
  body(): Promise<Record<string, unknown>>;
}

export interface Reply {
  status?: number;
  /** Serialised as JSON unless `text` is set. */
  json?: unknown;
  text?: { contentType: string; body: string };
  headers?: Record<string, string>;
}

export interface Route {
  method: Method;
  path: string;
  /** false only for routes anyone may call (GET /healthz). */
  auth: boolean;
  /** Query parameters the route accepts; any other is a 400 (a typo like top_k= would
   *  otherwise be silently ignored). */
  query: string[];
  /** Core field name → REST field name, for error messages. */
  fields: Record<string, string>;
  handle(ctx: RequestContext): Promise<Reply>;
}

export type Resolution =
  | { route: Route; params: Record<string, string> }
  | { error: HttpError; path?: string };

const segments = (path: string) => path.split('/').slice(1);

function matchTemplate(template: string, pathname: string): Record<string, string> | null {
  const want = segments(template);
  const got = segments(pathname);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith('{') && w.endsWith('}')) {
      if (g === '') return null;
      let value: string;
      try {
        value = decodeURIComponent(g);
      } catch {
        throw badRequest(w.slice(1, -1), 'is not valid percent-encoding');
      }
      params[w.slice(1, -1)] = value;
    } else if (w !== g) return null;
  }
  return params;
}

/** The route for a request, or the 404/405 to answer (405 carries Allow). `path` names the
 *  matched template even on 405, so metrics can label the request. */
export function resolve(routes: readonly Route[], method: string, pathname: string): Resolution {
  const allowed: Route[] = [];
  for (const route of routes) {
    const params = matchTemplate(route.path, pathname);
    if (!params) continue;
    if (route.method === method) return { route, params };
    allowed.push(route);
  }
  if (allowed.length === 0) return { error: new HttpError(404, ErrorKind.NotFound, `no route ${pathname}; see GET /v1/openapi.json`) };
  const allow = allowed.map((r) => r.method).join(', ');
  return {
    error: new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${allowed[0]!.path}; allowed: ${allow}`, undefined, { allow }),
    path: allowed[0]!.path,
  };
}

/** A path anyone may call: every route on it is public (so POST /healthz is a 405, not a 401). */
export function isPublicPath(routes: readonly Route[], pathname: string): boolean {
  const onPath = routes.filter((route) => matchTemplate(route.path, pathname) !== null);
  return onPath.length > 0 && onPath.every((route) => !route.auth);
}
