// A fact's two shapes and the one conversion between them: the record form the store and the
// protocol carry ("" and 0 for absent values, meta as JSON text) and the `Fact` apps see
// (undefined for absent values, meta as an object).
import type { Fact, FactFields } from './model.ts';

const present = <T>(value: T, absent: T): T | undefined => (value === absent ? undefined : value);

function metaObject(metaJson: string): Record<string, unknown> {
  if (!metaJson) return {};
  const parsed = JSON.parse(metaJson) as unknown;
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

/** When a fact was last used, as every door reports it: its creation time until something uses
 *  it (the store keeps 0 until then). */
export const lastUsedOf = (f: { lastUsedAt: number; createdAt: number }): number => f.lastUsedAt || f.createdAt;

export function toFact(record: FactFields, metaJson: string): Fact {
  const fact: Fact = {
    id: record.id,
    agentId: record.agentId,
    text: record.text,
    kind: record.kind,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    accessCount: record.accessCount,
    pinned: record.pinned,
    tags: [...record.tags],
    entities: [...record.entities],
    meta: metaObject(metaJson),
    strength: record.strength,
    useCount: record.useCount,
    reviewCount: record.reviewCount,
    crossDomainCount: record.crossDomainCount,
    relations: record.relations.map((r) => ({ ...r })),
    replaces: [...record.replaces],
    entityTypes: { ...record.entityTypes },
  };
  const optional: Partial<Fact> = {
    occurredAt: record.occurredAt,
    lastAccessedAt: present(record.lastAccessedAt, 0),
    confidence: present(record.confidence, ''),
    pinnedAt: present(record.pinnedAt, 0),
    supersededBy: present(record.supersededBy, ''),
    source: present(record.source, ''),
    context: present(record.context, ''),
    embedder: present(record.embedder, ''),
    lastUsedAt: present(record.lastUsedAt, 0),
    retiredReason: present(record.retiredReason, ''),
    promotedAt: present(record.promotedAt, 0),
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) (fact as unknown as Record<string, unknown>)[key] = value;
  return fact;
}

/** The record form of a fact (the legacy UpdateFact path sends a whole fact back this way). */
export function toRecord(fact: Fact): { fields: FactFields; metaJson: string } {
  const fields: FactFields = {
    id: fact.id,
    agentId: fact.agentId,
    text: fact.text,
    createdAt: fact.createdAt,
    ...(fact.occurredAt !== undefined ? { occurredAt: fact.occurredAt } : {}),
    updatedAt: fact.updatedAt,
    accessCount: fact.accessCount,
    lastAccessedAt: fact.lastAccessedAt ?? 0,
    confidence: fact.confidence ?? '',
    pinned: fact.pinned,
    pinnedAt: fact.pinnedAt ?? 0,
    supersededBy: fact.supersededBy ?? '',
    kind: fact.kind,
    tags: fact.tags,
    entities: fact.entities,
    source: fact.source ?? '',
    context: fact.context ?? '',
    strength: fact.strength,
    embedder: fact.embedder ?? '',
    useCount: fact.useCount,
    lastUsedAt: fact.lastUsedAt ?? 0,
    reviewCount: fact.reviewCount,
    crossDomainCount: fact.crossDomainCount,
    retiredReason: fact.retiredReason ?? '',
    promotedAt: fact.promotedAt ?? 0,
    relations: fact.relations ?? [],
    replaces: fact.replaces ?? [],
    entityTypes: fact.entityTypes ?? {},
  };
  return { fields, metaJson: Object.keys(fact.meta).length ? JSON.stringify(fact.meta) : '' };
}
