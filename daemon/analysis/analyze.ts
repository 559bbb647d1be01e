// Message analysis for agents: is a message worth saving (analyze_message), or does it ask for
// something remembered (analyze_for_recall)? Advice only — it stores and searches nothing. The
// confidence bands are the seed's: above 0.7 act, 0.4–0.7 ask the user first, below 0.4 do not.
import type { RecallAdvice, SaveAdvice } from '../../shared/model.ts';
import { entitiesOf } from './entities.ts';
import { CRITICAL_MARKERS, DURABLE_PHRASES, findPhrase, IMPORTANT_MARKERS, phrasesIn, RECALL_PHRASES, SAVE_PHRASES } from './phrases.ts';

/** At or above this, the advice is to act (or ask, below 0.7). */
export const ACT_THRESHOLD = 0.4;

const isQuestion = (text: string): boolean => /\?\s*$/u.test(text) || /^\s*(what|who|where|when|why|how|which|do|does|did|is|are|was|were|can|could|should|would|will|have|has)\b/iu.test(text);

/** Python's repr of a list of strings, as the seed's reasoning text prints it. */
const listText = (items: readonly string[]): string => `[${items.map((s) => `'${s}'`).join(', ')}]`;

/** The text without the recall phrases, so "do you remember" is not a request to remember. */
function withoutRecallPhrases(text: string): string {
  let out = text;
  for (const phrase of RECALL_PHRASES) {
    for (let at = findPhrase(out, phrase); at; at = findPhrase(out, phrase)) out = out.slice(0, at.index) + ' '.repeat(at.length) + out.slice(at.index + at.length);
  }
  return out;
}

function strengthOf(text: string, entities: number, question: boolean): { strength: number; important: boolean } {
  const critical = phrasesIn(text, CRITICAL_MARKERS).length > 0;
  const important = critical || phrasesIn(text, IMPORTANT_MARKERS).length > 0;
  let strength = critical ? 1.8 : important ? 1.5 : 1.0;
  if (entities >= 3) strength += 0.1;
  if (text.length > 300) strength += 0.1;
  if (question) strength -= 0.1;
  return { strength: Math.round(Math.min(2, Math.max(0.5, strength)) * 10) / 10, important };
}

/** What kind of durable fact a phrase announces. */
function tagOf(phrase: string): string {
  if (/^(we|i) (decided|agreed)|from now on|going forward|let's use|we will use|always use|never use|in all new|by default/u.test(phrase)) return 'decision';
  if (/deadline|due/u.test(phrase)) return 'deadline';
  return 'preference';
}

export function analyzeMessage(message: string): SaveAdvice {
  const question = isQuestion(message);
  const own = withoutRecallPhrases(message);
  const asked = phrasesIn(own, SAVE_PHRASES);
  const durable = phrasesIn(own, DURABLE_PHRASES);
  const entities = entitiesOf(message);
  const { strength, important } = strengthOf(own, entities.length, question);
  let confidence: number;
  if (asked.length > 0) confidence = question ? 0.6 : 0.9;
  else if (durable.length > 0) confidence = question ? 0.3 : 0.6;
  else confidence = question ? 0.1 : 0.2;
  const tags = [...new Set(durable.map(tagOf))];
  return {
    shouldSave: confidence >= ACT_THRESHOLD,
    confidence,
    suggestedEntities: entities,
    suggestedTags: tags,
    suggestedStrength: strength,
    reasoning: `Detected: ${listText([...asked, ...durable])} importance_marker: ${important ? 'True' : 'False'} entities_found: ${entities.length}${question ? ' question: True' : ''}`,
  };
}

/** What may stand between a recall phrase and its subject ("do you remember what I said about …"). */
const PREAMBLE = /^\s*(?:what|when|where|who|how|which)?\s*(?:i|we|you)\s+(?:said|told\s+you|mentioned|decided|agreed|wrote|noted)(?:\s+(?:about|on|regarding|for|to))?\s+/iu;

const EDGE_WORDS = new Set(['my', 'our', 'the', 'a', 'an', 'me', 'about', 'of', 'for', 'on', 'to', 'i', 'we', 'you', 'that', 'this', 'again', 'please', 'said', 'say']);

/** The query a recall question asks: the words after its recall phrase (else the whole
 *  message), without the question mark and the little words at its edges. */
function queryOf(message: string, phrase: string | undefined): string {
  const at = phrase ? findPhrase(message, phrase) : undefined;
  const rest = (at ? message.slice(at.index + at.length) : message).replace(PREAMBLE, '');
  const words = rest.replace(/[?!.,;:]+/gu, ' ').split(/\s+/u).filter(Boolean);
  while (words.length && EDGE_WORDS.has(words[0]!.toLowerCase())) words.shift();
  while (words.length && EDGE_WORDS.has(words.at(-1)!.toLowerCase())) words.pop();
  return words.join(' ');
}

export function analyzeForRecall(message: string): RecallAdvice {
  const question = isQuestion(message);
  const phrases = phrasesIn(message, RECALL_PHRASES);
  const entities = entitiesOf(message);
  // About the user's own past or belongings ("my", "did I", "we agreed"), not a how-to ("how do I").
  const personal = /\b(my|our|mine)\b|\b(did|have|had)\s+(i|we)\b|\b(i|we)\s+(said|told|mentioned|decided|agreed)\b/iu.test(message);
  let confidence: number;
  if (phrases.length > 0) confidence = 0.9;
  else if (question && personal) confidence = 0.6;
  else if (question) confidence = 0.3;
  else confidence = 0.1;
  // Of several phrases, the one that comes first in the message frames the question.
  const first = [...phrases].sort((a, b) => findPhrase(message, a)!.index - findPhrase(message, b)!.index)[0];
  return {
    shouldSearch: confidence >= ACT_THRESHOLD,
    confidence,
    suggestedQuery: queryOf(message, first),
    suggestedTags: [],
    suggestedEntities: entities,
    reasoning: `Detected: ${listText(phrases)} entities_found: ${entities.length}${question ? ' question: True' : ''}`,
  };
}
