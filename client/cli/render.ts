// Human-readable output of the CLI. Plain text, one fact per line, with the id first so it can
// be copied into `engram forget`.
import type { FactMatch } from '../client.ts';
import type { Fact, Receipt, RetrievalMetadata, SignalWeights, Stats } from '../types.ts';
import type { AppliedRecipe, KgHint } from '../../shared/model.ts';
import { retiredText } from '../../shared/retired.ts';
import { counted } from '../../shared/counted.ts';

type Print = (line: string) => void;

const day = (ms: number) => (ms ? new Date(ms).toISOString().slice(0, 10) : '-');

/** `filler`: label a fact no query signal matched (not when there was no query to match). */
function factLine(fact: Fact, match?: FactMatch, filler = true): string {
  const flags = [filler && match && !match.matched ? 'filler' : '', fact.supersededBy ? retiredText(fact.supersededBy, fact.retiredReason) : '', fact.pinned ? 'pinned' : '', fact.confidence ?? '']
    .filter(Boolean)
    .join(', ');
  const ns = fact.agentId === '__shared__' ? ' [shared]' : '';
  // The score and the signals that ranked it: a compact receipt (--explain has the full one).
  const scored = match ? `  ${match.score.toFixed(4)} ${(match.signals.map((s) => SIGNAL_LABEL[s] ?? s).join('+') || '-').padEnd(10)}` : '';
  return `${fact.id}  ${day(fact.occurredAt ?? fact.createdAt)}${ns}${scored}  ${fact.text}${flags ? `  (${flags})` : ''}`;
}

const SIGNAL_LABEL: Record<string, string> = { keyword: 'kw', vector: 'vec', recency: 'rec', decay: 'dec', graph: 'graph' };

export function printFacts(facts: Fact[], print: Print, empty: string): void {
  if (facts.length === 0) print(empty);
  for (const fact of facts) print(factLine(fact));
}

/** Recall results: each with its score and signals, filler labelled, and a plain statement
 *  when the query matched nothing (the facts then only fill the count). */
export function printRecall(facts: Fact[], matches: FactMatch[] | undefined, query: string, print: Print, hints: KgHint[] = [], retrieval?: RetrievalMetadata): void {
  if (retrieval?.recipe) print(recipeLine(retrieval.recipe));
  if (facts.length === 0) {
    print('No memories found.');
    return;
  }
  if (query.trim() === '') print(`No query: the ${facts.length === 1 ? 'most recent fact' : `${facts.length} most recent facts`}:`);
  else printNoneMatched(facts.length, matches, query, print, retrieval);
  facts.forEach((fact, i) => {
    print(factLine(fact, matches?.[i], query.trim() !== ''));
    for (const e of matches?.[i]?.evidence ?? []) print(`    evidence (${e.kind}) ${e.ref}${e.text ? `: ${e.text}` : ''}${e.retired ? ' [retired]' : ''}`);
  });
  printSomeMatched(facts.length, matches, print);
  if (hints.length) print('related (knowledge graph; no confidence receipts):');
  for (const h of hints) print(`  ~ ${h.label} (${h.relation}${h.factId ? ` ${h.factId}` : ''}, via ${h.via})`);
}

/** Before the results: that none of them matched the query (they only fill the count), and why
 *  when no signal that matches words ran (the weights turned them off, or vectors are off): no
 *  fact could match, however worded. */
function printNoneMatched(count: number, matches: FactMatch[] | undefined, query: string, print: Print, retrieval?: RetrievalMetadata): void {
  if (!matches?.length || matches.some((m) => m.matched)) return;
  const fill = `${count === 1 ? 'this fact only fills' : `these ${count} facts only fill`} the count:`;
  const why = retrieval && noWordSignal(retrieval);
  if (why) print(`Nothing could match ${JSON.stringify(query)}: ${why}; ${fill}`);
  else print(`Nothing matched ${JSON.stringify(query)}; ${fill}`);
}

/** Why no signal could match the query's words, when none ran: "the weights left only decay on,
 *  which orders facts and matches no words (vector, keyword and graph are 0)". A signal with a
 *  weight that did not run (vectors off, say) is named as off, not as 0. */
function noWordSignal({ weights, signals }: RetrievalMetadata): string | undefined {
  if (MATCH_SIGNALS.some((s) => signals.includes(s))) return undefined;
  const zero = MATCH_SIGNALS.filter((s) => !weights[s]);
  const off = MATCH_SIGNALS.filter((s) => weights[s]);
  const ordering = ORDER_SIGNALS.filter((s) => signals.includes(s));
  const one = ordering.length === 1;
  const reasons = [zero.length ? `${listed(zero)} ${zero.length === 1 ? 'is' : 'are'} 0` : '', off.length ? `${listed(off)} ${off.length === 1 ? 'is' : 'are'} off for this query` : ''].filter(Boolean);
  return `the weights left only ${listed(ordering) || 'no signal'} on, which ${one ? 'orders' : 'order'} facts and ${one ? 'matches' : 'match'} no words (${reasons.join('; ')})`;
}

/** "a", "a and b", "a, b and c" */
const listed = (names: readonly string[]): string => (names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/** The signals that match a query's words, and those that only order facts (the daemon's registry). */
const MATCH_SIGNALS = ['vector', 'keyword', 'graph'] as const;
const ORDER_SIGNALS = ['recency', 'decay'] as const;

/** After the results: how many of them matched the query, when some did not. */
function printSomeMatched(count: number, matches: FactMatch[] | undefined, print: Print): void {
  const matched = matches?.filter((m) => m.matched).length;
  if (matched !== undefined && matched > 0 && matched < count) print(`(${matched} of ${count} matched the query; the rest only fill --top-k)`);
}

/** "v=0.2 kw=1 rec=0.5" */
/** The decay weight is shown only when it is on (it is 0 unless asked for). */
export const weightsText = (w: SignalWeights): string => `v=${w.vector} kw=${w.keyword} rec=${w.recency}${w.decay ? ` dec=${w.decay}` : ''}${w.graph ? ` graph=${w.graph}` : ''}`;

/** "recipe deep@2: lexical 80, vector 80, graph depth 2, reranker term-coverage-v1, prefer verified" */
export function recipeLine(r: AppliedRecipe): string {
  const flags = [r.verifiedOnly ? 'verified only' : r.preferVerified ? 'prefer verified' : '', r.includeEvidence ? 'with evidence' : ''].filter(Boolean);
  return `recipe ${r.id}: lexical ${r.lexicalTopK}, vector ${r.vectorTopK}, graph depth ${r.graphDepth}, reranker ${r.rerankerStage || 'off'}${flags.length ? `, ${flags.join(', ')}` : ''}`;
}

/** --explain: each result's score as the sum it is, with the fillers labelled and counted as
 *  recall labels them (`matches`, one per receipt, from daemons that say which matched). */
export function printReceipts(receipts: Receipt[], retrieval: RetrievalMetadata, print: Print, query = '', matches?: FactMatch[]): void {
  const w = retrieval.weights;
  if (retrieval.recipe) print(recipeLine(retrieval.recipe));
  print(`signals: ${retrieval.signals.join(' + ') || 'none'}  weights ${weightsText(w)}  k=${retrieval.rrfK}`);
  for (const note of retrieval.notes) print(`note: ${note}`);
  if (receipts.length === 0) print('No memories found.');
  // With no query every fact is a most recent one, none a filler.
  const labelled = query.trim() === '' ? undefined : matches;
  if (receipts.length > 0) printNoneMatched(receipts.length, labelled, query, print, retrieval);
  receipts.forEach((r, i) => {
    const ranks = r.ranks;
    print(`${i + 1}. ${r.text}${labelled?.[i] && !labelled[i].matched ? '  (filler)' : ''}`);
    const terms =
      [
        ranks.vectorRank ? `${w.vector}/(${ranks.k}+${ranks.vectorRank}) vector` : '',
        ranks.keywordRank ? `${w.keyword}/(${ranks.k}+${ranks.keywordRank}) keyword` : '',
        ranks.recencyRank ? `${w.recency}/(${ranks.k}+${ranks.recencyRank}) recency` : '',
        ranks.decayRank ? `${w.decay}/(${ranks.k}+${ranks.decayRank}) decay` : '',
        ranks.graphRank ? `${w.graph}/(${ranks.k}+${ranks.graphRank}) graph` : '',
      ]
        .filter(Boolean)
        .join(' + ') || '0';
    // With a confidence weight the score is the fused score times the confidence factor.
    const ranking = r.ranking && r.ranking.factor !== 1 ? r.ranking : undefined;
    const confidence = ranking ? `(${terms}) x ${ranking.factor}  [${ranking.effectiveConfidence}, confidence weight ${ranking.confidenceWeight}]` : terms;
    const formula = r.rerank ? `${confidence.startsWith('(') ? confidence : `(${confidence})`} x ${r.rerank.factor}  [${r.rerank.stage}: coverage ${r.rerank.coverage.toFixed(2)}, rank ${r.rerank.rankBefore} -> ${r.rerank.rankAfter}]` : confidence;
    print(`   score ${r.weight.toFixed(6)} = ${formula}`);
    print(`   ${r.provenance.factId}, written ${day(r.provenance.writtenAt)}, ${r.ageDays.toFixed(1)} days old`);
  });
  printSomeMatched(receipts.length, labelled, print);
}

/** `agentId`: the counts are that namespace's. The size on disk is always the whole store's (the
 *  store keeps no figure per namespace), so it is then said to be. */
export function printStats(s: Stats, print: Print, agentId?: string): void {
  print(`facts     ${s.factCount} (${s.liveCount} live, ${s.retiredCount} retired, ${s.pinnedCount} pinned) in ${counted(s.agentCount, 'namespace')}`);
  const c = s.liveByConfidence;
  if (c.verified + c.inferred + c.unverified > 0) print(`confidence ${c.verified} verified, ${c.inferred} inferred, ${c.unverified} unverified (live facts)`);
  print(`vectors   ${s.vectorCount}${s.pendingEmbeddings ? `, ${s.pendingEmbeddings} waiting for an embedding` : ''}`);
  const kib = (s.storeBytes / 1024).toFixed(0);
  if (agentId === undefined) print(`store     ${kib} KiB on disk, ${s.textBytes} bytes of text`);
  else {
    print(`text      ${s.textBytes} bytes in ${JSON.stringify(agentId)}`);
    print(`store     ${kib} KiB on disk for the whole store (every namespace, not ${JSON.stringify(agentId)} alone)`);
  }
  if (s.factCount) print(`span      ${day(s.oldestCreatedAt)} … ${day(s.newestCreatedAt)}`);
}
