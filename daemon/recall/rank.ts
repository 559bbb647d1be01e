// Recall within one namespace: eligible set → signals → fusion → modifiers → total order →
// relevance floor → dedup by text → top_k. Each match signal ranks a bounded candidate list (like
// any top-N retriever), order signals rank the matched candidates, and the unmatched rest is
// streamed lazily only if top_k is not yet filled, so a million-fact namespace costs what the
// query touches.
import type { NamespaceIndex } from '../index/namespace.ts';
import { RRF_K, compareResults, fuse, fusedScore, type Orderable } from './fusion.ts';
import type { RecallPlan } from './plan.ts';
import { RankTable } from './rank-table.ts';
import { matchSignals, orderSignals, SIGNAL_NAMES, type SignalName, type SignalRanks } from './registry.ts';
import type { NamespaceQuery, OrderSignal, RankMap, SignalContext, VectorReader } from './signal.ts';
import { secondsSince, type RecallTimes } from './stages.ts';

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
}

export interface NamespaceRanking {
  results: RankedFact[];
  /** Candidates each match signal ranked, and how many it searched for them. */
  candidates: Partial<Record<SignalName, number>>;
  searched: Partial<Record<SignalName, number>>;
  eligible: number;
}

type Score = (doc: number, orderRanks: ReadonlyMap<SignalName, number>) => RankedFact;

export async function rankNamespace(ns: NamespaceIndex, query: NamespaceQuery, plan: RecallPlan, readVectors: VectorReader, times?: RecallTimes): Promise<NamespaceRanking> {
  const started = performance.now();
  const { weights, filter } = plan;
  const matchRanks = new Map<SignalName, RankMap>();
  const matchedDocs = new Set<number>();
  const candidates: NamespaceRanking['candidates'] = {};
  const searched: NamespaceRanking['searched'] = {};
  const running = matchSignals().filter((signal) => weights[signal.name as SignalName] > 0 && signal.applies(query));
  // All at once, in registry order (vector first, so its search is on the graph thread while the
  // keyword signal scores on this one). No signal reads another's result, and the results are
  // taken in signal order, so the ranks are those of running them one after another.
  const rankings = await Promise.all(
    running.map((signal) => {
      const depth = plan.candidates[signal.name as SignalName];
      const ranking = signal.rank({ ns, query, topK: plan.topK, ...(depth !== undefined ? { depth } : {}), hops: plan.graphHops, filter, readVectors });
      return times ? ranking.then((r) => (times.addSignal(signal.name as SignalName, secondsSince(started)), r)) : ranking;
    }),
  );
  times?.addStage('signals', secondsSince(started));
  const fusing = performance.now();
  running.forEach((signal, i) => {
    const ranking = rankings[i]!;
    matchRanks.set(signal.name as SignalName, ranking.ranks);
    for (const doc of ranking.matched) matchedDocs.add(doc);
    candidates[signal.name as SignalName] = ranking.ranks.size;
    searched[signal.name as SignalName] = ranking.searched;
  });
  const ordering = orderSignals().filter((s) => weights[s.name as SignalName] > 0);
  const score: Score = (doc, orderRanks) => {
    const info = ns.doc(doc);
    const ranks = signalRanks(matchRanks, doc, orderRanks);
    const fused = fusedScore(ranks, weights, RRF_K);
    let final = fused;
    for (const modifier of plan.modifiers) final *= modifier.factor(info);
    return { doc, factId: info.factId, agentId: ns.agentId, createdAt: info.createdAt, textKey: info.textKey, ranks, fused, final, matched: matchedDocs.has(doc) };
  };

  const table = new RankTable(matchRanks, weights);
  let results: RankedFact[];
  if (table.size > 0) {
    // Order signals rank the best of what the match signals found: a recent fact they did not
    // find, or found only weakly, is not pushed above an older one they found well. The rest
    // follow with score 0 (so top_k is still filled).
    const pool = table.best(ns, orderPoolSize(plan.topK));
    for (const signal of ordering) table.fill(signal.name as SignalName, signal.rankAmong(ns, pool, plan));
    const rows = table.docs.map((doc, row) => {
      const info = ns.doc(doc);
      const fused = table.fused(row);
      let final = fused;
      for (const modifier of plan.modifiers) final *= modifier.factor(info);
      return { row, doc, fused, final, createdAt: info.createdAt, factId: info.factId, textKey: info.textKey };
    });
    const hits = mapStream(inOrder(rows), (r): RankedFact => ({ doc: r.doc, factId: r.factId, agentId: ns.agentId, createdAt: r.createdAt, textKey: r.textKey, ranks: table.signalRanks(r.row), fused: r.fused, final: r.final, matched: matchedDocs.has(r.doc) }));
    results = mergeDistinct(hits, unmatched(ns, plan, (doc) => !table.has(doc), score), plan);
  } else {
    // Nothing matched, or no match signal ran: the order signals rank every eligible fact.
    results = mergeDistinct(NOTHING[Symbol.iterator](), orderEveryEligible(ns, plan, ordering, score), plan);
  }
  const ranking = { results, candidates, searched, eligible: filter ? countEligible(ns, plan) : ns.size };
  times?.addStage('fuse', secondsSince(fusing));
  return ranking;
}

/** How many of the best-matching candidates the order signals rank. Recency is what puts the
 *  newer of two facts that answer a query first; ranking every candidate instead let it lift the
 *  newest facts that share only a common word with the query (a speaker's name, say) above older
 *  ones that answer it (LoCoMo dev recall@10 0.759 → 0.761 at the default weights; pools of 20 to
 *  60 give 0.761–0.762, 100 or more 0.759; npm run bench:quality). */
const orderPoolSize = (topK: number): number => Math.max(30, topK);

/** A fact's rank by every signal: a match signal's if it ranked the fact, else the order
 *  signal's given, else 0 (not ranked). */
function signalRanks(matchRanks: ReadonlyMap<SignalName, RankMap>, doc: number, orderRanks: ReadonlyMap<SignalName, number>): SignalRanks {
  const ranks = {} as SignalRanks;
  for (const name of SIGNAL_NAMES) ranks[name] = matchRanks.get(name)?.get(doc) ?? orderRanks.get(name) ?? 0;
  return ranks;
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
  // Each signal ranks every eligible fact by numbering its own runs (recency streams them from its
  // index, decay sorts once), and the facts come out best first from a heap: only as many are
  // taken as the caller reads (top_k plus skipped copies), not all of them sorted.
  const eligible = eligibleIn(ns, plan);
  const among = ordering.map((s) => [s.name as SignalName, ranksByRuns(ns, s, eligible, plan)] as const);
  // The order is decided on light rows (fusion's one sum); only the rows read become full results.
  const rankMaps = new Map(among);
  const light = [...among[0]![1].keys()].map((doc) => {
    let final = fuse((s) => rankMaps.get(SIGNAL_NAMES[s]!)?.get(doc) ?? 0, (s) => plan.weights[SIGNAL_NAMES[s]!]);
    const info = ns.doc(doc);
    for (const modifier of plan.modifiers) final *= modifier.factor(info);
    return { doc, final, createdAt: info.createdAt, factId: info.factId };
  });
  return mapStream(inOrder(light), (row) => score(row.doc, ranksOf(among, row.doc)));
}

function* mapStream<T, U>(items: Iterator<T>, f: (item: T) => U): Generator<U> {
  for (let next = items.next(); !next.done; next = items.next()) yield f(next.value);
}

/** A signal's rank of every eligible doc: its runs numbered 1, 2, 3… (a run shares one rank). */
function ranksByRuns(ns: NamespaceIndex, signal: OrderSignal, eligible: (doc: number) => boolean, at: SignalContext): RankMap {
  const ranks: RankMap = new Map();
  let rank = 0;
  for (const run of signal.runs(ns, eligible, at)) {
    rank++;
    for (const doc of run) ranks.set(doc, rank);
  }
  return ranks;
}

/** Rows in total order, lazily: a binary heap, popped as the caller reads. */
function* inOrder<T extends Orderable>(results: T[]): Generator<T> {
  const heap = results;
  const down = (i: number, n: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < n && compareResults(heap[l]!, heap[best]!) < 0) best = l;
      if (r < n && compareResults(heap[r]!, heap[best]!) < 0) best = r;
      if (best === i) return;
      [heap[i], heap[best]] = [heap[best]!, heap[i]!];
      i = best;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i, heap.length);
  for (let n = heap.length; n > 0; n--) {
    yield heap[0]!;
    heap[0] = heap[n - 1]!;
    down(0, n - 1);
  }
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
const NOTHING: readonly RankedFact[] = [];

/** Eligible facts with score 0, in tie-break order (created_at, then id: doc order). */
function* unmatched(ns: NamespaceIndex, plan: RecallPlan, include: (doc: number) => boolean, score: Score): Generator<RankedFact> {
  for (const doc of ns.docsInOrder()) {
    if (include(doc) && (!plan.filter || plan.filter(ns.doc(doc)))) yield score(doc, NO_RANKS);
  }
}

/** Merges two streams that are each in total order, skipping repeated texts, until top_k or the
 *  relevance floor (a fraction of the top score, so the top result always survives). */
function mergeDistinct(hits: Iterator<RankedFact>, rest: Iterator<RankedFact>, plan: RecallPlan): RankedFact[] {
  const out: RankedFact[] = [];
  const seen = new Set<string>();
  let floor = -Infinity;
  let hit = hits.next();
  let next = rest.next();
  while (out.length < plan.topK && (!hit.done || !next.done)) {
    let pick: RankedFact;
    if (next.done || (!hit.done && compareResults(hit.value, next.value) <= 0)) {
      pick = hit.value as RankedFact;
      hit = hits.next();
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
