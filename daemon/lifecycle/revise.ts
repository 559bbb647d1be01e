// Revise: one or several live facts are replaced by a new fact. The replacement commits first,
// atomically; then each target is retired (superseded_by = replacement id) in its own phase, and
// a retirement that fails is reported alongside the committed replacement, never instead of it.
// An omitted label is conservative: min(inferred, lowest effective confidence of the targets).
// A revision never inherits a pin.
import { EngramError, ErrorKind, invalidArgument, notFound } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import type { Memory, WriteInput } from '../memory.ts';
import type { FactRecord } from '../store/record.ts';
import { checkLabel, revisionLabel } from './confidence.ts';

export interface ReviseInput extends WriteInput {
  targetIds: unknown;
}

export interface ReviseResult {
  replacement: FactRecord;
  retiredIds: string[];
  failures: { factId: string; error: string }[];
  replayed: boolean;
}

export async function revise(memory: Memory, input: ReviseInput): Promise<ReviseResult> {
  const agentId = check.agentId(input.agentId);
  const targetIds = checkTargets(input.targetIds, memory.options.limits);
  const fields = memory.checkWriteFields(input);
  const explicit = input.confidence === undefined ? undefined : checkLabel(input.confidence, 'options.confidence');
  const requestId = check.requestId(input.requestId ?? '');

  const targets = await memory.store.getMany(targetIds.map((factId) => ({ agentId, factId })));
  const replayOf = requestId ? await memory.store.requestedFactId(agentId, requestId) : undefined;
  targets.forEach((target, i) => validateTarget(target, targetIds[i]!, i, replayOf));
  fields.confidence = explicit ?? revisionLabel(targets.map((t) => t!.confidence));

  const { fact: replacement, replayed } = await memory.once(agentId, requestId, () => memory.insert(agentId, fields, requestId));
  const retiredIds: string[] = [];
  const failures: ReviseResult['failures'] = [];
  for (const factId of targetIds) {
    try {
      await retire(memory, agentId, factId, replacement.id);
      retiredIds.push(factId);
    } catch (error) {
      failures.push({ factId, error: (error as Error).message });
    }
  }
  return { replacement, retiredIds, failures, replayed };
}

function checkTargets(value: unknown, limits: check.Limits): string[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidArgument('target_ids', 'must name at least one fact to revise');
  if (value.length > limits.maxBatch) throw invalidArgument('target_ids', `at most ${limits.maxBatch} facts per revision`);
  const ids = value.map((id, i) => check.factId(id, `target_ids[${i}]`));
  if (new Set(ids).size !== ids.length) throw invalidArgument('target_ids', 'names a fact twice');
  return ids;
}

/** Targets must exist and be live — unless this is a replay and they were retired by it. */
function validateTarget(target: FactRecord | undefined, factId: string, i: number, replayOf: string | undefined): void {
  if (!target) throw notFound(`target_ids[${i}]: no fact ${factId} in this namespace`);
  if (target.kind !== 'fact') throw invalidArgument(`target_ids[${i}]`, `${factId} is an ${target.kind} record, not a fact`);
  if (target.supersededBy !== '' && target.supersededBy !== replayOf) {
    throw new EngramError(ErrorKind.FailedPrecondition, `target_ids[${i}]: fact ${factId} is already retired (superseded by ${target.supersededBy})`, `target_ids[${i}]`);
  }
}

/** Retires one target in its own transaction; retiring it again by the same replacement is a no-op. */
async function retire(memory: Memory, agentId: string, factId: string, replacementId: string): Promise<void> {
  await memory.store.withLock(agentId, factId, async () => {
    const before = await memory.store.get(agentId, factId);
    if (!before) throw notFound(`fact ${factId} was deleted before it could be retired`);
    if (before.supersededBy === replacementId) return;
    if (before.supersededBy !== '') throw new EngramError(ErrorKind.Aborted, `fact ${factId} was retired by ${before.supersededBy} meanwhile`);
    await memory.replace(before, { ...before, supersededBy: replacementId, updatedAt: Date.now() });
  });
}
