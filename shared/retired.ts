// What a retired fact's superseded_by means, said for a person. Its value is the replacing fact's
// id, or the sentinel "agent" when nothing replaced it: forgotten by its agent, or archived by gc,
// which leaves its reason ("gc: score … below …") in retired_reason. The sentinel names no one
// and is no id, so it is never shown as it is.

/** superseded_by of a fact retired without a replacement: forgotten by its agent, or archived by
 *  gc. Stored and sent as it is, so it never changes. */
export const SUPERSEDED_BY_AGENT = 'agent';

/** "superseded by <id>", "retired by the agent", or "retired by gc: score … below …". */
export function retiredText(supersededBy: string, retiredReason?: string | null): string {
  if (supersededBy !== SUPERSEDED_BY_AGENT) return `superseded by ${supersededBy}`;
  // A reason is the daemon's own and begins with what retired the fact ("gc: …").
  return retiredReason ? `retired by ${retiredReason}` : 'retired by the agent';
}
