// What a retrieval recipe's settings may be: the daemon's rules, also run by the library before
// it sends a recipe, since the wire's uint32 fields would refuse a negative or too large number
// first, in words that are not the range accepted ("between 0 and 4294967295").
import { invalidArgument } from './errors.ts';
import type { RecipeFields } from './model.ts';
import * as check from './validate.ts';

/** At most this many candidates per signal (vector_top_k, lexical_top_k). */
export const MAX_RECIPE_TOP_K = 1000;
/** At most this many relation hops (graph_depth; 0: no graph signal). */
export const MAX_GRAPH_DEPTH = 3;
/** At most this many tokens in a context budget (a recipe's, or one call's token_budget). */
export const MAX_TOKEN_BUDGET = 1_000_000;

/** A recipe's settings as a caller gave them, each unchecked and optional. */
export type RecipeFieldsInput = { [K in keyof RecipeFields]?: unknown };

/** The settings given, checked; throws an invalid_argument naming the first wrong one. */
export function checkRecipeFields(input: RecipeFieldsInput): Partial<RecipeFields> {
  const out: Partial<RecipeFields> = {};
  if (input.vectorTopK !== undefined) out.vectorTopK = check.count(input.vectorTopK, 'vector_top_k', MAX_RECIPE_TOP_K);
  if (input.lexicalTopK !== undefined) out.lexicalTopK = check.count(input.lexicalTopK, 'lexical_top_k', MAX_RECIPE_TOP_K);
  if (input.graphDepth !== undefined) out.graphDepth = graphDepth(input.graphDepth);
  if (input.reranker !== undefined) out.reranker = check.boolean(input.reranker, 'reranker');
  if (input.tokenBudget !== undefined) out.tokenBudget = check.count(input.tokenBudget, 'token_budget', MAX_TOKEN_BUDGET);
  if (input.preferVerified !== undefined) out.preferVerified = check.boolean(input.preferVerified, 'prefer_verified');
  if (input.verifiedOnly !== undefined) out.verifiedOnly = check.boolean(input.verifiedOnly, 'verified_only');
  if (input.includeEvidence !== undefined) out.includeEvidence = check.boolean(input.includeEvidence, 'include_evidence');
  return out;
}

/** 0 is allowed here (no graph signal), so not check.count; said in its words all the same. */
function graphDepth(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_GRAPH_DEPTH) {
    throw invalidArgument('graph_depth', `must be a whole number between 0 and ${MAX_GRAPH_DEPTH}, got ${typeof value === 'number' ? value : check.kindOf(value)}`);
  }
  return value;
}
