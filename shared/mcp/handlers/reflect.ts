// memory_reflect: one tool, six curation actions. The identity rules (kept from the GrayMatter
// contract, so its clients work unchanged):
// agent_id is canonical, agent a deprecated alias; at least one is required; EVERY supplied one
// must be a valid identity (null, wrong types, empty and whitespace-only are errors even when the
// other is valid); agent_id wins when both are valid; identities are never trimmed.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as arg from '../args.ts';
import type { McpBackend, WrittenFact } from '../backend.ts';
import { REFLECT_ACTIONS, type ReflectAction, type ReflectPayload } from '../payloads.ts';
import { success } from '../result.ts';
import { RELATION_TYPES, type RelationType } from '../../model.ts';

export function reflectIdentity(args: arg.Args): string {
  const canonical = arg.supplied(args, 'agent_id') ? arg.identity(args.agent_id, 'agent_id') : undefined;
  const alias = arg.supplied(args, 'agent') ? arg.identity(args.agent, 'agent') : undefined;
  const agent = canonical ?? alias;
  if (agent === undefined) throw new arg.ToolInputError('agent_id is required (or its deprecated alias agent)');
  return agent;
}

export async function memoryReflect(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  if (!arg.supplied(args, 'action')) throw new arg.ToolInputError('action is required');
  const action = arg.enumArg(args, 'action', REFLECT_ACTIONS, 'add');
  const agent = reflectIdentity(args);
  const text = arg.optionalString(args, 'text');
  const target = arg.optionalString(args, 'target');
  const label = arg.confidenceLabel(args);
  if (label !== undefined && action !== 'add' && action !== 'update') {
    throw new arg.ToolInputError(`confidence is supported only by memory_reflect add and update, not ${action}`);
  }
  const relation = arg.supplied(args, 'relation') ? arg.enumArg(args, 'relation', RELATION_TYPES, 'related') : undefined;
  if (relation !== undefined && action !== 'link') throw new arg.ToolInputError(`relation is supported only by memory_reflect link, not ${action}`);

  const need = (value: string | undefined, what: string): string => {
    if (value === undefined) throw new arg.ToolInputError(`${what} is required for ${action}`);
    return arg.nonEmpty(value, what);
  };
  let written: WrittenFact | undefined;
  let related: Related | undefined;
  switch (action) {
    case 'add':
      written = await backend.add({ agentId: agent, text: need(text, 'text'), ...(label !== undefined ? { confidence: label } : {}) });
      break;
    case 'update':
      written = await backend.reviseByText(agent, need(target, 'target'), need(text, 'text'), label);
      break;
    case 'forget':
    case 'pin':
    case 'unpin':
      // The fact may come in target or text (GrayMatter callers use both); target wins. A
      // refusal names the field the caller actually sent, so an empty text is not blamed on target.
      await backend[action](agent, target === undefined && text !== undefined ? need(text, 'text') : need(target, 'target'));
      break;
    case 'link':
      if (relation) related = { ...(await relateNamed(backend, agent, need(target, 'target'), relation, need(text, 'text'))), relation };
      else await backend.link(agent, need(target, 'target'), need(text, 'text'));
      break;
  }

  const payload: ReflectPayload = { action, agent, ok: true, agent_id: agent };
  if (written) payload.fact_id = written.factId;
  // The payload reports the caller's own label only (the GrayMatter contract); the text says
  // the label the fact was stored under, the daemon's default when the caller gave none.
  if (written && label !== undefined) payload.confidence = label;
  return success(payload, describeDone(whatWasDone(action, written, related), agent, payload, label ?? written?.confidence));
}

/** A link with a relation: the fact it started from, and whether anything changed. */
interface Related {
  fact: { id: string };
  changed: boolean;
  relation: string;
}

/** What happened, in the words an agent reads: an add that found the fact already stored, and a
 *  link that related two facts (or found them related), each say so. */
function whatWasDone(action: ReflectAction, written: WrittenFact | undefined, related: Related | undefined): string {
  if (action === 'add' && written?.duplicate) return 'Already remembered: an identical fact is stored, nothing new was stored';
  if (related) {
    const link = `fact ${related.fact.id} to the fact named in text as ${related.relation}`;
    return related.changed ? `Related ${link}` : `Nothing changed: already related ${link}`;
  }
  return DONE[action];
}

const DONE: Record<ReflectAction, string> = {
  add: 'Added a fact',
  update: 'Replaced the fact',
  forget: 'Retired the fact',
  pin: 'Pinned the fact',
  unpin: 'Unpinned the fact',
  link: 'Linked the entity to the fact',
};

function describeDone(done: string, agent: string, p: ReflectPayload, stored: string | undefined): string {
  const identity = p.fact_id ? ` (fact_id ${p.fact_id}${stored ? `, confidence ${stored}` : ''})` : '';
  return `${done} for agent ${JSON.stringify(agent)}${identity}.`;
}

/** A link with a relation names its two facts as memory_reflect names facts, by fact_id or exact
 *  text (`target` the one it starts from, `text` the one it points at); memory_relate takes ids
 *  only, as every other door does. */
async function relateNamed(backend: McpBackend, agent: string, target: string, relation: RelationType, text: string): Promise<{ fact: { id: string }; changed: boolean }> {
  const fromId = await backend.factIdNamed(agent, target, 'target');
  const toId = await backend.factIdNamed(agent, text, 'text');
  return backend.relate(agent, fromId, relation, toId, false);
}
