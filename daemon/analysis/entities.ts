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

/** A fact's entities with the types known for them. */
export interface FactEntities {
  entities: string[];
  entityTypes?: Record<string, string>;
}

/** What a write stores as a fact's entities, given its text and those its writer gave. */
export type EntityNamer = (text: string, given: FactEntities) => FactEntities;

/** The one rule for every write that sets a fact's text (put, batch, revise, a cluster merge, a
 *  consolidation summary): the entities the writer gave stand; with extraction on (`--kg`) and
 *  none given, the fact gets those its text names. Applied alike everywhere, every version of a
 *  fact is in the graph, not only the first. Returns `given` itself when it stands, so a caller
 *  on the write path copies nothing then. */
export function entityNamer(extract: boolean): EntityNamer {
  return (text, given) => {
    if (!extract || given.entities.length > 0) return given;
    const found = typedEntitiesOf(text);
    return { entities: found.map((e) => e.label), entityTypes: Object.fromEntries(found.map((e) => [e.label, e.type])) };
  };
}

/** The entity types of facts merged into one (a cluster merge, a summary): each label's type. */
export const mergedEntityTypes = (facts: readonly { entityTypes: Record<string, string> }[]): Record<string, string> => Object.assign({}, ...facts.map((f) => f.entityTypes)) as Record<string, string>;
