// What one change of a memory slot changed, field by field, in words: `engram slots history` and
// the inspector's change history print the same account (an unlock is "locked true → false", not
// a value written over itself).
import type { SlotJson } from '../schemas/json-shapes.ts';

const FIELDS = ['slot_value', 'status', 'locked', 'confidence', 'evidence_refs', 'visibility'] as const;

type SlotFields = Pick<SlotJson, (typeof FIELDS)[number]>;

export function describeSlotChange(before: SlotFields | null, after: SlotFields): string {
  if (!before) return `created with value ${JSON.stringify(after.slot_value)}`;
  const changed = FIELDS.filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]));
  return changed.map((f) => `${f} ${JSON.stringify(before[f])} → ${JSON.stringify(after[f])}`).join('; ') || 'no field changed';
}
