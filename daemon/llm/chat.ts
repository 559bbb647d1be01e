// One request to a chat model, asking for a JSON answer: Ollama's /api/chat or any
// OpenAI-compatible /v1/chat/completions endpoint. What the answer must look like is the
// caller's business (extraction and summaries each validate their own); this only carries it.
import { baseUrl } from '../embed/http.ts';

export interface ChatConfig {
  url?: string;
  model?: string;
  /** openai: the NAME of the variable holding the API key (default OPENAI_API_KEY). */
  apiKeyEnv?: string;
  timeoutMs?: number;
}

export type ChatProvider = 'ollama' | 'openai';

export interface ChatClient {
  /** "ollama:llama3.2", "openai:gpt-4o-mini". */
  readonly id: string;
  /** The model's answer text (undefined when it gave none). */
  ask(system: string, user: string): Promise<unknown>;
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

function ollamaChat(config: ChatConfig, role: string): ChatClient {
  const model = config.model;
  if (!model) throw new Error(`the ollama ${role} needs a model: --extract-model (e.g. llama3.2, after \`ollama pull llama3.2\`)`);
  const url = `${baseUrl(config.url ?? 'http://127.0.0.1:11434', 'ollama', '--extract-url')}/api/chat`;
  return {
    id: `ollama:${model}`,
    async ask(system, user) {
      const body = { model, stream: false, format: 'json', messages: [{ role: 'system', content: system }, { role: 'user', content: user }] };
      const res = (await postJson(url, {}, body, config.timeoutMs ?? 60_000, 'the Ollama server')) as { message?: { content?: unknown } } | null;
      return res?.message?.content;
    },
  };
}

function openAiChat(config: ChatConfig, role: string): ChatClient {
  const model = config.model ?? 'gpt-4o-mini';
  const keyVar = config.apiKeyEnv ?? 'OPENAI_API_KEY';
  const key = process.env[keyVar];
  if (!key) throw new Error(`the openai ${role} needs an API key in $${keyVar} (or name another variable with --extract-api-key-env)`);
  const url = `${baseUrl(config.url ?? 'https://api.openai.com', 'openai', '--extract-url')}/v1/chat/completions`;
  return {
    id: `openai:${model}`,
    async ask(system, user) {
      const body = { model, response_format: { type: 'json_object' }, messages: [{ role: 'system', content: system }, { role: 'user', content: user }] };
      const res = (await postJson(url, { authorization: `Bearer ${key}` }, body, config.timeoutMs ?? 60_000, 'the OpenAI-compatible server')) as { choices?: { message?: { content?: unknown } }[] } | null;
      return res?.choices?.[0]?.message?.content;
    },
  };
}

/** A client of the configured chat server; `role` names what it is for in errors. */
export const chatClient = (provider: ChatProvider, config: ChatConfig, role: string): ChatClient => (provider === 'ollama' ? ollamaChat(config, role) : openAiChat(config, role));
