// Recall within one namespace: eligible set → signals → fusion → total order → relevance floor
// → dedup by text → top_k. Each query signal ranks a bounded candidate list (like any top-N
// retriever), recency orders the matched candidates, and the unmatched rest is streamed lazily
// only if top_k is not yet filled, so a million-fact namespace costs what the query touches.
import type { Doc, NamespaceIndex } from '../index/namespace.ts';
import type { Ranks } from './fusion.ts';
import { RRF_K, compareResults, fusedScore } from './fusion.ts';
import type { RecallPlan } from './plan.ts';
import { confidenceValue } from '../lifecycle/confidence.ts';
import { keywordCandidateCount, keywordRanks, vectorCandidateCount, vectorRanks, type VectorReader } from './signals.ts';

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
  const keyword = weights.keyword > 0 ? keywordRanks(ns, query.terms, filter, keywordCandidateCount(plan.topK)) : new Map<number, number>();
  const vector =
    weights.vector > 0 && query.vector
      ? await vectorRanks(ns, query.vector, vectorCandidateCount(plan.topK), filter, readVectors)
      : { ranks: new Map<number, number>(), searched: 0 };
  const matched = [...new Set<number>([...keyword.keys(), ...vector.ranks.keys()])];

  const confidenceWeight = plan.confidence?.weight ?? 0;
  const score = (doc: number, recency: number): RankedFact => {
    const info = ns.doc(doc);
    const ranks: Ranks = { vector: vector.ranks.get(doc) ?? 0, keyword: keyword.get(doc) ?? 0, recency };
    const fused = fusedScore(ranks, weights, RRF_K);
    // final = B · (1 + w · c); with w = 0 the factor is exactly 1 and the legacy arithmetic holds.
    const final = confidenceWeight === 0 ? fused : fused * (1 + confidenceWeight * confidenceValue(info.confidence));
    return { doc, factId: info.factId, agentId: ns.agentId, createdAt: info.createdAt, textKey: info.textKey, ranks, fused, final };
  };

  let results: RankedFact[];
  if (matched.length > 0) {
    // Recency orders what the query matched; a recent fact the query did not match is not pushed
    // above an older one it did. The rest follow with score 0 (so top_k is still filled).
    const recency = weights.recency > 0 ? newestFirstRanks(ns, matched) : new Map<number, number>();
    const hits = matched.map((doc) => score(doc, recency.get(doc) ?? 0)).sort(compareResults);
    const skip = new Set(matched);
    results = mergeDistinct(hits, unmatched(ns, plan, (doc) => !skip.has(doc), score), plan);
  } else {
    // Nothing matched, or no query signal ran: recency ranks every eligible fact.
    results = mergeDistinct([], weights.recency > 0 ? newestEligibleInOrder(ns, plan, score, confidenceWeight) : unmatched(ns, plan, () => true, score), plan);
  }
  return {
    results,
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

/**
 * 1-based newest-first recency ranks of the given docs. Facts the writer gave the same event time
 * (a conversation session's date, say) are equally recent and share a rank, the next time taking
 * the next rank; write times never tie, since ids order writes within a millisecond. Imported
 * history thereby gets one recency step per event, not one per fact (LoCoMo recall@10 0.666 →
 * 0.683 with the default weights; npm run bench:quality). Same order as RecencyOrder.newestRuns.
 */
function newestFirstRanks(ns: NamespaceIndex, docs: number[]): Map<number, number> {
  const sorted = [...docs].sort((a, b) => {
    const [x, y] = [ns.doc(a), ns.doc(b)];
    return y.recencyTime - x.recencyTime || Number(y.eventTime) - Number(x.eventTime) || (x.eventTime ? a - b : b - a);
  });
  const ranks = new Map<number, number>();
  let rank = 0;
  sorted.forEach((doc, i) => {
    if (i === 0 || !sameEventTime(ns.doc(sorted[i - 1]!), ns.doc(doc))) rank++;
    ranks.set(doc, rank);
  });
  return ranks;
}

const sameEventTime = (a: Doc, b: Doc): boolean => a.eventTime && b.eventTime && a.recencyTime === b.recencyTime;

/** Every eligible fact, newest first, ranked by recency (see newestFirstRanks); facts sharing a
 *  rank come oldest first, so the stream is in total order. */
function* newestEligible(ns: NamespaceIndex, plan: RecallPlan, score: (doc: number, recency: number) => RankedFact): Generator<RankedFact> {
  let rank = 0;
  for (const run of ns.recency.newestRuns((doc) => ns.doc(doc).eventTime)) {
    const eligible = plan.filter ? run.filter((doc) => plan.filter!(ns.doc(doc))) : run;
    if (eligible.length === 0) continue;
    rank++;
    // Equal rank, equal score: the total order's tie-break decides (created_at, then id).
    if (eligible.length > 1) eligible.sort((a, b) => ns.doc(a).createdAt - ns.doc(b).createdAt || (ns.doc(a).factId < ns.doc(b).factId ? -1 : 1));
    for (const doc of eligible) yield score(doc, rank);
  }
}

/** Every eligible fact by recency, in total order. With a confidence weight the factor splits
 *  the facts into three bands (verified, inferred, unverified), each newest first on its own:
 *  merging the bands restores the total order without scoring every fact up front. */
function newestEligibleInOrder(
  ns: NamespaceIndex,
  plan: RecallPlan,
  score: (doc: number, recency: number) => RankedFact,
  confidenceWeight: number,
): Iterator<RankedFact> {
  const all = newestEligible(ns, plan, score);
  if (confidenceWeight === 0) return all;
  const band = (c: number) => filterStream(newestEligible(ns, plan, score), (r) => confidenceValue(ns.doc(r.doc).confidence) === c);
  return mergeOrdered([band(1), band(0), band(-1)]);
}

function* filterStream<T>(stream: Iterator<T>, keep: (item: T) => boolean): Generator<T> {
  for (let next = stream.next(); !next.done; next = stream.next()) if (keep(next.value)) yield next.value;
}

/** Merges streams that are each in total order into one in total order. */
function* mergeOrdered(streams: Iterator<RankedFact>[]): Generator<RankedFact> {
  const heads = streams.map((s) => s.next());
  for (;;) {
    let best = -1;
    heads.forEach((h, i) => {
      if (!h.done && (best < 0 || compareResults(h.value, (heads[best] as IteratorYieldResult<RankedFact>).value) < 0)) best = i;
    });
    if (best < 0) return;
    yield (heads[best] as IteratorYieldResult<RankedFact>).value;
    heads[best] = streams[best]!.next();
  }
}

/** Eligible facts with score 0, in tie-break order (created_at, then id: doc order). */
function* unmatched(
  ns: NamespaceIndex,
  plan: RecallPlan,
  include: (doc: number) => boolean,
  score: (doc: number, recency: number) => RankedFact,
): Generator<RankedFact> {
  for (const doc of ns.docsInOrder()) {
    if (include(doc) && (!plan.filter || plan.filter(ns.doc(doc)))) yield score(doc, 0);
  }
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
