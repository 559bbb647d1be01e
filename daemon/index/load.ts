// Start-up: rebuild the in-memory indexes from LevelDB. Keyword terms come from the persisted
// postings (no re-tokenising), read alongside the facts in key order; vectors from the saved
// USearch files caught up from the vectors table (no re-embedding). Facts are read in key order,
// i.e. per namespace in id order.
import { join } from 'node:path';
import type { StoredPostings, Tables } from '../store/database.ts';
import { compareKeys, factKey, namespaceRange, splitVectorEntryKey, vectorEntryKey } from '../store/keys.ts';
import type { FactRecord } from '../store/record.ts';
import { decodeFact } from '../store/record.ts';
import type { Catalog } from './catalog.ts';
import { docOf, fromStoredPostings, isIndexed, termsOf } from './derive.ts';
import { NamespaceIndex } from './namespace.ts';
import type { Snapshot } from './snapshot.ts';
import { BloomFilter } from '../store/bloom.ts';
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

/** Read-ahead of the table iterators: fewer thread-pool round trips at start-up. */
const READ_AHEAD_BYTES = 4 * 1024 * 1024;
// classic-level's read-ahead option passes through sublevels; abstract-level's types omit it.
const READ_AHEAD = { highWaterMarkBytes: READ_AHEAD_BYTES } as { limit?: number };

/** `storedPostings` false: the stored keyword rows were made by another tokenizer version, so
 *  every fact's terms are computed from its text instead (slower, but never stale). */
export async function loadCatalog(tables: Tables, catalog: Catalog, space: VectorSpace | null, storedPostings = true): Promise<LoadResult> {
  const result: LoadResult = { facts: 0, indexed: 0, missingPostings: 0, nextVectorKey: 1, unembedded: [] };
  const postings = storedPostings ? new PostingsCursor(tables) : null;
  try {
    for await (const raw of tables.facts.values(READ_AHEAD)) {
      const fact = decodeFact(raw);
      result.facts++;
      result.nextVectorKey = Math.max(result.nextVectorKey, fact.vectorKey + 1);
      if (isLiveAlias(fact)) loadAlias(catalog, fact);
      if (!isIndexed(fact)) continue;
      if (fact.embedder !== space?.embedder) result.unembedded.push(fact);
      const stored = postings && (await postings.take(factKey(fact.agentId, fact.id)));
      if (postings && !stored) result.missingPostings++;
      catalog.ensure(fact.agentId).add(docOf(fact), stored ? fromStoredPostings(stored) : termsOf(fact));
      result.indexed++;
    }
  } finally {
    await postings?.close();
  }
  if (space) await loadVectorIndexes(tables, catalog, space);
  return result;
}

/**
 * Walks the postings table alongside the facts table. Both are keyed by fact key and read in key
 * order, so a merge join finds each fact's row with one sequential read instead of a point lookup
 * per fact (at a million facts, seconds of start-up).
 */
class PostingsCursor {
  private readonly iterator;
  private buffer: [string, StoredPostings][] = [];
  private at = 0;
  private done = false;

  constructor(tables: Tables) {
    this.iterator = tables.postings.iterator(READ_AHEAD);
  }

  /** The row for `key`, or undefined if the table has none. Keys must be asked in key order. */
  async take(key: string): Promise<StoredPostings | undefined> {
    for (;;) {
      if (this.at === this.buffer.length) {
        if (this.done) return undefined;
        this.buffer = await this.iterator.nextv(1000);
        this.at = 0;
        if (this.buffer.length === 0) this.done = true;
        continue;
      }
      const [rowKey, row] = this.buffer[this.at]!;
      const order = compareKeys(rowKey, key);
      if (order > 0) return undefined;
      this.at++;
      if (order === 0) return row;
      // order < 0: a row whose fact is gone or not indexed; doctor reports those.
    }
  }

  close(): Promise<void> {
    return this.iterator.close();
  }
}

/** What a snapshot restores: everything start-up would otherwise rebuild from the facts. */
export interface Restored {
  namespaces: NamespaceIndex[];
  requestIds: BloomFilter;
  pending: Snapshot['pending'];
}

/** Builds the in-memory state of a snapshot; throws if any part of it is inconsistent, so the
 *  caller rebuilds from the store (nothing built from a damaged snapshot is ever used). */
export function restoreSnapshot(snapshot: Snapshot): Restored {
  return {
    namespaces: snapshot.namespaces.map((state) => NamespaceIndex.fromState(state)),
    requestIds: new BloomFilter(snapshot.requestIds),
    pending: snapshot.pending,
  };
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
  // The saved index holds every key up to coveredKey that was live when it was saved, so only
  // later keys are read (the table is ~400 bytes a fact: a full scan would cost seconds at 1M).
  const range = namespaceRange(ns.agentId);
  const after = saved ? vectorEntryKey(ns.agentId, saved.info.coveredKey) : range.gt;
  for await (const [key, bytes] of tables.vectors.iterator({ gt: after, lt: range.lt })) {
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
