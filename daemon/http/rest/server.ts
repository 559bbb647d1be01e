// The REST front door: a node:http server over the daemon's core. Per request: authenticate,
// route, let the route translate to one core call, answer JSON with Cache-Control: no-store.
// Errors become JSON error bodies; an unexpected error is logged with a reference and the
// caller sees only the reference.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EngramError, ErrorKind } from '../../../shared/errors.ts';
import type { Memory } from '../../memory.ts';
import { checkAuthOptions, isLoopbackHost, parseListen, requestGuard } from './auth.ts';
import { discardRest, readJsonObject } from './body.ts';
import { errorAnswer, HttpError } from './errors.ts';
import { checkQueryNames } from './input.ts';
import { Metrics } from './metrics.ts';
import { isPublicPath, resolve, type Reply } from './router.ts';
import { ROUTES, type RestContext } from './routes.ts';

export interface RestServerOptions {
  /** "127.0.0.1:8080", "[::1]:0", or a bare port (= loopback). */
  listen: string;
  token?: string;
  /** Serve without a token; refused unless the listen host is loopback. */
  noAuth?: boolean;
  log: (message: string) => void;
}

export interface RestServer {
  /** "host:port" actually bound (the port resolved when 0 was asked). */
  address: string;
  close(): Promise<void>;
}

/** How long close() lets in-flight requests finish before cutting their connections. */
const CLOSE_GRACE_MS = 5_000;
const KNOWN_METHODS = new Set(['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS']);

export async function startRestServer(memory: Memory, options: RestServerOptions): Promise<RestServer> {
  const { host, port } = parseListen(options.listen);
  checkAuthOptions(host, options);
  if (!isLoopbackHost(host)) options.log(`REST API listening beyond loopback on ${host}; every call needs the bearer token`);
  const guard = requestGuard(options);
  const metrics = new Metrics();

  const server = createServer((req, res) => {
    void handle(req, res).catch((error) => {
      // Only reachable if writing the answer itself failed; the connection is all we can drop.
      options.log(`REST: failed to answer ${req.method} ${req.url}: ${(error as Error)?.stack ?? error}`);
      res.destroy();
    });
  });
  // Bounded waits for slow or stalled clients, so they cannot hold connections forever.
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const method = KNOWN_METHODS.has(req.method ?? '') ? req.method! : 'OTHER';
    let routeLabel = 'unmatched';
    res.once('finish', () => metrics.observe(method, routeLabel, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9));
    let rename: Record<string, string> = {};
    try {
      const url = parseUrl(req.url);
      const resolution = resolve(ROUTES, req.method ?? '', url.pathname);
      routeLabel = 'route' in resolution ? resolution.route.path : (resolution.path ?? 'unmatched');
      if (!isPublicPath(ROUTES, url.pathname)) guard(req);
      if ('error' in resolution) throw resolution.error;
      const { route, params } = resolution;
      rename = route.fields;
      checkQueryNames(url.searchParams, route.query);
      const ctx: RestContext = { memory, req, params, query: url.searchParams, body: () => readJsonObject(req), metrics };
      send(req, res, await route.handle(ctx));
    } catch (error) {
      const answer = errorAnswer(error, rename, () => randomBytes(6).toString('hex'));
      if (answer.body.error.ref !== undefined) {
        const e = answer.internal as Error | undefined;
        options.log(`REST internal error (ref ${answer.body.error.ref}) in ${req.method} ${routeLabel}: ${e?.stack ?? String(e)}`);
      }
      send(req, res, { status: answer.status, json: answer.body, headers: answer.headers });
    }
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new EngramError(ErrorKind.FailedPrecondition, `cannot serve REST on ${options.listen}: ${error.code ?? error.message}`, 'http')),
    );
    server.listen(port, host, () => resolveListen());
  });
  server.on('error', (error) => options.log(`REST server error: ${error.message}`));
  const bound = server.address() as AddressInfo;
  const address = `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
  options.log(`REST API on http://${address}${options.noAuth ? ' (no auth: loopback only)' : ''}`);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolveClose) => {
      server.close(() => resolveClose());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
    }));
  return { address, close };
}

/** req.url is a path plus query; anything else ("*", an absolute URL form) is not ours. */
function parseUrl(raw: string | undefined): URL {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//')) throw new HttpError(400, ErrorKind.InvalidArgument, 'request target must be a path like /v1/recall');
  return new URL(raw, 'http://engram.invalid');
}

function send(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = reply.text ? reply.text.body : JSON.stringify(reply.json);
  const headers: Record<string, string | number> = {
    'content-type': reply.text ? reply.text.contentType : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    // Answers hold memories: no shared or private cache may keep them.
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...reply.headers,
  };
  res.writeHead(reply.status ?? 200, headers);
  res.end(body);
  // A body refused before it was read (413, 401, 404...) is dropped, never buffered.
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.complete) discardRest(req);
}
