// The daemon's HTTP application (Hono): the REST routes, MCP at /mcp, one body limit, one
// authenticator, one error shape. Every response carries Cache-Control: no-store (answers hold
// memories) and nosniff; an unexpected error is logged under a reference and the caller sees only
// the reference.
import { randomBytes } from 'node:crypto';
import type { HttpBindings } from '@hono/node-server';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import { matchedRoutes } from 'hono/route';
import { ErrorKind } from '../../shared/errors.ts';
import type { CallContext, ChangeTracker, Principal } from '../core/context.ts';
import { CHANGE_KEY, MIN_CHANGE_KEY, parseMinChange } from '../../shared/changes.ts';
import type { Engram } from '../core/engram.ts';
import type { Log } from '../log.ts';
import type { RequestHeaders } from './auth.ts';
import { declaresTooMuch, discardRest, jsonObjectBody, tooLarge } from './body.ts';
import { badRequest, errorAnswer, HttpError } from './errors.ts';
import { mcpHandler, MCP_PATH } from './mcp.ts';
import { mountInspector } from './inspector/site.ts';
import { InspectorSessions, SESSION_HEADER } from './inspector/sessions.ts';
import { parseBody, parseQuery } from './rest/parse.ts';
import { REQUESTS } from './rest/schemas.ts';
import { Metrics } from './rest/metrics.ts';
import { CORE_FIELDS, ROUTES, type Reply, type Route } from './rest/routes.ts';

export type Surface = 'rest' | 'mcp' | 'inspector';

export interface AppOptions {
  surfaces: readonly Surface[];
  /** Resolves the caller of a request, or throws the 401/403 to answer. */
  authenticate: (headers: RequestHeaders) => Principal;
  log: Log;
  /** The namespace of the MCP tools whose agent_id is optional. */
  mcpAgent?: string;
  /** Served without a token (--no-auth): the inspector asks for no sign-in. */
  noAuth?: boolean;
  /** Where requests are counted for GET /metrics (the daemon's, shared with gRPC); default: a new one. */
  metrics?: Metrics;
}

type Env = { Bindings: HttpBindings; Variables: { principal: Principal; authorization: string; fields: Record<string, string>; changes: ChangeTracker } };

const KNOWN_METHODS = new Set(['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS']);

/** "/v1/facts/{id}" (OpenAPI) → "/v1/facts/:id" (Hono). */
const honoPath = (template: string): string => template.replace(/\{(\w+)\}/g, ':$1');
const templateOf = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

export function buildApp(core: Engram, options: AppOptions): Hono<Env> {
  const app = new Hono<Env>();
  const metrics = options.metrics ?? new Metrics();
  app.use('*', observe(metrics));
  app.onError((error, c) => answerError(c, error, options.log));
  app.notFound((c) => answerError(c, new HttpError(404, ErrorKind.NotFound, `no route ${new URL(c.req.url).pathname}; see GET /v1/openapi.json`), options.log));

  const limitBody: MiddlewareHandler<Env> = async (c, next) => {
    if (declaresTooMuch(c.env.incoming)) throw tooLarge();
    await next();
  };
  // Read-your-writes: Engram-Min-Change waits for that change here, before the token check (a
  // token made through another daemon is among what it waits for).
  const admit: MiddlewareHandler<Env> = async (c, next) => {
    await core.admit(parseMinChange(c.req.header(MIN_CHANGE_KEY)));
    await next();
  };
  // A request from the inspector's page carries its session id instead of the token.
  const sessions = new InspectorSessions();
  const authenticate: MiddlewareHandler<Env> = async (c, next) => {
    const session = c.req.header(SESSION_HEADER);
    const authorization = c.req.header('authorization') ?? sessions.authorizationOf(session);
    // Sessions live in the daemon's memory: a restart (or 12 idle hours) ends them. Say so,
    // rather than blame a token the page never sent.
    if (authorization === undefined && session && !options.noAuth) {
      throw new HttpError(401, ErrorKind.Unauthenticated, 'the inspector session has ended (12 idle hours, a sign-out, or the daemon restarted): sign in again with the token, or open a new link from engram inspect');
    }
    c.set('principal', options.authenticate({ authorization, host: c.req.header('host'), origin: c.req.header('origin') }));
    c.set('authorization', authorization ?? '');
    await next();
  };

  if (options.surfaces.includes('rest')) {
    for (const route of ROUTES) {
      const chain: MiddlewareHandler<Env>[] = route.auth ? [admit, authenticate] : [admit];
      if (route.method === 'POST') chain.push(limitBody);
      app.on(route.method, honoPath(route.path), every(...chain), (c) => handleRoute(c, route, core, metrics));
    }
    // A method a path does not serve: 405 naming the ones it does (after the token check, so
    // only a caller with the token learns what a private path serves).
    for (const path of new Set(ROUTES.map((r) => r.path))) {
      const onPath = ROUTES.filter((r) => r.path === path);
      const allow = onPath.map((r) => r.method).join(', ');
      app.all(honoPath(path), every(...(onPath.some((r) => r.auth) ? [authenticate] : [])), (c) => {
        throw new HttpError(405, 'method_not_allowed', `${c.req.method} is not allowed on ${path}; allowed: ${allow}`, undefined, { allow });
      });
    }
  }
  if (options.surfaces.includes('inspector')) {
    mountInspector(app, { sessions, authenticate: options.authenticate, noAuth: options.noAuth ?? false }, every(admit, authenticate, limitBody));
  }
  if (options.surfaces.includes('mcp')) {
    const mcp = mcpHandler(core, options.log, options.mcpAgent);
    app.all(MCP_PATH, admit, authenticate, limitBody, (c) => mcp(c.req.raw, c.env.incoming, contextOf(c)));
  }
  return app;
}

/** URLSearchParams turns percent-encoded bytes that are not UTF-8 into U+FFFD; a body with such
 *  bytes is refused, and so is a query: the parameter is named. */
function rejectInvalidUtf8(search: string): void {
  for (const pair of search.replace(/^\?/, '').split('&')) {
    const at = pair.indexOf('=');
    const name = at < 0 ? pair : pair.slice(0, at);
    const value = at < 0 ? '' : pair.slice(at + 1);
    for (const part of [name, value]) {
      try {
        // A "%" not followed by two hex digits is a literal "%" to URLSearchParams: only
        // escapes decode to bytes, and only those bytes must be UTF-8.
        decodeURIComponent(part.replace(/\+/g, ' ').replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
      } catch {
        const label = (() => {
          try {
            return decodeURIComponent(name.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
          } catch {
            return 'query';
          }
        })();
        throw badRequest(label, 'is not valid UTF-8 (its percent-encoded bytes must form UTF-8)');
      }
    }
  }
}

function contextOf(c: Context<Env>): CallContext {
  const changes = c.get('changes') ?? { wrote: 0 };
  c.set('changes', changes);
  return { principal: c.get('principal'), requestId: '', signal: c.req.raw.signal, changes };
}

async function handleRoute(c: Context<Env>, route: Route, core: Engram, metrics: Metrics): Promise<Response> {
  const url = new URL(c.req.url);
  rejectInvalidUtf8(url.search);
  const query = parseQuery(route.query, url.searchParams);
  const body = route.body ? parseBody(REQUESTS[route.body], await jsonObjectBody(c.env.incoming)) : undefined;
  c.set('fields', errorNames(declaredNames(route), { ...query.spelled, ...body?.spelled }));
  // A write answers with the change it committed in Engram-Change.
  const ctx = contextOf(c);
  const reply = await route.handle({ core, ctx, params: c.req.param() as Record<string, string>, query: query.value, body: body?.value, metrics });
  const wrote = ctx.changes!.wrote;
  return send(c, wrote > 0 ? { ...reply, headers: { ...reply.headers, [CHANGE_KEY]: String(wrote) } } : reply);
}

/** The fields a route's query and body declare. */
function declaredNames(route: Route): string[] {
  return [...Object.keys(route.query.shape), ...(route.body ? Object.keys(REQUESTS[route.body].shape) : [])];
}

/** Core field name → the name this caller used: REST's name, or the alias they gave. */
function errorNames(declared: readonly string[], spelled: Record<string, string>): Record<string, string> {
  const names: Record<string, string> = { ...spelled };
  // A field the route takes under the core's own name keeps it, given or not (GET /v1/graph's
  // fact_id is not the {id} of a fact's path, even when the caller left it out).
  for (const name of declared) names[name] ??= name;
  for (const [core, rest] of Object.entries(CORE_FIELDS)) names[core] ??= spelled[rest] ?? rest;
  return names;
}

/** Every answer carries these: answers hold memories, so no cache may keep them. */
const COMMON_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

function send(c: Context<Env>, reply: Reply): Response {
  const body = reply.text ? reply.text.body : JSON.stringify(reply.json);
  const contentType = reply.text ? reply.text.contentType : 'application/json; charset=utf-8';
  return c.body(body, (reply.status ?? 200) as 200, { 'content-type': contentType, ...COMMON_HEADERS, ...reply.headers });
}

function answerError(c: Context<Env>, error: unknown, log: Log): Response {
  const answer = errorAnswer(error, c.get('fields') ?? {}, () => randomBytes(6).toString('hex'));
  if (answer.body.error.ref !== undefined) {
    const e = answer.internal as Error | undefined;
    log.error(`HTTP internal error (ref ${answer.body.error.ref}) in ${c.req.method} ${routeLabel(c)}: ${e?.stack ?? String(e)}`);
  }
  return send(c, { status: answer.status, json: answer.body, headers: answer.headers });
}

/** The matched route template ("/v1/facts/{id}"), never the raw path, or "unmatched". */
function routeLabel(c: Context): string {
  const paths = matchedRoutes(c).map((r) => r.path).filter((p) => p !== '*' && p !== '/*');
  return paths.length ? templateOf(paths[paths.length - 1]!) : 'unmatched';
}

/** Headers every answer carries, request metrics, and dropping what is left of a refused body. */
function observe(metrics: Metrics): MiddlewareHandler<Env> {
  return async (c, next) => {
    const started = process.hrtime.bigint();
    const { incoming, outgoing } = c.env;
    outgoing.once('finish', () => {
      const method = KNOWN_METHODS.has(c.req.method) ? c.req.method : 'OTHER';
      metrics.observe(method, routeLabel(c), outgoing.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    await next();
    for (const [name, value] of Object.entries(COMMON_HEADERS)) c.res.headers.set(name, value);
    // Before the answer is written: Node drops an unread body silently once the response
    // finishes, and a client still sending would then wait for nothing.
    const hasBody = incoming.headers['transfer-encoding'] !== undefined || Number(incoming.headers['content-length'] ?? 0) > 0;
    if (hasBody && !incoming.readableEnded) discardRest(incoming);
  };
}
