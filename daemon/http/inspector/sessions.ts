// Browser sessions for the inspector. A person types the token once (or opens the link
// `engram inspect` prints, which carries a one-time ticket instead); the daemon answers with a
// session id the page keeps in its origin's storage and sends in the Engram-Session header.
// Not a cookie: a browser sends a host's cookies to every port of it, so a cookie would reach
// any other local server and ride along on requests other local pages make. The session keeps
// the token itself, not the principal it proved, so every request is checked again: a revoked
// agent token closes its sessions on their next request.
import { randomBytes } from 'node:crypto';

/** The request header carrying a session id. */
export const SESSION_HEADER = 'engram-session';
/** A session unused this long ends. */
const IDLE_MS = 12 * 3600_000;
/** A ticket from `engram inspect` is good once, within a minute. */
const TICKET_MS = 60_000;
/** Bounds on what a flood of logins can make the daemon hold. */
const MAX_SESSIONS = 1000;
const MAX_TICKETS = 100;

interface Held {
  authorization: string;
  expires: number;
}

export class InspectorSessions {
  private readonly sessions = new Map<string, Held>();
  private readonly tickets = new Map<string, Held>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A session for a checked Authorization header value; its id goes in the Engram-Session header. */
  open(authorization: string): string {
    return this.hold(this.sessions, MAX_SESSIONS, authorization, IDLE_MS);
  }

  /** A one-time ticket standing for an Authorization header value. */
  issueTicket(authorization: string): { ticket: string; expiresAt: number } {
    const ticket = this.hold(this.tickets, MAX_TICKETS, authorization, TICKET_MS);
    return { ticket, expiresAt: this.tickets.get(ticket)!.expires };
  }

  /** The Authorization a ticket stands for, once; undefined when unknown, used or expired. */
  redeemTicket(ticket: string): string | undefined {
    const held = this.live(this.tickets, ticket);
    this.tickets.delete(ticket);
    return held?.authorization;
  }

  /** The Authorization of a live session (its idle time restarts), else undefined. */
  authorizationOf(sessionId: string | undefined): string | undefined {
    if (!sessionId) return undefined;
    const held = this.live(this.sessions, sessionId);
    if (held) held.expires = this.now() + IDLE_MS;
    return held?.authorization;
  }

  close(sessionId: string | undefined): void {
    if (sessionId) this.sessions.delete(sessionId);
  }

  private live(map: Map<string, Held>, id: string): Held | undefined {
    const held = map.get(id);
    if (held && held.expires <= this.now()) map.delete(id);
    return held && held.expires > this.now() ? held : undefined;
  }

  private hold(map: Map<string, Held>, max: number, authorization: string, ttl: number): string {
    for (const [id, held] of map) if (held.expires <= this.now()) map.delete(id);
    // Full of live entries: the oldest (first inserted) gives way.
    while (map.size >= max) map.delete(map.keys().next().value!);
    const id = randomBytes(24).toString('base64url');
    map.set(id, { authorization, expires: this.now() + ttl });
    return id;
  }
}
