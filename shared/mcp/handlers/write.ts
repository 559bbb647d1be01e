// memory_add and memory_alias: validate → backend write → payload + text.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as arg from '../args.ts';
import type { McpBackend } from '../backend.ts';
import type { AddPayload, AliasPayload } from '../payloads.ts';
import { success } from '../result.ts';

export async function memoryAdd(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const text = arg.nonEmpty(arg.requiredString(args, 'text'), 'text');
  const label = arg.confidenceLabel(args);

  const written = await backend.add(agentId, text, label);
  const payload: AddPayload = { agent_id: agentId, stored: true };
  let notice = `Memory stored for agent ${JSON.stringify(agentId)}.`;
  // Only an explicitly labelled add reports its identity (fact_id and confidence); a legacy add
  // keeps the legacy payload that clients written before labels expect.
  if (label !== undefined) {
    payload.fact_id = written.factId;
    payload.confidence = label;
    notice += ` fact_id ${written.factId}, confidence ${label}.`;
  }
  return success(payload, notice);
}

export async function memoryAlias(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const term = arg.nonEmpty(arg.requiredString(args, 'term'), 'term');
  const equivalents = arg.stringList(args, 'equivalents');

  await backend.alias(agentId, term, equivalents);
  const payload: AliasPayload = { agent_id: agentId, term, equivalents, stored: true };
  return success(
    payload,
    `Alias stored for agent ${JSON.stringify(agentId)}: ${JSON.stringify(term)} = ${equivalents.map((e) => JSON.stringify(e)).join(', ')}. Searches using either side now reach the same facts.`,
  );
}
