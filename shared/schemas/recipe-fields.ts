// The settings of a retrieval recipe as the doors take them (REST bodies, MCP arguments): one zod
// declaration each, spread into every schema that accepts them.
import { z } from 'zod';

export const RECIPE_FIELDS = {
  vector_top_k: z.int().min(0).max(1000).describe('Vector candidates.').optional(),
  lexical_top_k: z.int().min(0).max(1000).describe('Keyword candidates.').optional(),
  graph_depth: z.int().min(0).max(3).describe('Knowledge-graph depth.').optional(),
  reranker: z.boolean().describe('The second ranking stage.').optional(),
  token_budget: z.int().min(0).max(1_000_000).describe('The context budget, in tokens.').optional(),
  prefer_verified: z.boolean().optional(),
  verified_only: z.boolean().optional(),
  include_evidence: z.boolean().optional(),
};
