// The counts `engram status` shows, as far as the caller may read them and the store answers:
// the whole store's; for an agent token (which may not read every namespace) those of the
// namespaces it may read; or none, with the reason, when the daemon answers but cannot reach its
// store (a PostgreSQL server that is down).
import { EngramError, ErrorKind } from '../../../shared/errors.ts';
import type { EngramClient } from '../../client.ts';
import type { Stats } from '../../types.ts';

/** The exit code of a daemon that is up but cannot reach its store (1 says it is not running). */
export const STORE_UNREACHABLE_EXIT = 3;

export type Counts =
  | { kind: 'store'; stats: Stats }
  | { kind: 'namespaces'; namespaces: { agentId: string; stats: Stats }[] }
  | { kind: 'unreachable'; reason: string };

const isKind = (error: unknown, kind: ErrorKind): error is EngramError => error instanceof EngramError && error.kind === kind;

export async function readCounts(c: EngramClient): Promise<Counts> {
  try {
    return await visibleCounts(c);
  } catch (error) {
    // Unavailable is also what a daemon that just died gives: it is the store only if the daemon
    // still answers.
    if (!isKind(error, ErrorKind.Unavailable) || !(await answers(c))) throw error;
    return { kind: 'unreachable', reason: error.message };
  }
}

async function visibleCounts(c: EngramClient): Promise<Counts> {
  try {
    return { kind: 'store', stats: await c.stats() };
  } catch (error) {
    // Only a token limited to some namespaces is refused the whole store's counts.
    if (!isKind(error, ErrorKind.PermissionDenied)) throw error;
  }
  const namespaces = [];
  for (const agentId of await c.listAgents()) namespaces.push({ agentId, stats: await c.stats(agentId) });
  return { kind: 'namespaces', namespaces };
}

const answers = (c: EngramClient): Promise<boolean> =>
  c.hello().then(
    () => true,
    () => false,
  );
