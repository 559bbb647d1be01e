// Token counting for context budgets: OpenAI's o200k_base byte-pair encoding, as the
// gpt-tokenizer package ships it (pure JavaScript, its tables inside the package, so it works
// offline). Other models' tokenizers differ by a few per cent; the response names this one.
// Its tables cost about 0.45 s of CPU to load, so a daemon loads them on its first context
// assembly rather than at start-up.

export const TOKENIZER = 'o200k_base (gpt-tokenizer)';

export type CountTokens = (text: string) => number;

let counter: Promise<CountTokens> | undefined;

/** The token counter, loaded once. */
export function tokenCounter(): Promise<CountTokens> {
  counter ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => (text: string) => module.countTokens(text));
  return counter;
}
