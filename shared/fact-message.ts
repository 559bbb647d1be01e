// A fact as the protocol's Fact message, written once for both sides: the daemon sends its
// records this way, the client sends a whole fact back this way (the legacy UpdateFact path).
import type { MessageInitShape } from '@bufbuild/protobuf';
import { FactKind, type FactSchema } from './gen/engram/v1/fact_pb.ts';
import type { FactFields, FactKindName } from './model.ts';
import { lastUsedOf } from './fact-shape.ts';

const KIND_TO_PROTO: Record<FactKindName, FactKind> = { fact: FactKind.FACT, alias: FactKind.ALIAS, summary: FactKind.SUMMARY };

/** `metaJson`: the fact's meta object as text ("" = {}). */
export function factToMessage(fact: FactFields, metaJson: string): MessageInitShape<typeof FactSchema> {
  return {
    id: fact.id,
    agentId: fact.agentId,
    text: fact.text,
    createdAtMs: BigInt(fact.createdAt),
    occurredAtMs: fact.occurredAt === undefined ? undefined : BigInt(fact.occurredAt),
    updatedAtMs: BigInt(fact.updatedAt),
    accessCount: fact.accessCount,
    lastAccessedAtMs: BigInt(fact.lastAccessedAt),
    confidence: fact.confidence,
    pinned: fact.pinned,
    pinnedAtMs: BigInt(fact.pinnedAt),
    supersededBy: fact.supersededBy,
    kind: KIND_TO_PROTO[fact.kind],
    tags: fact.tags,
    entities: fact.entities,
    source: fact.source,
    context: fact.context,
    metaJson,
    strength: fact.strength,
    embedder: fact.embedder,
    useCount: fact.useCount,
    lastUsedAtMs: BigInt(lastUsedOf(fact)),
    reviewCount: fact.reviewCount,
    crossDomainCount: fact.crossDomainCount,
    retiredReason: fact.retiredReason,
    promotedAtMs: BigInt(fact.promotedAt),
    relations: fact.relations.map((r) => ({ type: r.type, targetId: r.targetId, createdAtMs: BigInt(r.createdAt) })),
    replaces: fact.replaces,
    entityTypes: fact.entityTypes,
  };
}
