// memory_add and memory_alias: validate → backend write → payload + text.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as arg from '../args.ts';
import type { McpBackend } from '../backend.ts';
import type { AddPayload, AliasPayload } from '../payloads.ts';
import { success } from '../result.ts';
import { CONFIDENCE_LABELS, type ConfidenceLabel } from '../../validate.ts';

export async function memoryAdd(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const text = arg.nonEmpty(arg.requiredString(args, 'text'), 'text');
  const label = arg.confidenceLabel(args);
  const fields = arg.writeFields(args);

  const written = await backend.add({ agentId, text, ...(label !== undefined ? { confidence: label } : {}), ...fields });
  // `confidence` is reported only when the caller gave one: a fact stored without a label has
  // none to report (and the schema's enum has no empty label).
  const payload: AddPayload = { agent_id: agentId, stored: true, fact_id: written.factId, duplicate: written.duplicate };
  if (label !== undefined && !written.duplicate) payload.confidence = label;
  else if (written.duplicate && isLabel(written.confidence)) payload.confidence = written.confidence;
  const identity = `fact_id ${written.factId}${payload.confidence ? `, confidence ${payload.confidence}` : ''}`;
  const notice = written.duplicate
    ? `Already remembered for agent ${JSON.stringify(agentId)}: an identical fact is stored (${identity}); nothing new was stored.`
    : `Memory stored for agent ${JSON.stringify(agentId)} (${identity}).`;
  return success(payload, notice);
}

const isLabel = (value: string): value is ConfidenceLabel => (CONFIDENCE_LABELS as readonly string[]).includes(value);

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
