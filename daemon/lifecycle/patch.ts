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

/** The patched version of a stored fact. Forgetting a retired fact leaves it retired as it was. */
export function applyPatch(before: FactRecord, patch: FactPatchRequest, now: number): FactRecord {
  const after: FactRecord = { ...before, updatedAt: now, ...(patch.pinned === undefined ? {} : pinState(before, patch.pinned, now)) };
  if (patch.confidence !== undefined) after.confidence = patch.confidence;
  if (patch.forget && before.supersededBy === '') after.supersededBy = SUPERSEDED_BY_AGENT;
  return after;
}
