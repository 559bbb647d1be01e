// McpBackend over the client library: `engram mcp` is one more client of the shared daemon, so
// capability negotiation, the legacy fallbacks and the never-replay rule of writes all apply.
import { Capability } from '../../shared/capabilities.ts';
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import type { ConfidenceLabel } from '../../shared/validate.ts';
import { consolidationRunJson, factJson } from '../../shared/json/shapes.ts';
import { requireCapability } from '../negotiate.ts';
import type { ContextAssembly, ClusterReport, ConsolidateResult, ExtractResult, GcResult, GraphView, ObserveUsageResult, PromoteResult, RecallAdvice, Recipe, RecipeFields, RelationType, SaveAdvice, Slot, SlotWritten, UnifiedResult } from '../../shared/model.ts';
import { evidenceOfMatches, policyOf, type ContextRequest, type SlotWriteRequest, type GcRequest, type ScoredFact, type ScoredSearchRequest, type TouchReport, type BatchWritten, type BatchRequest, type BatchResult, type FactPage, type McpBackend, type SlotPage, type SearchRequest, type SearchResult, type WriteRequest, type WrittenFact } from '../../shared/mcp/backend.ts';
import type { ConsolidationRunJson, FactJson } from '../../shared/schemas/json-shapes.ts';
import { resolveId, resolveTargets, type FactLookup } from '../../shared/mcp/targets.ts';
import type { EngramClient, RecallOptions } from '../client.ts';
import { writeAll } from '../import/write-all.ts';
import { randomUUID } from 'node:crypto';
import type { Fact } from '../types.ts';
import { receiptJson } from '../cli/json.ts';
import { UncertainWriteError } from '../errors.ts';

export class ClientBackend implements McpBackend {
  constructor(private readonly client: EngramClient) {}

  async search(req: SearchRequest): Promise<SearchResult> {
    const options = await this.recallOptions(req);
    if (req.explain) {
      const res = await this.client.recallExplain(req.agentId, req.query, options);
      const matched = res.matches?.map((m) => m.matched);
      return { facts: res.facts.map((f) => f.text), ...(matched ? { matched } : {}), receipts: res.receipts.map(receiptJson), feedback: res.feedback, policy: policyOf(res.retrieval), ...evidenceOfMatches(res.matches) };
    }
    const res = await this.client.recall(req.agentId, req.query, options);
    const matched = res.matches?.map((m) => m.matched);
    return { facts: res.facts.map((f) => f.text), ...(matched ? { matched } : {}), feedback: res.feedback, policy: policyOf(res.retrieval), hints: res.hints, ...evidenceOfMatches(res.matches) };
  }

  async searchBatch(req: BatchRequest): Promise<BatchResult> {
    const res = await this.client.batchRecall(req.agentId, req.queries, confidenceOptions(req));
    return {
      perQuery: res.results.map((r) => ({ query: r.query, facts: r.facts.map((f) => f.text), ...(r.error ? { error: r.error } : {}) })),
      merged: res.merged.map((f) => f.text),
      policy: policyOf(res.retrieval),
    };
  }

  /** Weak-match feedback comes only from RecallWithOptions; an empty weights object selects that
   *  RPC without changing any weight (unset = the daemon's default), on daemons that have it. */
  private async recallOptions(req: SearchRequest): Promise<RecallOptions> {
    const daemon = await this.client.hello();
    const options = confidenceOptions(req);
    return daemon.capabilities.includes(Capability.RecallOptions) ? { ...options, weights: {} } : options;
  }

  async add({ agentId, text, ...options }: WriteRequest): Promise<WrittenFact> {
    const { fact, duplicate } = await this.client.put(agentId, text, options);
    return { factId: fact.id, confidence: fact.confidence ?? '', duplicate, hasEmbedding: fact.embedder !== undefined };
  }

  async searchScored(req: ScoredSearchRequest): Promise<ScoredFact[]> {
    const daemon = await this.client.hello();
    requireCapability(daemon, Capability.Decay, 'search_memory (decay scores)');
    const filters = { ...(req.tags?.length ? { tagsAny: req.tags } : {}), ...(req.windowDays !== undefined ? { windowDays: req.windowDays } : {}), ...(req.minScore !== undefined ? { minDecayScore: req.minScore } : {}) };
    const res = await this.client.recall(req.agentId, req.query, { topK: req.topK, weights: req.useEmbeddings ? {} : { vector: 0 }, filters });
    return res.facts.map((fact, i) => ({ fact: factJson(fact), score: res.matches?.[i]?.decayScore ?? 0, relevance: res.matches?.[i]?.score ?? 0, matched: res.matches?.[i]?.matched ?? true }));
  }

  async touch(agentId: string, factId: string, boostStrength: boolean): Promise<TouchReport> {
    const r = await this.client.touch(agentId, factId, { boostStrength });
    return { fact: factJson(r.fact), oldScore: r.oldScore, newScore: r.newScore };
  }

  observeUsage(agentId: string, factIds: string[], contextTags: string[]): Promise<ObserveUsageResult> {
    return this.client.observeUsage(agentId, factIds, { contextTags });
  }

  collectGarbage(agentId: string, req: GcRequest): Promise<GcResult> {
    return this.client.collectGarbage(agentId, req);
  }

  searchUnified(agentId: string, query: string, options: { tags?: string[]; limit: number; stmWeight: number; ltmWeight: number; windowDays?: number; minScore?: number }): Promise<UnifiedResult> {
    return this.client.searchUnified(agentId, query, options);
  }

  extract(agentId: string, input: { message: string } | { turns: { speaker?: string; text: string }[] }, remember: boolean): Promise<ExtractResult> {
    return this.client.extract(agentId, input, { remember });
  }

  cluster(agentId: string, req: { threshold: number; maxClusterSize: number; findDuplicates: boolean; duplicateThreshold: number }): Promise<ClusterReport> {
    return this.client.clusterMemories(agentId, req);
  }

  consolidate(agentId: string, clusterId: string, mode: 'dry_run' | 'apply'): Promise<ConsolidateResult> {
    return this.client.consolidateMemories(agentId, clusterId, { mode });
  }

  promote(agentId: string, req: { factId?: string; autoDetect: boolean; dryRun: boolean; force: boolean; target: string }): Promise<PromoteResult> {
    return this.client.promote(agentId, req);
  }

  analyzeMessage(message: string): Promise<SaveAdvice> {
    return this.client.analyzeMessage(message);
  }

  analyzeForRecall(message: string): Promise<RecallAdvice> {
    return this.client.analyzeForRecall(message);
  }

  /** In batches where the daemon has them, else one put per fact (writeAll). */
  async addMany(agentId: string, facts: Omit<WriteRequest, 'agentId'>[]): Promise<BatchWritten[]> {
    const results = await writeAll(this.client, facts.map((fact) => ({ ...fact, agentId, requestId: randomUUID() })));
    return results.map((r) => (r.error ? { error: r.error.message, ...(r.error.field ? { field: r.error.field } : {}) } : { factId: r.factId, duplicate: r.duplicate }));
  }

  async alias(agentId: string, term: string, equivalents: string[]): Promise<void> {
    await this.client.alias(agentId, term, equivalents);
  }

  async checkpointSave(agentId: string, stateJson: string): Promise<{ id: string; createdAt: number }> {
    const saved = await this.client.checkpointSave(agentId, stateJson);
    return { id: saved.id, createdAt: saved.createdAt };
  }

  async checkpointResume(agentId: string) {
    const latest = await this.client.checkpointResume(agentId);
    return latest && { id: latest.id, createdAt: latest.createdAt, state: latest.state, messageCount: latest.messageCount };
  }

  async reviseByText(agentId: string, target: string, text: string, confidence?: ConfidenceLabel): Promise<WrittenFact> {
    const targets = await resolveTargets(target, this.lookup(agentId));
    const res = await this.client.revise(agentId, targets.map((f) => f.id), text, confidence === undefined ? {} : { confidence });
    if (res.failures.length) {
      // The replacement is committed; say so rather than reporting a bare failure.
      const detail = res.failures.map((f) => `${f.factId}: ${f.error}`).join('; ');
      throw new EngramError(ErrorKind.Aborted, `update committed fact_id ${res.replacement.id} but could not retire ${detail}`);
    }
    return { factId: res.replacement.id, confidence: res.replacement.confidence ?? '', duplicate: false, hasEmbedding: res.replacement.embedder !== undefined };
  }

  async forget(agentId: string, target: string): Promise<void> {
    for (const fact of await resolveTargets(target, this.lookup(agentId))) await this.client.forget(agentId, fact.id);
  }

  async pin(agentId: string, target: string): Promise<void> {
    for (const fact of await resolveTargets(target, this.lookup(agentId))) await this.client.pin(agentId, fact.id);
  }

  async unpin(agentId: string, target: string): Promise<void> {
    for (const fact of await resolveTargets(target, this.lookup(agentId))) await this.client.unpin(agentId, fact.id);
  }

  /** One transactional patch per fact (kg-v1); against older daemons a read, then a whole-fact
   *  UpdateFact with the entity added (a read-modify-write: a concurrent change to the same fact
   *  between the two calls is overwritten). */
  async link(agentId: string, target: string, entity: string): Promise<void> {
    const patches = (await this.client.hello()).capabilities.includes(Capability.KnowledgeGraph);
    for (const fact of await resolveTargets(target, this.lookup(agentId))) {
      if (patches) await this.client.linkEntity(agentId, fact.id, entity);
      else if (!fact.entities.includes(entity)) await this.client.updateFact(agentId, { ...fact, entities: [...fact.entities, entity] });
    }
  }

  factIdNamed(agentId: string, name: string, field: string): Promise<string> {
    return resolveId(name, this.lookup(agentId), field);
  }

  async relate(agentId: string, fromId: string, type: RelationType, toId: string, remove: boolean): Promise<{ fact: FactJson; changed: boolean }> {
    const r = await this.client.relate(agentId, fromId, type, toId, { remove });
    return { fact: factJson(r.fact), changed: r.changed };
  }

  readGraph(agentId: string, around: { factId: string } | { entity: string }, limit?: number): Promise<GraphView> {
    return this.client.readGraph(agentId, around, limit !== undefined ? { limit } : {});
  }

  putSlot(write: SlotWriteRequest): Promise<SlotWritten> {
    return this.client.putSlot(write);
  }

  listSlots(options: { projectId?: string; query?: string; archived: boolean; limit: number; pageToken?: string }): Promise<SlotPage> {
    return this.client.listSlots(options);
  }

  deleteSlot(recordId: string): Promise<Slot> {
    return this.client.deleteSlot(recordId);
  }

  slotContext(options: { projectId?: string; slotNames?: string[] }): Promise<Slot[]> {
    return this.client.slotContext(options);
  }

  assembleContext(agentId: string, query: string, options: ContextRequest): Promise<ContextAssembly> {
    return this.client.assembleContext(agentId, query, options);
  }

  listRecipes(): Promise<Recipe[]> {
    return this.client.listRecipes();
  }

  saveRecipe(name: string, fields: Partial<RecipeFields>): Promise<Recipe> {
    return this.client.saveRecipe(name, fields);
  }

  async consolidateRun(agentId: string, dryRun: boolean): Promise<ConsolidationRunJson> {
    return consolidationRunJson(await this.client.consolidate(agentId, { dryRun }));
  }

  async list(agentId: string, pageSize: number, pageToken: string): Promise<FactPage> {
    const page = await this.client.list(agentId, { pageSize, pageToken });
    return { facts: page.facts.map(factJson), nextPageToken: page.nextPageToken };
  }

  async get(agentId: string, factId: string): Promise<FactJson> {
    return factJson(await this.client.get(agentId, factId));
  }

  async forgetFact(agentId: string, factId: string): Promise<FactJson> {
    return factJson(await this.client.forget(agentId, factId));
  }

  async deleteFact(agentId: string, factId: string): Promise<void> {
    await this.client.delete(agentId, factId);
  }

  private lookup(agentId: string): FactLookup<Fact> {
    return {
      get: async (factId) => {
        try {
          return await this.client.get(agentId, factId);
        } catch (error) {
          if (error instanceof EngramError && error.kind === ErrorKind.NotFound) return undefined;
          throw error;
        }
      },
      scan: () => this.client.listAll(agentId),
    };
  }
}

function confidenceOptions(req: { topK: number; minConfidence?: ConfidenceLabel; confidenceWeight?: number; kg?: boolean; recipe?: string }): RecallOptions {
  return {
    topK: req.topK,
    ...(req.recipe !== undefined ? { recipe: req.recipe } : {}),
    ...(req.kg !== undefined ? { kg: req.kg } : {}),
    ...(req.minConfidence !== undefined ? { minConfidence: req.minConfidence } : {}),
    ...(req.confidenceWeight !== undefined ? { confidenceWeight: req.confidenceWeight } : {}),
  };
}

/** An uncertain write, as an agent can act on it. The library's advice names request ids and
 *  writeStatus, which an agent never saw and no tool offers; what it can do is look. */
export function agentAdvice(error: unknown): unknown {
  if (!(error instanceof UncertainWriteError)) return error;
  const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
  return new EngramError(ErrorKind.Unavailable, `outcome unknown: the daemon may or may not have stored it (${cause}); it was not retried. Look for it with memory_search or memory_list before sending it again.`);
}
