// McpBackend over the daemon's core, for MCP over HTTP inside the daemon: one per tool call,
// bound to the caller the HTTP door authenticated. The same core calls the gRPC adapters make,
// so validation and semantics are one.
import { randomUUID } from 'node:crypto';
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import type { ContextAssembly, ClusterReport, ConsolidateResult, ExtractResult, GcResult, GraphView, ObserveUsageResult, PromoteResult, RecallAdvice, Recipe, RecipeFields, RelationType, SaveAdvice, Slot, SlotWritten, UnifiedResult } from '../../shared/model.ts';
import { evidenceOfMatches, policyOf, type ContextRequest, type SlotWriteRequest, type GcRequest, type ScoredFact, type ScoredSearchRequest, type TouchReport, type BatchWritten, type BatchRequest, type BatchResult, type FactPage, type McpBackend, type SlotPage, type SearchRequest, type SearchResult, type WriteRequest, type WrittenFact } from '../../shared/mcp/backend.ts';
import type { ConsolidationRunJson, FactJson, ReceiptJson } from '../../shared/schemas/json-shapes.ts';
import { resolveId, resolveTargets, type FactLookup } from '../../shared/mcp/targets.ts';
import { consolidationRunJson } from '../../shared/json/shapes.ts';
import { jsonValue, type ConfidenceLabel } from '../../shared/validate.ts';
import type { Receipt } from '../../shared/model.ts';
import { withRequestId, type CallContext } from '../core/context.ts';
import type { Engram } from '../core/engram.ts';
import type { RecallOptionsInput } from '../core/engram.ts';
import { contextView, restFact, restReceipt } from './views.ts';
import type { FactRecord } from '../core/engram.ts';

export class CoreBackend implements McpBackend {
  constructor(
    private readonly core: Engram,
    private readonly ctx: CallContext,
  ) {}

  /** MCP tools carry no request id: each write gets its own (a retry of a tool call is a new write). */
  private get writeCtx(): CallContext {
    return withRequestId(this.ctx, randomUUID());
  }

  async search(req: SearchRequest): Promise<SearchResult> {
    // RecallWithOptions always: it is the path that carries weak-match feedback. With no
    // confidence option the weight is the configured default, as on every other front door;
    // the handler hides the confidence metadata of a call that ends up legacy.
    const outcome = await this.core.recallWithOptions(this.ctx, { agentId: req.agentId, query: req.query, scope: 'agent', explain: req.explain, options: recallOptions(req) });
    return {
      facts: outcome.facts.map((f) => f.text),
      ...(outcome.matches ? { matched: outcome.matches.map((m) => m.matched) } : {}),
      ...(req.explain ? { receipts: (outcome.receipts ?? []).map(receiptJson) } : {}),
      ...(outcome.feedback ? { feedback: outcome.feedback } : {}),
      policy: policyOf(outcome.retrieval),
      hints: outcome.hints ?? [],
      ...evidenceOfMatches(outcome.matches),
    };
  }

  async searchBatch(req: BatchRequest): Promise<BatchResult> {
    const outcome = await this.core.batchRecall(this.ctx, { agentId: req.agentId, queries: req.queries, scope: 'agent', options: recallOptions(req) });
    return {
      perQuery: outcome.results.map((r) => ({ query: r.query, facts: r.facts.map((f) => f.text), ...(r.error ? { error: r.error } : {}) })),
      merged: outcome.merged.map((f) => f.text),
      policy: policyOf(outcome.retrieval),
    };
  }

  async add({ meta, ...req }: WriteRequest): Promise<WrittenFact> {
    // The core takes meta as the JSON text the store keeps.
    const { fact, duplicate } = await this.core.put(this.writeCtx, { ...req, ...(meta !== undefined ? { meta: JSON.stringify(jsonValue(meta, 'meta')) } : {}) });
    return { factId: fact.id, confidence: fact.confidence, duplicate, hasEmbedding: fact.embedder !== '' };
  }

  async searchScored(req: ScoredSearchRequest): Promise<ScoredFact[]> {
    const filters = { ...(req.tags?.length ? { tagsAny: req.tags } : {}), windowDays: req.windowDays, minDecayScore: req.minScore };
    const options = { topK: req.topK, weights: req.useEmbeddings ? {} : { vector: 0 }, filters };
    const outcome = await this.core.recallWithOptions(this.ctx, { agentId: req.agentId, query: req.query, scope: 'agent', explain: false, options });
    return outcome.facts.map((fact, i) => ({ fact: restFact(fact), score: outcome.matches[i]!.decayScore, relevance: outcome.matches[i]!.score, matched: outcome.matches[i]!.matched }));
  }

  async touch(agentId: string, factId: string, boostStrength: boolean): Promise<TouchReport> {
    const r = await this.core.touch(this.writeCtx, { agentId, factId, boostStrength });
    return { fact: restFact(r.fact), oldScore: r.oldScore, newScore: r.newScore };
  }

  observeUsage(agentId: string, factIds: string[], contextTags: string[]): Promise<ObserveUsageResult> {
    return this.core.observeUsage(this.writeCtx, { agentId, factIds, contextTags });
  }

  collectGarbage(agentId: string, req: GcRequest): Promise<GcResult> {
    return this.core.collectGarbage(this.writeCtx, { agentId, ...req });
  }

  searchUnified(agentId: string, query: string, options: { tags?: string[]; limit: number; stmWeight: number; ltmWeight: number; windowDays?: number; minScore?: number }): Promise<UnifiedResult> {
    return this.core.searchUnified(this.ctx, { agentId, query, ...options });
  }

  extract(agentId: string, input: { message: string } | { turns: { speaker?: string; text: string }[] }, remember: boolean): Promise<ExtractResult> {
    return this.core.extract(this.ctx, { agentId, ...input, remember });
  }

  cluster(agentId: string, req: { threshold: number; maxClusterSize: number; findDuplicates: boolean; duplicateThreshold: number }): Promise<ClusterReport> {
    return this.core.clusterFacts(this.ctx, { agentId, ...req });
  }

  consolidate(agentId: string, clusterId: string, mode: 'dry_run' | 'apply'): Promise<ConsolidateResult> {
    return this.core.consolidateCluster(this.writeCtx, { agentId, clusterId, mode });
  }

  promote(agentId: string, req: { factId?: string; autoDetect: boolean; dryRun: boolean; force: boolean; target: string }): Promise<PromoteResult> {
    return this.core.promote(this.ctx, { agentId, ...req });
  }

  async analyzeMessage(message: string): Promise<SaveAdvice> {
    return this.core.analyzeMessage(this.ctx, { message });
  }

  async analyzeForRecall(message: string): Promise<RecallAdvice> {
    return this.core.analyzeForRecall(this.ctx, { message });
  }

  async addMany(agentId: string, facts: Omit<WriteRequest, 'agentId'>[]): Promise<BatchWritten[]> {
    // A meta the JSON rule refuses fails in its own fact's slot (the core sees only its text), as
    // it does through the library on MCP's other transport; the other facts are still written.
    const prepared = facts.map(({ meta, ...fact }) => {
      try {
        return { item: { ...fact, agentId, requestId: randomUUID(), ...(meta !== undefined ? { meta: JSON.stringify(jsonValue(meta, 'meta')) } : {}) } };
      } catch (error) {
        if (!(error instanceof EngramError)) throw error;
        return { error };
      }
    });
    const items = prepared.flatMap((p) => (p.item ? [p.item] : []));
    const slots = items.length ? await this.core.putBatch(this.ctx, { items }) : [];
    const refused = (error: EngramError): BatchWritten => ({ error: error.message, ...(error.field ? { field: error.field } : {}) });
    let answered = 0;
    return prepared.map((p): BatchWritten => {
      if (p.error) return refused(p.error);
      const s = slots[answered++]!;
      return s.error ? refused(s.error) : { factId: s.result.fact.id, duplicate: s.result.duplicate };
    });
  }

  async alias(agentId: string, term: string, equivalents: string[]): Promise<void> {
    await this.core.alias(this.writeCtx, { agentId, term, equivalents });
  }

  async checkpointSave(agentId: string, stateJson: string): Promise<{ id: string; createdAt: number }> {
    const saved = await this.core.saveCheckpoint(this.writeCtx, { agentId, state: stateJson });
    return { id: saved.id, createdAt: saved.createdAt };
  }

  async checkpointResume(agentId: string) {
    const latest = await this.core.resumeCheckpoint(this.ctx, agentId);
    if (!latest) return undefined;
    const state = JSON.parse(latest.state || '{}') as Record<string, unknown>;
    return { id: latest.id, createdAt: latest.createdAt, state, ...(latest.messageCount !== undefined ? { messageCount: latest.messageCount } : {}) };
  }

  async reviseByText(agentId: string, target: string, text: string, confidence?: ConfidenceLabel): Promise<WrittenFact> {
    const targets = await resolveTargets(target, this.lookup(agentId));
    const res = await this.core.revise(this.writeCtx, { agentId, targetIds: targets.map((f) => f.id), text, ...(confidence !== undefined ? { confidence } : {}) });
    if (res.failures.length) {
      // The replacement is committed; say so rather than reporting a bare failure.
      const detail = res.failures.map((f) => `${f.factId}: ${f.error}`).join('; ');
      throw new EngramError(ErrorKind.Aborted, `update committed fact_id ${res.replacement.id} but could not retire ${detail}`);
    }
    return { factId: res.replacement.id, confidence: res.replacement.confidence, duplicate: false, hasEmbedding: res.replacement.embedder !== '' };
  }

  async forget(agentId: string, target: string): Promise<void> {
    for (const fact of await resolveTargets(target, this.lookup(agentId))) await this.core.patchFact(this.writeCtx, { agentId, factId: fact.id, forget: true });
  }

  async pin(agentId: string, target: string): Promise<void> {
    for (const fact of await resolveTargets(target, this.lookup(agentId))) await this.core.patchFact(this.writeCtx, { agentId, factId: fact.id, pinned: true });
  }

  async unpin(agentId: string, target: string): Promise<void> {
    for (const fact of await resolveTargets(target, this.lookup(agentId))) await this.core.patchFact(this.writeCtx, { agentId, factId: fact.id, pinned: false });
  }

  /** One transactional patch per fact: two links at once both land. */
  async link(agentId: string, target: string, entity: string): Promise<void> {
    for (const f of await resolveTargets(target, this.lookup(agentId))) await this.core.linkEntity(this.writeCtx, { agentId, factId: f.id, entity });
  }

  factIdNamed(agentId: string, name: string, field: string): Promise<string> {
    return resolveId(name, this.lookup(agentId), field);
  }

  async relate(agentId: string, fromId: string, type: RelationType, toId: string, remove: boolean): Promise<{ fact: FactJson; changed: boolean }> {
    const r = await this.core.relate(this.writeCtx, { agentId, fromId, toId, type, remove });
    return { fact: restFact(r.fact), changed: r.changed };
  }

  readGraph(agentId: string, around: { factId: string } | { entity: string }, limit?: number): Promise<GraphView> {
    return this.core.readGraph(this.ctx, { agentId, ...around, ...(limit !== undefined ? { limit } : {}) });
  }

  putSlot(write: SlotWriteRequest): Promise<SlotWritten> {
    return this.core.putSlot(this.writeCtx, write);
  }

  listSlots(options: { projectId?: string; query?: string; archived: boolean; limit: number; pageToken?: string }): Promise<SlotPage> {
    return this.core.listSlots(this.ctx, options);
  }

  async deleteSlot(recordId: string): Promise<Slot> {
    return (await this.core.deleteSlot(this.writeCtx, recordId)).slot;
  }

  slotContext(options: { projectId?: string; slotNames?: string[] }): Promise<Slot[]> {
    return this.core.slotContext(this.ctx, options);
  }

  async assembleContext(agentId: string, query: string, options: ContextRequest): Promise<ContextAssembly> {
    return contextView(await this.core.assembleContext(this.ctx, { agentId, query, ...options }));
  }

  listRecipes(): Promise<Recipe[]> {
    return this.core.listRecipes(this.ctx);
  }

  async saveRecipe(name: string, fields: Partial<RecipeFields>): Promise<Recipe> {
    return (await this.core.saveRecipe(this.writeCtx, { name, ...fields })).recipe;
  }

  async consolidateRun(agentId: string, dryRun: boolean): Promise<ConsolidationRunJson> {
    const run = await this.core.consolidate(this.writeCtx, { agentId, dryRun });
    return { ...consolidationRunJson({ ...run, summary: undefined }), summary: run.summary ? restFact(run.summary) : null };
  }

  async list(agentId: string, pageSize: number, pageToken: string): Promise<FactPage> {
    const page = await this.core.listFacts(this.ctx, agentId, pageSize, pageToken);
    return { facts: page.facts.map(restFact), nextPageToken: page.nextPageToken };
  }

  async get(agentId: string, factId: string): Promise<FactJson> {
    return restFact(await this.core.getFact(this.ctx, agentId, factId));
  }

  async forgetFact(agentId: string, factId: string): Promise<FactJson> {
    return restFact(await this.core.patchFact(this.writeCtx, { agentId, factId, forget: true }));
  }

  async deleteFact(agentId: string, factId: string): Promise<void> {
    await this.core.deleteFact(this.writeCtx, agentId, factId);
  }

  private lookup(agentId: string): FactLookup<FactRecord> {
    const { core, ctx } = this;
    return {
      get: async (factId) => {
        try {
          return await core.getFact(ctx, agentId, factId);
        } catch (error) {
          if (error instanceof EngramError && error.kind === ErrorKind.NotFound) return undefined;
          throw error;
        }
      },
      async *scan() {
        let pageToken = '';
        do {
          const page = await core.listFacts(ctx, agentId, 1000, pageToken);
          yield* page.facts;
          pageToken = page.nextPageToken;
        } while (pageToken);
      },
    };
  }
}

function recallOptions(req: { topK: number; minConfidence?: ConfidenceLabel; confidenceWeight?: number; kg?: boolean; recipe?: string }): RecallOptionsInput {
  return { topK: req.topK, minConfidence: req.minConfidence, confidenceWeight: req.confidenceWeight, ...(req.kg !== undefined ? { kg: req.kg } : {}), ...(req.recipe !== undefined ? { recipe: req.recipe } : {}) };
}

/** The explain receipt in the shared JSON shape (the CLI's and REST's too). */
const receiptJson = (r: Receipt<FactRecord>): ReceiptJson => restReceipt(r);
