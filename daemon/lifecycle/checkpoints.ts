// Checkpoints: the latest working state of an agent, saved as a JSON object and resumed in a
// later run. Saving also drops the agent's checkpoints beyond the newest `keep`, in the same
// commit, so the table never grows without bound.
import { invalidArgument } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import type { CheckpointRecord } from '../store/store.ts';

export const DEFAULT_CHECKPOINT_KEEP = 20;
const MAX_STATE_BYTES = 1024 * 1024;

/** "" is the empty object; anything else must be a JSON object within 1 MiB, nested no deeper
 *  than meta may be: a deeper state saves, but every door's JSON writer runs out of stack
 *  resuming it, so the agent could never read its checkpoint back. */
export function checkState(value: unknown): string {
  if (value === undefined || value === '') return '{}';
  if (typeof value !== 'string') throw invalidArgument('state_json', 'must be a string holding a JSON object');
  if (Buffer.byteLength(value, 'utf8') > MAX_STATE_BYTES) throw invalidArgument('state_json', `must be at most ${MAX_STATE_BYTES} bytes`);
  const parsed = check.parseJsonObject(value);
  if ('syntax' in parsed) throw invalidArgument('state_json', 'must be a JSON object (it does not parse)');
  if ('got' in parsed) throw invalidArgument('state_json', 'must be a JSON object');
  check.jsonValue(parsed.object, 'state_json');
  return value;
}

export function newCheckpoint(agentId: string, id: string, createdAt: number, state: string): CheckpointRecord {
  const parsed = JSON.parse(state) as { messages?: unknown };
  return { id, agentId, createdAt, state, ...(Array.isArray(parsed.messages) ? { messageCount: parsed.messages.length } : {}) };
}

/** Of an agent's checkpoint ids (newest first), those a new one pushes beyond `keep`. */
export const expiredBy = (existing: readonly string[], keep: number): string[] => existing.slice(Math.max(0, keep - 1));
