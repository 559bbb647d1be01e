// Token counting for context budgets: OpenAI's o200k_base byte-pair encoding, as the
// gpt-tokenizer package ships it (pure JavaScript, its tables inside the package, so it works
// offline). Other models' tokenizers differ by a few per cent; the response names this one.
import { countTokens as count } from 'gpt-tokenizer/encoding/o200k_base';

export const TOKENIZER = 'o200k_base (gpt-tokenizer)';

export const countTokens = (text: string): number => count(text);
