import type { Embedder } from './provider.ts';
import { noneEmbedder } from './none.ts';
import { loadWordVectorEmbedder } from './word-vectors.ts';

export type { Embedder } from './provider.ts';

/** Provider names accepted by `createEmbedder`; the first is the default. */
export const EMBEDDER_NAMES = ['local', 'none'] as const;
export type EmbedderName = (typeof EMBEDDER_NAMES)[number];

/**
 * Builds the named embedding provider. 'local' (the default) works offline from what npm installs;
 * 'none' gives no vectors at all.
 */
export async function createEmbedder(name: EmbedderName = 'local'): Promise<Embedder> {
  switch (name) {
    case 'local':
      return loadWordVectorEmbedder();
    case 'none':
      return noneEmbedder;
    default:
      // Names usually come from flags or config files, so check at run time too.
      throw new Error(`unknown embedder ${JSON.stringify(name)}: valid names are ${EMBEDDER_NAMES.join(', ')}`);
  }
}
