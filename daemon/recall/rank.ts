// Recall within one namespace: signals → fusion → total order → dedup by text → top_k.
// Facts that no query signal ranked still carry a recency rank; they are streamed newest first
// (or, with recency off, in tie-break order) and merged lazily, so a namespace of a million facts
// costs only the candidates the query touches.
import type { NamespaceIndex } from '../index/namespace.ts';
import type { Ranks, SignalWeights } from './fusion.ts';
import { RRF_K, compareResults, fusedScore } from './fusion.ts';
import { keywordRanks, vectorCandidateCount, vectorRanks } from './signals.ts';

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
  topK: number;
  weights: SignalWeights;
}

export interface NamespaceRanking {
  results: RankedFact[];
  keywordCandidates: number;
  vectorCandidates: number;
  eligible: number;
}

export function rankNamespace(ns: NamespaceIndex, query: NamespaceQuery): NamespaceRanking {
  const { weights } = query;
  const keyword = weights.keyword > 0 ? keywordRanks(ns, query.terms) : new Map<number, number>();
  const vector =
    weights.vector > 0 && query.vector ? vectorRanks(ns, query.vector, vectorCandidateCount(query.topK)) : new Map<number, number>();

  const score = (doc: number, recency: number): RankedFact => {
    const info = ns.doc(doc);
    const ranks: Ranks = { vector: vector.get(doc) ?? 0, keyword: keyword.get(doc) ?? 0, recency };
    const fused = fusedScore(ranks, weights, RRF_K);
    return { doc, factId: info.factId, agentId: ns.agentId, createdAt: info.createdAt, textKey: info.textKey, ranks, fused, final: fused };
  };
  const recencyRank = (doc: number) => (weights.recency > 0 ? ns.recency.rankOf(doc, ns.doc(doc).recencyTime) : 0);

  const hitDocs = new Set<number>([...keyword.keys(), ...vector.keys()]);
  const hits = [...hitDocs].map((doc) => score(doc, recencyRank(doc))).sort(compareResults);
  const rest = unrankedStream(ns, hitDocs, weights.recency > 0, score);

  return {
    results: mergeDistinct(hits, rest, query.topK),
    keywordCandidates: keyword.size,
    vectorCandidates: vector.size,
    eligible: ns.size,
  };
}

/** Facts no query signal ranked, already in total order: newest first when recency counts
 *  (their scores fall with age), else all score 0 and the tie-break (oldest first) decides. */
function* unrankedStream(
  ns: NamespaceIndex,
  skip: Set<number>,
  byRecency: boolean,
  score: (doc: number, recency: number) => RankedFact,
): Generator<RankedFact> {
  if (byRecency) {
    let rank = 0;
    for (const doc of ns.recency.newest()) {
      rank++;
      if (!skip.has(doc)) yield score(doc, rank);
    }
    return;
  }
  for (const doc of ns.docsInOrder()) if (!skip.has(doc)) yield score(doc, 0);
}

/** Merges two streams that are each in total order, skipping repeated texts, until topK. */
function mergeDistinct(hits: RankedFact[], rest: Iterator<RankedFact>, topK: number): RankedFact[] {
  const out: RankedFact[] = [];
  const seen = new Set<string>();
  let h = 0;
  let next = rest.next();
  while (out.length < topK && (h < hits.length || !next.done)) {
    let pick: RankedFact;
    if (next.done || (h < hits.length && compareResults(hits[h]!, next.value) <= 0)) {
      pick = hits[h++]!;
    } else {
      pick = next.value;
      next = rest.next();
    }
    if (seen.has(pick.textKey)) continue;
    seen.add(pick.textKey);
    out.push(pick);
  }
  return out;
}
