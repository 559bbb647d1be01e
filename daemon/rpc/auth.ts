// Bearer-token guard for the TCP listener. The unix socket is protected by its file mode
// (0600), so only TCP calls need a token.
import { timingSafeEqual } from 'node:crypto';
import type { CallGuard } from '../../shared/grpc/bridge.ts';
import { EngramError, ErrorKind } from '../../shared/errors.ts';

export function bearerTokenGuard(token: string): CallGuard {
  const expected = Buffer.from(`Bearer ${token}`);
  return (ctx) => {
    const [value] = ctx.metadata.get('authorization');
    const given = Buffer.from(typeof value === 'string' ? value : '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new EngramError(ErrorKind.Unauthenticated, 'missing or wrong bearer token (see the token file in the data directory)');
    }
  };
}
