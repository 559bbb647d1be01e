// One line of an `engram import` JSONL file → a checked record, or a reason it is refused.
// A line is {text, occurred_at?, tags?, entities?, source?, context?, meta?, confidence?, strength?,
// id?, pinned?, superseded_by?, kind?, relations?}; the other keys of an `engram export` line
// (created_at, access_count, replaces…) are assigned by the daemon and accepted but ignored —
// except, for a daemon that takes restores (restore-write-v1), the use statistics, a summary's
// kind and replaces, and (restore-promotion-v1) promoted_at, which are given back. Any other key is refused, so a typo ("occured_at")
// never silently drops a field.
import { canonicalJson } from '../../../shared/canonical-json.ts';
import { digestOf } from '../../../shared/digest.ts';
import * as check from '../../../shared/validate.ts';
import { SUPERSEDED_BY_AGENT } from '../../../shared/retired.ts';
import type { Limits } from '../../../shared/validate.ts';
import { parseEventTime } from './times.ts';
import { RELATION_TYPES, type RelationType } from '../../../shared/model.ts';
import { checkRestore, type FactRestore } from '../../../shared/restore.ts';

export interface ImportRecord {
  text: string;
  kind: 'fact' | 'alias';
  occurredAt?: number;
  tags: string[];
  entities: string[];
  source: string;
  context: string;
  /** "" = no meta. */
  metaJson: string;
  /** "" = no label (the legacy representation). */
  confidence: string;
  /** What the fact's decay starts from; absent = the daemon's default (1). */
  strength?: number;
  /** The fact's id where it came from (an export); maps superseded_by and finds facts already there. */
  id?: string;
  /** Its relations where it came from, to ids of that store (mapped like superseded_by). */
  relations: { type: RelationType; targetId: string }[];
  pinned: boolean;
  /** Its entities' types where it came from ({label: type}), set again after the fact is stored. */
  entityTypes: Record<string, string>;
  supersededBy: string;
  /** For kind "alias": what `engram alias` was given. */
  alias?: { term: string; equivalents: string[] };
  /** What the line carried (from an export) that a new fact cannot take: the daemon assigns it. */
  notKept: NotKept[];
  /** What it carried of the daemon's own record, given back when the import restores (asked for,
   *  and the daemon takes restores): `replaces` names facts by their ids where they came from
   *  (mapped like superseded_by). Not part of the request id: a later export of the same fact,
   *  used since, is still that fact. */
  restore?: FactRestore;
  /** Derived from the agent and the record's content: the same line never writes twice. */
  requestId: string;
}

const USED = new Set(['text', 'kind', 'occurred_at', 'tags', 'entities', 'entity_types', 'source', 'context', 'meta', 'confidence', 'strength', 'id', 'pinned', 'superseded_by', 'relations']);
/** What an export line carries that the daemon assigns on write. */
/** What an export line can hold that the import does not restore (see notKeptOf). */
export type NotKept = 'use statistics' | 'summary kind' | 'lineage' | 'promotion';

/** The daemon's own record of a fact that the line carries and a new fact starts without, where
 *  the daemon cannot restore it: its use (so it decays as a new fact of its strength), a summary's
 *  kind (a summary is the daemon's to make) and the facts a revision replaced, without
 *  restore-write-v1; its promotion, without restore-promotion-v1 too. Said after the import, so a
 *  restore is not taken for a full one. */
function notKeptOf(o: Record<string, unknown>, restoring: boolean, promotion: boolean): NotKept[] {
  const above = (v: unknown, floor: number) => typeof v === 'number' && v > floor;
  const out: NotKept[] = [];
  if (!restoring) {
    if (above(o.use_count, 1) || above(o.review_count, 0) || above(o.cross_domain_count, 0)) out.push('use statistics');
    if (o.kind === 'summary') out.push('summary kind');
    if (Array.isArray(o.replaces) && o.replaces.length > 0) out.push('lineage');
  }
  if (!(restoring && promotion) && o.promoted_at !== undefined && o.promoted_at !== null) out.push('promotion');
  return out;
}

const ASSIGNED = new Set([
  'agent_id', 'created_at', 'updated_at', 'access_count', 'last_accessed_at', 'pinned_at', 'embedder',
  'use_count', 'last_used_at', 'review_count', 'cross_domain_count', 'retired_reason', 'promoted_at',
  'replaces',
]);


/** A line's restore, checked as the daemon checks it but named by the line's keys. `use_count` 0
 *  is a daemon's from before decay-v1, which kept none: left to the new fact's. `promotion`: the
 *  daemon restores promoted_at too (restore-promotion-v1). */
function restoreOf(o: Record<string, unknown>, now: number, promotion: boolean): FactRestore | undefined {
  const given = (value: unknown) => value !== undefined && value !== null;
  const restore: Record<string, unknown> = {
    ...(given(o.use_count) && o.use_count !== 0 ? { useCount: o.use_count } : {}),
    ...(given(o.last_used_at) ? { lastUsedAt: parseEventTime(o.last_used_at, 'last_used_at') } : {}),
    ...(given(o.review_count) ? { reviewCount: o.review_count } : {}),
    ...(given(o.cross_domain_count) ? { crossDomainCount: o.cross_domain_count } : {}),
    ...(o.kind === 'summary' ? { kind: 'summary' } : {}),
    ...(given(o.replaces) ? { replaces: o.replaces } : {}),
    ...(promotion && given(o.promoted_at) ? { promotedAt: parseEventTime(o.promoted_at, 'promoted_at') } : {}),
  };
  if (Object.keys(restore).length === 0) return undefined;
  return checkRestore(restore, now, (name) => name.replace(/_ms$/, ''));
}

const optionalRestore = (restore: FactRestore | undefined) => (restore ? { restore } : {});

function optionalString(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new Error(`${field}: must be a string, got ${check.kindOf(value)}`);
  return value;
}

function relationList(value: unknown): ImportRecord['relations'] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`relations: must be a list, got ${check.kindOf(value)}`);
  return value.map((r, i) => {
    if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new Error(`relations[${i}]: must be an object {type, target_id}`);
    const { type, target_id: targetId } = r as Record<string, unknown>;
    if (typeof type !== 'string' || !(RELATION_TYPES as readonly string[]).includes(type)) throw new Error(`relations[${i}].type: must be one of ${RELATION_TYPES.join(', ')}`);
    return { type: type as RelationType, targetId: check.factId(targetId, `relations[${i}].target_id`) };
  });
}

/** {label: type}: every type a non-empty string (an export writes the types it has). */
function entityTypes(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`entity_types: must be an object {entity: type}, got ${check.kindOf(value)}`);
  const types: Record<string, string> = {};
  for (const [entity, type] of Object.entries(value)) {
    if (typeof type !== 'string' || type.trim() === '') throw new Error(`entity_types.${entity}: must be a non-empty string`);
    types[entity] = type;
  }
  return types;
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  return check.tags(value, field);
}

/** A stable, UUID-shaped request id for some content. */
export function derivedRequestId(parts: unknown[]): string {
  // Keys sorted as strings: the order these ids were first derived with.
  const h = digestOf('sha256', canonicalJson(parts, 'sorted') ?? '', 'hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function aliasOf(metaJson: string): { term: string; equivalents: string[] } {
  const meta = metaJson ? (JSON.parse(metaJson) as Record<string, unknown>) : {};
  const term = meta.alias_term;
  const equivalents = meta.alias_equivalents;
  if (typeof term !== 'string' || !Array.isArray(equivalents) || !equivalents.every((e) => typeof e === 'string')) {
    throw new Error('meta: an alias needs alias_term (a string) and alias_equivalents (a list of strings)');
  }
  return { term, equivalents };
}

/** The source id of a line `parseImportLine` refused, when it names one: other lines may point
 *  at it, and they are told which line to mend rather than that nothing has that id. */
export function refusedLineId(line: string): string | undefined {
  const parsed = check.parseJsonObject(line);
  const id = 'object' in parsed ? parsed.object.id : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Parses and checks one line; throws an Error whose message is the reason it is refused.
 *  `restoring`: the daemon takes restores, so what the line carries of its record is read (and
 *  checked) too; `promotion`: its promoted_at as well. */
export function parseImportLine(agentId: string, line: string, limits: Limits, restoring = false, promotion = false): ImportRecord {
  const parsed = check.parseJsonObject(line);
  if ('syntax' in parsed) throw new Error(`not JSON: ${parsed.syntax}`);
  if ('got' in parsed) throw new Error(`must be a JSON object, got ${parsed.got}`);
  const o = parsed.object;
  const unknown = Object.keys(o).filter((k) => !USED.has(k) && !ASSIGNED.has(k));
  if (unknown.length > 0) {
    // A conversation file fed to the fact importer: say which format it is.
    const hint = unknown.includes('sessions') || unknown.includes('conversation') ? ' (a conversation file? import it with --format conversation)' : '';
    throw new Error(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}${hint}`);
  }

  if (o.text === undefined) throw new Error('text: missing (every line needs the fact\'s text)');
  const text = check.factText(o.text, limits);
  const kind = o.kind === undefined || o.kind === null || o.kind === 'fact' || o.kind === 'summary' ? 'fact' : o.kind;
  if (kind !== 'fact' && kind !== 'alias') throw new Error(`kind: must be "fact" or "alias", got ${JSON.stringify(o.kind)}`);
  const meta = o.meta === undefined || o.meta === null ? {} : o.meta;
  if (typeof meta !== 'object' || Array.isArray(meta)) throw new Error(`meta: must be a JSON object, got ${check.kindOf(meta)}`);
  const metaJson = Object.keys(meta as object).length === 0 ? '' : check.metaJson(JSON.stringify(check.jsonValue(meta, 'meta')), limits, 'meta');
  const confidence = optionalString(o.confidence, 'confidence');
  if (confidence !== '') check.confidenceLabel(confidence);
  // The default strength is no strength: a line of an export from before strengths (or of a fact
  // never given one) keeps the request id it always had.
  const strength = o.strength === undefined || o.strength === null ? undefined : check.strength(o.strength);
  const context = optionalString(o.context, 'context');
  if (context !== '') check.factText(context, limits, 'context');
  const id = o.id === undefined || o.id === null ? undefined : optionalString(o.id, 'id');
  if (o.pinned !== undefined && o.pinned !== null && typeof o.pinned !== 'boolean') throw new Error(`pinned: must be true or false, got ${check.kindOf(o.pinned)}`);
  const supersededBy = optionalString(o.superseded_by, 'superseded_by');
  if (supersededBy !== '' && supersededBy !== SUPERSEDED_BY_AGENT) check.factId(supersededBy, 'superseded_by');
  // Stored, it could never be retired (the daemon refuses a fact replacing itself): every re-run
  // would fail on it again. Refused here, before anything of it is written.
  if (id && supersededBy === id) throw new Error(`superseded_by: names the line's own id ${id}, and a fact cannot replace itself (name the fact that replaced this one, "agent" if it was forgotten, or drop superseded_by to keep it live)`);
  // Likewise a relation to itself: the daemon relates two different facts only.
  const relations = relationList(o.relations);
  const self = id ? relations.findIndex((r) => r.targetId === id) : -1;
  if (self >= 0) throw new Error(`relations[${self}].target_id: names the line's own id ${id}, and a fact cannot be related to itself (name another fact, or drop the relation)`);

  const record: Omit<ImportRecord, 'requestId'> = {
    text,
    kind,
    occurredAt: parseEventTime(o.occurred_at, 'occurred_at'),
    tags: stringList(o.tags, 'tags'),
    entities: stringList(o.entities, 'entities'),
    source: check.source(optionalString(o.source, 'source')),
    context,
    metaJson,
    confidence,
    ...(strength !== undefined && strength !== check.DEFAULT_STRENGTH ? { strength } : {}),
    ...(id ? { id } : {}),
    pinned: o.pinned === true,
    entityTypes: entityTypes(o.entity_types),
    supersededBy,
    relations,
    ...(kind === 'alias' ? { alias: aliasOf(metaJson) } : {}),
    notKept: notKeptOf(o, restoring, promotion),
    ...(restoring && kind === 'fact' ? optionalRestore(restoreOf(o, Date.now(), promotion)) : {}),
  };
  // The content, not the lifecycle state (pinned, superseded_by, entity types set by a link) or
  // daemon bookkeeping: a later export of the same fact maps to the same request id.
  const content = { ...record, metaJson: metaJson ? (canonicalJson(JSON.parse(metaJson), 'sorted') ?? '') : '', pinned: undefined, supersededBy: undefined, alias: undefined, relations: undefined, entityTypes: undefined, notKept: undefined, restore: undefined };
  return { ...record, requestId: derivedRequestId(['engram-import-v1', agentId, content]) };
}
