// Facts as sentences, and sentences as one text: what a cluster merge and a consolidation summary
// both do with the texts they combine.

/** A text's sentences (split after . ! ? and at line breaks), trimmed, none empty. */
export const sentencesOf = (text: string): string[] =>
  text
    .split(/(?<=[.!?])\s+|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** The same sentence however it is cased or stopped ("Tea at 8." and "tea at 8"). */
export const sentenceKey = (sentence: string): string => sentence.toLowerCase().replace(/[.!?]+$/u, '');

/** Sentences as one text: one without a closing stop gets one, so two facts written without
 *  full stops do not run together into one sentence ("Bob likes tea Bob drinks it daily"). */
export function joinSentences(sentences: readonly string[]): string {
  return sentences.map((s, i) => (i < sentences.length - 1 && !/[.!?…]["'”’)\]]*$/u.test(s) ? `${s}.` : s)).join(' ');
}
