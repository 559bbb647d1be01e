// The inspector's place on the HTTP server: its built page at /inspector/ (static files from
// `npm run build`, nothing from a CDN), and the session routes that turn one token entry, or a
// ticket from `engram inspect`, into a session id (sessions.ts says why not a cookie). The page
// itself talks only to the REST API.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { ErrorKind } from '../../../shared/errors.ts';
import type { Principal } from '../../core/context.ts';
import type { RequestHeaders } from '../auth.ts';
import { jsonObjectBody } from '../body.ts';
import { badRequest, HttpError } from '../errors.ts';
import { InspectorSessions, SESSION_HEADER } from './sessions.ts';

export const INSPECTOR_PATH = '/inspector/';

/** Where the built page is: beside the running bundle (dist/inspector), or dist/ above the
 *  source. Only a built page counts (it has assets/): the repository's inspector/ is its source. */
export function inspectorRoot(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from, up = 0; up < 4; dir = dirname(dir), up++) {
    for (const candidate of [join(dir, 'dist', 'inspector'), join(dir, 'inspector')]) {
      if (existsSync(join(candidate, 'index.html')) && existsSync(join(candidate, 'assets'))) return candidate;
    }
  }
  return undefined;
}

export interface InspectorSiteOptions {
  sessions: InspectorSessions;
  /** Resolves the caller, or throws the 401/403 to answer. */
  authenticate: (headers: RequestHeaders) => Principal;
  /** Served without a token (--no-auth): the page needs no sign-in. */
  noAuth: boolean;
  root?: string;
}

/** The page may load only its own scripts and styles and talk only to this server. */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const headersOf = (c: Context, authorization?: string): RequestHeaders => ({ authorization, host: c.req.header('host'), origin: c.req.header('origin') });

export function mountInspector(app: Hono<any>, options: InspectorSiteOptions, authenticated: MiddlewareHandler<any>): void {
  const root = options.root ?? inspectorRoot();
  const { sessions } = options;

  app.get('/inspector', (c) => c.redirect(INSPECTOR_PATH, 301));
  // The server's address alone, typed into a browser, opens the inspector (not a 404).
  app.get('/', (c) => c.redirect(INSPECTOR_PATH, 302));
  app.get('/inspector/session', (c) => {
    if (options.noAuth) return c.json({ signed_in: true, auth_required: false, principal: 'local' });
    const authorization = c.req.header('authorization') ?? sessions.authorizationOf(c.req.header(SESSION_HEADER));
    try {
      const principal = options.authenticate(headersOf(c, authorization));
      return c.json({ signed_in: true, auth_required: true, principal: principal.id });
    } catch (error) {
      if (error instanceof HttpError && error.status === 401) return c.json({ signed_in: false, auth_required: true });
      throw error;
    }
  });
  app.post('/inspector/session', async (c) => {
    const body = await jsonObjectBody(c.env.incoming);
    const authorization = credentialOf(body, sessions);
    const principal = options.authenticate(headersOf(c, authorization));
    return c.json({ signed_in: true, auth_required: true, principal: principal.id, session: sessions.open(authorization) });
  });
  app.delete('/inspector/session', (c) => {
    sessions.close(c.req.header(SESSION_HEADER));
    return c.json({ signed_in: false, auth_required: !options.noAuth });
  });
  // `engram inspect` asks for a ticket with the daemon's token and prints a link that carries it.
  app.post('/inspector/tickets', authenticated, (c: Context<{ Variables: { authorization: string } }>) => {
    if (options.noAuth) return c.json({ ticket: '', path: INSPECTOR_PATH, expires_at: null }, 201);
    const { ticket, expiresAt } = sessions.issueTicket(c.get('authorization'));
    return c.json({ ticket, path: `${INSPECTOR_PATH}#ticket=${ticket}`, expires_at: new Date(expiresAt).toISOString() }, 201);
  });

  if (!root) {
    app.get('/inspector/*', () => {
      throw new HttpError(404, ErrorKind.NotFound, 'the inspector is not built: run "npm run build" in the Engram package, then restart the daemon');
    });
    return;
  }
  const files = serveStatic({ root, rewriteRequestPath: (path) => path.slice(INSPECTOR_PATH.length - 1) || '/' });
  app.get('/inspector/*', async (c, next) => {
    const found = await files(c, next);
    if (!(found instanceof Response)) throw new HttpError(404, ErrorKind.NotFound, `the inspector has no ${new URL(c.req.url).pathname}`);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) found.headers.set(name, value);
    return found;
  });
}

/** What a sign-in body may hold: one of them. */
const SIGN_IN_FIELDS = ['token', 'ticket'];

/** The token typed into the page, or a ticket from `engram inspect`, as an Authorization value.
 *  The body follows the REST input rules: an unknown field, both credentials, or a credential
 *  that is not a non-empty string is a 400 naming the field, before any credential is tried. */
function credentialOf(body: Record<string, unknown>, sessions: InspectorSessions): string {
  const unknown = Object.keys(body).find((key) => !SIGN_IN_FIELDS.includes(key));
  if (unknown !== undefined) throw badRequest(unknown, 'is not a field of this request (give token, or the ticket of an "engram inspect" link)');
  if ('token' in body && 'ticket' in body) throw badRequest('ticket', 'give token or ticket, not both');
  if ('ticket' in body) {
    if (typeof body.ticket !== 'string' || body.ticket === '') throw badRequest('ticket', 'must be the ticket of an "engram inspect" link (a non-empty string)');
    const authorization = sessions.redeemTicket(body.ticket);
    if (!authorization) throw new HttpError(401, ErrorKind.Unauthenticated, 'this inspector link has expired or was used already: run "engram inspect" again, or sign in with the token');
    return authorization;
  }
  if (typeof body.token !== 'string' || body.token.trim() === '') throw badRequest('token', 'must be the bearer token (the token file in the data directory, or an agent token)');
  return `Bearer ${body.token.trim()}`;
}
