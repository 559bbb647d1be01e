// Who may call the HTTP doors. Every route except the public ones needs `Authorization: Bearer
// <token>`, checked by the daemon's one bearer authenticator. Without a token (--no-auth,
// loopback only) any local process may call. In both modes, requests a web page could make are
// refused unless they come from this server's own pages: a browser always sends Origin on
// cross-site writes, and a DNS-rebound name shows up in Host, while curl and scripts send neither.
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import type { BearerAuthenticator } from '../auth/bearer.ts';
import type { Principal } from '../core/context.ts';
import { HttpError } from './errors.ts';
import { isLoopbackHost } from './listen.ts';

/** A caller on loopback without a token (--no-auth). */
export const LOOPBACK_PRINCIPAL: Principal = { id: 'local', via: 'loopback' };

export interface HttpAuthOptions {
  /** The daemon's bearer authenticator; absent only with noAuth. */
  authenticator?: BearerAuthenticator;
  /** Serve without a token; refused unless the listen host is loopback. */
  noAuth?: boolean;
}

/** Refuses settings that would expose an unauthenticated API beyond this machine. */
export function checkAuthOptions(host: string, options: HttpAuthOptions): void {
  if (options.noAuth) {
    if (!isLoopbackHost(host)) {
      throw new EngramError(ErrorKind.InvalidArgument, `--no-auth is allowed only on a loopback address (127.0.0.1, ::1, localhost), not "${host}"`, 'no_auth');
    }
    return;
  }
  if (!options.authenticator) throw new EngramError(ErrorKind.InvalidArgument, 'the HTTP server needs a bearer token (token file, --token or ENGRAM_TOKEN) or --no-auth on loopback', 'token');
}

export interface RequestHeaders {
  authorization?: string;
  host?: string;
  origin?: string;
}

const hostnameOf = (host: string): string => (host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!);

/** Resolves the caller of a request, or throws the 401/403 to answer. */
export function httpAuthenticator(options: HttpAuthOptions, listenHost: string): (headers: RequestHeaders) => Principal {
  const loopbackOnly = isLoopbackHost(listenHost);
  return (headers) => {
    const host = headers.host ?? '';
    if (loopbackOnly && !isLoopbackHost(hostnameOf(host))) throw forbidden();
    // The inspector's own page sends Origin = this server: served, with or without a token.
    if (headers.origin !== undefined && headers.origin !== `http://${host}`) throw forbidden();
    const authenticator = options.authenticator;
    if (options.noAuth && (headers.authorization === undefined || !authenticator)) return LOOPBACK_PRINCIPAL;
    // Without auth anyone local may call, but a token presented is checked: an agent's confines
    // the caller, and a revoked, expired or mistyped one is refused as on the other doors, never
    // taken for the local user (its caller meant to be that agent, not everyone).
    const principal = authenticator!.principalOf(headers.authorization);
    if (!principal) throw unauthenticated(authenticator!.refusal(headers.authorization));
    return options.noAuth && !principal.grant ? LOOPBACK_PRINCIPAL : principal;
  };
}

const unauthenticated = (refusal: string) =>
  new HttpError(401, ErrorKind.Unauthenticated, `${refusal}: send "Authorization: Bearer <token>"`, undefined, { 'www-authenticate': 'Bearer realm="engram"' });

const forbidden = () => new HttpError(403, ErrorKind.PermissionDenied, 'only local requests that do not come from another web page are served');
