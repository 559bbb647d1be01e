// Who calls over gRPC. The unix socket is protected by its file mode (0600): a caller there is
// the local user, unless it presents an agent token, which confines it to that token's grant (a
// wrong or revoked token is refused rather than ignored). Over TCP every call carries a token,
// checked by the same authenticator as the HTTP doors.
import type { Authenticate } from '../../shared/grpc/bridge.ts';
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import type { BearerAuthenticator } from '../auth/bearer.ts';
import type { Principal } from '../core/context.ts';

export const LOCAL_PRINCIPAL: Principal = { id: 'local', via: 'unix-socket' };

const refused = (authenticator: BearerAuthenticator, header: string | undefined) => new EngramError(ErrorKind.Unauthenticated, authenticator.refusal(header));

const headerOf = (call: Parameters<Authenticate>[0]): string | undefined => {
  const [value] = call.metadata.get('authorization');
  return typeof value === 'string' ? value : undefined;
};

export function unixSocketCaller(authenticator: BearerAuthenticator): Authenticate {
  return (call) => {
    const header = headerOf(call);
    if (header === undefined) return LOCAL_PRINCIPAL;
    const principal = authenticator.principalOf(header);
    if (!principal) throw refused(authenticator, header);
    return principal.grant ? principal : LOCAL_PRINCIPAL;
  };
}

export function bearerTokenCaller(authenticator: BearerAuthenticator): Authenticate {
  return (call) => {
    const header = headerOf(call);
    const principal = authenticator.principalOf(header);
    if (!principal) throw refused(authenticator, header);
    return principal;
  };
}
