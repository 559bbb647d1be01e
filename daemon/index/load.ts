// Start-up: rebuild the in-memory indexes from LevelDB. Keyword terms come from the persisted
// postings (no re-tokenising), vectors from the saved USearch files caught up from the vectors
// table (no re-embedding). Facts are read in key order, i.e. per namespace in id order.
import { join } from 'node:path';
import type { StoredPostings, Tables } from '../store/database.ts';
import { splitVectorEntryKey, namespaceRange } from '../store/keys.ts';
import type { FactRecord } from '../store/record.ts';
import { decodeFact } from '../store/record.ts';
import type { Catalog } from './catalog.ts';
import { docOf, fromStoredPostings, isIndexed, termsOf } from './derive.ts';
import type { NamespaceIndex } from './namespace.ts';
import { VectorIndex } from './vectors.ts';
import { parseAliasMeta } from './aliases.ts';

export interface VectorSpace {
  embedder: string;
  dimensions: number;
  /** Folder of the saved indexes. */
  dir: string;
  /** false = ignore saved index files and rebuild from the vectors table (doctor --rebuild). */
  useSaved: boolean;
}

export interface LoadResult {
  facts: number;
  indexed: number;
  /** Facts whose postings had to be recomputed (a doctor finding, repaired in memory). */
  missingPostings: number;
  nextVectorKey: number;
  /** Recallable facts with no vector and no recorded embedder, or one other than the space's. */
  unembedded: FactRecord[];
}

const CHUNK = 1000;
/** Read-ahead of the facts iterator: fewer thread-pool round trips at start-up. */
const READ_AHEAD_BYTES = 4 * 1024 * 1024;

/** `storedPostings` false: the stored keyword rows were made by another tokenizer version, so
 *  every fact's terms are computed from its text instead (slower, but never stale). */
export async function loadCatalog(tables: Tables, catalog: Catalog, space: VectorSpace | null, storedPostings = true): Promise<LoadResult> {
  const result: LoadResult = { facts: 0, indexed: 0, missingPostings: 0, nextVectorKey: 1, unembedded: [] };
  let chunk: FactRecord[] = [];
  // A pipeline: while one chunk is being indexed, the next chunk's postings are being read and
  // the facts iterator reads ahead, so start-up waits on LevelDB as little as possible.
  let indexing: Promise<void> = Promise.resolve();
  const flush = async () => {
    const batch = chunk;
    chunk = [];
    if (batch.length === 0) return;
    const postings = storedPostings
      ? tables.postings.getMany(batch.map((f) => `${f.agentId}\u0000${f.id}`))
      : Promise.resolve(null);
    await indexing;
    indexing = postings.then((stored) => indexChunk(catalog, batch, stored, result));
  };
  // classic-level's read-ahead option passes through sublevels; abstract-level's types omit it.
  const readAhead = { highWaterMarkBytes: READ_AHEAD_BYTES } as { limit?: number };
  for await (const raw of tables.facts.values(readAhead)) {
    const fact = decodeFact(raw);
    result.facts++;
    result.nextVectorKey = Math.max(result.nextVectorKey, fact.vectorKey + 1);
    if (isLiveAlias(fact)) loadAlias(catalog, fact);
    if (!isIndexed(fact)) continue;
    if (fact.embedder !== space?.embedder) result.unembedded.push(fact);
    chunk.push(fact);
    if (chunk.length === CHUNK) await flush();
  }
  await flush();
  await indexing;
  if (space) await loadVectorIndexes(tables, catalog, space);
  return result;
}

/** Chunks are indexed in the order they were read, so each namespace is built in id order. */
function indexChunk(catalog: Catalog, facts: FactRecord[], stored: (StoredPostings | undefined)[] | null, result: LoadResult): void {
  facts.forEach((fact, i) => {
    const postings = stored?.[i];
    if (stored && !postings) result.missingPostings++;
    catalog.ensure(fact.agentId).add(docOf(fact), postings ? fromStoredPostings(postings) : termsOf(fact));
    result.indexed++;
  });
}

export const vectorIndexBase = (dir: string, agentId: string): string =>
  join(dir, Buffer.from(agentId, 'utf8').toString('base64url') || '_');

export async function loadVectorIndexes(tables: Tables, catalog: Catalog, space: VectorSpace): Promise<void> {
  for (const ns of catalog.all()) await loadVectors(tables, ns, space);
}

/** Loads the saved index if it matches, drops its stale keys, then adds what it lacks from LevelDB. */
async function loadVectors(tables: Tables, ns: NamespaceIndex, space: VectorSpace): Promise<void> {
  const saved = space.useSaved && VectorIndex.load(vectorIndexBase(space.dir, ns.agentId), space.embedder, space.dimensions);
  const index = (saved && saved.index) || new VectorIndex(space.dimensions);
  const inIndex = new Set(index.allKeys());
  for (const key of inIndex) if (ns.docOfVectorKey(key) === undefined) index.remove(key);
  for await (const [key, bytes] of tables.vectors.iterator(namespaceRange(ns.agentId))) {
    const { vectorKey } = splitVectorEntryKey(key);
    if (inIndex.has(vectorKey) || ns.docOfVectorKey(vectorKey) === undefined) continue;
    index.add(vectorKey, toFloat32(bytes));
  }
  index.flushPending();
  ns.vectors = index.size > 0 ? index : null;
}

/** LevelDB hands back views into shared buffers; copy into an aligned Float32Array. */
export function toFloat32(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

const isLiveAlias = (fact: FactRecord): boolean => fact.kind === 'alias' && fact.supersededBy === '';

export function loadAlias(catalog: Catalog, fact: FactRecord): void {
  const alias = parseAliasMeta(fact.meta);
  if (alias) catalog.ensure(fact.agentId).aliases.add(fact.id, alias.alias_term, alias.alias_equivalents);
}
