// Fact extraction through a chat model: Ollama's /api/chat or any OpenAI-compatible
// /v1/chat/completions endpoint. The model is asked for JSON in one fixed shape; its answer is
// validated (proposal.ts) and an answer that does not fit is rejected whole, never half-stored.
import { baseUrl } from '../embed/http.ts';
import { LlmProposal, type ExtractedFact } from './proposal.ts';
import type { Turn } from './rules.ts';

export interface ChatExtractorConfig {
  url?: string;
  model?: string;
  /** openai: the NAME of the variable holding the API key (default OPENAI_API_KEY). */
  apiKeyEnv?: string;
  timeoutMs?: number;
}

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
export function parseProposal(content: unknown): Extraction {
  if (typeof content !== 'string') return { facts: [], rejected: 'the model answered without text' };
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return { facts: [], rejected: `the model's answer is not JSON: ${content.slice(0, 120)}` };
  }
  const parsed = LlmProposal.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { facts: [], rejected: `the model's answer does not fit {"facts": [{text, kind, entities}]}: ${issue.path.join('.') || 'answer'}: ${issue.message}` };
  }
  return { facts: parsed.data.facts.map((f) => ({ text: f.text, kind: f.kind, entities: f.entities ?? [] })) };
}

async function postJson(url: string, headers: Record<string, string>, body: unknown, timeoutMs: number, what: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new Error(`${what} at ${url} cannot be reached (${(error as Error).message}): is it running, and is --extract-url right?`);
  }
  if (!res.ok) throw new Error(`${what} at ${url} answered HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return res.json();
}

export function ollamaExtractor(config: ChatExtractorConfig): Extractor {
  const model = config.model;
  if (!model) throw new Error('the ollama extractor needs a model: --extract-model (e.g. llama3.2, after `ollama pull llama3.2`)');
  const url = `${baseUrl(config.url ?? 'http://127.0.0.1:11434', 'ollama', '--extract-url')}/api/chat`;
  return {
    id: `ollama:${model}`,
    async extract(turns) {
      const body = { model, stream: false, format: 'json', messages: [{ role: 'system', content: EXTRACTION_PROMPT }, { role: 'user', content: transcript(turns) }] };
      const res = (await postJson(url, {}, body, config.timeoutMs ?? 60_000, 'the Ollama server')) as { message?: { content?: unknown } } | null;
      return parseProposal(res?.message?.content);
    },
  };
}

export function openAiExtractor(config: ChatExtractorConfig): Extractor {
  const model = config.model ?? 'gpt-4o-mini';
  const keyVar = config.apiKeyEnv ?? 'OPENAI_API_KEY';
  const key = process.env[keyVar];
  if (!key) throw new Error(`the openai extractor needs an API key in $${keyVar} (or name another variable with --extract-api-key-env)`);
  const url = `${baseUrl(config.url ?? 'https://api.openai.com', 'openai', '--extract-url')}/v1/chat/completions`;
  return {
    id: `openai:${model}`,
    async extract(turns) {
      const body = { model, response_format: { type: 'json_object' }, messages: [{ role: 'system', content: EXTRACTION_PROMPT }, { role: 'user', content: transcript(turns) }] };
      const res = (await postJson(url, { authorization: `Bearer ${key}` }, body, config.timeoutMs ?? 60_000, 'the OpenAI-compatible server')) as { choices?: { message?: { content?: unknown } }[] } | null;
      return parseProposal(res?.choices?.[0]?.message?.content);
    },
  };
}
