// What the indexes derive from a fact: its keyword terms (text plus context, so a fact's
// context is searchable with it) and its doc row. One place, used by writes, start-up and doctor.
import { createHash } from 'node:crypto';
import { recencyTime } from '../store/fact-store.ts';
import type { StoredPostings } from '../store/database.ts';
import type { FactRecord } from '../store/record.ts';
import type { Doc } from './namespace.ts';
import { termFrequencies } from './tokenizer.ts';

export interface Terms {
  tf: Map<string, number>;
  length: number;
}

/** Only live facts of kind "fact" are recallable; aliases and retired facts are not indexed. */
export const isIndexed = (fact: FactRecord): boolean => fact.supersededBy === '' && fact.kind === 'fact';

export function termsOf(fact: FactRecord): Terms {
  return termFrequencies(fact.context ? `${fact.text}\n${fact.context}` : fact.text);
}

export const textKeyOf = (text: string): string => createHash('sha1').update(text).digest('base64');

export function docOf(fact: FactRecord): Doc {
  return {
    factId: fact.id,
    createdAt: fact.createdAt,
    recencyTime: recencyTime(fact),
    textKey: textKeyOf(fact.text),
    confidence: fact.confidence,
    kind: fact.kind,
    tags: fact.tags,
    vectorKey: fact.vectorKey,
  };
}

export const toStoredPostings = (terms: Terms): StoredPostings => ({ length: terms.length, terms: [...terms.tf] });

export const fromStoredPostings = (stored: StoredPostings): Terms => ({ length: stored.length, tf: new Map(stored.terms) });
