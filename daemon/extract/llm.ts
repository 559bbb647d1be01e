// Fact extraction through a chat model: Ollama's /api/chat or any OpenAI-compatible
// /v1/chat/completions endpoint. The model is asked for JSON in one fixed shape; its answer is
// validated (proposal.ts) and an answer that does not fit is rejected whole, never half-stored.
import { chatClient, type ChatConfig, type ChatProvider } from '../llm/chat.ts';
import { checkProposal, type ExtractedFact } from './proposal.ts';
import type { Turn } from './rules.ts';

export type ChatExtractorConfig = ChatConfig;

/** What an extractor answers: proposals, or why the model's answer was refused. */
export type Extraction = { facts: ExtractedFact[]; rejected?: undefined } | { facts: []; rejected: string };

export interface Extractor {
  /** "rules", "ollama:llama3.2", "openai:gpt-4o-mini". */
  readonly id: string;
  extract(turns: readonly Turn[]): Promise<Extraction>;
}

export const EXTRACTION_PROMPT = [
  'You extract durable facts from a conversation for a long-term memory.',
  'A durable fact is a preference, a decision, a date, a commitment or a correction that will still matter later.',
  'Answer with JSON only, exactly: {"facts": [{"text": "...", "kind": "preference|decision|date|commitment|correction", "entities": ["..."]}]}.',
  'Each text is one self-contained sentence naming who it is about. No questions, no chit-chat, no secrets. {"facts": []} when there is nothing.',
].join(' ');

const transcript = (turns: readonly Turn[]): string => turns.map((t) => (t.speaker ? `${t.speaker}: ${t.text}` : t.text)).join('\n');

/** The model's text → proposals, or the reason it is refused. */
export async function parseProposal(content: unknown): Promise<Extraction> {
  const checked = await checkProposal(content);
  if (checked.rejected !== undefined) return { facts: [], rejected: checked.rejected };
  return { facts: checked.value.facts.map((f) => ({ text: f.text, kind: f.kind, entities: f.entities ?? [] })) };
}

/** An extractor asking the configured chat server. */
export function chatExtractor(provider: ChatProvider, config: ChatConfig): Extractor {
  const chat = chatClient(provider, config, 'extractor');
  return { id: chat.id, extract: async (turns) => parseProposal(await chat.ask(EXTRACTION_PROMPT, transcript(turns))) };
}
