// The memory-slot tools: set (an upsert), list, delete (an archive, refused while locked) and the
// context block to inject.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { recipeJson, slotJson } from '../../json/shapes.ts';
import type { Slot } from '../../model.ts';
import { schemaArgs, type Args } from '../args.ts';
import type { McpBackend } from '../backend.ts';
import { success } from '../result.ts';

const line = (s: Slot): string => `- ${s.slotName}${s.projectId ? ` (${s.projectId})` : ''}: ${JSON.stringify(s.slotValue)} · confidence ${s.confidence} · ${s.status}${s.locked ? ' · locked' : ''} [${s.id}]`;

export async function memorySlotSet(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('memory_slot_set', args);
  const r = await backend.putSlot({
    slotName: a.slot_name,
    ...(a.slot_value !== undefined ? { slotValue: a.slot_value } : {}),
    ...(a.scope !== undefined ? { scope: a.scope } : {}),
    ...(a.project_id !== undefined ? { projectId: a.project_id } : {}),
    ...(a.locked !== undefined ? { locked: a.locked } : {}),
    ...(a.status !== undefined ? { status: a.status } : {}),
    ...(a.evidence_refs !== undefined ? { evidenceRefs: a.evidence_refs } : {}),
    ...(a.confidence !== undefined ? { confidence: a.confidence } : {}),
    ...(a.visibility !== undefined ? { visibility: a.visibility } : {}),
  });
  return success({ slot: slotJson(r.slot), created: r.created, changed: r.changed }, `${r.created ? 'Created' : r.changed ? 'Updated' : 'Unchanged (it already held this; no version recorded)'} slot:\n${line(r.slot)}`);
}

export async function memorySlotList(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('memory_slot_list', args);
  const { slots, nextPageToken } = await backend.listSlots({
    ...(a.project_id !== undefined ? { projectId: a.project_id } : {}),
    ...(a.query ? { query: a.query } : {}),
    archived: a.archived,
    limit: a.limit,
    ...(a.page_token ? { pageToken: a.page_token } : {}),
  });
  const more = nextPageToken ? `\n\nMore slots follow: call memory_slot_list again with page_token ${JSON.stringify(nextPageToken)}.` : '';
  return success({ count: slots.length, slots: slots.map(slotJson), next_page_token: nextPageToken }, `${slots.length ? slots.map(line).join('\n') : 'No slots.'}${more}`);
}

export async function memorySlotDelete(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('memory_slot_delete', args);
  const slot = await backend.deleteSlot(a.record_id);
  return success({ slot: slotJson(slot) }, `Archived slot:\n${line(slot)}`);
}

export async function memorySlotContext(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('memory_slot_context', args);
  const slots = await backend.slotContext({ ...(a.project_id !== undefined ? { projectId: a.project_id } : {}), ...(a.slot_names ? { slotNames: a.slot_names } : {}) });
  return success({ count: slots.length, slots: slots.map(slotJson) }, slots.length ? `${slots.length} slots apply:\n${slots.map(line).join('\n')}` : 'No slots apply.');
}

export async function memoryRecipes(args: Args, backend: McpBackend): Promise<CallToolResult> {
  schemaArgs('memory_recipes', args);
  const recipes = await backend.listRecipes();
  return success({ count: recipes.length, recipes: recipes.map(recipeJson) }, recipes.map((r) => `- ${r.id}: vector ${r.vectorTopK}, lexical ${r.lexicalTopK}, graph ${r.graphDepth}, budget ${r.tokenBudget}`).join('\n'));
}

export async function memoryRecipeSave(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const { name, ...a } = schemaArgs('memory_recipe_save', args);
  const fields = {
    ...(a.vector_top_k !== undefined ? { vectorTopK: a.vector_top_k } : {}),
    ...(a.lexical_top_k !== undefined ? { lexicalTopK: a.lexical_top_k } : {}),
    ...(a.graph_depth !== undefined ? { graphDepth: a.graph_depth } : {}),
    ...(a.reranker !== undefined ? { reranker: a.reranker } : {}),
    ...(a.token_budget !== undefined ? { tokenBudget: a.token_budget } : {}),
    ...(a.prefer_verified !== undefined ? { preferVerified: a.prefer_verified } : {}),
    ...(a.verified_only !== undefined ? { verifiedOnly: a.verified_only } : {}),
    ...(a.include_evidence !== undefined ? { includeEvidence: a.include_evidence } : {}),
  };
  const recipe = await backend.saveRecipe(name, fields);
  return success({ recipe: recipeJson(recipe) }, `Saved ${recipe.id}.`);
}
