// memory_list, memory_get, memory_forget and memory_delete: one fact (or one page) by id, so an
// agent can see what it holds and retire or erase exactly what it means to.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { counted } from '../../counted.ts';
import { retiredText } from '../../retired.ts';
import { MAX_PAGE_SIZE } from '../../validate.ts';
import * as arg from '../args.ts';
import type { McpBackend } from '../backend.ts';
import { LIST_PAGE_SIZE } from '../input-schemas.ts';
import type { DeletePayload, ForgetPayload, GetPayload, ListPayload } from '../payloads.ts';
import { success } from '../result.ts';

const q = JSON.stringify;

export async function memoryList(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const pageSize = pageSizeArg(args);
  const pageToken = arg.optionalString(args, 'page_token') ?? '';

  const page = await backend.list(agentId, pageSize, pageToken);
  const payload: ListPayload = { agent_id: agentId, count: page.facts.length, facts: page.facts, next_page_token: page.nextPageToken };
  const lines = page.facts.map((f, i) => `${i + 1}. [${f.id}]${f.superseded_by ? ` (${retiredText(f.superseded_by, f.retired_reason)})` : ''}${f.pinned ? ' (pinned)' : ''} ${f.text}`);
  const more = page.nextPageToken ? `\n\nMore facts follow: call memory_list again with page_token ${q(page.nextPageToken)}.` : '';
  const head = page.facts.length ? `${counted(page.facts.length, 'fact')} of agent ${q(agentId)}:\n\n${lines.join('\n')}` : `Agent ${q(agentId)} has no facts${pageToken ? ' after this page token' : ''}.`;
  return success(payload, head + more);
}

export async function memoryGet(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const factId = arg.nonEmpty(arg.requiredString(args, 'fact_id'), 'fact_id');

  const fact = await backend.get(agentId, factId);
  const payload: GetPayload = { fact };
  return success(payload, `Fact ${fact.id} of agent ${q(agentId)}${fact.superseded_by ? ` (${retiredText(fact.superseded_by, fact.retired_reason)})` : ''}:\n${JSON.stringify(fact, null, 2)}`);
}

export async function memoryForget(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const factId = arg.nonEmpty(arg.requiredString(args, 'fact_id'), 'fact_id');

  const fact = await backend.forgetFact(agentId, factId);
  const payload: ForgetPayload = { agent_id: agentId, fact_id: factId, forgotten: true, fact };
  return success(payload, `Forgot fact ${factId} of agent ${q(agentId)}: it is no longer recalled, and stays listed (memory_delete erases it).`);
}

export async function memoryDelete(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const factId = arg.nonEmpty(arg.requiredString(args, 'fact_id'), 'fact_id');

  await backend.deleteFact(agentId, factId);
  const payload: DeletePayload = { agent_id: agentId, fact_id: factId, deleted: true };
  return success(payload, `Deleted fact ${factId} of agent ${q(agentId)}: its text and everything derived from it are erased.`);
}

function pageSizeArg(args: arg.Args): number {
  if (!arg.supplied(args, 'page_size')) return LIST_PAGE_SIZE;
  const value = args.page_size;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
    throw new arg.ToolInputError(`page_size must be an integer between 1 and ${MAX_PAGE_SIZE}, got ${JSON.stringify(value)}`);
  }
  return value;
}
