// PatchFact: narrow, transactional lifecycle changes — pin, unpin, forget, confidence — applied
// to the stored fact under its lock, leaving every other field as it is. (The legacy UpdateFact
// is a whole-fact replace by the caller, with its read-modify-write races.)
import { invalidArgument, notFound } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import type { Memory } from '../memory.ts';
import { pinState, SUPERSEDED_BY_AGENT, type FactRecord } from '../store/record.ts';
import { checkLabel } from './confidence.ts';

export interface PatchInput {
  requestId?: unknown;
  agentId: unknown;
  factId: unknown;
  pinned?: unknown;
  forget?: unknown;
  confidence?: unknown;
}

export async function patchFact(memory: Memory, input: PatchInput): Promise<FactRecord> {
  const agentId = check.agentId(input.agentId);
  const factId = check.factId(input.factId);
  check.requestId(input.requestId ?? '');
  const pinned = input.pinned === undefined ? undefined : check.boolean(input.pinned, 'pinned');
  const forget = input.forget === undefined ? false : check.boolean(input.forget, 'forget');
  const confidence = input.confidence === undefined ? undefined : checkLabel(input.confidence, 'confidence');
  if (pinned === undefined && !forget && confidence === undefined) {
    throw invalidArgument('patch', 'names nothing to change (pinned, forget or confidence)');
  }
  return memory.store.withLock(agentId, factId, async () => {
    const before = await memory.store.get(agentId, factId);
    if (!before) throw notFound(`no fact ${factId} in namespace "${agentId}"`);
    const now = Date.now();
    const after: FactRecord = { ...before, updatedAt: now, ...(pinned === undefined ? {} : pinState(before, pinned, now)) };
    if (confidence !== undefined) after.confidence = confidence;
    if (forget && before.supersededBy === '') after.supersededBy = SUPERSEDED_BY_AGENT;
    await memory.replace(before, after);
    return memory.access.overlay(after);
  });
}
