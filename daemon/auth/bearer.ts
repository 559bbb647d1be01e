// The one bearer-token check, for every door that takes a token (gRPC, REST, MCP over HTTP, the
// inspector). The scheme name is case-insensitive (RFC 7235). The daemon's own token is compared
// by digest in constant time, so neither its content nor its length leaks through timing; any
// other token may be an agent token, which opens only what its grant names.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isAgentToken } from '../../shared/agent-token.ts';
import type { Principal } from '../core/context.ts';

export const TOKEN_PRINCIPAL: Principal = { id: 'token', via: 'bearer-token' };

/** What every door says to a caller whose token proves nothing. */
export const TOKEN_REFUSED = "missing, wrong or revoked bearer token (the daemon's token file in the data directory, or an agent token from engram token create)";

/** Where agent tokens are looked up (absent: only the daemon's own token is accepted). */
export interface AgentTokenLookup {
  principalOf(token: string): Principal | null;
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

/** SHA-256 of a token: what is compared, and what the store keeps of an agent token. */
export const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

export class BearerAuthenticator {
  private readonly expected: Buffer;

  constructor(
    token: string,
    private readonly agentTokens?: AgentTokenLookup,
  ) {
    if (!token) throw new Error('a bearer token is required');
    this.expected = digest(token);
  }

  /** Why a header that proves no principal is refused: the usual words, except for an agent
   *  token presented to a daemon that takes none (an older release profile, --compat). */
  refusal(header: string | undefined): string {
    const token = BEARER.exec(header ?? '')?.[1];
    if (!this.agentTokens && token && isAgentToken(token)) {
      return "an agent token, which this daemon does not take: it serves an older release profile (--compat) whose only token is the daemon's own; restart it without --compat to use agent tokens";
    }
    return TOKEN_REFUSED;
  }

  /** The principal an `Authorization` header value proves, or null if it proves none. */
  principalOf(header: string | undefined): Principal | null {
    const match = BEARER.exec(header ?? '');
    // Compare even when there is no match, so a malformed header takes as long as a wrong token.
    const ok = timingSafeEqual(digest(match?.[1] ?? ''), this.expected) && match !== null;
    if (ok) return TOKEN_PRINCIPAL;
    return match ? (this.agentTokens?.principalOf(match[1]!) ?? null) : null;
  }
}
