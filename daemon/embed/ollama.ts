/**
 * The 'ollama' embedder: a local (or LAN) Ollama server's batch endpoint.
 *   POST {url}/api/embed  {"model": M, "input": [texts...]}  →  {"model": M, "embeddings": [[...], ...]}
 * There is no default model: which embedding model is pulled is the user's choice.
 */
import { baseUrl, createRemoteEmbedder, remoteId, type EmbedderConfig } from './http.ts';
import type { Embedder } from './provider.ts';

export const OLLAMA_DEFAULT_URL = 'http://127.0.0.1:11434';

export async function createOllamaEmbedder(config: EmbedderConfig = {}): Promise<Embedder> {
  const model = config.model;
  if (!model) {
    throw new Error('ollama embedder: no model given; set ENGRAM_EMBED_MODEL or --embed-model (e.g. nomic-embed-text, after `ollama pull nomic-embed-text`)');
  }
  const url = `${baseUrl(config.url ?? OLLAMA_DEFAULT_URL, 'ollama', 'ENGRAM_EMBED_URL or --embed-url')}/api/embed`;
  const dimensions = config.dimensions;
  return createRemoteEmbedder(
    {
      name: 'ollama',
      url,
      headers: { 'Content-Type': 'application/json' },
      // `dimensions` only for models that can shorten their output (Ollama passes it to the model).
      body: (input) => (dimensions === undefined ? { model, input } : { model, input, dimensions }),
      vectors: (response) => {
        const embeddings = (response as { embeddings?: unknown } | null)?.embeddings;
        if (!Array.isArray(embeddings)) throw new Error('no "embeddings" array');
        return embeddings;
      },
      hint: (problem) => {
        if (problem === 'transport') return 'is Ollama running? Start it with `ollama serve`, or point ENGRAM_EMBED_URL / --embed-url at it';
        if (problem === 404) return `is the model pulled? Run \`ollama pull ${model}\` (and Ollama must be 0.3.4 or newer for /api/embed)`;
        if (problem >= 500) return 'check the Ollama server log (`ollama serve` output)';
        return '';
      },
    },
    // Sentence models served by Ollama (nomic-embed-text, mxbai-embed-large) spread wider than OpenAI's.
    { id: remoteId('ollama', model, dimensions), dimensions, matchSimilarity: 0.5, batchSize: config.batchSize, timeoutMs: config.timeoutMs },
  );
}
