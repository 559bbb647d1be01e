// A restore (capability restore-write-v1): what an export carried of a fact that the daemon
// otherwise assigns a new one — its use statistics and their time, a summary's kind, the facts it
// replaced, and (restore-promotion-v1) when it was promoted — checked by the one rule the daemon and the library share. Whether the facts it names
// exist is the daemon's to check, when the write plans.
import { invalidArgument } from './errors.ts';
import * as check from './validate.ts';

export interface FactRestore {
  /** Times the fact was used, its creation the first (>= 1; absent: 1). */
  useCount?: number;
  /** When it was last used, in ms (not in the future; absent: its creation). */
  lastUsedAt?: number;
  /** Observed uses (>= 0). */
  reviewCount?: number;
  /** Observed uses in a conversation of other topics (>= 0). */
  crossDomainCount?: number;
  /** 'summary': a consolidation's summary; absent or 'fact': a plain fact. */
  kind?: 'fact' | 'summary';
  /** The facts of the same namespace it replaced or summarises. */
  replaces?: string[];
  /** When it was promoted to a long-term note, in ms (not in the future; restore-promotion-v1):
   *  a promoted fact is never collected nor consolidated. */
  promotedAt?: number;
}

/** The field a restore travels in, on every write that takes one. */
export const RESTORE_FIELD = 'options.restore';

/** The wire's int32: a count beyond it cannot be sent. */
const MAX_RESTORED_COUNT = 2 ** 31 - 1;

/** More than any summary or revision names (a consolidation summarises at most a cluster). */
export const MAX_RESTORED_REPLACES = 10_000;

/** The restore as given, checked: every field named by `field` (the protocol's
 *  `options.restore.<field>` unless told); `now` bounds the last use (a time to come would keep a
 *  fact from fading until then). */
export function checkRestore(value: unknown, now: number, field = (name: string) => `${RESTORE_FIELD}.${name}`): FactRestore {
  const r = check.options(value, RESTORE_FIELD) as Record<string, unknown>;
  const out: FactRestore = {};
  if (r.useCount !== undefined) out.useCount = check.count(r.useCount, field('use_count'), MAX_RESTORED_COUNT);
  if (r.reviewCount !== undefined) out.reviewCount = check.count(r.reviewCount, field('review_count'), MAX_RESTORED_COUNT, 0);
  if (r.crossDomainCount !== undefined) out.crossDomainCount = check.count(r.crossDomainCount, field('cross_domain_count'), MAX_RESTORED_COUNT, 0);
  if (r.lastUsedAt !== undefined) out.lastUsedAt = pastTime(r.lastUsedAt, field('last_used_at_ms'), now);
  if (r.promotedAt !== undefined) out.promotedAt = pastTime(r.promotedAt, field('promoted_at_ms'), now);
  if (r.kind !== undefined && r.kind !== 'fact') {
    if (r.kind !== 'summary') throw invalidArgument(field('kind'), `must be "fact" or "summary", got ${JSON.stringify(r.kind)} (an alias is written by Alias)`);
    out.kind = 'summary';
  }
  if (r.replaces !== undefined && !(Array.isArray(r.replaces) && r.replaces.length === 0)) out.replaces = replaced(r.replaces, field('replaces'));
  return out;
}

/** A time that has been: a last use or a promotion to come would keep the fact from fading (or
 *  from being collected) until then for no reason. */
function pastTime(value: unknown, field: string, now: number): number {
  const ms = check.timestampMs(value, field);
  if (ms <= 0) throw invalidArgument(field, `must be a time after 1970-01-01, got ${ms}`);
  if (ms > now) throw invalidArgument(field, `${new Date(ms).toISOString()} is in the future`);
  return ms;
}

function replaced(value: unknown, field: string): string[] {
  const ids = check.factIds(value, field, MAX_RESTORED_REPLACES);
  // A set, not indexOf: a summary may replace up to MAX_RESTORED_REPLACES facts.
  const seen = new Set<string>();
  const twice = ids.findIndex((id) => seen.size === seen.add(id).size);
  if (twice >= 0) throw invalidArgument(`${field}[${twice}]`, `names ${ids[twice]} a second time`);
  return ids;
}
