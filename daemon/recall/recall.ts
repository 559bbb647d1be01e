// Recall over the core: choose the namespaces of the scope, expand the query by aliases, rank
// each namespace, read the chosen facts. Plain recall and explain share one ranking, so explain
// returns exactly the facts and order of recall.
import type { Memory } from '../memory.ts';
import type { NamespaceIndex } from '../index/namespace.ts';
import type { FactRecord } from '../store/record.ts';
import { SHARED_AGENT_ID } from '../../shared/validate.ts';
import { weakMatchFeedback, type WeakMatchFeedback } from './feedback.ts';
import { RRF_K } from './fusion.ts';
import { CONFIDENCE_POLICY } from '../lifecycle/confidence.ts';
import { mergeNamespaces } from './namespaces.ts';
import type { RecallPlan, Scope } from './plan.ts';
import { rankNamespace, type NamespaceRanking, type RankedFact } from './rank.ts';
import { toReceipt, type Receipt } from './receipts.ts';

export interface PreparedQuery {
  text: string;
  terms: string[];
  vector: Float32Array | null;
  /** Why the query has no vector although vectors are on (e.g. the provider is down). */
  vectorNote?: string;
}

export type { RetrievalMetadata } from '../../shared/model.ts';
import type { RetrievalMetadata } from '../../shared/model.ts';

export interface SearchRequest {
  agentId: string;
  query: PreparedQuery;
  scope: Scope;
  plan: RecallPlan;
  explain: boolean;
  /** Compute weak-match feedback (a vocabulary scan when the match is weak). */
  feedback: boolean;
}

export interface SearchOutcome {
  facts: FactRecord[];
  /** Present when explain was requested: one per fact, same order. */
  receipts?: Receipt[];
  retrieval: RetrievalMetadata;
  feedback?: WeakMatchFeedback;
}

export function scopeNamespaces(agentId: string, scope: Scope): string[] {
  if (scope === 'shared' || agentId === SHARED_AGENT_ID) return [SHARED_AGENT_ID];
  return scope === 'all' ? [agentId, SHARED_AGENT_ID] : [agentId];
}

export async function search(memory: Memory, req: SearchRequest): Promise<SearchOutcome> {
  const agentIds = scopeNamespaces(req.agentId, req.scope);
  const namespaces = agentIds.map((id) => memory.namespace(id)).filter((ns): ns is NamespaceIndex => ns !== undefined);
  const expanded = [...new Set(namespaces.flatMap((ns) => ns.aliases.expand(req.query.terms)))].sort();
  const terms = [...req.query.terms, ...expanded];
  const rankings = await Promise.all(
    agentIds.map((id) => {
      const ns = memory.namespace(id);
      return ns ? rankNamespace(ns, { terms, vector: req.query.vector }, req.plan, memory.readVectors) : emptyRanking();
    }),
  );

  const ranked = rankings.flatMap((r) => r.results);
  const byKey = await readFacts(memory, ranked);
  const alive = (list: RankedFact[]) => list.filter((r) => byKey.has(key(r)));
  const chosen =
    rankings.length === 2
      ? mergeNamespaces(alive(rankings[0]!.results), alive(rankings[1]!.results), (r) => byKey.get(key(r))!.text, req.plan.topK)
      : alive(ranked);
  const facts = chosen.map((r) => byKey.get(key(r))!);
  const retrieval = metadata(memory, req, rankings, expanded);
  const outcome: SearchOutcome = { facts, retrieval };
  if (req.explain) {
    const now = Date.now();
    outcome.receipts = chosen.map((r) => toReceipt(r, byKey.get(key(r))!, req.plan.weights, now, req.plan.confidence));
  }
  const feedback = req.feedback ? weakMatchFeedback(namespaces, req.query.terms) : undefined;
  if (feedback) outcome.feedback = feedback;
  return outcome;
}

const key = (r: { agentId: string; factId: string }) => `${r.agentId}\u0000${r.factId}`;

/** Reads ranked facts; a fact deleted between ranking and reading is dropped, not returned stale. */
async function readFacts(memory: Memory, ranked: RankedFact[]): Promise<Map<string, FactRecord>> {
  const rows = await memory.store.getMany(ranked.map((r) => ({ agentId: r.agentId, factId: r.factId })));
  const byKey = new Map<string, FactRecord>();
  for (const row of rows) if (row) byKey.set(key({ agentId: row.agentId, factId: row.id }), memory.access.overlay(row));
  return byKey;
}

async function emptyRanking(): Promise<NamespaceRanking> {
  return { results: [], keywordCandidates: 0, vectorCandidates: 0, vectorSearched: 0, eligible: 0 };
}

function metadata(memory: Memory, req: SearchRequest, rankings: NamespaceRanking[], expanded: string[]): RetrievalMetadata {
  const { weights } = req.plan;
  const notes: string[] = [];
  const signals: string[] = [];
  if (weights.vector > 0 && req.query.vector) signals.push('vector');
  else if (weights.vector > 0) notes.push(memory.vectorsOff ? `vector: off (${memory.vectorsOff})` : `vector: ${req.query.vectorNote ?? 'the query has no known word'}`);
  if (weights.keyword > 0) signals.push('keyword');
  if (weights.recency > 0) signals.push('recency');
  const sum = (pick: (r: NamespaceRanking) => number) => rankings.reduce((total, r) => total + pick(r), 0);
  return {
    weights,
    signals,
    eligibleCount: sum((r) => r.eligible),
    keywordCandidates: sum((r) => r.keywordCandidates),
    vectorCandidates: sum((r) => r.vectorCandidates),
    vectorSearched: sum((r) => r.vectorSearched),
    embedder: memory.vectorsOff ? 'none' : memory.embedder.id,
    rrfK: RRF_K,
    notes,
    minRelevance: req.plan.minRelevance,
    filtered: req.plan.filter !== null,
    expandedTerms: expanded,
    ...confidenceMetadata(req.plan),
  };
}

/** Confidence options as retrieval metadata reports them. Any confidence filter suppresses the
 *  knowledge-graph hint tail, whose labels have no confidence receipts. */
function confidenceMetadata(plan: RecallPlan): Pick<RetrievalMetadata, 'minConfidence' | 'confidenceWeight' | 'policy' | 'kg'> {
  if (!plan.confidence) return { policy: '', kg: '' };
  return {
    ...(plan.confidence.minConfidence ? { minConfidence: plan.confidence.minConfidence } : {}),
    confidenceWeight: plan.confidence.weight,
    policy: CONFIDENCE_POLICY,
    kg: plan.confidence.minConfidence ? 'suppressed_min_confidence' : '',
  };
}
