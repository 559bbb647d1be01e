// One handler per tool. Each validates its arguments (throwing ToolInputError), calls the
// backend, and returns a success result; the server turns anything thrown into a tool error.
import { memoryContext } from './context-assembly.ts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Args } from '../args.ts';
import type { McpBackend } from '../backend.ts';
import type { ToolName } from '../tools.ts';
import { checkpointResume, checkpointSave } from './checkpoint.ts';
import { memoryDelete, memoryForget, memoryGet, memoryList } from './facts.ts';
import { memoryReflect } from './reflect.ts';
import { memorySearch, memorySearchBatch } from './search.ts';
import { memoryAdd, memoryAddBatch, memoryAlias } from './write.ts';
import { analyzeForRecall, analyzeMessage, clusterMemories, consolidateMemories, gc, observeMemoryUsage, promoteMemory, saveMemory, searchMemory, searchUnified, touchMemory } from './cortex.ts';
import type { HandlerContext } from './context.ts';
import { memoryExtract } from './extract.ts';
import { memoryConsolidate, memoryRelate, openMemories, readGraph } from './graph.ts';
import { memoryRecipeSave, memoryRecipes, memorySlotContext, memorySlotDelete, memorySlotList, memorySlotSet } from './slots.ts';
export { DEFAULT_HANDLER_CONTEXT, type HandlerContext } from './context.ts';

export type ToolHandler = (args: Args, backend: McpBackend, ctx: HandlerContext) => Promise<CallToolResult>;

export const HANDLERS: Record<ToolName, ToolHandler> = {
  memory_search: memorySearch,
  memory_search_batch: memorySearchBatch,
  memory_add: memoryAdd,
  memory_add_batch: memoryAddBatch,
  memory_alias: memoryAlias,
  checkpoint_save: checkpointSave,
  checkpoint_resume: checkpointResume,
  memory_reflect: memoryReflect,
  memory_list: memoryList,
  memory_get: memoryGet,
  memory_forget: memoryForget,
  memory_delete: memoryDelete,
  memory_extract: memoryExtract,
  memory_relate: memoryRelate,
  read_graph: readGraph,
  open_memories: openMemories,
  memory_consolidate: memoryConsolidate,
  memory_recipes: memoryRecipes,
  memory_recipe_save: memoryRecipeSave,
  memory_slot_set: memorySlotSet,
  memory_slot_list: memorySlotList,
  memory_slot_delete: memorySlotDelete,
  memory_slot_context: memorySlotContext,
  memory_context: memoryContext,
  save_memory: saveMemory,
  search_memory: searchMemory,
  touch_memory: touchMemory,
  observe_memory_usage: observeMemoryUsage,
  gc,
  promote_memory: promoteMemory,
  cluster_memories: clusterMemories,
  consolidate_memories: consolidateMemories,
  search_unified: searchUnified,
  analyze_message: analyzeMessage,
  analyze_for_recall: analyzeForRecall,
};
