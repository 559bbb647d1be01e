// PatchFact: narrow lifecycle changes — pin, unpin, forget, confidence — applied to the stored
// fact under its lock, leaving every other field as it is. (The legacy UpdateFact is a
// whole-fact replace by the caller, with its read-modify-write races.)
import { invalidArgument } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import { pinState, SUPERSEDED_BY_AGENT, type FactRecord } from '../store/record.ts';

export interface PatchInput {
  agentId: unknown;
  factId: unknown;
  pinned?: unknown;
  forget?: unknown;
  confidence?: unknown;
}

export interface FactPatchRequest {
  agentId: string;
  factId: string;
  pinned?: boolean;
  forget: boolean;
  confidence?: string;
}

export function checkPatch(input: PatchInput): FactPatchRequest {
  const agentId = check.agentId(input.agentId);
  const factId = check.factId(input.factId);
  const pinned = input.pinned === undefined ? undefined : check.boolean(input.pinned, 'pinned');
  const forget = input.forget === undefined ? false : check.boolean(input.forget, 'forget');
  const confidence = input.confidence === undefined ? undefined : check.confidenceLabel(input.confidence, 'confidence');
  if (pinned === undefined && !forget && confidence === undefined) {
    throw invalidArgument('patch', 'names nothing to change (pinned, forget or confidence)');
  }
  return { agentId, factId, ...(pinned === undefined ? {} : { pinned }), forget, ...(confidence === undefined ? {} : { confidence }) };
}

/** The patched version of a stored fact. Forgetting a retired fact leaves it retired as it was
 *  (a pin never revives one). A patch that changes nothing (forgetting a retired fact, pinning
 *  a pinned one) returns the fact as it was: a repeat is not an edit, so its updated_at stays. */
export function applyPatch(before: FactRecord, patch: FactPatchRequest, now: number): FactRecord {
  const after: FactRecord = { ...before, ...(patch.pinned === undefined ? {} : pinState(before, patch.pinned, now)) };
  if (patch.confidence !== undefined) after.confidence = patch.confidence;
  if (patch.forget && before.supersededBy === '') after.supersededBy = SUPERSEDED_BY_AGENT;
  return sameLifecycle(before, after) ? before : { ...after, updatedAt: now };
}

const sameLifecycle = (a: FactRecord, b: FactRecord): boolean =>
  a.pinned === b.pinned && a.pinnedAt === b.pinnedAt && a.confidence === b.confidence && a.supersededBy === b.supersededBy;
