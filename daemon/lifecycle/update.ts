// Legacy UpdateFact: a whole-fact replace. The caller read a fact, changed some fields and sent
// it back; this plans the stored result. Identity (id, agent, created_at), server bookkeeping
// (access counts, vector) and kind never change through it, and a retired fact stays retired.
import { EngramError, ErrorKind, invalidArgument } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import type { Limits } from '../../shared/validate.ts';
import type { FactRecord } from '../store/record.ts';
import { pinState, SUPERSEDED_BY_AGENT } from '../store/record.ts';


/** The mutable fields as a front door received them (not yet validated). */
export interface FactPatch {
  id: unknown;
  text: unknown;
  occurredAt?: unknown;
  confidence?: unknown;
  pinned?: unknown;
  supersededBy?: unknown;
  tags?: unknown;
  entities?: unknown;
  source?: unknown;
  context?: unknown;
  meta?: unknown;
  strength?: unknown;
}

export function planReplacement(before: FactRecord, patch: FactPatch, limits: Limits, now: number): FactRecord {
  const pinned = patch.pinned === undefined ? before.pinned : check.boolean(patch.pinned, 'fact.pinned');
  const after: FactRecord = {
    ...before,
    text: check.factText(patch.text, limits, 'fact.text'),
    confidence: checkConfidence(patch.confidence, before.confidence),
    ...pinState(before, pinned, now),
    supersededBy: checkSupersededBy(patch.supersededBy ?? before.supersededBy, before),
    tags: patch.tags === undefined ? before.tags : check.tags(patch.tags, 'fact.tags'),
    entities: patch.entities === undefined ? before.entities : check.tags(patch.entities, 'fact.entities'),
    source: patch.source === undefined ? before.source : check.source(patch.source, 'fact.source'),
    context: patch.context === undefined || patch.context === '' ? '' : check.factText(patch.context, limits, 'fact.context'),
    meta: patch.meta === undefined ? before.meta : check.metaJson(patch.meta, limits, 'fact.meta_json'),
    strength: patch.strength === undefined ? before.strength : check.strength(patch.strength, 'fact.strength'),
    updatedAt: now,
  };
  if (patch.occurredAt === undefined) delete after.occurredAt;
  else after.occurredAt = check.timestampMs(patch.occurredAt, 'fact.occurred_at_ms');
  return after;
}


/** "" keeps the stored label: an old client that cannot express a label must not erase one.
 *  An unchanged unknown historical label is preserved; a new label must be a known one. */
function checkConfidence(value: unknown, stored: string): string {
  if (value === undefined || value === '' || value === stored) return stored;
  return check.confidenceLabel(value, 'fact.confidence');
}

function checkSupersededBy(value: unknown, before: FactRecord): string {
  if (typeof value !== 'string') throw invalidArgument('fact.superseded_by', 'must be a string');
  if (before.supersededBy !== '' && value !== before.supersededBy) {
    throw new EngramError(
      ErrorKind.FailedPrecondition,
      `fact ${before.id} is retired (superseded by ${before.supersededBy}); a retired fact is never revived or re-pointed`,
      'fact.superseded_by',
    );
  }
  if (value !== '' && value !== SUPERSEDED_BY_AGENT) check.factId(value, 'fact.superseded_by');
  return value;
}
