// WriteStatus: what became of a write sent with a request id. A client that lost the answer
// (UncertainWriteError) asks here instead of resending blindly. The pipeline's request records
// are the source: a record exists exactly when the write committed, and lives as long as the
// fact it wrote (erasing a fact forgets its request id), or for good for other kinds.
import { invalidArgument } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import { authorize, permitted } from '../auth/grant.ts';
import { SHARED_AGENT_ID } from '../../shared/validate.ts';
import type { WriteStatus as WriteStatusOf } from '../../shared/model.ts';
import type { FactRecord } from '../store/record.ts';
import type { Json, MemoryStore } from '../store/store.ts';
import { CONTROLS_NAMESPACE, type WritePipeline } from '../write/pipeline.ts';
import type { CallContext } from './context.ts';
import { writeResult } from './write-result.ts';

export type WriteStatus = WriteStatusOf<FactRecord>;

/** `agentId` absent: every namespace the caller may read or write is looked in, and the records
 *  of slots and recipes; a request id found in more than one is ambiguous (name the namespace). A
 *  namespace that holds no fact (only checkpoints) is looked in only when named. */
export async function writeStatus(
  parts: { store: MemoryStore; pipeline: WritePipeline },
  ctx: CallContext,
  input: { agentId?: unknown; requestId: unknown },
): Promise<WriteStatus> {
  const requestId = check.requestId(input.requestId);
  if (!requestId) throw invalidArgument('request_id', 'must not be empty: a write sent without one cannot be looked up');
  const named = input.agentId !== undefined && input.agentId !== '';
  const agentIds = named ? [check.agentId(input.agentId)] : await searched(parts.store, ctx);
  if (named && permitted(ctx, agentIds, ASKING).length === 0) authorize(ctx, 'read', agentIds[0]!);
  if (named && agentIds[0] === SHARED_AGENT_ID) agentIds.push(CONTROLS_NAMESPACE);
  const found = await parts.pipeline.recordedResults(agentIds, requestId);
  if (found.length > 1) throw invalidArgument('request_id', `names writes in ${found.length} namespaces (${found.map((f) => visible(f.agentId)).join(', ')}): give agent_id`);
  const [only] = found;
  if (!only) return { committed: false, agentId: '', op: '', result: {} };
  const { digest: _digest, ...result } = only.recorded;
  const factId = typeof result.factId === 'string' ? result.factId : undefined;
  const [fact] = factId ? await parts.store.getFacts([{ agentId: only.agentId, factId }]) : [];
  return { committed: true, agentId: visible(only.agentId), op: String(result.op ?? 'fact'), ...(fact ? { fact } : {}), result: writeResult(result) };
}

/** The caller may ask about the writes of a namespace it may read or write. */
const ASKING = ['read', 'write'] as const;

/** Slots and recipes keep their request ids apart; they are reported as the shared namespace's. */
const visible = (agentId: string) => (agentId === CONTROLS_NAMESPACE ? SHARED_AGENT_ID : agentId);

async function searched(store: MemoryStore, ctx: CallContext): Promise<string[]> {
  const namespaces = [...new Set([...(await store.namespaces()), SHARED_AGENT_ID, ...(ctx.principal.grant?.agents ?? [])])];
  const mine = permitted(ctx, namespaces, ASKING);
  return mine.includes(SHARED_AGENT_ID) ? [...mine, CONTROLS_NAMESPACE] : mine;
}
