// Filters restrict the eligible set before ranking: every signal, document frequency and
// recency rank is computed over the facts that pass. Event time = occurred_at, else created_at.
import * as check from '../../shared/validate.ts';
import type { Doc } from '../index/namespace.ts';
import { decayScore, type DecayConfig } from '../lifecycle/decay.ts';

export interface FilterInput {
  windowDays?: unknown;
  tagsAny?: unknown;
  tagsAll?: unknown;
  createdAfter?: unknown;
  createdBefore?: unknown;
  occurredAfter?: unknown;
  occurredBefore?: unknown;
  /** Only facts whose decay score is at least this, now. */
  minDecayScore?: unknown;
}

export type DocFilter = (doc: Doc) => boolean;

const DAY_MS = 86_400_000;

/** Returns null when the input restricts nothing (so the unfiltered fast paths apply). */
export function buildFilter(input: FilterInput, now: number, decay: DecayConfig): DocFilter | null {
  const tests: DocFilter[] = [];
  const f = 'options.filters.';
  if (input.windowDays !== undefined) {
    const since = now - check.windowDays(input.windowDays, `${f}window_days`) * DAY_MS;
    tests.push((d) => d.recencyTime >= since);
  }
  const any = input.tagsAny === undefined ? [] : check.tags(input.tagsAny, `${f}tags_any`);
  if (any.length) tests.push((d) => d.tags.some((t) => any.includes(t)));
  const all = input.tagsAll === undefined ? [] : check.tags(input.tagsAll, `${f}tags_all`);
  if (all.length) tests.push((d) => all.every((t) => d.tags.includes(t)));
  const time = (value: unknown, name: string) => (value === undefined ? undefined : check.timestampMs(value, `${f}${name}`));
  const createdAfter = time(input.createdAfter, 'created_after_ms');
  const createdBefore = time(input.createdBefore, 'created_before_ms');
  const occurredAfter = time(input.occurredAfter, 'occurred_after_ms');
  const occurredBefore = time(input.occurredBefore, 'occurred_before_ms');
  if (createdAfter !== undefined) tests.push((d) => d.createdAt >= createdAfter);
  if (createdBefore !== undefined) tests.push((d) => d.createdAt < createdBefore);
  if (occurredAfter !== undefined) tests.push((d) => d.recencyTime >= occurredAfter);
  if (occurredBefore !== undefined) tests.push((d) => d.recencyTime < occurredBefore);
  if (input.minDecayScore !== undefined) {
    const floor = check.minScore(input.minDecayScore, `${f}min_decay_score`);
    if (floor > 0) tests.push((d) => decayScore(decay, d, now) >= floor);
  }
  if (tests.length === 0) return null;
  return (doc) => tests.every((t) => t(doc));
}
