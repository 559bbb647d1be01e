// Who calls over gRPC. The unix socket is protected by its file mode (0600): a caller there is
// the local user. Over TCP every call carries the bearer token, checked by the same
// authenticator as the HTTP doors.
import type { Authenticate } from '../../shared/grpc/bridge.ts';
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import type { BearerAuthenticator } from '../auth/bearer.ts';
import type { Principal } from '../core/context.ts';

export const LOCAL_PRINCIPAL: Principal = { id: 'local', via: 'unix-socket' };

export const unixSocketCaller: Authenticate = () => LOCAL_PRINCIPAL;

export function bearerTokenCaller(authenticator: BearerAuthenticator): Authenticate {
  return (call) => {
    const [value] = call.metadata.get('authorization');
    const principal = authenticator.principalOf(typeof value === 'string' ? value : undefined);
    if (!principal) throw new EngramError(ErrorKind.Unauthenticated, 'missing or wrong bearer token (see the token file in the data directory)');
    return principal;
  };
}
