// checkpoint_save and checkpoint_resume: validate → backend → payload + text.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as arg from '../args.ts';
import type { McpBackend } from '../backend.ts';
import type { CheckpointResumePayload, CheckpointSavePayload } from '../payloads.ts';
import { success } from '../result.ts';
import { resumeText } from '../text.ts';
import { parseJsonObject } from '../../validate.ts';
import { noCheckpoint } from '../../errors.ts';

const rfc3339 = (ms: number): string => new Date(ms).toISOString();

export async function checkpointSave(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const state = arg.optionalString(args, 'state') ?? '';
  if (state !== '') checkStateObject(state);

  const saved = await backend.checkpointSave(agentId, state);
  const payload: CheckpointSavePayload = { agent_id: agentId, checkpoint_id: saved.id, created_at: rfc3339(saved.createdAt) };
  return success(payload, `Checkpoint ${JSON.stringify(saved.id)} saved for agent ${JSON.stringify(agentId)} at ${payload.created_at}.`);
}

export async function checkpointResume(args: arg.Args, backend: McpBackend): Promise<CallToolResult> {
  const agentId = arg.requiredAgentId(args);
  const onMissing = arg.enumArg(args, 'on_missing', ['error', 'empty'] as const, 'error');

  const latest = await backend.checkpointResume(agentId);
  if (!latest) {
    // Absence is an error by default (the historical behaviour); "empty" opts into a success.
    if (onMissing === 'error') throw noCheckpoint(agentId);
    const empty: CheckpointResumePayload = { found: false, agent_id: agentId };
    return success(empty, resumeText(empty));
  }
  // The state is always said, {} included, as every other door says it: an empty state is a
  // state the agent saved, not a missing one. (Release 0.2.0's schema has it optional, so a
  // client of that schema takes it either way.) message_count is the length of the state's
  // messages list, 0 for an empty one; it is omitted when the state has no such list.
  const payload: CheckpointResumePayload = {
    id: latest.id,
    created_at: rfc3339(latest.createdAt),
    state: latest.state,
    ...(latest.messageCount !== undefined ? { message_count: latest.messageCount } : {}),
  };
  return success(payload, resumeText(payload));
}

function checkStateObject(state: string): void {
  const parsed = parseJsonObject(state);
  if ('syntax' in parsed) throw new arg.ToolInputError(`state must be a JSON object: ${parsed.syntax}`);
  if ('got' in parsed) throw new arg.ToolInputError(`state must be a JSON object, got ${parsed.got}`);
}
