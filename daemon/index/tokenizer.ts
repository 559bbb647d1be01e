// Keyword tokenizer: Unicode words → stopword filter → Porter2 stems.
//
// Pipeline for index terms (both documents and queries go through `terms`):
//   1. NFKC-normalise, so compatibility forms compare equal ("ﬁle" = "file",
//      full-width "ＡＢＣ" = "abc") and accented letters are precomposed.
//   2. Lowercase with `toLowerCase()` (locale-independent, unlike toLocaleLowerCase).
//   3. A word is a maximal run of letters, digits and combining marks. Everything
//      else separates words — including apostrophes: "don't" → "don", "t" and
//      "Engram's" → "engram", "s". The fragments are stopwords, so keyword terms are
//      the same as if the possessive had been stripped, and the word-vector embedder
//      (which also uses `words`) gets tokens its vocabulary actually contains (it has
//      "don" but no "don't"). CJK runs stay one token ("東京タワー").
//   4. Drop stopwords, then stem Latin-script words with Porter2.
//
// Changing any step changes what is stored in the index: bump TOKENIZER_ID.

import porter2 from 'wink-porter2-stemmer';
import { STOPWORDS } from './stopwords.ts';

// v2: the fact's own words count twice its context's (index/derive.ts TEXT_FIELD_WEIGHT).
export const TOKENIZER_ID = 'unicode-porter2-v2';

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** Words of `text` in order: normalised and lowercased, not stemmed, stopwords kept. */
export function words(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
}

/** `word` must already be lowercase (as produced by `words`). */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

// Basic Latin, Latin-1 letters (excluding × and ÷), Latin Extended-A/B and
// Latin Extended Additional. Porter2 only knows English, but running it on an
// accented Latin word is harmless (it mostly passes through: "café" → "café").
// Words with digits or other scripts are never stemmed: Porter2 would mangle
// them (it even rewrites the digit 3 internally).
const LATIN_WORD = /^[a-zA-Z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u1E00-\u1EFF]+$/;

// Stemming is the hot path of indexing and the vocabulary is Zipfian, so a memo
// hits most of the time. Clearing when full keeps memory bounded without the
// bookkeeping of an LRU.
const STEM_CACHE_MAX = 100_000;
const stemCache = new Map<string, string>();

/** No English word is longer; the stemmer's cost grows with the square of a word's length, so a
 *  pathological 30 KB "word" would otherwise stall the daemon for tens of seconds. */
const MAX_STEMMED_LENGTH = 48;

export function stem(word: string): string {
  if (word.length > MAX_STEMMED_LENGTH) return word;
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  const result = LATIN_WORD.test(word) ? porter2(word) : word;
  if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear();
  stemCache.set(word, result);
  return result;
}

/** Index terms of `text` in order: words minus stopwords, stemmed; duplicates kept. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    if (!STOPWORDS.has(word)) out.push(stem(word));
  }
  return out;
}

/** Term counts of `text`; `length` is the number of terms (the BM25 document length). */
export function termFrequencies(text: string): { tf: Map<string, number>; length: number } {
  const tf = new Map<string, number>();
  const list = terms(text);
  for (const term of list) tf.set(term, (tf.get(term) ?? 0) + 1);
  return { tf, length: list.length };
}
