// Confidence: final = B · (1 + w · c), c = +1 verified, 0 inferred or unlabelled, −1 otherwise.
// With w = 0 it does not run, so the legacy arithmetic (final = B) holds exactly.
import { confidenceValue } from '../../lifecycle/confidence.ts';
import type { ModifierDefinition } from '../signal.ts';

export const confidenceModifier = {
  name: 'confidence',
  activate(plan) {
    const weight = plan.confidence?.weight ?? 0;
    if (weight === 0) return null;
    return {
      name: 'confidence',
      factor: (doc) => 1 + weight * confidenceValue(doc.confidence),
      band: (doc) => confidenceValue(doc.confidence),
      bands: [1, 0, -1],
    };
  },
} as const satisfies ModifierDefinition;
