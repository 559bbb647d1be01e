// The daemon's HTTP server: one Node listener per configured address, each serving the same
// application (REST and/or MCP), with bounded waits for slow or stalled clients.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { DEFAULT_LIMITS } from '../../shared/validate.ts';

/** A URL may carry a query text of the advertised size, percent-encoded (up to 3 bytes a byte). */
const MAX_HEADER_BYTES = 3 * DEFAULT_LIMITS.maxTextBytes + 16 * 1024;
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import type { BearerAuthenticator } from '../auth/bearer.ts';
import type { Engram } from '../core/engram.ts';
import type { Log } from '../log.ts';
import type { Metrics } from './rest/metrics.ts';
import { buildApp, type Surface } from './app.ts';
import { checkAuthOptions, httpAuthenticator } from './auth.ts';
import { isLoopbackHost, parseListen } from './listen.ts';

export interface HttpServerOptions {
  /** "127.0.0.1:8080", "[::1]:0", or a bare port (= loopback). Port 0 picks a free port. */
  listen: string;
  surfaces: readonly Surface[];
  authenticator?: BearerAuthenticator;
  /** Serve without a token; refused unless the listen host is loopback. */
  noAuth?: boolean;
  log: Log;
  /** The namespace of the MCP tools whose agent_id is optional. */
  mcpAgent?: string;
  /** The daemon's counters (shared with its gRPC servers); absent: this server's own. */
  metrics?: Metrics;
}

export interface HttpServer {
  /** "host:port" actually bound (the port resolved when 0 was asked). */
  address: string;
  close(): Promise<void>;
}

/** How long close() lets in-flight requests finish before cutting their connections. */
const CLOSE_GRACE_MS = 5_000;

export async function startHttpServer(core: Engram, options: HttpServerOptions): Promise<HttpServer> {
  const { host, port } = parseListen(options.listen);
  checkAuthOptions(host, options);
  const app = buildApp(core, { surfaces: options.surfaces, authenticate: httpAuthenticator(options, host), log: options.log, mcpAgent: options.mcpAgent, noAuth: options.noAuth, metrics: options.metrics });
  // Bodies left unread (a 413, a 401...) are dropped by the application itself, with its own caps.
  // Node's 16 KiB header limit would answer 431 to a GET whose query is within the 32 KiB the
  // daemon advertises; the limit is raised to fit it.
  const server = createAdaptorServer({ fetch: app.fetch, autoCleanupIncoming: false, serverOptions: { maxHeaderSize: MAX_HEADER_BYTES } }) as Server;
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  // Node closes an idle keep-alive connection after 5 s, the very moment a client may reuse it
  // ("fetch failed" on a busy machine); idle connections are kept well past clients' own timeouts.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new EngramError(ErrorKind.FailedPrecondition, `cannot serve HTTP on ${options.listen}: ${error.code ?? error.message}`, 'http')),
    );
    server.listen(port, host, () => resolve());
  });
  server.on('error', (error) => options.log.error(`HTTP server error: ${error.message}`));
  const bound = server.address() as AddressInfo;
  const address = `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
  const what = options.surfaces.map((s) => ({ rest: 'REST API', mcp: 'MCP at /mcp', inspector: 'the inspector at /inspector/' })[s]).join(', ');
  options.log.info(`${what} on http://${address}${options.noAuth ? ' (no auth: loopback only)' : isLoopbackHost(host) ? '' : ' (beyond loopback: every call needs the bearer token)'}`);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolveClose) => {
      server.close(() => resolveClose());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
    }));
  return { address, close };
}
