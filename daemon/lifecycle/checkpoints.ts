// Checkpoints: the latest working state of an agent, saved as a JSON object and resumed in a
// later run. Saving is one synced batch that also drops the agent's checkpoints beyond the
// newest `keep`, so the table never grows without bound.
import { invalidArgument } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import type { Memory } from '../memory.ts';
import type { CheckpointRecord } from '../store/database.ts';
import type { BatchOp } from '../store/group-commit.ts';
import { factKey, namespaceRange } from '../store/keys.ts';

export const DEFAULT_CHECKPOINT_KEEP = 20;
const MAX_STATE_BYTES = 1024 * 1024;

export async function saveCheckpoint(memory: Memory, input: { requestId?: unknown; agentId: unknown; state: unknown }): Promise<CheckpointRecord> {
  const agentId = check.agentId(input.agentId);
  check.requestId(input.requestId ?? '');
  const state = checkState(input.state);
  const { id, time } = memory.store.ids.next(Date.now());
  const parsed = JSON.parse(state) as { messages?: unknown };
  const record: CheckpointRecord = {
    id,
    agentId,
    createdAt: time,
    state,
    ...(Array.isArray(parsed.messages) ? { messageCount: parsed.messages.length } : {}),
  };
  const table = memory.tables.checkpoints;
  const older = await table.keys({ ...namespaceRange(agentId), reverse: true }).all();
  const keep = memory.options.checkpointKeep ?? DEFAULT_CHECKPOINT_KEEP;
  const ops: BatchOp[] = [{ type: 'put', sublevel: table, key: factKey(agentId, id), value: record } as BatchOp];
  for (const key of older.slice(Math.max(0, keep - 1))) ops.push({ type: 'del', sublevel: table, key } as BatchOp);
  await memory.store.commitRaw(ops);
  return record;
}

export async function resumeCheckpoint(memory: Memory, agentIdInput: unknown): Promise<CheckpointRecord | undefined> {
  const agentId = check.agentId(agentIdInput);
  const [latest] = await memory.tables.checkpoints.values({ ...namespaceRange(agentId), reverse: true, limit: 1 }).all();
  return latest;
}

export async function listCheckpoints(memory: Memory, agentIdInput: unknown): Promise<CheckpointRecord[]> {
  const agentId = check.agentId(agentIdInput);
  return memory.tables.checkpoints.values({ ...namespaceRange(agentId), reverse: true }).all();
}

/** "" is the empty object; anything else must be a JSON object within 1 MiB. */
function checkState(value: unknown): string {
  if (value === undefined || value === '') return '{}';
  if (typeof value !== 'string') throw invalidArgument('state_json', 'must be a string holding a JSON object');
  if (Buffer.byteLength(value, 'utf8') > MAX_STATE_BYTES) throw invalidArgument('state_json', `must be at most ${MAX_STATE_BYTES} bytes`);
  const parsed = check.parseJsonObject(value);
  if ('syntax' in parsed) throw invalidArgument('state_json', 'must be a JSON object (it does not parse)');
  if ('got' in parsed) throw invalidArgument('state_json', 'must be a JSON object');
  return value;
}
