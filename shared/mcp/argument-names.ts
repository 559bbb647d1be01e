// The daemon names a refused field as its request has it; a tool's caller knows the field by the
// tool's own argument name. These are the tools whose arguments are called otherwise (the
// CortexGraph tools keep their source system's names), so an error points at what was typed.
import type { ToolName } from './tools.ts';

const RENAMED: Partial<Record<ToolName, Readonly<Record<string, string>>>> = {
  // save_memory's content is analysed as a message (enrichment), then stored as a fact's text.
  save_memory: { message: 'content', text: 'content' },
  touch_memory: { fact_id: 'memory_id' },
  observe_memory_usage: { fact_ids: 'memory_ids' },
  promote_memory: { fact_id: 'memory_id' },
};

/** The tool's name for a daemon field: "fact_ids[0]" is observe_memory_usage's "memory_ids[0]";
 *  a recall option's "options.recipe" is the argument "recipe". */
export function toolArgumentName(tool: ToolName, field: string): string {
  const plain = field.replace(/^options\./, '');
  const head = /^[^.[]+/.exec(plain)![0];
  const renamed = RENAMED[tool]?.[head];
  return renamed ? renamed + plain.slice(head.length) : plain;
}
