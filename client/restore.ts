// A put's restore (restore-write-v1) as the protocol carries it: checked by the daemon's rule
// first, so a caller's bug (a count of 1.5, a kind of "alias") is refused before anything is sent,
// in the daemon's words, instead of failing in the encoder.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { Capability } from '../shared/capabilities.ts';
import { FactKind } from '../shared/gen/engram/v1/fact_pb.ts';
import type { FactRestoreSchema } from '../shared/gen/engram/v1/memory_pb.ts';
import { checkRestore, RESTORE_FIELD, type FactRestore } from '../shared/restore.ts';
import { knownOptions } from '../shared/validate.ts';
import type { DaemonInfo } from './connection.ts';
import { requireCapability } from './negotiate.ts';
import { RESTORE_KEYS } from './options.ts';

export type { FactRestore } from '../shared/restore.ts';

/** A restore is refused before anything is sent to a daemon that would ignore it: one without
 *  restore-write-v1, or, for a promoted fact, without restore-promotion-v1 (it would come back
 *  unpromoted, for gc to collect). */
export function requireRestore(daemon: DaemonInfo, restores: readonly (FactRestore | undefined)[]): void {
  if (restores.every((r) => r === undefined)) return;
  requireCapability(daemon, Capability.RestoreWrite, 'a write with restore fields');
  if (restores.some((r) => r?.promotedAt !== undefined)) requireCapability(daemon, Capability.RestorePromotion, "a restore's promotedAt");
}

/** The wire form of a restore. Whether its last use lies in the future is the daemon's to say,
 *  by its own clock (this one may differ). */
export function restoreMessage(value: FactRestore): MessageInitShape<typeof FactRestoreSchema> {
  knownOptions(value, RESTORE_KEYS, RESTORE_FIELD);
  const r = checkRestore(value, Number.POSITIVE_INFINITY);
  return {
    useCount: r.useCount,
    lastUsedAtMs: r.lastUsedAt === undefined ? undefined : BigInt(r.lastUsedAt),
    reviewCount: r.reviewCount,
    crossDomainCount: r.crossDomainCount,
    kind: r.kind === 'summary' ? FactKind.SUMMARY : FactKind.UNSPECIFIED,
    replaces: r.replaces ?? [],
    promotedAtMs: r.promotedAt === undefined ? undefined : BigInt(r.promotedAt),
  };
}
