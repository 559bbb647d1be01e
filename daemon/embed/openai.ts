/**
 * The 'openai' embedder: OpenAI or any server that speaks its embeddings API (vLLM, LM Studio,
 * llama.cpp, LiteLLM, Ollama's /v1, ...).
 *   POST {base}/v1/embeddings  Authorization: Bearer KEY  {"model": M, "input": [...], "dimensions"?: D}
 *   → {"data": [{"index": i, "embedding": [...]}, ...], "model": M}
 * The key is read from an environment variable whose NAME is configurable, so it never appears
 * on a command line (visible to every user through ps) or in a config file.
 */
import { baseUrl, createRemoteEmbedder, remoteId, type EmbedderConfig } from './http.ts';
import type { Embedder } from './provider.ts';

export const OPENAI_DEFAULT_URL = 'https://api.openai.com';
export const OPENAI_DEFAULT_MODEL = 'text-embedding-3-small';
export const OPENAI_DEFAULT_KEY_ENV = 'OPENAI_API_KEY';

export async function createOpenAIEmbedder(config: EmbedderConfig = {}, env: NodeJS.ProcessEnv = process.env): Promise<Embedder> {
  const keyEnv = config.apiKeyEnv || OPENAI_DEFAULT_KEY_ENV;
  const key = env[keyEnv];
  if (!key) {
    throw new Error(`openai embedder: no API key: the environment variable ${keyEnv} is not set; export it, or set ENGRAM_EMBED_API_KEY_ENV to the name of the variable that holds the key`);
  }
  const model = config.model || OPENAI_DEFAULT_MODEL;
  // Base URLs are given both ways ("https://host" and "https://host/v1"); accept either.
  const base = baseUrl(config.url ?? OPENAI_DEFAULT_URL, 'openai', 'ENGRAM_EMBED_URL or --embed-url');
  const url = `${base.endsWith('/v1') ? base : `${base}/v1`}/embeddings`;
  const dimensions = config.dimensions;
  return createRemoteEmbedder(
    {
      name: 'openai',
      url,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: (input) => (dimensions === undefined ? { model, input } : { model, input, dimensions }),
      vectors: (response, count) => byIndex(response, count),
      hint: (problem) => {
        if (problem === 'transport') return `check the base URL (ENGRAM_EMBED_URL / --embed-url, now ${base}) and the network`;
        if (problem === 401 || problem === 403) return `check ${keyEnv}: the server rejected the key`;
        if (problem === 404) return `check the model name (ENGRAM_EMBED_MODEL / --embed-model, now ${model}) and the base URL`;
        if (problem === 429) return `rate limited or out of quota: check the plan behind ${keyEnv}`;
        if (problem === 400 && dimensions !== undefined) return `check that ${model} supports dimensions=${dimensions}`;
        return '';
      },
      secrets: [key],
    },
    // text-embedding-3 models: unrelated texts mostly under 0.3, related ones 0.4 and up.
    { id: remoteId('openai', model, dimensions), dimensions, matchSimilarity: 0.4, batchSize: config.batchSize, timeoutMs: config.timeoutMs },
  );
}

/** The spec does not promise `data` in input order, so place each item by its `index`. */
function byIndex(response: unknown, count: number): unknown[] {
  const data = (response as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new Error('no "data" array');
  if (data.length !== count) throw new Error(`expected ${count} vectors, got ${data.length}`);
  const vectors: unknown[] = new Array(count);
  const seen = new Set<number>();
  for (const item of data as { index?: unknown; embedding?: unknown }[]) {
    const index = item?.index;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count || seen.has(index as number)) {
      throw new Error(`bad or repeated index ${JSON.stringify(index)} (expected each of 0..${count - 1} once)`);
    }
    seen.add(index as number);
    vectors[index as number] = item.embedding;
  }
  return vectors;
}
