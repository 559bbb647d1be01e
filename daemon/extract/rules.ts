// The offline fact extractor: the sentences of a message (or of each turn of a conversation) that
// state something durable — a preference, a decision, a date, a commitment, a correction — each
// proposed as one fact, found with whole-word patterns and compromise's sentence splitter and
// date tags. Questions and chit-chat propose nothing. Deterministic: the same input, the same
// proposals in the same order.
import { nlp } from '../analysis/nlp.ts';
import type { ExtractedFact, FactKind } from './proposal.ts';
import { entitiesOf } from '../analysis/entities.ts';

/** Each kind with the patterns that announce it, most specific first. */
const PATTERNS: [FactKind, RegExp][] = [
  ['correction', /\b(actually|correction|i meant|scratch that|not anymore|no longer|changed? (?:it|that) to|instead of)\b/iu],
  ['decision', /\b(we decided|we agreed|i decided|we(?:'ll| will) go with|let'?s use|from now on|going forward|we chose|decided to)\b/iu],
  ['commitment', /\b(i(?:'ll| will)|we(?:'ll| will)|i promise|i'?m going to|we'?re going to|i have to|i need to)\b/iu],
  ['preference', /\b(i (?:really )?(?:prefer|like|love|hate|enjoy|dislike)|i don'?t (?:like|want|eat|drink)|my favou?rite|i always|i never|i usually)\b/iu],
];

const MONTH_OR_DAY = /\b(january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|next (?:week|month|year)|\d{4}-\d{2}-\d{2})\b/iu;

/** Why a sentence is a durable fact, or undefined. */
function kindOf(sentence: string): FactKind | undefined {
  if (/\?\s*$/u.test(sentence)) return undefined;
  for (const [kind, re] of PATTERNS) if (re.test(sentence)) return kind;
  if (MONTH_OR_DAY.test(sentence) && /\b(is|are|was|on|at|by|due|starts?|ends?|moved|meeting|deadline|birthday|appointment)\b/iu.test(sentence)) return 'date';
  return undefined;
}

export interface Turn {
  speaker?: string;
  text: string;
}

export function extractByRules(turns: readonly Turn[]): ExtractedFact[] {
  const out: ExtractedFact[] = [];
  const seen = new Set<string>();
  for (const turn of turns) {
    for (const raw of nlp()(turn.text).sentences().out('array') as string[]) {
      const sentence = raw.trim();
      const kind = sentence.split(/\s+/u).length >= 3 ? kindOf(sentence) : undefined;
      if (!kind) continue;
      // A speaker's first-person fact is theirs: "Alice: I prefer tea".
      const text = turn.speaker ? `${turn.speaker}: ${sentence}` : sentence;
      if (seen.has(text)) continue;
      seen.add(text);
      out.push({ text, kind, entities: entitiesOf(sentence), ...(turn.speaker ? { speaker: turn.speaker } : {}) });
    }
  }
  return out;
}
