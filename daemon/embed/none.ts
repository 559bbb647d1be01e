import { SENTENCE_MODEL_WEIGHTS, type Embedder } from './provider.ts';

/** The provider for "no vectors": recall then runs on keyword and recency signals only. */
export const noneEmbedder: Embedder = {
  id: 'none',
  dimensions: 0,
  matchSimilarity: 1,
  // No vector signal runs; the others keep the seed's balance.
  defaultWeights: { ...SENTENCE_MODEL_WEIGHTS, vector: 0 },
  async embed(texts) {
    return texts.map(() => null);
  },
};
