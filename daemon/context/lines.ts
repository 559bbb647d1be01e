// How each item reads in a context block: one line with what it says and how far to trust it,
// so the model reading the block can weigh a slot or fact rather than treat all as certain.
import type { Evidence, Slot } from '../../shared/model.ts';
import { effectiveLabel } from '../lifecycle/confidence.ts';
import type { FactRecord } from '../store/record.ts';

export const HEADINGS = { slot: '## Memory slots', pinned: '## Pinned facts', recalled: '## Recalled facts' } as const;

const evidenceLines = (evidence: readonly Evidence[]): string =>
  evidence.map((e) => `  evidence (${e.kind}) ${e.ref}${e.text ? `: ${e.text}` : ''}\n`).join('');

export function slotLine(slot: Slot, evidence: readonly Evidence[] = []): string {
  const scope = slot.scope === 'user' ? '' : ` [${slot.scope}]`;
  const project = slot.projectId ? ` (project ${slot.projectId})` : '';
  const trust = `confidence ${slot.confidence}, ${slot.status}, ${slot.authority}, ${slot.verificationState}, ${slot.visibility}`;
  return `- ${slot.slotName}${scope}${project}: ${JSON.stringify(slot.slotValue)} (${trust})\n${evidenceLines(evidence)}`;
}

export const pinnedLine = (fact: FactRecord): string => `- ${fact.text} (${effectiveLabel(fact.confidence)}, pinned, ${fact.id})\n`;

export const recalledLine = (fact: FactRecord, score: number, evidence: readonly Evidence[] = []): string =>
  `- ${fact.text} (${effectiveLabel(fact.confidence)}, score ${score.toPrecision(4)}, ${fact.id})\n${evidenceLines(evidence)}`;
