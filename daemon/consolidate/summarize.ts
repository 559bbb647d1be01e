// What a consolidation run writes in place of its sources: one summary text. The default is
// extractive and offline — the sources' most central sentences (those sharing the most words
// with the other sources), in source order, within a length budget — so the same facts always
// give the same summary. A chat model can write it instead; its answer is validated, and one
// that does not fit is refused whole (the run then writes nothing).
import { terms } from '../index/tokenizer.ts';
import { answerCheck } from '../llm/answer-check.ts';
import { chatClient, type ChatConfig, type ChatProvider } from '../llm/chat.ts';
import { joinSentences, sentenceKey, sentencesOf } from './sentences.ts';

export interface SummarySource {
  id: string;
  text: string;
}

export type Summary = { text: string; rejected?: undefined } | { text?: undefined; rejected: string };

export interface Summarizer {
  /** "extractive", "ollama:llama3.2", "openai:gpt-4o-mini". */
  readonly id: string;
  /** Whether its summaries are a model's inference (labelled unverified). */
  readonly generative: boolean;
  summarize(sources: readonly SummarySource[]): Promise<Summary>;
}

/** The summary's length budget, in characters. */
export const SUMMARY_CHARS = 1200;

/** The extractive summary of the sources (deterministic: it depends only on their texts and order). */
export function extractiveSummary(sources: readonly SummarySource[], budget = SUMMARY_CHARS): string {
  const sentences: { at: number; text: string; words: Set<string> }[] = [];
  const seen = new Set<string>();
  for (const source of sources) {
    for (const text of sentencesOf(source.text)) {
      const key = sentenceKey(text);
      if (seen.has(key)) continue;
      seen.add(key);
      sentences.push({ at: sentences.length, text, words: new Set(terms(text)) });
    }
  }
  // How many sentences each word occurs in: a sentence is central when its words recur.
  const df = new Map<string, number>();
  for (const s of sentences) for (const w of s.words) df.set(w, (df.get(w) ?? 0) + 1);
  const centrality = (s: (typeof sentences)[number]) => {
    let sum = 0;
    for (const w of s.words) sum += df.get(w)! - 1;
    return s.words.size ? sum / Math.sqrt(s.words.size) : 0;
  };
  const ranked = [...sentences].sort((a, b) => centrality(b) - centrality(a) || a.at - b.at);
  const chosen: typeof sentences = [];
  let length = 0;
  for (const s of ranked) {
    if (chosen.length > 0 && length + s.text.length + 1 > budget) continue;
    chosen.push(s);
    length += s.text.length + 1;
  }
  const text = joinSentences(chosen.sort((a, b) => a.at - b.at).map((s) => s.text));
  return text.length > budget ? `${text.slice(0, budget - 1)}…` : text;
}

export const extractiveSummarizer: Summarizer = {
  id: 'extractive',
  generative: false,
  summarize: async (sources) => ({ text: extractiveSummary(sources) }),
};

export const SUMMARY_PROMPT = [
  'You consolidate an agent\'s long-term memory: several older memories become one summary that replaces them.',
  'Keep every durable fact (names, dates, preferences, decisions); drop repetition and chit-chat; invent nothing.',
  `Answer with JSON only, exactly: {"summary": "..."} — at most ${SUMMARY_CHARS} characters of plain text.`,
].join(' ');

const checkSummary = answerCheck((z) => z.object({ summary: z.string().trim().min(1).max(SUMMARY_CHARS) }).strict(), '{"summary": "..."}');

/** The model's answer → a summary, or why it is refused. */
export async function parseSummary(content: unknown): Promise<Summary> {
  const checked = await checkSummary(content);
  return checked.rejected !== undefined ? { rejected: checked.rejected } : { text: checked.value.summary };
}

export function chatSummarizer(provider: ChatProvider, config: ChatConfig): Summarizer {
  const chat = chatClient(provider, config, 'summarizer');
  return {
    id: chat.id,
    generative: true,
    summarize: async (sources) => parseSummary(await chat.ask(SUMMARY_PROMPT, sources.map((s, i) => `${i + 1}. ${s.text}`).join('\n'))),
  };
}

export const SUMMARIZER_NAMES = ['extractive', 'ollama', 'openai'] as const;
export type SummarizerName = (typeof SUMMARIZER_NAMES)[number];

export const createSummarizer = (name: SummarizerName, config: ChatConfig = {}): Summarizer =>
  name === 'extractive' ? extractiveSummarizer : chatSummarizer(name, config);
