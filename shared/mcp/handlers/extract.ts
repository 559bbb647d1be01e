// memory_extract: the durable facts of a message or conversation, proposed (and, with remember,
// stored) by the daemon's extractor.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { extractJson } from '../../json/shapes.ts';
import { schemaArgs, ToolInputError, type Args } from '../args.ts';
import type { McpBackend } from '../backend.ts';
import { success } from '../result.ts';
import { counted } from '../../counted.ts';

export async function memoryExtract(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('memory_extract', args);
  if ((a.message === undefined) === (a.turns === undefined)) throw new ToolInputError('message: give a message or the turns of a conversation (one of them)');
  const input = a.message !== undefined ? { message: a.message } : { turns: a.turns! };
  const r = await backend.extract(a.agent_id, input, a.remember);
  const payload = { agent_id: a.agent_id, ...extractJson(r) };
  const lines = r.rejected
    ? [`Nothing extracted: ${r.rejected}`]
    : r.facts.length === 0
      ? ['No durable facts found.']
      : [`${counted(r.facts.length, 'durable fact')} (${r.extractor})${a.remember ? `, ${r.stored} stored` : ''}:`, ...r.facts.map((f, i) => `${i + 1}. [${f.kind}] ${f.text}${f.factId ? ` (fact_id ${f.factId}${f.duplicate ? ', already remembered' : ''})` : ''}${f.error ? ` (not stored: ${f.error})` : ''}`)];
  return success(payload, lines.join('\n'));
}
