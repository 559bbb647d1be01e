// Weak-match feedback: when few of a query's terms exist in the searched namespaces, tell the
// caller which terms are unknown, which stored terms look close, and suggest an alias. It is
// advice only: it never changes the returned facts or their order.
import type { NamespaceIndex } from '../index/namespace.ts';
import { terms, words } from '../index/tokenizer.ts';

export type { WeakMatchFeedback } from '../../shared/model.ts';
import type { WeakMatchFeedback } from '../../shared/model.ts';

/** Below this share of known query terms, a match counts as weak. */
const WEAK_SHARE = 0.5;
const MAX_NEARBY = 10;
const MIN_SIMILARITY = 0.4;

export function weakMatchFeedback(namespaces: NamespaceIndex[], queryTerms: readonly string[], queryText: string): WeakMatchFeedback | undefined {
  const unique = [...new Set(queryTerms)].sort();
  if (namespaces.length === 0) return undefined;
  if (unique.length === 0) return onlyStopwords(queryText);
  // A term an alias maps to stored words is known: the recall found facts through it.
  const stored = (ns: NamespaceIndex, t: string) => ns.keyword.documentFrequency(t) > 0;
  const known = (t: string) => namespaces.some((ns) => stored(ns, t) || ns.aliases.expand([t]).some((e) => stored(ns, e)));
  const unknownTerms = unique.filter((t) => !known(t));
  if (unique.length - unknownTerms.length >= unique.length * WEAK_SHARE) return undefined;
  const nearby = nearbyTerms(namespaces, unknownTerms);
  const unknown = asTyped(unknownTerms, queryText);
  return {
    queryTerms: unique.length,
    knownTerms: unique.length - unknown.length,
    unknownTerms: unknown,
    nearbyTerms: nearby,
    advice:
      `Only ${unique.length - unknown.length} of ${unique.length} query terms occur in memory. ` +
      (nearby.length
        ? `If "${unknown[0]}" means one of ${nearby.slice(0, 3).map((t) => `"${t}"`).join(', ')}, add an alias (engram alias <agent> "${unknown[0]}" "<equivalent>") so future queries match.`
        : 'Try other words, or add an alias that maps your term to the words stored facts use.'),
  };
}

/** Terms as the caller typed them ("coffee", not its stem "coffe"): an alias is made of words. */
function asTyped(queryTerms: string[], queryText: string): string[] {
  const typed = new Map<string, string>();
  for (const word of words(queryText)) {
    const [term] = terms(word);
    if (term !== undefined && !typed.has(term)) typed.set(term, word);
  }
  return queryTerms.map((t) => typed.get(t) ?? t);
}

/** A query whose every word is a stopword ("what is it") has no keyword terms: whatever comes
 *  back was ranked by the other signals alone, which the caller should know. */
function onlyStopwords(queryText: string): WeakMatchFeedback | undefined {
  const given = [...new Set(words(queryText))];
  if (given.length === 0) return undefined;
  return {
    queryTerms: 0,
    knownTerms: 0,
    unknownTerms: [],
    nearbyTerms: [],
    advice: `Every word of the query (${given.slice(0, 5).map((w) => `"${w}"`).join(', ')}${given.length > 5 ? ', …' : ''}) is too common to search by keyword, so no fact matched a keyword. Add a word that names what you are looking for.`,
  };
}

/** Vocabulary terms most similar (character bigrams, Dice) to any unknown term; ties alphabetical. */
function nearbyTerms(namespaces: NamespaceIndex[], unknown: string[]): string[] {
  const targets = unknown.map(bigrams);
  const best = new Map<string, number>();
  for (const ns of namespaces) {
    for (const term of ns.keyword.vocabulary()) {
      const grams = bigrams(term);
      const score = Math.max(...targets.map((t) => dice(t, grams)));
      if (score >= MIN_SIMILARITY && score > (best.get(term) ?? 0)) best.set(term, score);
    }
  }
  return [...best]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_NEARBY)
    .map(([term]) => term);
}

function bigrams(word: string): Map<string, number> {
  const grams = new Map<string, number>();
  const padded = ` ${word} `;
  for (let i = 0; i < padded.length - 1; i++) {
    const g = padded.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

function dice(a: Map<string, number>, b: Map<string, number>): number {
  let shared = 0;
  let total = 0;
  for (const [g, n] of a) {
    shared += Math.min(n, b.get(g) ?? 0);
    total += n;
  }
  for (const n of b.values()) total += n;
  return total === 0 ? 0 : (2 * shared) / total;
}
