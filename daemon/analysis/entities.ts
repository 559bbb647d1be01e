// Entities of a message, offline, with compromise's English tagger: named things (people, places,
// organisations), other proper nouns and acronyms first, then the head nouns of its noun phrases
// — lowercased, without duplicates, in order of appearance.
import nlp from 'compromise';
import { STOPWORDS } from '../index/stopwords.ts';

const MAX_ENTITIES = 8;
const PRONOUNS = new Set(['i', 'me', 'you', 'we', 'us', 'he', 'she', 'it', 'they', 'them', 'this', 'that', 'something', 'anything', 'everything', 'nothing']);

const clean = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}\s.+#-]/gu, '').replace(/[.]+$/u, '').trim();

export function entitiesOf(message: string): string[] {
  const doc = nlp(message);
  const named = [...doc.topics().out('array'), ...doc.match('#ProperNoun+').out('array'), ...doc.acronyms().out('array')] as string[];
  const heads = (doc.nouns().out('array') as string[]).map((phrase) => phrase.split(/\s+/).at(-1) ?? '');
  const out: string[] = [];
  for (const raw of [...named, ...heads]) {
    if (/^(i|we|you|he|she|it|they)['’]/iu.test(raw)) continue; // "I'll", "we're": a pronoun, not a name
    const entity = clean(raw);
    if (entity.length < 2 || PRONOUNS.has(entity) || STOPWORDS.has(entity) || out.includes(entity)) continue;
    out.push(entity);
    if (out.length === MAX_ENTITIES) break;
  }
  return out;
}
