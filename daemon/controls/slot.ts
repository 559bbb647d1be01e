// A memory slot: a typed, scoped fact injected into every prompt whatever a query matched. Its
// rules, in one place: what a write may say (checked before anything is stored), how governance
// follows from it (authority from the review status, verification from the evidence), and the
// key a write upserts on (project, scope, name).
import { canonicalJson } from '../../shared/canonical-json.ts';
import { invalidArgument } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import type { Slot } from '../../shared/model.ts';

import { DEFAULT_SCOPE, DEFAULT_SLOT_CONFIDENCE, MAX_SLOT_VALUE_BYTES, SLOT_STATUSES, SLOT_VISIBILITIES } from '../../shared/slots.ts';

const MAX_NAME_BYTES = 128;
const MAX_EVIDENCE = 64;

export type SlotRecord = Slot;

/** What a write gives; absent fields keep the stored slot's (so a lock comes off only when a
 *  write says locked: false). */
export interface SlotInput {
  slotName: unknown;
  slotValue?: unknown;
  scope?: unknown;
  projectId?: unknown;
  locked?: unknown;
  status?: unknown;
  evidenceRefs?: unknown;
  confidence?: unknown;
  visibility?: unknown;
}

export interface CheckedSlot {
  slotName: string;
  scope: string;
  projectId: string;
  slotValue?: unknown;
  locked?: boolean;
  status?: string;
  evidenceRefs?: string[];
  confidence?: number;
  visibility?: string;
}

const shortString = (value: unknown, field: string, max: number): string => {
  if (typeof value !== 'string' || value.trim() === '') throw invalidArgument(field, 'must be a non-empty string');
  if (Buffer.byteLength(value) > max) throw invalidArgument(field, `must be at most ${max} bytes`);
  return value;
};

const oneOf = <T extends string>(value: unknown, allowed: readonly T[], field: string): T => {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw invalidArgument(field, `must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`);
  return value as T;
};

/** A slot value: a JSON value (the rule every door's JSON values follow) within the size a slot
 *  may hold, as the JSON text it is kept as. */
function slotValue(value: unknown, field: string): unknown {
  const text = JSON.stringify(check.jsonValue(value, field));
  if (Buffer.byteLength(text) > MAX_SLOT_VALUE_BYTES) throw invalidArgument(field, `is ${Buffer.byteLength(text)} bytes as JSON; the limit is ${MAX_SLOT_VALUE_BYTES}`);
  return JSON.parse(text) as unknown;
}

export function checkSlot(input: SlotInput): CheckedSlot {
  const out: CheckedSlot = {
    slotName: shortString(input.slotName, 'slot_name', MAX_NAME_BYTES),
    scope: input.scope === undefined ? DEFAULT_SCOPE : shortString(input.scope, 'scope', MAX_NAME_BYTES),
    projectId: input.projectId === undefined || input.projectId === null || input.projectId === '' ? '' : shortString(input.projectId, 'project_id', 256),
  };
  // A null slot would be injected into every context as "name: null", saying nothing.
  if (input.slotValue === null) throw invalidArgument('slot_value', 'is null: a slot holds a value (to drop a slot, delete it: it is archived and its history kept)');
  if (input.slotValue !== undefined) out.slotValue = slotValue(input.slotValue, 'slot_value');
  if (input.locked !== undefined) out.locked = check.boolean(input.locked, 'locked');
  if (input.status !== undefined) out.status = oneOf(input.status, SLOT_STATUSES, 'status');
  if (input.evidenceRefs !== undefined) {
    out.evidenceRefs = check.tags(input.evidenceRefs, 'evidence_refs');
    if (out.evidenceRefs.length > MAX_EVIDENCE) throw invalidArgument('evidence_refs', `at most ${MAX_EVIDENCE} references`);
  }
  if (input.confidence !== undefined) out.confidence = check.slotConfidence(input.confidence);
  if (input.visibility !== undefined) out.visibility = oneOf(input.visibility, SLOT_VISIBILITIES, 'visibility');
  return out;
}

/** The upsert key: one record per project, scope and name. */
export const slotKey = (s: { projectId: string; scope: string; slotName: string }): string => `${s.projectId}\u0000${s.scope}\u0000${s.slotName}`;

/** The slot a write leaves: the stored one (if any) with the given fields over it, governance
 *  derived again. A write to an archived slot brings it back. */
export function nextSlot(before: SlotRecord | undefined, w: CheckedSlot, id: string, now: number): SlotRecord {
  if (!before && w.slotValue === undefined) throw invalidArgument('slot_value', 'is required for a new slot');
  const status = w.status ?? (before && before.status !== 'archived' ? before.status : 'needs_review');
  const evidenceRefs = w.evidenceRefs ?? before?.evidenceRefs ?? [];
  return {
    id: before?.id ?? id,
    slotName: w.slotName,
    slotValue: w.slotValue !== undefined ? w.slotValue : before!.slotValue,
    scope: w.scope,
    projectId: w.projectId,
    locked: w.locked ?? before?.locked ?? false,
    status,
    authority: status === 'approved' || status === 'promoted' ? 'human_reviewed' : 'generated',
    evidenceRefs,
    verificationState: evidenceRefs.length > 0 ? 'supported' : 'unverified',
    confidence: w.confidence ?? before?.confidence ?? DEFAULT_SLOT_CONFIDENCE,
    visibility: w.visibility ?? before?.visibility ?? 'private',
    createdAt: before?.createdAt ?? now,
    updatedAt: now,
    version: (before?.version ?? 0) + 1,
  };
}

/** Whether a write leaves the slot as it was: then it records no new version (an agent that
 *  writes its slots on every start would otherwise grow their history without bound). Only the
 *  bookkeeping of a write (its time and version) is left out of the comparison. */
export function unchanged(before: SlotRecord, after: SlotRecord): boolean {
  const content = ({ updatedAt: _updatedAt, version: _version, ...rest }: SlotRecord) => canonicalJson(rest);
  return content(before) === content(after);
}
