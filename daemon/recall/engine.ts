// Recall over the indexes: choose the namespaces of the scope, embed and expand the query once,
// rank each namespace, read the chosen facts, count the access. Plain recall and explain share
// one ranking, so explain returns exactly the facts and order of recall.
import { EngramError } from '../../shared/errors.ts';
import type { Evidence, RerankStep, RetrievalMetadata, WeakMatchFeedback } from '../../shared/model.ts';
import { SHARED_AGENT_ID } from '../../shared/validate.ts';
import type { Indexer } from '../index/indexer.ts';
import type { NamespaceIndex } from '../index/namespace.ts';
import { terms } from '../index/tokenizer.ts';
import { nearTerms } from './expansion.ts';
import type { AccessTracker } from '../lifecycle/access.ts';
import { CONFIDENCE_POLICY } from '../lifecycle/confidence.ts';
import { decayScore } from '../lifecycle/decay.ts';
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';
import { mergeBatch } from './batch.ts';
import { weakMatchFeedback } from './feedback.ts';
import { RRF_K } from './fusion.ts';
import { mergeNamespaces } from './namespaces.ts';
import type { RecallPlan, Scope } from './plan.ts';
import { rankNamespace, type NamespaceRanking, type RankedFact } from './rank.ts';
import { toReceipt, type Receipt } from './receipts.ts';
import { hintTail, kgLinks, kgMode, type KgHint } from './hints.ts';
import { SIGNAL_NAMES, SIGNALS, type SignalName } from './registry.ts';
import type { VectorReader } from './signal.ts';
import { rerank, rerankPool } from './rerank.ts';
import { evidenceOf } from './evidence.ts';
import { RecallTimes, StageClock } from './stages.ts';

export interface PreparedQuery {
  text: string;
  terms: string[];
  vector: Float32Array | null;
  /** Why the query has no vector although vectors are on (e.g. the provider is down). */
  vectorNote?: string;
}

export interface SearchRequest {
  agentId: string;
  query: string;
  scope: Scope;
  plan: RecallPlan;
  explain: boolean;
  /** Compute weak-match feedback (a vocabulary scan when the match is weak). */
  feedback: boolean;
  /** false: the caller counts the use of only the facts it keeps (recordAccess). */
  countAccess?: boolean;
}

/** How one returned fact came to be returned. */
export interface FactMatch {
  /** A query signal matched it; false: it only fills top_k. */
  matched: boolean;
  /** Its final score. */
  score: number;
  /** The signals that ranked it, in fusion order. */
  signals: SignalName[];
  /** Its decay score at the time of the recall. */
  decayScore: number;
  /** The records supporting it, when the recipe includes evidence. */
  evidence?: Evidence[];
}

export interface SearchOutcome {
  facts: FactRecord[];
  /** One per fact, same order. */
  matches: FactMatch[];
  /** Present when explain was requested: one per fact, same order. */
  receipts?: Receipt<FactRecord>[];
  retrieval: RetrievalMetadata;
  feedback?: WeakMatchFeedback;
  /** Knowledge-graph neighbours after the facts, when the plan asks for them (never explained). */
  hints?: KgHint[];
}

export interface BatchOutcome {
  results: { query: string; facts: FactRecord[]; matches: FactMatch[]; error?: string }[];
  merged: FactRecord[];
  retrieval?: RetrievalMetadata;
}

export function scopeNamespaces(agentId: string, scope: Scope): string[] {
  if (scope === 'shared' || agentId === SHARED_AGENT_ID) return [SHARED_AGENT_ID];
  return scope === 'all' ? [agentId, SHARED_AGENT_ID] : [agentId];
}

const key = (r: { agentId: string; factId: string }) => `${r.agentId}\u0000${r.factId}`;

/** `fact`: the returned version, whose decay score the match reports at the plan's time (only
 *  returned facts are scored, never every candidate). */
function matchOf(r: RankedFact, fact: FactRecord, plan: RecallPlan): FactMatch {
  return { matched: r.matched, score: r.final, signals: SIGNAL_NAMES.filter((name) => r.ranks[name] > 0), decayScore: decayScore(plan.decay, fact, plan.now) };
}

export class RecallEngine {
  constructor(
    private readonly indexer: Indexer,
    private readonly store: MemoryStore,
    private readonly access: AccessTracker,
    /** Where recall time goes, for /metrics. */
    readonly times = new RecallTimes(),
  ) {}

  private readonly readVectors: VectorReader = (agentId, keys) => this.store.getVectors(agentId, keys);

  async search(req: SearchRequest): Promise<SearchOutcome> {
    const clock = new StageClock(this.times);
    const query = await this.prepare(req.query);
    clock.lap('embed');
    const outcome = await this.rank(req, query, clock);
    if (req.countAccess !== false) this.recordAccess(outcome.facts);
    clock.lap('finish');
    this.times.recalled();
    return outcome;
  }

  /** Counts one access of each fact (a recall that returned them). */
  recordAccess(facts: readonly FactRecord[]): void {
    this.access.record(facts, Date.now());
  }

  /** Several queries under one plan, one after another; a query that fails fails only its own slot. */
  async batch(req: Omit<SearchRequest, 'query' | 'explain' | 'feedback'> & { queries: unknown[]; checkQuery: (q: unknown, i: number) => string; alive?: () => void }): Promise<BatchOutcome> {
    // One query after another, yielding between them: a batch holds the event loop no longer than
    // its largest query at a time, so other clients' calls go on meanwhile, and only one query's
    // candidates are in memory at once.
    const results: (BatchOutcome['results'][number] & { retrieval?: RetrievalMetadata })[] = [];
    for (const [i, q] of req.queries.entries()) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      req.alive?.(); // a caller that has gone costs no further query
      try {
        const query = req.checkQuery(q, i);
        const outcome = await this.search({ ...req, query, explain: false, feedback: false });
        results.push({ query, facts: outcome.facts, matches: outcome.matches, retrieval: outcome.retrieval });
      } catch (error) {
        if (!(error instanceof EngramError)) throw error;
        results.push({ query: typeof q === 'string' ? q : '', facts: [], matches: [], error: error.message });
      }
    }
    return { results, merged: mergeBatch(results.map((r) => r.facts)), retrieval: results.find((r) => r.retrieval)?.retrieval };
  }

  /** One tokenisation and one embedding per query, reused by every namespace it searches. */
  private async prepare(query: string): Promise<PreparedQuery> {
    const queryTerms = terms(query);
    const vectors = this.indexer.vectors;
    if (vectors.off || query.trim() === '') return { text: query, terms: queryTerms, vector: null };
    try {
      return { text: query, terms: queryTerms, vector: (await vectors.embedder.embed([query]))[0] ?? null };
    } catch (error) {
      // A provider outage degrades recall to keyword + recency; it never fails it.
      return { text: query, terms: queryTerms, vector: null, vectorNote: `off for this query (embedding failed: ${(error as Error).message})` };
    }
  }

  private async rank(req: SearchRequest, query: PreparedQuery, clock: StageClock): Promise<SearchOutcome> {
    const agentIds = scopeNamespaces(req.agentId, req.scope);
    const namespaces = agentIds.map((id) => this.indexer.namespace(id));
    const present = namespaces.filter((ns): ns is NamespaceIndex => ns !== undefined);
    const expanded = [...new Set(present.flatMap((ns) => ns.aliases.expand(query.terms)))].sort();
    const matchSimilarity = this.indexer.vectors.embedder.matchSimilarity;
    // Word-vector neighbours only while the vector signal is on: they come from the same model.
    const near = this.indexer.vectors.off ? new Map<string, number>() : nearTerms(query.text, [...query.terms, ...expanded], this.indexer.vectors.embedder, present);
    const expandedQuery = { text: query.text, terms: [...query.terms, ...expanded, ...near.keys()], vector: query.vector, matchSimilarity, ...(near.size ? { termWeights: near } : {}) };
    // A reranked recall ranks a wider pool per namespace, without the relevance floor; the second
    // stage reorders each, applies the floor and cuts to top_k before namespaces are merged.
    const plan = req.plan.rerank ? { ...req.plan, topK: rerankPool(req.plan.topK), minRelevance: 0 } : req.plan;
    clock.lap('expand');
    const rankings = await Promise.all(
      namespaces.map((ns) => (ns ? rankNamespace(ns, expandedQuery, plan, this.readVectors, this.times) : emptyRanking())),
    );
    clock.skip(); // each namespace timed its signals and fusion

    const ranked = rankings.flatMap((r) => r.results);
    const byKey = await this.readFacts(ranked);
    clock.lap('read');
    const alive = (list: RankedFact[]) => list.filter((r) => byKey.has(key(r)));
    const textOf = (r: RankedFact) => byKey.get(key(r))!.text;
    const stepOf = new Map<string, RerankStep>();
    const lists = rankings.map((r) => {
      if (!req.plan.rerank) return alive(r.results);
      const reranked = rerank(alive(r.results), query.text, textOf, req.plan.topK, req.plan.minRelevance);
      reranked.results.forEach((result, i) => stepOf.set(key(result), reranked.steps[i]!));
      return reranked.results;
    });
    const chosen = lists.length === 2 ? mergeNamespaces(lists[0]!, lists[1]!, textOf, req.plan.topK) : (lists[0] ?? []);
    const steps = req.plan.rerank ? chosen.map((r) => stepOf.get(key(r))!) : undefined;
    const facts = chosen.map((r) => byKey.get(key(r))!);
    const matches = chosen.map((r, i) => matchOf(r, facts[i]!, req.plan));
    if (req.plan.evidence) (await evidenceOf(this.indexer, this.store, facts)).forEach((evidence, i) => (matches[i]!.evidence = evidence));
    const outcome: SearchOutcome = { facts, matches, retrieval: this.metadata(req, query, rankings, [...new Set([...expanded, ...near.keys()])].sort()) };
    if (req.explain) {
      const now = Date.now();
      const recipe = req.plan.recipe ? { recipe: req.plan.recipe.id } : {};
      outcome.receipts = chosen.map((r, i) => {
        const fact = facts[i]!;
        const evidence = matches[i]!.evidence;
        return { ...toReceipt(r, fact, req.plan.weights, now, req.plan.confidence, steps?.[i]), kgLinks: kgLinks(this.indexer, fact), ...recipe, ...(evidence ? { evidence } : {}) };
      });
    } else if (kgMode(req.plan) === 'hints_without_confidence_receipts') {
      outcome.hints = await hintTail(this.indexer, this.store, outcome.facts);
    }
    const feedback = req.feedback ? weakMatchFeedback(present, query.terms, query.text) : undefined;
    if (feedback) outcome.feedback = feedback;
    return outcome;
  }

  /** Reads ranked facts; a fact deleted between ranking and reading is dropped, not returned stale. */
  private async readFacts(ranked: RankedFact[]): Promise<Map<string, FactRecord>> {
    const rows = await this.store.getFacts(ranked.map((r) => ({ agentId: r.agentId, factId: r.factId })));
    const byKey = new Map<string, FactRecord>();
    for (const row of rows) if (row) byKey.set(key({ agentId: row.agentId, factId: row.id }), this.access.overlay(row));
    return byKey;
  }

  private metadata(req: SearchRequest, query: PreparedQuery, rankings: NamespaceRanking[], expanded: string[]): RetrievalMetadata {
    const { weights } = req.plan;
    const vectors = this.indexer.vectors;
    const notes: string[] = [];
    const signals: string[] = [];
    for (const signal of SIGNALS) {
      const name = signal.name as SignalName;
      if (weights[name] <= 0) continue;
      if (signal.kind === 'match' && !signal.applies(query)) {
        notes.push(vectors.off ? `${name}: off (${vectors.off})` : `${name}: ${query.vectorNote ?? 'the query has no known word'}`);
      } else signals.push(name);
    }
    const sum = (pick: (r: NamespaceRanking) => number) => rankings.reduce((total, r) => total + pick(r), 0);
    return {
      weights: { ...weights },
      signals,
      eligibleCount: sum((r) => r.eligible),
      keywordCandidates: sum((r) => r.candidates.keyword ?? 0),
      vectorCandidates: sum((r) => r.candidates.vector ?? 0),
      vectorSearched: sum((r) => r.searched.vector ?? 0),
      embedder: vectors.activeEmbedder,
      rrfK: RRF_K,
      notes,
      minRelevance: req.plan.minRelevance,
      filtered: req.plan.filter !== null,
      expandedTerms: expanded,
      ...confidenceMetadata(req.plan),
      kg: kgMode(req.plan),
      ...(req.plan.recipe ? { recipe: req.plan.recipe } : {}),
    };
  }
}

async function emptyRanking(): Promise<NamespaceRanking> {
  return { results: [], candidates: {}, searched: {}, eligible: 0 };
}

/** Confidence options as retrieval metadata reports them (kg is kgMode's). */
function confidenceMetadata(plan: RecallPlan): Pick<RetrievalMetadata, 'minConfidence' | 'confidenceWeight' | 'policy'> {
  if (!plan.confidence) return { policy: '' };
  return {
    ...(plan.confidence.minConfidence ? { minConfidence: plan.confidence.minConfidence } : {}),
    confidenceWeight: plan.confidence.weight,
    policy: CONFIDENCE_POLICY,
  };
}
