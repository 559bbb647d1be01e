// Recall entry points over the core: rank, then read the chosen facts from the store. Plain
// recall and explain share one ranking, so explain returns exactly the facts and order of recall.
import type { Memory, PreparedQuery } from '../memory.ts';
import type { FactRecord } from '../store/record.ts';
import { SHARED_AGENT_ID } from '../../shared/validate.ts';
import { DEFAULT_WEIGHTS, RRF_K, type SignalWeights } from './fusion.ts';
import { mergeNamespaces } from './namespaces.ts';
import { rankNamespace, type NamespaceRanking, type RankedFact } from './rank.ts';
import { toReceipt, type Receipt } from './receipts.ts';

export interface RetrievalMetadata {
  weights: SignalWeights;
  signals: string[];
  eligibleCount: number;
  keywordCandidates: number;
  vectorCandidates: number;
  embedder: string;
  rrfK: number;
  notes: string[];
}

export interface RecallOutcome {
  facts: FactRecord[];
  retrieval: RetrievalMetadata;
}

export interface ExplainOutcome {
  receipts: Receipt[];
  retrieval: RetrievalMetadata;
}

interface Ranked {
  ranked: RankedFact[];
  facts: FactRecord[];
  retrieval: RetrievalMetadata;
}

async function rankAndRead(memory: Memory, agentIds: string[], query: PreparedQuery, topK: number): Promise<Ranked & { perNamespace: RankedFact[][] }> {
  const weights = { ...DEFAULT_WEIGHTS };
  const rankings: NamespaceRanking[] = agentIds.map((agentId) => {
    const ns = memory.namespace(agentId);
    return ns ? rankNamespace(ns, { terms: query.terms, vector: query.vector, topK, weights }) : emptyRanking();
  });
  const perNamespace = rankings.map((r) => r.results);
  const ranked = perNamespace.length === 1 ? perNamespace[0]! : perNamespace.flat();
  const facts = await readFacts(memory, ranked);
  return { ranked, facts, perNamespace, retrieval: metadata(memory, query, weights, rankings) };
}

/** Reads ranked facts; a fact deleted between ranking and reading is dropped, not returned stale. */
async function readFacts(memory: Memory, ranked: RankedFact[]): Promise<FactRecord[]> {
  const rows = await memory.store.getMany(ranked.map((r) => ({ agentId: r.agentId, factId: r.factId })));
  return rows.map((row) => (row ? memory.access.overlay(row) : undefined)).filter((f): f is FactRecord => f !== undefined);
}

export async function recallNamespaceFacts(memory: Memory, agentId: string, query: PreparedQuery, topK: number): Promise<RecallOutcome> {
  const { facts, retrieval } = await rankAndRead(memory, [agentId], query, topK);
  return { facts, retrieval };
}

export async function explainNamespace(memory: Memory, agentId: string, query: PreparedQuery, topK: number): Promise<ExplainOutcome> {
  const { ranked, facts, retrieval } = await rankAndRead(memory, [agentId], query, topK);
  const byId = new Map(facts.map((f) => [f.id, f]));
  const now = Date.now();
  const receipts = ranked
    .filter((r) => byId.has(r.factId))
    .map((r) => toReceipt(r, byId.get(r.factId)!, retrieval.weights, now));
  return { receipts, retrieval };
}

/** The agent's namespace and the shared one, fused by namespace RRF. */
export async function recallAll(memory: Memory, agentId: string, query: PreparedQuery, topK: number): Promise<RecallOutcome> {
  if (agentId === SHARED_AGENT_ID) return recallNamespaceFacts(memory, agentId, query, topK);
  const { facts, perNamespace, retrieval } = await rankAndRead(memory, [agentId, SHARED_AGENT_ID], query, topK);
  const text = new Map(facts.map((f) => [`${f.agentId}\u0000${f.id}`, f]));
  const key = (r: RankedFact) => `${r.agentId}\u0000${r.factId}`;
  const alive = (list: RankedFact[]) => list.filter((r) => text.has(key(r)));
  const merged = mergeNamespaces(alive(perNamespace[0]!), alive(perNamespace[1]!), (r) => text.get(key(r))!.text, topK);
  return { facts: merged.map((r) => text.get(key(r))!), retrieval };
}

function emptyRanking(): NamespaceRanking {
  return { results: [], keywordCandidates: 0, vectorCandidates: 0, eligible: 0 };
}

function metadata(memory: Memory, query: PreparedQuery, weights: SignalWeights, rankings: NamespaceRanking[]): RetrievalMetadata {
  const notes: string[] = [];
  const signals: string[] = [];
  if (weights.vector > 0 && query.vector) signals.push('vector');
  else if (weights.vector > 0) notes.push(memory.vectorsOff ? `vector: off (${memory.vectorsOff})` : 'vector: the query has no known word');
  if (weights.keyword > 0) signals.push('keyword');
  if (weights.recency > 0) signals.push('recency');
  const sum = (pick: (r: NamespaceRanking) => number) => rankings.reduce((total, r) => total + pick(r), 0);
  return {
    weights,
    signals,
    eligibleCount: sum((r) => r.eligible),
    keywordCandidates: sum((r) => r.keywordCandidates),
    vectorCandidates: sum((r) => r.vectorCandidates),
    embedder: memory.vectorsOff ? 'none' : memory.embedder.id,
    rrfK: RRF_K,
    notes,
  };
}
