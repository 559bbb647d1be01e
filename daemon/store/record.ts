// The stored fact record and its codec. Records are JSON in LevelDB; a record written by an
// older version that lacks a newer field loads with that field's zero value and behaves as before.

import type { FactFields } from '../../shared/model.ts';
import { DEFAULT_STRENGTH } from '../../shared/validate.ts';
export type { FactKindName } from '../../shared/model.ts';

export interface FactRecord extends FactFields {
  /** A JSON object as text ("" = {}). */
  meta: string;
  /** Key of this fact's vector in its namespace's vector index (0 = no vector). */
  vectorKey: number;
  /** The request id that created it, if any: erasing the fact erases that record too. */
  requestId?: string;
}

export { SUPERSEDED_BY_AGENT } from '../../shared/retired.ts';

export function decodeFact(raw: Partial<FactRecord> & { id: string; agentId: string; text: string }): FactRecord {
  return {
    id: raw.id,
    agentId: raw.agentId,
    text: raw.text,
    createdAt: raw.createdAt ?? 0,
    ...(raw.occurredAt !== undefined ? { occurredAt: raw.occurredAt } : {}),
    updatedAt: raw.updatedAt ?? raw.createdAt ?? 0,
    accessCount: raw.accessCount ?? 0,
    lastAccessedAt: raw.lastAccessedAt ?? 0,
    confidence: raw.confidence ?? '',
    pinned: raw.pinned ?? false,
    pinnedAt: raw.pinnedAt ?? 0,
    supersededBy: raw.supersededBy ?? '',
    kind: raw.kind ?? 'fact',
    tags: raw.tags ?? [],
    entities: raw.entities ?? [],
    source: raw.source ?? '',
    context: raw.context ?? '',
    meta: raw.meta ?? '',
    strength: raw.strength ?? DEFAULT_STRENGTH,
    embedder: raw.embedder ?? '',
    vectorKey: raw.vectorKey ?? 0,
    // Records from before decay-v1: written once, never used since.
    useCount: raw.useCount ?? 1,
    lastUsedAt: raw.lastUsedAt ?? 0,
    reviewCount: raw.reviewCount ?? 0,
    crossDomainCount: raw.crossDomainCount ?? 0,
    retiredReason: raw.retiredReason ?? '',
    promotedAt: raw.promotedAt ?? 0,
    relations: raw.relations ?? [],
    replaces: raw.replaces ?? [],
    entityTypes: raw.entityTypes ?? {},
    ...(raw.requestId ? { requestId: raw.requestId } : {}),
  };
}

/** Pinning keeps the first pin time; unpinning clears it. The one rule for every pin path. */
export function pinState(before: FactRecord, pinned: boolean, now: number): Pick<FactRecord, 'pinned' | 'pinnedAt'> {
  return { pinned, pinnedAt: pinned ? (before.pinned ? before.pinnedAt : now) : 0 };
}
