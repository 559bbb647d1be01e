import type { Embedder } from './provider.ts';

/** The provider for "no vectors": recall then runs on keyword and recency signals only. */
export const noneEmbedder: Embedder = {
  id: 'none',
  dimensions: 0,
  matchSimilarity: 1,
  async embed(texts) {
    return texts.map(() => null);
  },
};
