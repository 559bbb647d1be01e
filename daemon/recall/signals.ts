// The three signals of one namespace, each as doc → 1-based rank over the eligible docs. Every
// signal orders ties by doc number, which is id order, so ranks are total and repeatable.
import type { NamespaceIndex } from '../index/namespace.ts';
import type { DocFilter } from './filters.ts';

export type RankMap = Map<number, number>;

/** How deep the keyword signal ranks: a fact below this BM25 position gets keyword rank 0, as a
 *  fact outside the vector neighbours gets vector rank 0. A fixed function of top_k. */
export const keywordCandidateCount = (topK: number): number => Math.max(100, topK * 10);

export function keywordRanks(ns: NamespaceIndex, queryTerms: readonly string[], filter: DocFilter | null, limit: number): RankMap {
  const ranks: RankMap = new Map();
  if (queryTerms.length === 0) return ranks;
  const eligible = filter ? (doc: number) => filter(ns.doc(doc)) : undefined;
  ns.keyword.search(queryTerms, { eligible, limit }).forEach((hit, i) => ranks.set(hit.doc, i + 1));
  return ranks;
}

/** How many nearest eligible neighbours the vector signal ranks: a fixed function of top_k, so
 *  the same query always sees the same candidate list. */
export const vectorCandidateCount = (topK: number): number => Math.max(64, topK * 8);

export interface VectorRanking {
  ranks: RankMap;
  /** How many neighbours were searched in the end (after widening). */
  searched: number;
}

/** Reads stored vectors by vector key (from LevelDB: the HNSW graph cannot hand them back). */
export type VectorReader = (agentId: string, keys: number[]) => Promise<(Float32Array | undefined)[]>;

/** Below this many eligible vectors a filtered query is answered exactly, by brute force. */
const EXACT_LIMIT = 4096;

/** USearch has no filtered search. A filtered query over a small eligible set is searched
 *  exactly; otherwise the neighbour count widens with the same query vector until enough
 *  eligible hits are found or the whole graph was searched, and if the graph still yields fewer
 *  than exist, the eligible set is searched exactly. A short list is never taken as proof that
 *  nothing else matched. */
export async function vectorRanks(
  ns: NamespaceIndex,
  query: Float32Array,
  wanted: number,
  filter: DocFilter | null,
  readVectors: VectorReader,
): Promise<VectorRanking> {
  const index = ns.vectors;
  if (!index || index.size === 0) return { ranks: new Map(), searched: 0 };
  const eligibleKeys = filter ? eligibleVectorKeys(ns, filter) : null;
  if (eligibleKeys && eligibleKeys.length <= EXACT_LIMIT) return exactRanks(ns, query, wanted, eligibleKeys, readVectors);
  let count = Math.min(wanted, index.size);
  for (;;) {
    const hits = graphHits(ns, query, count, filter);
    const enough = hits.length >= wanted || hits.length === (eligibleKeys?.length ?? index.size);
    if (enough) return { ranks: toRanks(hits, wanted), searched: count };
    if (count >= index.size) return exactRanks(ns, query, wanted, eligibleKeys ?? [...index.allKeys()], readVectors);
    count = Math.min(index.size, count * 4);
  }
}

interface VectorHitDoc {
  doc: number;
  distance: number;
}

function graphHits(ns: NamespaceIndex, query: Float32Array, count: number, filter: DocFilter | null): VectorHitDoc[] {
  const hits: VectorHitDoc[] = [];
  for (const hit of ns.vectors!.search(query, count)) {
    const doc = ns.docOfVectorKey(hit.key);
    // A key without a live doc is a stale entry of a saved index; it never takes a rank.
    if (doc !== undefined && (!filter || filter(ns.doc(doc)))) hits.push({ doc, distance: hit.distance });
  }
  return hits;
}

function eligibleVectorKeys(ns: NamespaceIndex, filter: DocFilter): number[] {
  const keys: number[] = [];
  for (const doc of ns.docsInOrder()) {
    const info = ns.doc(doc);
    if (info.vectorKey && filter(info)) keys.push(info.vectorKey);
  }
  return keys;
}

/** Cosine distance by brute force over the given vectors (all stored L2-normalised). */
async function exactRanks(ns: NamespaceIndex, query: Float32Array, wanted: number, keys: number[], readVectors: VectorReader): Promise<VectorRanking> {
  const vectors = await readVectors(ns.agentId, keys);
  const hits: VectorHitDoc[] = [];
  keys.forEach((key, i) => {
    const doc = ns.docOfVectorKey(key);
    const vector = vectors[i];
    if (doc === undefined || !vector) return;
    let dot = 0;
    for (let d = 0; d < vector.length; d++) dot += vector[d]! * query[d]!;
    hits.push({ doc, distance: 1 - dot });
  });
  return { ranks: toRanks(hits, wanted), searched: keys.length };
}

function toRanks(hits: VectorHitDoc[], wanted: number): RankMap {
  hits.sort((a, b) => a.distance - b.distance || a.doc - b.doc);
  const ranks: RankMap = new Map();
  hits.slice(0, wanted).forEach((hit, i) => ranks.set(hit.doc, i + 1));
  return ranks;
}
