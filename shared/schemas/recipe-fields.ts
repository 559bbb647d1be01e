// The settings of a retrieval recipe as the doors take them (REST bodies, MCP arguments): one zod
// declaration each, spread into every schema that accepts them.
import { z } from 'zod';

export const RECIPE_FIELDS = {
  vector_top_k: z.int().min(0).max(1000).describe('How many nearest neighbours the vector signal ranks.').optional(),
  lexical_top_k: z.int().min(0).max(1000).describe('How many keyword (BM25) candidates the keyword signal ranks.').optional(),
  graph_depth: z.int().min(0).max(3).describe('Relation hops the graph signal follows from facts naming the query\'s entities (0 = no graph signal and no hints).').optional(),
  reranker: z.boolean().describe('The second stage term-coverage-v1: the fused pool reordered by how much of the query each fact covers.').optional(),
  token_budget: z.int().min(0).max(1_000_000).describe('The context budget, in tokens (POST /v1/context with this recipe).').optional(),
  prefer_verified: z.boolean().describe('Rank verified facts up: a confidence weight of at least 0.25.').optional(),
  verified_only: z.boolean().describe('Only verified facts (min_confidence verified).').optional(),
  include_evidence: z.boolean().describe("Attach each result's supporting records: a summary's sources, facts linked as supports, a slot's evidence.").optional(),
};
