// Doctor: does every derived index agree with the facts? Checks the stored keyword rows and
// vectors and the in-memory indexes against the facts (the source of truth); with rebuild,
// rewrites the derived rows from the facts and reloads memory. Writes wait while it runs, so a
// fact written meanwhile is neither reported nor lost.
import { isDeepStrictEqual } from 'node:util';
import { isIndexed, recencyTime, termsOf, toStoredTerms } from '../index/derive.ts';
import type { Indexer } from '../index/indexer.ts';
import { TOKENIZER_ID } from '../index/tokenizer.ts';
import type { FactRecord } from '../store/record.ts';
import { isShared, type Change, type MemoryStore, type StoredTerms } from '../store/store.ts';
import type { ConsolidationCounters } from '../../shared/model.ts';

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export type DoctorEvent =
  | { kind: 'progress'; phase: string; done: number; total: number }
  | { kind: 'report'; checks: DoctorCheck[]; healthy: boolean; rebuilt: boolean };

export const TOKENIZER_META = 'tokenizer';

export interface DoctorDeps {
  store: MemoryStore;
  indexer: Indexer;
  /** Holds every write back until the returned release is called. */
  holdWrites: () => Promise<() => void>;
  /** Saves the vector indexes now. */
  saveVectors: () => Promise<void>;
  /** The lifetime consolidation totals, reported with the checks. */
  consolidation?: () => ConsolidationCounters;
}

const PROGRESS_EVERY = 1000;
const REWRITE_BATCH = 5000;

const keyOf = (agentId: string, id: string) => `${agentId}\u0000${id}`;

/** What the derived rows should be, computed from the facts alone. */
interface Expected {
  terms: Map<string, StoredTerms>;
  /** Vector key of each live fact that has one, by agentId NUL vectorKey. */
  vectors: Set<string>;
  facts: FactRecord[];
  indexedPerNamespace: Map<string, number>;
  total: number;
}

export async function* doctor(deps: DoctorDeps, rebuild: boolean): AsyncGenerator<DoctorEvent> {
  const release = await deps.holdWrites();
  try {
    const expected: Expected = { terms: new Map(), vectors: new Set(), facts: [], indexedPerNamespace: new Map(), total: 0 };
    const total = await deps.store.countFacts();
    for await (const { fact } of deps.store.scanFacts()) {
      if (++expected.total % PROGRESS_EVERY === 0) yield { kind: 'progress', phase: 'reading facts', done: expected.total, total };
      if (!isIndexed(fact)) continue;
      if (fact.vectorKey) expected.vectors.add(keyOf(fact.agentId, String(fact.vectorKey)));
      expected.facts.push(fact);
      expected.terms.set(keyOf(fact.agentId, fact.id), toStoredTerms(termsOf(fact)));
      expected.indexedPerNamespace.set(fact.agentId, (expected.indexedPerNamespace.get(fact.agentId) ?? 0) + 1);
    }
    yield { kind: 'progress', phase: 'reading facts', done: expected.total, total: expected.total };

    const { checks, storedVectors } = await compare(deps, expected);
    if (!rebuild) {
      yield { kind: 'report', checks, healthy: checks.every((c) => c.ok), rebuilt: false };
      return;
    }
    yield* rewriteDerivedRows(deps.store, expected);
    // The rewrite above drops only orphaned vector rows: the ones the facts name are as compared.
    const repairs = [...withoutDanglingRelations(expected), ...requeueMissingVectors(expected, storedVectors)];
    if (repairs.length) await deps.store.commit(repairs);
    await deps.store.commit([{ type: 'putMeta', name: TOKENIZER_META, value: { id: TOKENIZER_ID } }]);
    yield { kind: 'progress', phase: 'reloading indexes', done: 0, total: 1 };
    const { indexer, store } = deps;
    await indexer.rebuild(store);
    await indexer.vectors.load(store, indexer.catalog, false);
    indexer.vectors.saveAllNext();
    await deps.saveVectors();
    yield { kind: 'progress', phase: 'reloading indexes', done: 1, total: 1 };
    const { checks: after } = await compare(deps, expected);
    yield { kind: 'report', checks: after, healthy: after.every((c) => c.ok), rebuilt: true };
  } finally {
    release();
  }
}

/** The checks, and the vector rows the store holds (which the repair of missing ones needs). */
async function compare(deps: DoctorDeps, expected: Expected): Promise<{ checks: DoctorCheck[]; storedVectors: Set<string> }> {
  const { store, indexer } = deps;
  let wrongTerms = 0;
  let extraTerms = 0;
  let termRows = 0;
  for await (const [key, terms] of store.scanTerms()) {
    termRows++;
    const want = expected.terms.get(keyOf(key.agentId, key.factId));
    if (want === undefined) extraTerms++;
    else if (!isDeepStrictEqual(want, terms)) wrongTerms++;
  }
  const missingTerms = expected.terms.size - (termRows - extraTerms);
  const vectorKeys = await storedVectorKeys(store);
  const countMismatch = [...expected.indexedPerNamespace].filter(([agentId, n]) => (indexer.namespace(agentId)?.size ?? 0) !== n);
  const outOfRecency = expected.facts.filter((f) => {
    const ns = indexer.namespace(f.agentId);
    const doc = ns?.docOf(f.id);
    return doc === undefined || !ns!.recency.contains(doc, recencyTime(f));
  }).length;
  const recencyExtra = [...indexer.catalog.all()].reduce((n, ns) => n + ns.recency.size, 0) - (expected.facts.length - outOfRecency);
  const vectorsMissingInIndex = indexer.vectors.off
    ? 0
    : expected.facts.filter((f) => f.vectorKey && !indexer.namespace(f.agentId)?.vectors?.has(f.vectorKey)).length;
  const checks = [
    check('keyword postings', missingTerms + wrongTerms + extraTerms === 0, `${missingTerms} missing, ${wrongTerms} differ from the text, ${extraTerms} orphaned`),
    check('recency', outOfRecency + recencyExtra === 0, `${outOfRecency} missing, ${recencyExtra} orphaned`),
    check('vectors', sameSet(vectorKeys, expected.vectors), `${difference(expected.vectors, vectorKeys)} missing (doctor --rebuild embeds those facts again), ${difference(vectorKeys, expected.vectors)} orphaned`),
    check('in-memory keyword and recency indexes', countMismatch.length === 0, `${countMismatch.length} namespaces differ from the facts`),
    check('vector index', vectorsMissingInIndex === 0, `${vectorsMissingInIndex} stored vectors are not in the search index`),
    graphCheck(expected),
    // The embedded store's own log; PostgreSQL keeps and checks its write-ahead log itself.
    ...(isShared(store) ? [] : [logCheck(store)]),
    ...(deps.consolidation ? [countersCheck(deps.consolidation())] : []),
  ];
  return { checks, storedVectors: vectorKeys };
}

/** Relations of live facts whose target is not a live fact of the namespace. */
function danglingRelations(expected: Expected): Map<FactRecord, number> {
  const live = new Set(expected.facts.map((f) => keyOf(f.agentId, f.id)));
  const out = new Map<FactRecord, number>();
  for (const fact of expected.facts) {
    const bad = fact.relations.filter((r) => !live.has(keyOf(fact.agentId, r.targetId))).length;
    if (bad) out.set(fact, bad);
  }
  return out;
}

function graphCheck(expected: Expected): DoctorCheck {
  const dangling = danglingRelations(expected);
  const relations = expected.facts.reduce((n, f) => n + f.relations.length, 0);
  const bad = [...dangling.values()].reduce((n, k) => n + k, 0);
  const entities = new Set(expected.facts.flatMap((f) => f.entities.map((e) => keyOf(f.agentId, e.toLowerCase())))).size;
  return {
    name: 'knowledge graph',
    ok: bad === 0,
    detail: bad === 0 ? `agrees with the facts (${relations} relations, ${entities} entities)` : `${bad} of ${relations} relations point at a missing or retired fact (on ${dangling.size} facts): doctor --rebuild drops them`,
  };
}

/** The repair: each live fact's relations to facts that are gone, dropped (in `expected` too,
 *  which the checks after the rebuild compare with). */
function withoutDanglingRelations(expected: Expected): Change[] {
  const live = new Set(expected.facts.map((f) => keyOf(f.agentId, f.id)));
  const dangling = danglingRelations(expected);
  const changes: Change[] = [];
  expected.facts = expected.facts.map((fact) => {
    if (!dangling.has(fact)) return fact;
    const repaired = { ...fact, relations: fact.relations.filter((r) => live.has(keyOf(fact.agentId, r.targetId))) };
    changes.push({ type: 'putFact', before: fact, fact: repaired, derived: 'unchanged' });
    return repaired;
  });
  return changes;
}

async function storedVectorKeys(store: MemoryStore): Promise<Set<string>> {
  const keys = new Set<string>();
  for await (const { agentId, vectorKey } of store.scanVectorKeys()) keys.add(keyOf(agentId, String(vectorKey)));
  return keys;
}

/** The repair of a vector row that is gone (a rebuild that raced writers once lost some): the
 *  fact forgets its vector key and becomes pending again, so the reconciler embeds it anew. The
 *  text is the source; a vector is only derived from it. */
function requeueMissingVectors(expected: Expected, stored: Set<string>): Change[] {
  const changes: Change[] = [];
  expected.facts = expected.facts.map((fact) => {
    const key = keyOf(fact.agentId, String(fact.vectorKey));
    if (!fact.vectorKey || stored.has(key)) return fact;
    const pending = { ...fact, vectorKey: 0, embedder: '' };
    expected.vectors.delete(key);
    changes.push({ type: 'putFact', before: fact, fact: pending, derived: 'unchanged' });
    return pending;
  });
  return changes;
}

/** Whether this start-up's replay of the write-ahead log lost writes (LevelDB skips a damaged
 *  stretch instead of failing): said until the daemon restarts, and in its log for good. */
function logCheck(store: MemoryStore): DoctorCheck {
  const loss = store.openedWithLoss;
  if (!loss) return { name: 'write-ahead log', ok: true, detail: 'replayed whole at start-up' };
  return { name: 'write-ahead log', ok: false, detail: `damaged at start-up: ${loss.droppedBytes} bytes skipped, the writes in them lost; the log as it was is in ${loss.keptIn}; restore what is missing from an export` };
}

function countersCheck(c: ConsolidationCounters): DoctorCheck {
  const last = c.lastRunAt ? new Date(c.lastRunAt).toISOString() : 'never';
  return { name: 'consolidation', ok: true, detail: `${c.runs} runs, ${c.summariesWritten} summaries written, ${c.factsRetired} facts retired, ${c.failures} failures, ${c.rejectedProposals} proposals refused; last run ${last}` };
}

function check(name: string, ok: boolean, detail: string): DoctorCheck {
  return { name, ok, detail: ok ? 'agrees with the facts' : detail };
}

const difference = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x)).length;
const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && difference(a, b) === 0;

/** Replaces the keyword rows with rows computed from the facts and drops rows no fact needs. */
async function* rewriteDerivedRows(store: MemoryStore, expected: Expected): AsyncGenerator<DoctorEvent> {
  const changes: Change[] = [];
  for await (const [key] of store.scanTerms()) if (!expected.terms.has(keyOf(key.agentId, key.factId))) changes.push({ type: 'deleteTerms', key });
  for await (const { agentId, vectorKey } of store.scanVectorKeys()) {
    if (!expected.vectors.has(keyOf(agentId, String(vectorKey)))) changes.push({ type: 'deleteVector', agentId, vectorKey });
  }
  for (const [key, terms] of expected.terms) {
    const at = key.lastIndexOf('\u0000');
    changes.push({ type: 'putTerms', key: { agentId: key.slice(0, at), factId: key.slice(at + 1) }, terms });
  }
  for (let i = 0; i < changes.length; i += REWRITE_BATCH) {
    await store.commit(changes.slice(i, i + REWRITE_BATCH));
    yield { kind: 'progress', phase: 'rewriting derived rows', done: Math.min(i + REWRITE_BATCH, changes.length), total: changes.length };
  }
}
