// Doctor: does every derived index agree with the facts? Checks the persisted keyword postings,
// the recency table, the vectors table and the in-memory indexes against the facts table (the
// source of truth); with rebuild, rewrites the derived tables from the facts and reloads memory.
import { isDeepStrictEqual } from 'node:util';
import type { Memory } from '../memory.ts';
import type { BatchOp } from '../store/group-commit.ts';
import { recencyTime } from '../store/fact-store.ts';
import { factKey, recencyEntryKey, vectorEntryKey } from '../store/keys.ts';
import { decodeFact, type FactRecord } from '../store/record.ts';
import { isIndexed, termsOf, toStoredPostings } from './derive.ts';
import { loadCatalog } from './load.ts';

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export type DoctorEvent =
  | { kind: 'progress'; phase: string; done: number; total: number }
  | { kind: 'report'; checks: DoctorCheck[]; healthy: boolean; rebuilt: boolean };

const PROGRESS_EVERY = 1000;

/** What the derived rows should be, computed from the facts alone. */
async function expectedRows(memory: Memory, onFact: (done: number) => void) {
  const postings = new Map<string, unknown>();
  const recency = new Set<string>();
  const vectors = new Set<string>();
  const indexedPerNamespace = new Map<string, number>();
  const facts: FactRecord[] = [];
  let done = 0;
  for await (const raw of memory.tables.facts.values()) {
    const fact = decodeFact(raw);
    if (++done % PROGRESS_EVERY === 0) onFact(done);
    if (!isIndexed(fact)) continue;
    if (fact.vectorKey) vectors.add(vectorEntryKey(fact.agentId, fact.vectorKey));
    facts.push(fact);
    postings.set(factKey(fact.agentId, fact.id), toStoredPostings(termsOf(fact)));
    recency.add(recencyEntryKey(fact.agentId, recencyTime(fact), fact.id));
    indexedPerNamespace.set(fact.agentId, (indexedPerNamespace.get(fact.agentId) ?? 0) + 1);
  }
  return { postings, recency, vectors, indexedPerNamespace, facts, total: done };
}

export async function* doctor(memory: Memory, rebuild: boolean): AsyncGenerator<DoctorEvent> {
  const total = (await memory.stats(undefined)).factCount;
  const progress: DoctorEvent[] = [];
  const expected = await expectedRows(memory, (done) => progress.push({ kind: 'progress', phase: 'reading facts', done, total }));
  yield* progress.splice(0);
  yield { kind: 'progress', phase: 'reading facts', done: expected.total, total: expected.total };

  const checks = await compare(memory, expected);
  const healthy = checks.every((c) => c.ok);
  if (!rebuild) {
    yield { kind: 'report', checks, healthy, rebuilt: false };
    return;
  }
  yield* rewriteDerivedTables(memory, expected);
  await memory.recordTokenizer();
  yield { kind: 'progress', phase: 'reloading indexes', done: 0, total: 1 };
  memory.catalog.clear();
  await loadCatalog(memory.tables, memory.catalog, memory.vectorSpace(false));
  memory.markVectorsDirty();
  memory.saveVectorsIfDirty();
  yield { kind: 'progress', phase: 'reloading indexes', done: 1, total: 1 };
  const after = await compare(memory, expected);
  yield { kind: 'report', checks: after, healthy: after.every((c) => c.ok), rebuilt: true };
}

type Expected = Awaited<ReturnType<typeof expectedRows>>;

async function compare(memory: Memory, expected: Expected): Promise<DoctorCheck[]> {
  let wrongPostings = 0;
  let extraPostings = 0;
  let postingsCount = 0;
  for await (const [key, value] of memory.tables.postings.iterator()) {
    postingsCount++;
    const want = expected.postings.get(key);
    if (want === undefined) extraPostings++;
    else if (!isDeepStrictEqual(want, value)) wrongPostings++;
  }
  const missingPostings = expected.postings.size - (postingsCount - extraPostings);
  const recencyKeys = new Set(await memory.tables.recency.keys().all());
  const vectorKeys = new Set(await memory.tables.vectors.keys().all());
  const memoryMismatch = [...expected.indexedPerNamespace].filter(([agentId, n]) => (memory.catalog.get(agentId)?.size ?? 0) !== n);
  const vectorsMissingInIndex = expected.facts.filter(
    (f) => f.vectorKey && !memory.vectorsOff && !memory.catalog.get(f.agentId)?.vectors?.has(f.vectorKey),
  ).length;
  return [
    check('keyword postings', missingPostings + wrongPostings + extraPostings === 0, `${missingPostings} missing, ${wrongPostings} differ from the text, ${extraPostings} orphaned`),
    check('recency', sameSet(recencyKeys, expected.recency), `${difference(expected.recency, recencyKeys)} missing, ${difference(recencyKeys, expected.recency)} orphaned`),
    check('vectors', sameSet(vectorKeys, expected.vectors), `${difference(expected.vectors, vectorKeys)} missing, ${difference(vectorKeys, expected.vectors)} orphaned`),
    check('in-memory keyword and recency indexes', memoryMismatch.length === 0, `${memoryMismatch.length} namespaces differ from the facts`),
    check('vector index', vectorsMissingInIndex === 0, `${vectorsMissingInIndex} stored vectors are not in the search index`),
  ];
}

function check(name: string, ok: boolean, detail: string): DoctorCheck {
  return { name, ok, detail: ok ? 'agrees with the facts' : detail };
}

const difference = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x)).length;
const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && difference(a, b) === 0;

/** Replaces the postings and recency tables with rows computed from the facts, and drops vector
 *  rows no fact points to. Batches are synced: a crash mid-way leaves tables doctor can redo. */
async function* rewriteDerivedTables(memory: Memory, expected: Expected): AsyncGenerator<DoctorEvent> {
  const { tables } = memory;
  const del = (sublevel: unknown, key: string) => ({ type: 'del', sublevel, key }) as BatchOp;
  const put = (sublevel: unknown, key: string, value: unknown) => ({ type: 'put', sublevel, key, value }) as BatchOp;
  const ops: BatchOp[] = [];
  for (const key of await tables.postings.keys().all()) if (!expected.postings.has(key)) ops.push(del(tables.postings, key));
  for (const key of await tables.recency.keys().all()) if (!expected.recency.has(key)) ops.push(del(tables.recency, key));
  for (const key of await tables.vectors.keys().all()) if (!expected.vectors.has(key)) ops.push(del(tables.vectors, key));
  for (const [key, value] of expected.postings) ops.push(put(tables.postings, key, value));
  for (const key of expected.recency) ops.push(put(tables.recency, key, ''));
  const BATCH = 5000;
  for (let i = 0; i < ops.length; i += BATCH) {
    await tables.db.batch(ops.slice(i, i + BATCH), { sync: true });
    yield { kind: 'progress', phase: 'rewriting derived tables', done: Math.min(i + BATCH, ops.length), total: ops.length };
  }
}
