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
  /**
   * One vector per text, in order: an L2-normalised Float32Array of `dimensions`.
   * A text with no known word gets null (the fact is then found by keyword and recency only).
   */
  embed(texts: readonly string[]): Promise<(Float32Array | null)[]>;
  /** Releases whatever the provider holds (connections, large buffers). */
  close?(): Promise<void>;
}
