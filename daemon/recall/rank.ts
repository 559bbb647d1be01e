// Recall within one namespace: eligible set → signals → fusion → total order → relevance floor
// → dedup by text → top_k. Facts that no query signal ranked still carry a recency rank; they
// are streamed newest first (or, with recency off, in tie-break order) and merged lazily, so a
// namespace of a million facts costs only the candidates the query touches.
import type { NamespaceIndex } from '../index/namespace.ts';
import type { Ranks } from './fusion.ts';
import { RRF_K, compareResults, fusedScore } from './fusion.ts';
import type { RecallPlan } from './plan.ts';
import { filteredRecencyRanks, keywordRanks, vectorCandidateCount, vectorRanks, type RankMap, type VectorReader } from './signals.ts';

export interface RankedFact {
  doc: number;
  factId: string;
  agentId: string;
  createdAt: number;
  textKey: string;
  ranks: Ranks;
  fused: number;
  final: number;
}

export interface NamespaceQuery {
  terms: readonly string[];
  vector: Float32Array | null;
}

export interface NamespaceRanking {
  results: RankedFact[];
  keywordCandidates: number;
  vectorCandidates: number;
  vectorSearched: number;
  eligible: number;
}

export async function rankNamespace(ns: NamespaceIndex, query: NamespaceQuery, plan: RecallPlan, readVectors: VectorReader): Promise<NamespaceRanking> {
  const { weights, filter } = plan;
  const keyword = weights.keyword > 0 ? keywordRanks(ns, query.terms, filter) : new Map<number, number>();
  const vector =
    weights.vector > 0 && query.vector
      ? await vectorRanks(ns, query.vector, vectorCandidateCount(plan.topK), filter, readVectors)
      : { ranks: new Map<number, number>(), searched: 0 };
  const filteredRecency = filter && weights.recency > 0 ? filteredRecencyRanks(ns, filter) : null;

  const score = (doc: number, recency: number): RankedFact => {
    const info = ns.doc(doc);
    const ranks: Ranks = { vector: vector.ranks.get(doc) ?? 0, keyword: keyword.get(doc) ?? 0, recency };
    const fused = fusedScore(ranks, weights, RRF_K);
    return { doc, factId: info.factId, agentId: ns.agentId, createdAt: info.createdAt, textKey: info.textKey, ranks, fused, final: fused };
  };
  const recencyRank = (doc: number) => {
    if (weights.recency === 0) return 0;
    return filteredRecency ? (filteredRecency.get(doc) ?? 0) : ns.recency.rankOf(doc, ns.doc(doc).recencyTime);
  };

  const hitDocs = new Set<number>([...keyword.keys(), ...vector.ranks.keys()]);
  const hits = [...hitDocs].map((doc) => score(doc, recencyRank(doc))).sort(compareResults);
  const rest = unrankedStream(ns, hitDocs, plan, filteredRecency, score);

  return {
    results: mergeDistinct(hits, rest, plan),
    keywordCandidates: keyword.size,
    vectorCandidates: vector.ranks.size,
    vectorSearched: vector.searched,
    eligible: filter ? countEligible(ns, plan) : ns.size,
  };
}

function countEligible(ns: NamespaceIndex, plan: RecallPlan): number {
  let n = 0;
  for (const doc of ns.docsInOrder()) if (plan.filter!(ns.doc(doc))) n++;
  return n;
}

/** Eligible facts no query signal ranked, already in total order: newest first when recency
 *  counts (their scores fall with age), else all score 0 and the tie-break (oldest first) decides. */
function* unrankedStream(
  ns: NamespaceIndex,
  skip: Set<number>,
  plan: RecallPlan,
  filteredRecency: RankMap | null,
  score: (doc: number, recency: number) => RankedFact,
): Generator<RankedFact> {
  const eligible = (doc: number) => !skip.has(doc) && (!plan.filter || plan.filter(ns.doc(doc)));
  if (plan.weights.recency > 0) {
    let rank = 0;
    for (const doc of ns.recency.newest()) {
      if (plan.filter && !plan.filter(ns.doc(doc))) continue;
      rank++;
      if (eligible(doc)) yield score(doc, filteredRecency ? filteredRecency.get(doc)! : rank);
    }
    return;
  }
  for (const doc of ns.docsInOrder()) if (eligible(doc)) yield score(doc, 0);
}

/** Merges two streams that are each in total order, skipping repeated texts, until top_k or the
 *  relevance floor (a fraction of the top score, so the top result always survives). */
function mergeDistinct(hits: RankedFact[], rest: Iterator<RankedFact>, plan: RecallPlan): RankedFact[] {
  const out: RankedFact[] = [];
  const seen = new Set<string>();
  let floor = -Infinity;
  let h = 0;
  let next = rest.next();
  while (out.length < plan.topK && (h < hits.length || !next.done)) {
    let pick: RankedFact;
    if (next.done || (h < hits.length && compareResults(hits[h]!, next.value) <= 0)) {
      pick = hits[h++]!;
    } else {
      pick = next.value;
      next = rest.next();
    }
    if (pick.final < floor) break;
    if (seen.has(pick.textKey)) continue;
    seen.add(pick.textKey);
    if (out.length === 0 && plan.minRelevance > 0) floor = pick.final * plan.minRelevance;
    out.push(pick);
  }
  return out;
}
