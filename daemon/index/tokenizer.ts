// Keyword tokenizer: Unicode words → stopword filter → Porter2 stems.
//
// Pipeline for index terms (both documents and queries go through `terms`):
//   1. NFKC-normalise, so compatibility forms compare equal ("ﬁle" = "file",
//      full-width "ＡＢＣ" = "abc") and accented letters are precomposed.
//   2. Lowercase with `toLowerCase()` (locale-independent, unlike toLocaleLowerCase).
//   3. A word is a maximal run of letters, digits and combining marks. Everything
//      else separates words — including apostrophes: "don't" → "don", "t" and
//      "Engram's" → "engram", "s". The fragments are stopwords, so keyword terms are
//      the same as if the possessive had been stripped.
//      Two kinds of text need more than that, and only text holding one of them takes
//      the slower path (Latin text keeps exactly these words, at this speed):
//      - scripts written without spaces (Chinese, Japanese, Thai, …): a run of them is
//        split into dictionary words by ICU's word segmenter (Intl.Segmenter, which
//        Node ships with full ICU data), so "我喜欢喝绿茶" → "我", "喜欢", "喝", "绿茶";
//      - pictographs (Extended_Pictographic: emoji, and © ®): each is a word of its
//        own, without its variation selector or skin tone, so "🍕" finds "pizza 🍕".
//   4. Drop stopwords, then stem Latin-script words with Porter2.
//
// Changing any step changes what is stored in the index: bump TOKENIZER_ID.

import porter2 from 'wink-porter2-stemmer';
import { STOPWORDS } from './stopwords.ts';

// v2: the fact's own words count twice its context's (index/derive.ts TEXT_FIELD_WEIGHT).
// v3: Chinese/Japanese/Thai… segmented into words, pictographs are words.
// Not in the id: Node's ICU version. Its dictionaries change a few words' splits between
// versions; naming it would make every Node update re-index every store from its texts at each
// start (Latin-only ones too) until a doctor --rebuild, to fix the odd Chinese word a query
// and an older fact now split differently. doctor --rebuild re-splits them when it matters.
export const TOKENIZER_ID = 'unicode-porter2-v3';

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** Scripts written without spaces between words. */
const UNSPACED = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}';
/** Whether text holds anything that a plain split into letter runs would get wrong. */
const NEEDS_SEGMENTER = new RegExp(`[${UNSPACED}\\p{Extended_Pictographic}]`, 'u');
/** A superset of NEEDS_SEGMENTER's characters as plain UTF-16 ranges (the Thai, Lao, Myanmar
 *  and Khmer blocks, © ®, and everything from ‼ U+203C up, astral characters by their
 *  surrogates), tested first because it costs a fraction of the Unicode-property scan: most
 *  text is Latin and is then tokenized at the old speed. Checked against every code point. */
const MAYBE_NEEDS_SEGMENTER = /[\u00A9\u00AE\u0E00-\u0EFF\u1000-\u109F\u1780-\u17FF\u19E0-\u19FF\u203C-\uFFFF]/;
const HAS_UNSPACED = new RegExp(`[${UNSPACED}]`, 'u');
/** Whether text holds a script written without spaces (which `words` splits by a dictionary). */
export const hasUnspaced = (text: string): boolean => HAS_UNSPACED.test(text);
/** A letter run, or a pictograph with what may follow it (variation selector, skin tone,
 *  keycap), which group 1 leaves out. */
const RUN_OR_PICTOGRAPH = /[\p{L}\p{N}\p{M}]+|(\p{Extended_Pictographic})[\p{M}\p{Emoji_Modifier}]*/gu;

// A fixed locale: the index must not depend on the machine's LANG (ICU's word rules and its
// Chinese/Japanese dictionary are the same for every locale).
const segmenter = new Intl.Segmenter('en', { granularity: 'word' });

/** Words of `text` in order: normalised and lowercased, not stemmed, stopwords kept. */
export function words(text: string): string[] {
  const normal = text.normalize('NFKC').toLowerCase();
  if (MAYBE_NEEDS_SEGMENTER.test(normal) && NEEDS_SEGMENTER.test(normal)) return segmentedWords(normal);
  return normal.match(WORD) ?? [];
}

/** The slow path of `words`: letter runs as on the fast path, except that a run holding an
 *  unspaced script is split by the dictionary and a pictograph is a word by itself. */
function segmentedWords(normal: string): string[] {
  const out: string[] = [];
  for (const [run, pictograph] of normal.matchAll(RUN_OR_PICTOGRAPH)) {
    if (pictograph !== undefined) out.push(pictograph);
    else if (!HAS_UNSPACED.test(run)) out.push(run);
    else for (const { segment, isWordLike } of segmenter.segment(run)) if (isWordLike) out.push(segment);
  }
  return out;
}

/** Words as letter runs only, never segmented: for the local embedder, whose vocabulary has
 *  no Chinese, Japanese or emoji, and whose stored vectors must stay what this text gave
 *  before (a mixed run such as "東京tower" would otherwise yield the known word "tower"). */
export function letterRuns(text: string): string[] {
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
