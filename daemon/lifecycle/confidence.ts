// Confidence labels: writer declarations, not probabilities.
// New writes accept exactly verified, inferred or unverified; an absent/empty historical label
// counts as inferred and an unknown historical label is kept but counts as unverified.

export { CONFIDENCE_POLICY, type ConfidenceLabel } from '../../shared/validate.ts';
import type { ConfidenceLabel } from '../../shared/validate.ts';

/** c in final = B · (1 + w · c). */
export function confidenceValue(stored: string): -1 | 0 | 1 {
  if (stored === 'verified') return 1;
  if (stored === 'inferred' || stored === '') return 0;
  return -1;
}

export function effectiveLabel(stored: string): ConfidenceLabel {
  return (['unverified', 'inferred', 'verified'] as const)[confidenceValue(stored) + 1]!;
}

/** A revision's omitted label: min(inferred, the lowest effective confidence of its targets). */
export function revisionLabel(targetLabels: readonly string[]): ConfidenceLabel {
  const lowest = Math.min(0, ...targetLabels.map(confidenceValue));
  return lowest < 0 ? 'unverified' : 'inferred';
}
