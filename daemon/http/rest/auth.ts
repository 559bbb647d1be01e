// Who may call the REST API. Every route except the public ones needs `Authorization: Bearer
// <token>`. Without a token (--no-auth, loopback only) any local process may call, so requests
// that a web page could make are refused instead: a browser always sends Origin on cross-site
// writes and a rebound DNS name shows up in Host, while curl and scripts send neither.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { EngramError, ErrorKind } from '../../../shared/errors.ts';
import { HttpError } from './errors.ts';

export interface AuthOptions {
  token?: string;
  noAuth?: boolean;
}

/** "8080" → loopback; "host:port" and "[v6]:port" as given. */
export function parseListen(listen: string): { host: string; port: number } {
  if (/^\d+$/.test(listen)) return { host: '127.0.0.1', port: Number(listen) };
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(listen);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) {
    throw new EngramError(ErrorKind.InvalidArgument, `--http: expected [HOST:]PORT (e.g. 127.0.0.1:8080), got "${listen}"`, 'http');
  }
  return { host: match[1] ?? match[2]!, port };
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare.startsWith('::ffff:127.');
}

/** Refuses settings that would expose an unauthenticated API beyond this machine. */
export function checkAuthOptions(host: string, options: AuthOptions): void {
  if (options.noAuth) {
    if (!isLoopbackHost(host)) {
      throw new EngramError(ErrorKind.InvalidArgument, `--no-auth is allowed only on a loopback address (127.0.0.1, ::1, localhost), not "${host}"`, 'no_auth');
    }
    return;
  }
  if (!options.token) throw new EngramError(ErrorKind.InvalidArgument, 'the REST server needs a bearer token (token file, --token or ENGRAM_TOKEN) or --no-auth on loopback', 'token');
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Returns the request guard: throws 401/403 as an HttpError, or returns when the call may proceed. */
export function requestGuard(options: AuthOptions): (req: IncomingMessage) => void {
  if (options.noAuth) return refuseBrowserRequests;
  // Compare digests so neither the content nor the length of the token leaks through timing.
  const expected = digest(options.token!);
  return (req) => {
    const match = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      throw new HttpError(401, ErrorKind.Unauthenticated, 'missing or wrong bearer token: send "Authorization: Bearer <token>" (the token file in the data directory)', undefined, {
        'www-authenticate': 'Bearer realm="engram"',
      });
    }
  };
}

function refuseBrowserRequests(req: IncomingMessage): void {
  const host = req.headers.host ?? '';
  const hostname = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
  if (req.headers.origin !== undefined || !isLoopbackHost(hostname)) {
    throw new HttpError(403, ErrorKind.PermissionDenied, 'without a bearer token (--no-auth) only local, non-browser requests are served');
  }
}
