// What a caller may do. A principal without a grant has the whole daemon (the local user on the
// unix socket, the daemon's own token, the daemon itself); an agent token carries a grant naming
// its namespaces and rights, and the shared namespace's rights apart. Every core operation asks
// here before it reads or changes anything, so every door refuses alike.
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import { SHARED_AGENT_ID } from '../../shared/validate.ts';
import type { Grant, Right, Slot } from '../../shared/model.ts';
import type { CallContext, Principal } from '../core/context.ts';
import type { FactRecord } from '../store/record.ts';

export { RIGHTS, type Grant, type Right } from '../../shared/model.ts';

const denied = (principal: Principal, what: string) => new EngramError(ErrorKind.PermissionDenied, `${principal.id} may not ${what}`);

/** Whether a grant holds `right` on a namespace (the shared one has its own rights). */
const holds = (grant: Grant, right: Right, agentId: string): boolean =>
  agentId === SHARED_AGENT_ID ? grant.shared.includes(right) : grant.agents.includes(agentId) && grant.rights.includes(right);

/** Whether the caller has the whole daemon. */
export const isFullAccess = (ctx: CallContext): boolean => ctx.principal.grant === undefined;

/** Throws PERMISSION_DENIED unless the caller holds `right` on the namespace. */
export function authorize(ctx: CallContext, right: Right, agentId: string): void {
  const grant = ctx.principal.grant;
  if (!grant || holds(grant, right, agentId)) return;
  const where = agentId === SHARED_AGENT_ID ? 'the shared namespace' : `namespace "${agentId}"`;
  throw denied(ctx.principal, `${right} ${where} (a token with that right comes from engram token create)`);
}

/** Throws PERMISSION_DENIED unless the caller has the whole daemon (`what`: the operation). */
export function authorizeDaemon(ctx: CallContext, what: string): void {
  if (!isFullAccess(ctx)) throw denied(ctx.principal, `${what}: only the local socket or the daemon's own token may`);
}

/** The namespaces of a list on which the caller holds any of `rights` (default: read). */
export function permitted(ctx: CallContext, namespaces: readonly string[], rights: readonly Right[] = ['read']): string[] {
  const grant = ctx.principal.grant;
  if (!grant) return [...namespaces];
  return namespaces.filter((ns) => rights.some((right) => holds(grant, right, ns)));
}

/** A fact as the caller may see it. A token that may change a namespace but not read it (an
 *  ingest-only agent) gets the state of the facts it changes (id, times, pinned, retired,
 *  confidence) but not what they say: pinning an id, or writing a text that was already stored
 *  with other tags, must not show it a text, context, tags or metadata it could not read. */
export function seenBy<T extends FactRecord>(ctx: CallContext, fact: T): T {
  if (mayRead(ctx, fact.agentId)) return fact;
  return { ...fact, text: '', context: '', tags: [], entities: [], entityTypes: {}, source: '', meta: '' };
}

/** A slot as the caller may see it: slots live in the shared namespace, and one that may write
 *  there but not read gets the state of the slot it wrote or archived (id, version, status, lock),
 *  not its value or evidence, as seenBy does for a fact. A write that leaves out slot_value keeps
 *  the stored one, so its answer would otherwise read any slot by name. */
export function slotSeenBy<T extends Slot>(ctx: CallContext, slot: T): T {
  if (mayRead(ctx, SHARED_AGENT_ID)) return slot;
  return { ...slot, slotValue: null, evidenceRefs: [] };
}

/** Whether the caller may read what a namespace's facts say. */
export function mayRead(ctx: CallContext, agentId: string): boolean {
  const grant = ctx.principal.grant;
  return !grant || holds(grant, 'read', agentId);
}

/** authorize() for a namespace as a caller sent it, checked only for a caller with a grant (the
 *  operation validates the input itself, so a full-access caller sees its usual errors). */
export function authorizeInput(ctx: CallContext, right: Right, agentIdInput: unknown): void {
  if (ctx.principal.grant) authorize(ctx, right, check.agentId(agentIdInput));
}
