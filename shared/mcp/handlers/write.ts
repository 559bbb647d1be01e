// memory_add, memory_add_batch and memory_alias: validate → backend write → payload + text.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as arg from '../args.ts';
import type { McpBackend } from '../backend.ts';
import type { AddBatchPayload, AddPayload, AliasPayload } from '../payloads.ts';
import { INPUT_TYPES, MAX_BATCH_FACTS } from '../input-schemas.ts';

const BATCH_FACT_KEYS = Object.keys(INPUT_TYPES.memory_add_batch.shape.facts.element.shape);
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

/** memory_add_batch: every fact's arguments are type-checked before anything is sent (a malformed
 *  one fails the call, naming it); the write then stores or refuses each fact on its own — a
 *  value its rules refuse (an empty text or tag, a text over the limit) in that fact's own slot,
 *  as REST's and gRPC's batches do. */
export async function memoryAddBatch(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const facts = arg.objectList(args, 'facts', MAX_BATCH_FACTS).map((fact, i) =>
    arg.within(`facts[${i}]`, () => {
      arg.knownKeys(fact, BATCH_FACT_KEYS);
      const label = arg.confidenceLabel(fact);
      return { text: arg.requiredString(fact, 'text'), ...(label !== undefined ? { confidence: label } : {}), ...arg.writeFields(fact, arg.optionalStringArray) };
    }),
  );
  const written = await backend.addMany(agentId, facts);
  const payload: AddBatchPayload = {
    agent_id: agentId,
    stored: written.filter((w) => w.error === undefined && !w.duplicate).length,
    duplicates: written.filter((w) => w.error === undefined && w.duplicate).length,
    failed: written.filter((w) => w.error).length,
    results: written.map((w, i) => (w.error !== undefined ? { error: factError(i, w.error, w.field) } : { fact_id: w.factId, duplicate: w.duplicate })),
  };
  const refused = payload.results.flatMap((r) => (r.error ? [r.error] : []));
  const text =
    `Stored ${payload.stored} new ${payload.stored === 1 ? 'fact' : 'facts'} for agent ${JSON.stringify(agentId)}` +
    (payload.duplicates ? `; ${payload.duplicates} already remembered` : '') +
    (refused.length ? `; refused: ${refused.join('; ')}` : '') +
    '.';
  return success(payload, text);
}

/** A refused fact's error, named as the tool's caller sent it: "facts[2].text: …" (the write
 *  names the item in the batch it was sent in, "items[2].text", or not at all). */
function factError(at: number, message: string, field = ''): string {
  const inBatch = /^items\[\d+\]\.?/;
  const own = field.replace(inBatch, '');
  const said = message.replace(inBatch, '').replace(/^: /, '');
  if (!own) return `facts[${at}]: ${said}`;
  return said.startsWith(`${own}: `) ? `facts[${at}].${said}` : `facts[${at}].${own}: ${said}`;
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
