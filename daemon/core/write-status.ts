// WriteStatus: what became of a write sent with a request id. A client that lost the answer
// (UncertainWriteError) asks here instead of resending blindly. The pipeline's request records
// are the source: a record exists exactly when the write committed, and lives as long as the
// fact it wrote (erasing a fact forgets its request id), or for good for other kinds.
import { invalidArgument } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import { authorize, readable } from '../auth/grant.ts';
import { SHARED_AGENT_ID } from '../../shared/validate.ts';
import type { WriteStatus as WriteStatusOf } from '../../shared/model.ts';
import type { FactRecord } from '../store/record.ts';
import type { Json, MemoryStore } from '../store/store.ts';
import type { WritePipeline } from '../write/pipeline.ts';
import type { CallContext } from './context.ts';

export type WriteStatus = WriteStatusOf<FactRecord>;

/** `agentId` absent: every namespace the caller may read is looked in (request ids are UUIDs, so
 *  one names one write). */
export async function writeStatus(
  parts: { store: MemoryStore; pipeline: WritePipeline },
  ctx: CallContext,
  input: { agentId?: unknown; requestId: unknown },
): Promise<WriteStatus> {
  const requestId = check.requestId(input.requestId);
  if (!requestId) throw invalidArgument('request_id', 'must not be empty: a write sent without one cannot be looked up');
  const agentIds = input.agentId === undefined || input.agentId === '' ? await searched(parts.store, ctx) : [check.agentId(input.agentId)];
  for (const agentId of agentIds) authorize(ctx, 'read', agentId);
  const found = await parts.pipeline.recordedResult(agentIds, requestId);
  if (!found) return { committed: false, agentId: '', op: '', result: {} };
  const { digest: _digest, ...result } = found.recorded;
  const factId = typeof result.factId === 'string' ? result.factId : undefined;
  const [fact] = factId ? await parts.store.getFacts([{ agentId: found.agentId, factId }]) : [];
  return { committed: true, agentId: found.agentId, op: String(result.op ?? 'fact'), ...(fact ? { fact } : {}), result };
}

async function searched(store: MemoryStore, ctx: CallContext): Promise<string[]> {
  return readable(ctx, [...new Set([...(await store.namespaces()), SHARED_AGENT_ID])]);
}
