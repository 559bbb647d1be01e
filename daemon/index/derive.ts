// What the indexes derive from a fact: its keyword terms (text plus context, so a fact's
// context is searchable with it) and its doc row. One place, used by writes, start-up and doctor.
import { digestOf } from '../../shared/digest.ts';
import type { StoredTerms } from '../store/store.ts';
import type { FactRecord } from '../store/record.ts';
import { NO_ITEMS, type Doc } from './namespace.ts';
import { terms } from './tokenizer.ts';

export interface Terms {
  tf: Map<string, number>;
  length: number;
}

/** Live facts and summaries are recallable; aliases and retired facts are not indexed. */
export const isIndexed = (fact: FactRecord): boolean => fact.supersededBy === '' && fact.kind !== 'alias';

/** The time recency ranks a fact by: when it happened if the writer said so, else when it was written. */
export const recencyTime = (fact: FactRecord): number => fact.occurredAt ?? fact.createdAt;

/** How much a word of the fact's own text counts against a word of its context or date: the
 *  fields of BM25F, folded into one index by scaling term counts and lengths (LoCoMo dev
 *  recall@10 0.740 → 0.746; 3 gave 0.748 alone but nothing more with relevance feedback). */
export const TEXT_FIELD_WEIGHT = 2;

/** What the keyword index reads for a fact: its text (weighted), its context, and — when the
 *  writer said when it happened — that date in words ("8 May 2023"), so "what happened in May
 *  2023" matches. */
export function termsOf(fact: FactRecord): Terms {
  // Counted into one map, the text's terms first: the same counts and term order as summing
  // each field's own counts.
  const tf = new Map<string, number>();
  let length = 0;
  const count = (text: string, weight: number) => {
    for (const term of terms(text)) {
      tf.set(term, (tf.get(term) ?? 0) + weight);
      length += weight;
    }
  };
  count(fact.text, TEXT_FIELD_WEIGHT);
  const around: string[] = [];
  if (fact.context) around.push(fact.context);
  if (fact.occurredAt !== undefined) around.push(eventDateWords(fact.occurredAt));
  if (around.length > 0) count(around.join('\n'), 1);
  return { tf, length };
}

/** What the embedder reads for a fact: its text alone. Its context is indexed for keywords but
 *  not embedded — averaged word vectors of three turns blur into a generic "conversation" vector
 *  (measured on LoCoMo: recall@10 0.635 with text alone, 0.570 with context; bench/quality.ts). */
export const embeddingText = (fact: { text: string }): string => fact.text;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "8 May 2023" (UTC), for keyword search on event time. */
export function eventDateWords(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

export const textKeyOf = (text: string): string => digestOf('sha1', text, 'base64');

/** Text as a writer would not tell apart: Unicode NFC, whitespace runs as one space, trimmed. */
const normalized = (text: string): string => text.normalize('NFC').replace(/\s+/gu, ' ').trim();

/** Identity of what a fact says, for write-time dedup: its normalized text, event time and context.
 *  "The meeting moved to Friday" and "…Thursday" differ; so do the same words on another date. */
export function contentKeyOf(fact: Pick<FactRecord, 'text' | 'context' | 'occurredAt'>): string {
  return digestOf('sha1', `${normalized(fact.text)}\u0000${fact.occurredAt ?? ''}\u0000${normalized(fact.context)}`, 'base64');
}

/** `contentKey`: the fact's contentKeyOf, when the caller has it already (a new fact's write
 *  took its lock by it). */
export function docOf(fact: FactRecord, contentKey = contentKeyOf(fact)): Doc {
  return {
    factId: fact.id,
    createdAt: fact.createdAt,
    recencyTime: recencyTime(fact),
    eventTime: fact.occurredAt !== undefined,
    textKey: textKeyOf(fact.text),
    contentKey,
    confidence: fact.confidence,
    kind: fact.kind,
    tags: fact.tags.length ? fact.tags : NO_ITEMS,
    vectorKey: fact.vectorKey,
    useCount: fact.useCount,
    lastUsedAt: fact.lastUsedAt,
    strength: fact.strength,
    pinned: fact.pinned,
    promoted: fact.promotedAt > 0,
    entities: fact.entities.length ? fact.entities : NO_ITEMS,
    relations: fact.relations.length ? fact.relations.map((r) => ({ type: r.type, targetId: r.targetId })) : NO_ITEMS,
  };
}

export const toStoredTerms = (terms: Terms): StoredTerms => ({ length: terms.length, terms: [...terms.tf] });

export const fromStoredTerms = (stored: StoredTerms): Terms => ({ length: stored.length, tf: new Map(stored.terms) });

/** Whether two versions of a fact index the same way: same keyword input, event time and
 *  embedding input. */
export function sameIndexInputs(a: FactRecord, b: FactRecord): boolean {
  return a.text === b.text && a.context === b.context && a.occurredAt === b.occurredAt && embeddingText(a) === embeddingText(b);
}
