// memory_context: the one call an agent makes at the start of a task to get what to inject —
// slots, pinned facts, then what recall finds for the task — packed to a token budget.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { contextJson } from '../../json/shapes.ts';
import { schemaArgs, type Args } from '../args.ts';
import type { McpBackend } from '../backend.ts';
import { success } from '../result.ts';
import { counted } from '../../counted.ts';

export async function memoryContext(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const { agent_id: agentId, ...a } = schemaArgs('memory_context', args);
  const query = a.query ?? '';
  const c = await backend.assembleContext(agentId, query, {
    ...(a.mode !== undefined ? { mode: a.mode } : {}),
    ...(a.recipe !== undefined ? { recipe: a.recipe } : {}),
    ...(a.token_budget !== undefined ? { tokenBudget: a.token_budget } : {}),
    ...(a.project_id !== undefined ? { projectId: a.project_id } : {}),
    ...(a.slot_names !== undefined ? { slotNames: a.slot_names } : {}),
    ...(a.top_k !== undefined ? { topK: a.top_k } : {}),
  });
  const footer = `(${c.tokens} of ${c.tokenBudget} tokens by ${c.tokenizer}; ${c.items.length} items${c.cut.length ? `, ${c.cut.length} cut for the budget` : ''}; recipe ${c.recipe.id})`;
  return success(contextJson(agentId, query, c), c.block ? `${c.block}\n${footer}` : `${nothingToInject(query, c.cut.length)} ${footer}`);
}

/** Why the block is empty: nothing applied, or everything was cut for a budget too small for it. */
function nothingToInject(query: string, cut: number): string {
  if (cut > 0) return `Nothing fits the budget: ${counted(cut, 'item')} would have been injected but each is larger than token_budget allows; raise token_budget.`;
  return `Nothing to inject: no slot applies, nothing is pinned${query ? ' and nothing was recalled' : ''}.`;
}
