// MemoryService over gRPC: a thin adapter. Decode → core (which validates) → encode.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { MemoryService } from '../../shared/gen/engram/v1/memory_pb.ts';
import { SHARED_AGENT_ID } from '../../shared/validate.ts';
import type { Memory, PutResult } from '../memory.ts';
import type { SearchOutcome } from '../recall/recall.ts';
import { factMessage, factPatch, feedbackMessage, receiptMessage, recallOptionsInput, retrievalMessage, scopeOf, writeFields } from './convert.ts';
import { invalidArgument } from '../../shared/errors.ts';
import { Capability, type ReleaseProfile } from '../../shared/capabilities.ts';
import { revise } from '../lifecycle/revise.ts';
import { patchFact } from '../lifecycle/patch.ts';

const recallResponse = (outcome: SearchOutcome) => ({
  facts: outcome.facts.map(factMessage),
  retrieval: retrievalMessage(outcome.retrieval),
});

/** A committed (or replayed) write as the protocol returns it. */
const written = ({ fact, replayed }: PutResult) => ({ fact: factMessage(fact), replayed });

export function memoryService(memory: Memory, profile: ReleaseProfile): ImplOf<typeof MemoryService> {
  const confidenceServed = profile.capabilities.includes(Capability.ConfidenceRecall);
  const options = (o: Parameters<typeof recallOptionsInput>[0]) => recallOptionsInput(o, confidenceServed);
  return {
    async put(req) {
      return written(await memory.put({ requestId: req.requestId, agentId: req.agentId, text: req.text, ...writeFields(req.fields) }));
    },
    async putShared(req) {
      return written(await memory.put({ requestId: req.requestId, agentId: SHARED_AGENT_ID, text: req.text, ...writeFields(req.fields) }));
    },
    async get(req) {
      return { fact: factMessage(await memory.get(req.agentId, req.factId)) };
    },
    async recall(req) {
      return recallResponse(await memory.recall(req.agentId, req.query, req.topK));
    },
    async recallShared(req) {
      return recallResponse(await memory.recall(SHARED_AGENT_ID, req.query, req.topK, { scope: 'shared' }));
    },
    async recallAll(req) {
      return recallResponse(await memory.recall(req.agentId, req.query, req.topK, { scope: 'all' }));
    },
    async recallExplain(req) {
      const outcome = await memory.recall(req.agentId, req.query, req.topK, { explain: true });
      return { receipts: outcome.receipts!.map(receiptMessage), retrieval: retrievalMessage(outcome.retrieval) };
    },
    async recallWithOptions(req) {
      const outcome = await memory.recallWithOptions({
        agentId: req.agentId,
        query: req.query,
        scope: scopeOf(req.scope),
        explain: req.explain,
        options: options(req.options),
      });
      return {
        ...recallResponse(outcome),
        receipts: (outcome.receipts ?? []).map(receiptMessage),
        feedback: outcome.feedback && feedbackMessage(outcome.feedback),
      };
    },
    async batchRecall(req) {
      const outcome = await memory.batchRecall({ agentId: req.agentId, queries: req.queries, scope: scopeOf(req.scope), options: options(req.options) });
      return {
        results: outcome.results.map((r) => ({ query: r.query, facts: r.facts.map(factMessage), error: r.error ?? '' })),
        merged: outcome.merged.map(factMessage),
        retrieval: outcome.retrieval && retrievalMessage(outcome.retrieval),
      };
    },
    async alias(req) {
      return written(await memory.alias({ requestId: req.requestId, agentId: req.agentId, term: req.term, equivalents: req.equivalents }));
    },
    async delete(req) {
      return { fact: factMessage(await memory.delete(req.agentId, req.factId, req.requestId)) };
    },
    async list(req) {
      const page = await memory.list(req.agentId, req.pageSize, req.pageToken);
      return { facts: page.facts.map(factMessage), nextPageToken: page.nextPageToken };
    },
    async listAgents() {
      return { agentIds: await memory.listAgents() };
    },
    async stats(req) {
      const s = await memory.stats(req.agentId);
      const n = BigInt;
      return {
        factCount: n(s.factCount),
        liveCount: n(s.liveCount),
        retiredCount: n(s.retiredCount),
        pinnedCount: n(s.pinnedCount),
        textBytes: n(s.textBytes),
        oldestCreatedAtMs: n(s.oldestCreatedAt),
        newestCreatedAtMs: n(s.newestCreatedAt),
        agentCount: s.agentCount,
        vectorCount: n(s.vectorCount),
        pendingEmbeddings: n(s.pendingEmbeddings),
        storeBytes: n(s.storeBytes),
        embedder: s.embedder,
      };
    },
    async putWithOptions(req) {
      return written(await memory.put({ requestId: req.requestId, agentId: req.agentId, text: req.text, ...writeFields(req.fields), confidence: req.options?.confidence }));
    },
    async putSharedWithOptions(req) {
      return written(await memory.put({ requestId: req.requestId, agentId: SHARED_AGENT_ID, text: req.text, ...writeFields(req.fields), confidence: req.options?.confidence }));
    },
    async revise(req) {
      const result = await revise(memory, {
        requestId: req.requestId,
        agentId: req.agentId,
        targetIds: req.targetIds,
        text: req.text,
        ...writeFields(req.fields),
        confidence: req.options?.confidence,
      });
      return { replacement: factMessage(result.replacement), retiredIds: result.retiredIds, failures: result.failures, replayed: result.replayed };
    },
    async patchFact(req) {
      const fact = await patchFact(memory, { requestId: req.requestId, agentId: req.agentId, factId: req.factId, pinned: req.pinned, forget: req.forget, confidence: req.confidence });
      return { fact: factMessage(fact) };
    },
    async updateFact(req) {
      if (!req.fact) throw invalidArgument('fact', 'is required');
      if (req.fact.agentId !== '' && req.fact.agentId !== req.agentId) {
        throw invalidArgument('fact.agent_id', 'must equal agent_id (a fact cannot move between namespaces)');
      }
      return { fact: factMessage(await memory.updateFact(req.agentId, factPatch(req.fact), req.requestId)) };
    },
  };
}
