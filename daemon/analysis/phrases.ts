// The phrase lists the message analysis looks for, and how it finds them: whole words only
// ("remembered" is not "remember", "notes" is not "note"), any case, any run of spaces, straight
// or curly apostrophes. Each list is data, so a phrase is one line here.

/** An explicit request to keep something. */
export const SAVE_PHRASES = [
  'remember this',
  'remember that',
  'remember',
  "don't forget",
  'do not forget',
  'never forget',
  'keep in mind',
  'make a note',
  'take a note',
  'note that',
  'note to self',
  'for future reference',
  'save this',
  'store this',
  'write this down',
] as const;

/** A durable fact about the user, a decision or a convention, without an explicit request. */
export const DURABLE_PHRASES = [
  'i prefer',
  'i always',
  'i never',
  'i usually',
  "i don't like",
  'i do not like',
  'i hate',
  'i love',
  'my favorite',
  'my favourite',
  'my name is',
  'i live in',
  'i work at',
  'i work as',
  'my birthday',
  'we decided',
  'we agreed',
  'i decided',
  'from now on',
  'going forward',
  "let's use",
  'we will use',
  'the deadline is',
  'is due on',
  'always use',
  'never use',
  'in all new',
  'by default',
] as const;

/** Words that raise a fact's importance: 1.5. */
export const IMPORTANT_MARKERS = ['important', 'must', 'essential', 'urgent', 'always', 'never', 'remember', "don't forget", 'do not forget', 'keep in mind'] as const;
/** Words of a never-forget fact: 1.8. */
export const CRITICAL_MARKERS = ['critical', 'crucial', 'vital', 'never forget', 'absolutely'] as const;

/** A question about what was said or stored before. */
export const RECALL_PHRASES = [
  'what did i say about',
  'what did i tell you about',
  'what did i mention about',
  'what have i told you about',
  'what do you know about',
  'what do you remember about',
  'do you remember',
  'did i mention',
  'did i tell you',
  'have i told you',
  'have i mentioned',
  'remind me',
  'what was my',
  'what is my',
  "what's my",
  'what are my',
  'what were my',
  'what did we decide',
  'what did we agree',
  'when did i',
  'where did i',
  'who did i',
  'as i mentioned',
  'like i said',
  'last time',
  'recall',
] as const;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A phrase as a pattern: word boundaries at both ends, flexible spaces and apostrophes. */
function pattern(phrase: string): RegExp {
  const body = phrase
    .split(/\s+/)
    .map((word) => escape(word).replace(/'/g, "['’]?"))
    .join('\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}'’])${body}(?![\\p{L}\\p{N}'’])`, 'iu');
}

const PATTERNS = new Map<string, RegExp>();

/** Where the phrase first occurs in the text as whole words, or -1. */
export function findPhrase(text: string, phrase: string): { index: number; length: number } | undefined {
  let re = PATTERNS.get(phrase);
  if (!re) PATTERNS.set(phrase, (re = pattern(phrase)));
  const m = re.exec(text);
  return m ? { index: m.index, length: m[0].length } : undefined;
}

/** The phrases of a list that occur in the text; a phrase inside a longer one found first
 *  ("remember" in "remember this") is not reported again. */
export function phrasesIn(text: string, phrases: readonly string[]): string[] {
  const found: string[] = [];
  for (const phrase of phrases) {
    if (!findPhrase(text, phrase)) continue;
    if (found.some((longer) => findPhrase(longer, phrase))) continue;
    found.push(phrase);
  }
  return found;
}
