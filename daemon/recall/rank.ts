// Recall within one namespace: eligible set → signals → fusion → modifiers → total order →
// relevance floor → dedup by text → top_k. Each match signal ranks a bounded candidate list (like
// any top-N retriever), order signals rank the matched candidates, and the unmatched rest is
// streamed lazily only if top_k is not yet filled, so a million-fact namespace costs what the
// query touches.
import type { NamespaceIndex } from '../index/namespace.ts';
import { RRF_K, compareResults, fusedScore } from './fusion.ts';
import { decayScore } from '../lifecycle/decay.ts';
import type { RecallPlan } from './plan.ts';
import { matchSignals, orderSignals, SIGNAL_NAMES, type SignalName, type SignalRanks } from './registry.ts';
import type { NamespaceQuery, OrderSignal, RankMap, SignalContext, VectorReader } from './signal.ts';

export interface RankedFact {
  doc: number;
  factId: string;
  agentId: string;
  createdAt: number;
  textKey: string;
  ranks: SignalRanks;
  fused: number;
  final: number;
  /** A match signal really matched it; false: it only fills top_k. */
  matched: boolean;
  /** Its decay score at the plan's time. */
  decayScore: number;
}

export interface NamespaceRanking {
  results: RankedFact[];
  /** Candidates each match signal ranked, and how many it searched for them. */
  candidates: Partial<Record<SignalName, number>>;
  searched: Partial<Record<SignalName, number>>;
  eligible: number;
}

type Score = (doc: number, orderRanks: ReadonlyMap<SignalName, number>) => RankedFact;

export async function rankNamespace(ns: NamespaceIndex, query: NamespaceQuery, plan: RecallPlan, readVectors: VectorReader): Promise<NamespaceRanking> {
  const { weights, filter } = plan;
  const matchRanks = new Map<SignalName, RankMap>();
  const matchedDocs = new Set<number>();
  const candidates: NamespaceRanking['candidates'] = {};
  const searched: NamespaceRanking['searched'] = {};
  for (const signal of matchSignals()) {
    if (weights[signal.name as SignalName] > 0 && signal.applies(query)) {
      const ranking = await signal.rank({ ns, query, topK: plan.topK, filter, readVectors });
      matchRanks.set(signal.name as SignalName, ranking.ranks);
      for (const doc of ranking.matched) matchedDocs.add(doc);
      candidates[signal.name as SignalName] = ranking.ranks.size;
      searched[signal.name as SignalName] = ranking.searched;
    }
  }
  const ordering = orderSignals().filter((s) => weights[s.name as SignalName] > 0);
  const score: Score = (doc, orderRanks) => {
    const info = ns.doc(doc);
    const ranks = {} as SignalRanks;
    for (const name of SIGNAL_NAMES) ranks[name] = matchRanks.get(name)?.get(doc) ?? orderRanks.get(name) ?? 0;
    const fused = fusedScore(ranks, weights, RRF_K);
    let final = fused;
    for (const modifier of plan.modifiers) final *= modifier.factor(info);
    const decay = decayScore(plan.decay, info, plan.now);
    return { doc, factId: info.factId, agentId: ns.agentId, createdAt: info.createdAt, textKey: info.textKey, ranks, fused, final, matched: matchedDocs.has(doc), decayScore: decay };
  };

  const found = [...new Set([...matchRanks.values()].flatMap((ranks) => [...ranks.keys()]))];
  let results: RankedFact[];
  if (found.length > 0) {
    // Order signals rank what the match signals found: a recent fact they did not find is not
    // pushed above an older one they did. The rest follow with score 0 (so top_k is still filled).
    const among = ordering.map((s) => [s.name as SignalName, s.rankAmong(ns, found, plan)] as const);
    const hits = found.map((doc) => score(doc, ranksOf(among, doc))).sort(compareResults);
    const skip = new Set(found);
    results = mergeDistinct(hits, unmatched(ns, plan, (doc) => !skip.has(doc), score), plan);
  } else {
    // Nothing matched, or no match signal ran: the order signals rank every eligible fact.
    results = mergeDistinct([], orderEveryEligible(ns, plan, ordering, score), plan);
  }
  return { results, candidates, searched, eligible: filter ? countEligible(ns, plan) : ns.size };
}

function ranksOf(among: readonly (readonly [SignalName, RankMap])[], doc: number): Map<SignalName, number> {
  const out = new Map<SignalName, number>();
  for (const [name, ranks] of among) out.set(name, ranks.get(doc) ?? 0);
  return out;
}

function countEligible(ns: NamespaceIndex, plan: RecallPlan): number {
  let n = 0;
  for (const doc of ns.docsInOrder()) if (plan.filter!(ns.doc(doc))) n++;
  return n;
}

const eligibleIn = (ns: NamespaceIndex, plan: RecallPlan) => (doc: number) => !plan.filter || plan.filter(ns.doc(doc));

/** Every eligible fact in total order when nothing matched. One order signal streams its runs
 *  lazily; banded modifiers split that stream into bands merged back in order. Anything else
 *  (several order signals, a modifier without bands) scores every eligible fact up front. */
function orderEveryEligible(ns: NamespaceIndex, plan: RecallPlan, ordering: readonly OrderSignal[], score: Score): Iterator<RankedFact> {
  if (ordering.length === 0) return unmatched(ns, plan, () => true, score);
  const [signal] = ordering;
  const banded = plan.modifiers.filter((m) => m.band);
  if (ordering.length === 1 && plan.modifiers.length === banded.length && banded.length <= 1) {
    const stream = () => streamRuns(ns, signal!, eligibleIn(ns, plan), score, plan);
    if (banded.length === 0) return stream();
    const modifier = banded[0]!;
    return mergeOrdered(modifier.bands!.map((band) => filterStream(stream(), (r) => modifier.band!(ns.doc(r.doc)) === band)));
  }
  const eligible = [...ns.docsInOrder()].filter(eligibleIn(ns, plan));
  const among = ordering.map((s) => [s.name as SignalName, s.rankAmong(ns, eligible, plan)] as const);
  return eligible.map((doc) => score(doc, ranksOf(among, doc))).sort(compareResults)[Symbol.iterator]();
}

/** One order signal's runs as ranked facts; facts sharing a rank come in the total order's
 *  tie-break (created_at, then id), so the stream is in total order. */
function* streamRuns(ns: NamespaceIndex, signal: OrderSignal, eligible: (doc: number) => boolean, score: Score, at: SignalContext): Generator<RankedFact> {
  let rank = 0;
  const name = signal.name as SignalName;
  for (const run of signal.runs(ns, eligible, at)) {
    rank++;
    const ranks = new Map([[name, rank]]);
    if (run.length > 1) run.sort((a, b) => ns.doc(a).createdAt - ns.doc(b).createdAt || (ns.doc(a).factId < ns.doc(b).factId ? -1 : 1));
    for (const doc of run) yield score(doc, ranks);
  }
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

const NO_RANKS: ReadonlyMap<SignalName, number> = new Map();

/** Eligible facts with score 0, in tie-break order (created_at, then id: doc order). */
function* unmatched(ns: NamespaceIndex, plan: RecallPlan, include: (doc: number) => boolean, score: Score): Generator<RankedFact> {
  for (const doc of ns.docsInOrder()) {
    if (include(doc) && (!plan.filter || plan.filter(ns.doc(doc)))) yield score(doc, NO_RANKS);
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
    // A relevance floor asks for relevant facts only: filler never passes it.
    if (plan.minRelevance > 0 && !pick.matched) continue;
    if (seen.has(pick.textKey)) continue;
    seen.add(pick.textKey);
    if (out.length === 0 && plan.minRelevance > 0) floor = pick.final * plan.minRelevance;
    out.push(pick);
  }
  return out;
}
