// Entities of a message, offline, with compromise's English tagger: named things (people, places,
// organisations), other proper nouns and acronyms first, then the head nouns of its noun phrases
// — lowercased, without duplicates, in order of appearance.
import { nlp } from './nlp.ts';
import { STOPWORDS } from '../index/stopwords.ts';

const MAX_ENTITIES = 8;
const PRONOUNS = new Set(['i', 'me', 'you', 'we', 'us', 'he', 'she', 'it', 'they', 'them', 'this', 'that', 'something', 'anything', 'everything', 'nothing']);

const clean = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}\s.+#-]/gu, '').replace(/[.]+$/u, '').trim();

export interface TypedEntity {
  label: string;
  /** person, place, organization, topic (another proper noun), acronym or concept (a head noun). */
  type: string;
}

export function typedEntitiesOf(message: string): TypedEntity[] {
  const doc = nlp()(message);
  const as = (type: string, phrases: string[]) => phrases.map((raw) => ({ raw, type }));
  const candidates = [
    ...as('person', doc.people().out('array') as string[]),
    ...as('place', doc.places().out('array') as string[]),
    ...as('organization', doc.organizations().out('array') as string[]),
    ...as('topic', doc.topics().out('array') as string[]),
    ...as('topic', doc.match('#ProperNoun+').out('array') as string[]),
    ...as('acronym', doc.acronyms().out('array') as string[]),
    ...as('concept', (doc.nouns().out('array') as string[]).map((phrase) => phrase.split(/\s+/).at(-1) ?? '')),
  ];
  const out: TypedEntity[] = [];
  for (const { raw, type } of candidates) {
    if (/^(i|we|you|he|she|it|they)['’]/iu.test(raw)) continue; // "I'll", "we're": a pronoun, not a name
    const label = clean(raw);
    if (label.length < 2 || PRONOUNS.has(label) || STOPWORDS.has(label) || out.some((e) => e.label === label)) continue;
    out.push({ label, type });
    if (out.length === MAX_ENTITIES) break;
  }
  return out;
}

export const entitiesOf = (message: string): string[] => typedEntitiesOf(message).map((e) => e.label);
