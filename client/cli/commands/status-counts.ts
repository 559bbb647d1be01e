// The counts `engram status` shows, as far as the store answers: the whole store's, or none, with
// the reason, when the daemon answers but cannot reach its store (a PostgreSQL server that is down).
import { EngramError, ErrorKind } from '../../../shared/errors.ts';
import type { EngramClient } from '../../client.ts';
import type { Stats } from '../../types.ts';

/** The exit code of a daemon that is up but cannot reach its store (1 says it is not running). */
export const STORE_UNREACHABLE_EXIT = 3;

export type Counts =
  | { kind: 'store'; stats: Stats }
  | { kind: 'unreachable'; reason: string };

const isKind = (error: unknown, kind: ErrorKind): error is EngramError => error instanceof EngramError && error.kind === kind;

export async function readCounts(c: EngramClient): Promise<Counts> {
  try {
    return { kind: 'store', stats: await c.stats() };
  } catch (error) {
    // Unavailable is also what a daemon that just died gives: it is the store only if the daemon
    // still answers.
    if (!isKind(error, ErrorKind.Unavailable) || !(await answers(c))) throw error;
    return { kind: 'unreachable', reason: error.message };
  }
}

const answers = (c: EngramClient): Promise<boolean> =>
  c.hello().then(
    () => true,
    () => false,
  );
