import type { SignalWeights } from '../../shared/model.ts';

/** The seed's recall weights, made for a sentence-embedding model: its similarity is as good a
 *  relevance signal as a keyword match. */
export const SENTENCE_MODEL_WEIGHTS: Readonly<SignalWeights> = { vector: 1.0, keyword: 1.0, recency: 0.5, decay: 0, graph: 0 };

/**
 * The contract every embedding provider implements ('local', 'ollama', 'openai', 'none').
 *
 * The store records `id` and `dimensions` next to the vectors it keeps, so a provider must never
 * change what it returns for a given text without also changing its id.
 */
export interface Embedder {
  /** Stable model id recorded in the store, e.g. 'local:wink-sg-100d-sif-v1'. */
  readonly id: string;
  /** Length of every vector; 0 for 'none'. */
  readonly dimensions: number;
  /** The cosine similarity from which a text counts as matching a query (recall reports the
   *  rest as filler). Each model spreads similarities its own way, so each sets its own. */
  readonly matchSimilarity: number;
  /** The recall weights a call gets for a signal it does not weight itself, unless the daemon is
   *  configured with --signal-weights: how much this model's similarity is worth beside BM25. */
  readonly defaultWeights: Readonly<SignalWeights>;
  /**
   * One vector per text, in order: an L2-normalised Float32Array of `dimensions`.
   * A text with no known word gets null (the fact is then found by keyword and recency only).
   */
  embed(texts: readonly string[]): Promise<(Float32Array | null)[]>;
  /** The words whose vectors are nearest a word's, most similar first (word-vector models only). */
  similarWords?(word: string, limit: number): { word: string; similarity: number }[];
  /** Releases whatever the provider holds (connections, large buffers). */
  close?(): Promise<void>;
}
