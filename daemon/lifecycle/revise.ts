// Revise: one or several live facts are replaced by a new fact. The replacement and the
// retirement of every target (superseded_by = the replacement's id) are one atomic commit. An
// omitted label is conservative: min(inferred, lowest effective confidence of the targets). A
// revision never inherits a pin.
import { EngramError, ErrorKind, fieldNotFound, invalidArgument } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import type { FactRecord } from '../store/record.ts';
import { revisionLabel } from './confidence.ts';

export function checkTargets(value: unknown, limits: check.Limits): string[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidArgument('target_ids', 'must name at least one fact to revise');
  if (value.length > limits.maxBatch) throw invalidArgument('target_ids', `at most ${limits.maxBatch} facts per revision`);
  const ids = value.map((id, i) => check.factId(id, `target_ids[${i}]`));
  if (new Set(ids).size !== ids.length) throw invalidArgument('target_ids', 'names a fact twice');
  return ids;
}

/** Every target must exist, be a fact, and be live. */
export function checkTargetStates(targets: readonly (FactRecord | undefined)[], targetIds: readonly string[]): FactRecord[] {
  return targets.map((target, i) => {
    const factId = targetIds[i]!;
    if (!target) throw fieldNotFound(`target_ids[${i}]`, `no fact ${factId} in this namespace`);
    if (target.kind === 'alias') throw invalidArgument(`target_ids[${i}]`, `${factId} is an alias record, not a fact`);
    if (target.supersededBy !== '') {
      throw new EngramError(ErrorKind.FailedPrecondition, `target_ids[${i}]: fact ${factId} is already retired (superseded by ${target.supersededBy})`, `target_ids[${i}]`);
    }
    return target;
  });
}

/** The label of a replacement whose writer gave none. */
export const replacementLabel = (explicit: string | undefined, targets: readonly FactRecord[]): string =>
  explicit ?? revisionLabel(targets.map((t) => t.confidence));

/** A target as the revision leaves it: its relations have moved to the replacement. */
export const retired = (target: FactRecord, replacementId: string, now: number): FactRecord => ({ ...target, supersededBy: replacementId, updatedAt: now, relations: [] });
