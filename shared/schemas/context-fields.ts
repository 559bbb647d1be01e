// The settings of a context assembly as the doors take them (the REST body, the MCP tool): one
// zod declaration each, spread into both schemas.
import { z } from 'zod';
import { CONTEXT_MODES } from '../context-modes.ts';

export const CONTEXT_FIELDS = {
  query: z.string().describe('What the context is for: the facts recalled for it follow the slots and pinned facts. "" or omitted: slots and pinned facts only.').optional(),
  mode: z.enum(CONTEXT_MODES).describe("The built-in recipe's retrieval and a budget of 1,800 / 3,500 / 8,000 / 14,000 tokens. Omitted (and no recipe): balanced.").optional(),
  recipe: z.string().describe('A retrieval recipe instead of a mode: its latest version\'s retrieval and token_budget.').optional(),
  token_budget: z.int().min(1).max(1_000_000).describe("Overrides the mode's or recipe's budget.").optional(),
  project_id: z.string().describe("The project's slots and the global ones (a project slot shadows a global one of the same scope and name).").optional(),
  slot_names: z.array(z.string()).describe('Only these slots.').optional(),
  top_k: z.int().min(1).max(1000).describe('How many recalled facts to offer the packer. Omitted: budget / 100, at least 8.').optional(),
};
