// MemoryService over gRPC: a thin adapter. Decode → core (which validates) → encode.
import type { ImplOf, ServerCall } from '../../shared/grpc/bridge.ts';
import { MemoryService, type BatchPutRequest, type FactFilter } from '../../shared/gen/engram/v1/memory_pb.ts';
import type { BatchSlot, Engram, FactMatch, PutResult, SearchOutcome } from '../core/engram.ts';
import { factMessage, factPatch, feedbackMessage, receiptMessage, recallOptionsInput, retrievalMessage, scopeOf, writeFields, writeOptions } from './convert.ts';
import { EngramError, invalidArgument } from '../../shared/errors.ts';
import { Capability, type ReleaseProfile } from '../../shared/capabilities.ts';
import { coreContext } from './context.ts';

/** A committed (or replayed, or already stored) write as the protocol returns it. */
const written = ({ fact, replayed, duplicate }: PutResult) => ({ fact: factMessage(fact), replayed, duplicate });

/** A refusal as the protocol's ItemError carries it (a batch item's, or a streamed batch's). */
const itemErrorMessage = (error: EngramError) => ({ code: error.code, message: error.message, field: error.field ?? '' });

/** One slot of a batch write as the protocol returns it: the fact's id (and the fact, when asked
 *  for), or the item's error. */
const batchResult = (withFact: boolean) => (slot: BatchSlot) =>
  slot.error
    ? { factId: '', replayed: false, duplicate: false, error: itemErrorMessage(slot.error) }
    : { factId: slot.result.fact.id, replayed: slot.result.replayed, duplicate: slot.result.duplicate, ...(withFact ? { fact: factMessage(slot.result.fact) } : {}) };

export function memoryService(core: Engram, profile: ReleaseProfile): ImplOf<typeof MemoryService> {
  const confidenceServed = profile.capabilities.includes(Capability.ConfidenceRecall);
  // A profile from before recall-matches-v1 answers as that release did: without them.
  const matchesServed = profile.capabilities.includes(Capability.RecallMatches);
  // A profile from before inspector-v1 neither counts live facts by confidence nor browses.
  const byConfidenceServed = profile.capabilities.includes(Capability.Inspector);
  // Before batch-write-facts-v1 a batch answered with fact ids only.
  const factsServed = profile.capabilities.includes(Capability.BatchWriteFacts);
  const restoreServed = { restore: profile.capabilities.includes(Capability.RestoreWrite), promotion: profile.capabilities.includes(Capability.RestorePromotion) };
  const putOptions = (o: Parameters<typeof writeOptions>[0]) => writeOptions(o, restoreServed);
  // A profile from before decay-v1 never knew the decay weight or min_decay_score.
  const served = {
    confidence: confidenceServed,
    decay: profile.capabilities.includes(Capability.Decay),
    kg: profile.capabilities.includes(Capability.KnowledgeGraph),
    recipe: profile.capabilities.includes(Capability.RecipeRecall),
  };
  const options = (o: Parameters<typeof recallOptionsInput>[0]) => recallOptionsInput(o, served);
  const matches = (outcome: { matches: FactMatch[] }) => (matchesServed ? outcome.matches : []);
  const receipts = (outcome: SearchOutcome) => (outcome.receipts ?? []).map((r) => receiptMessage(matchesServed ? r : { ...r, matched: undefined }));
  const recallResponse = (outcome: SearchOutcome) => ({
    facts: outcome.facts.map(factMessage),
    retrieval: retrievalMessage(outcome.retrieval),
    matches: matches(outcome),
    kgHints: outcome.hints ?? [],
  });
  const batchPut = async (req: Pick<BatchPutRequest, 'items' | 'returnFacts'>, call: ServerCall) => {
    const items = req.items.map((item) => ({ requestId: item.requestId, agentId: item.agentId, text: item.text, ...writeFields(item.fields), ...putOptions(item.options) }));
    const slots = await core.putBatch(coreContext(call), { items });
    return { results: slots.map(batchResult(req.returnFacts && factsServed)) };
  };
  return {
    async put(req, call) {
      return written(await core.put(coreContext(call, req.requestId), { agentId: req.agentId, text: req.text, ...writeFields(req.fields) }));
    },
    async putShared(req, call) {
      return written(await core.putShared(coreContext(call, req.requestId), { text: req.text, ...writeFields(req.fields) }));
    },
    async get(req, call) {
      return { fact: factMessage(await core.getFact(coreContext(call), req.agentId, req.factId)) };
    },
    async recall(req, call) {
      return recallResponse(await core.recall(coreContext(call), { agentId: req.agentId, query: req.query, topK: req.topK }));
    },
    async recallShared(req, call) {
      return recallResponse(await core.recall(coreContext(call), { agentId: undefined, query: req.query, topK: req.topK, scope: 'shared' }));
    },
    async recallAll(req, call) {
      return recallResponse(await core.recall(coreContext(call), { agentId: req.agentId, query: req.query, topK: req.topK, scope: 'all' }));
    },
    async recallExplain(req, call) {
      const outcome = await core.recall(coreContext(call), { agentId: req.agentId, query: req.query, topK: req.topK, explain: true });
      return { receipts: receipts(outcome), retrieval: retrievalMessage(outcome.retrieval) };
    },
    async recallWithOptions(req, call) {
      const outcome = await core.recallWithOptions(coreContext(call), {
        agentId: req.agentId,
        query: req.query,
        scope: scopeOf(req.scope),
        explain: req.explain,
        options: options(req.options),
      });
      return {
        ...recallResponse(outcome),
        receipts: receipts(outcome),
        feedback: outcome.feedback && feedbackMessage(outcome.feedback),
      };
    },
    async batchRecall(req, call) {
      const outcome = await core.batchRecall(coreContext(call), { agentId: req.agentId, queries: req.queries, scope: scopeOf(req.scope), options: options(req.options) });
      return {
        results: outcome.results.map((r) => ({ query: r.query, facts: r.facts.map(factMessage), error: r.error ?? '', matches: matches(r) })),
        merged: outcome.merged.map(factMessage),
        retrieval: outcome.retrieval && retrievalMessage(outcome.retrieval),
      };
    },
    async alias(req, call) {
      return written(await core.alias(coreContext(call, req.requestId), { agentId: req.agentId, term: req.term, equivalents: req.equivalents }));
    },
    async delete(req, call) {
      return { fact: factMessage(await core.deleteFact(coreContext(call, req.requestId), req.agentId, req.factId)) };
    },
    async list(req, call) {
      if (byConfidenceServed && (req.newestFirst || req.filter)) {
        const input = { order: req.newestFirst ? 'newest' : 'oldest', pageSize: req.pageSize, pageToken: req.pageToken, filter: req.filter ? filterOf(req.filter) : {} };
        const page = await core.browseFacts(coreContext(call), req.agentId, input);
        return { facts: page.facts.map(factMessage), nextPageToken: page.nextPageToken, scanned: BigInt(page.scanned) };
      }
      const page = await core.listFacts(coreContext(call), req.agentId, req.pageSize, req.pageToken);
      return { facts: page.facts.map(factMessage), nextPageToken: page.nextPageToken };
    },
    async listAgents(_req, call) {
      return { agentIds: await core.listAgents(coreContext(call)) };
    },
    async stats(req, call) {
      const s = await core.stats(coreContext(call), req.agentId);
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
        ...(byConfidenceServed ? { liveVerified: n(s.liveByConfidence.verified), liveInferred: n(s.liveByConfidence.inferred), liveUnverified: n(s.liveByConfidence.unverified) } : {}),
      };
    },
    batchPut,
    // Each batch answers in its own reply; a batch refused as a whole (a revoked token, one that
    // may not write there, a batch too large) answers with that refusal, and the stream goes on.
    async writeStream(req, call) {
      try {
        const batch = await batchPut(req.batch ?? { items: [], returnFacts: false }, call);
        return { sequence: req.sequence, batch, change: BigInt(call.changes.wrote) };
      } catch (error) {
        if (!(error instanceof EngramError)) throw error;
        return { sequence: req.sequence, error: itemErrorMessage(error) };
      }
    },
    async putWithOptions(req, call) {
      return written(await core.put(coreContext(call, req.requestId), { agentId: req.agentId, text: req.text, ...writeFields(req.fields), ...putOptions(req.options) }));
    },
    async putSharedWithOptions(req, call) {
      return written(await core.putShared(coreContext(call, req.requestId), { text: req.text, ...writeFields(req.fields), ...putOptions(req.options) }));
    },
    async revise(req, call) {
      const result = await core.revise(coreContext(call, req.requestId), {
        agentId: req.agentId,
        targetIds: req.targetIds,
        text: req.text,
        ...writeFields(req.fields),
        confidence: req.options?.confidence,
        restore: putOptions(req.options).restore,
      });
      return { replacement: factMessage(result.replacement), retiredIds: result.retiredIds, failures: result.failures, replayed: result.replayed };
    },
    async patchFact(req, call) {
      const fact = await core.patchFact(coreContext(call, req.requestId), { agentId: req.agentId, factId: req.factId, pinned: req.pinned, forget: req.forget, confidence: req.confidence });
      return { fact: factMessage(fact) };
    },
    async updateFact(req, call) {
      if (!req.fact) throw invalidArgument('fact', 'is required');
      if (req.fact.agentId !== '' && req.fact.agentId !== req.agentId) {
        throw invalidArgument('fact.agent_id', 'must equal agent_id (a fact cannot move between namespaces)');
      }
      return { fact: factMessage(await core.updateFact(coreContext(call, req.requestId), req.agentId, factPatch(req.fact))) };
    },
    async writeStatus(req, call) {
      const status = await core.writeStatus(coreContext(call), { agentId: req.agentId, requestId: req.requestId });
      return { committed: status.committed, agentId: status.agentId, op: status.op, ...(status.fact ? { fact: factMessage(status.fact) } : {}), resultJson: JSON.stringify(status.result) };
    },
  };
}

/** A list filter message in the core's terms (unset fields stay unset). */
function filterOf(f: FactFilter): Record<string, unknown> {
  const ms = (v: bigint | undefined) => (v === undefined ? undefined : Number(v));
  return {
    text: f.text,
    confidence: f.confidence,
    pinned: f.pinned,
    retired: f.retired,
    tags: f.tags,
    entities: f.entities,
    createdAfter: ms(f.createdAfterMs),
    createdBefore: ms(f.createdBeforeMs),
    occurredAfter: ms(f.occurredAfterMs),
    occurredBefore: ms(f.occurredBeforeMs),
  };
}
