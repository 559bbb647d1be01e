// What a ranking signal and a score modifier are. Recall fuses whichever signals a plan weights:
// each gives the facts it ranks a 1-based rank (0 = not ranked), and fusion sums
// weight / (k + rank) over them; modifiers then scale the fused score. Adding one is an entry in
// the registry (registry.ts), not a change to recall.
import type { Doc, NamespaceIndex } from '../index/namespace.ts';
import type { DocFilter } from './filters.ts';
import type { DecayConfig } from '../lifecycle/decay.ts';

/** doc → 1-based rank. */
export type RankMap = Map<number, number>;

export interface NamespaceQuery {
  /** The query as the caller wrote it (the graph signal reads its phrases). */
  text: string;
  terms: readonly string[];
  vector: Float32Array | null;
  /** The cosine similarity from which a fact's vector counts as matching the query's. */
  matchSimilarity: number;
  /** Terms that count less than 1 (query expansion). */
  termWeights?: ReadonlyMap<string, number>;
}

/** Reads stored vectors by vector key (the HNSW graph cannot hand them back). */
export type VectorReader = (agentId: string, keys: number[]) => Promise<(Float32Array | undefined)[]>;

export interface MatchInput {
  ns: NamespaceIndex;
  query: NamespaceQuery;
  topK: number;
  /** How many candidates to rank when a recipe sets it; absent: the signal's function of top_k. */
  depth?: number;
  /** Relation hops a graph expansion follows (1 unless a recipe sets graph_depth). */
  hops: number;
  filter: DocFilter | null;
  readVectors: VectorReader;
}

export interface MatchRanking {
  ranks: RankMap;
  /** The ranked docs that really match the query (the others are merely nearest). */
  matched: ReadonlySet<number>;
  /** How many candidates were searched to find them (after any widening). */
  searched: number;
}

/** A signal that finds and ranks the facts a query matches (keyword, vector). */
export interface MatchSignal {
  readonly name: string;
  readonly kind: 'match';
  /** Whether it can run for this query (a vector signal needs a query vector). */
  applies(query: Pick<NamespaceQuery, 'terms' | 'vector'>): boolean;
  rank(input: MatchInput): Promise<MatchRanking>;
}

/** What an order signal may read beyond the index: the call's time, fixed once per call so
 *  every fact is judged at the same instant, and the daemon's decay settings. */
export interface SignalContext {
  now: number;
  decay: DecayConfig;
}

/** A signal that orders facts without a query (recency, decay): it ranks the facts the match
 *  signals found, and when they found nothing it orders every eligible fact. */
export interface OrderSignal {
  readonly name: string;
  readonly kind: 'order';
  /** Ranks of the given docs among themselves. */
  rankAmong(ns: NamespaceIndex, docs: readonly number[], at: SignalContext): RankMap;
  /** Every doc passing `eligible`, best first, in runs that share one rank. */
  runs(ns: NamespaceIndex, eligible: (doc: number) => boolean, at: SignalContext): Iterable<number[]>;
}

export type Signal = MatchSignal | OrderSignal;

/** A score modifier as a plan resolved it: final = fused · Π factor over the active ones. */
export interface ActiveModifier {
  readonly name: string;
  factor(doc: Doc): number;
  /** When the factor takes few values: which one a doc has, and all of them, largest first.
   *  Recall then orders unmatched facts band by band instead of scoring every one of them. */
  band?(doc: Doc): number;
  readonly bands?: readonly number[];
}

/** A modifier in the registry: what it becomes under a plan's options (null: it does not run). */
export interface ModifierDefinition {
  readonly name: string;
  activate(plan: { confidence: { weight: number } | null }): ActiveModifier | null;
}
