import type { EmbedderConfig } from './http.ts';
import type { Embedder } from './provider.ts';
import { noneEmbedder } from './none.ts';
import { createOllamaEmbedder } from './ollama.ts';
import { createOpenAIEmbedder } from './openai.ts';
import { loadWordVectorEmbedder } from './word-vectors.ts';

export type { Embedder } from './provider.ts';
export type { EmbedderConfig } from './http.ts';
export { RemoteEmbedError } from './http.ts';

/** Provider names accepted by `createEmbedder`; the first is the default. */
export const EMBEDDER_NAMES = ['local', 'ollama', 'openai', 'none'] as const;
export type EmbedderName = (typeof EMBEDDER_NAMES)[number];

/**
 * The remote providers' settings from ENGRAM_EMBED_URL, ENGRAM_EMBED_MODEL and ENGRAM_EMBED_API_KEY_ENV
 * (empty counts as unset). This is the default for `createEmbedder`, because the daemon's composition
 * root passes it only the provider name; `engram daemon` writes its --embed-* flags into these variables.
 */
export function embedderConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EmbedderConfig {
  return {
    url: env.ENGRAM_EMBED_URL || undefined,
    model: env.ENGRAM_EMBED_MODEL || undefined,
    apiKeyEnv: env.ENGRAM_EMBED_API_KEY_ENV || undefined,
  };
}

/**
 * Builds the named embedding provider. 'local' (the default) works offline from what npm installs;
 * 'ollama' and 'openai' call a server (and probe it once here, to learn the vector size);
 * 'none' gives no vectors at all. `config` only matters to the remote providers.
 */
export async function createEmbedder(name: EmbedderName = 'local', config: EmbedderConfig = embedderConfigFromEnv()): Promise<Embedder> {
  switch (name) {
    case 'local':
      return loadWordVectorEmbedder();
    case 'ollama':
      return createOllamaEmbedder(config);
    case 'openai':
      return createOpenAIEmbedder(config);
    case 'none':
      return noneEmbedder;
    default:
      // Names usually come from flags or config files, so check at run time too.
      throw new Error(`unknown embedder ${JSON.stringify(name)}: valid names are ${EMBEDDER_NAMES.join(', ')}`);
  }
}
