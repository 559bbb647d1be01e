// Vector: cosine distance between the query's embedding and each fact's, through the
// namespace's USearch index; a fixed number of nearest eligible neighbours take ranks.
import type { NamespaceIndex } from '../../index/namespace.ts';
import type { DocFilter } from '../filters.ts';
import type { MatchRanking, MatchSignal, RankMap, VectorReader } from '../signal.ts';

export const vectorSignal = {
  name: 'vector',
  kind: 'match',
  applies: (query) => query.vector !== null,
  rank: ({ ns, query, topK, depth, filter, readVectors }) => vectorRanks(ns, query.vector!, depth ?? vectorCandidateCount(topK), filter, readVectors, 1 - query.matchSimilarity),
} as const satisfies MatchSignal;

/** How many nearest eligible neighbours the vector signal ranks: a fixed function of top_k, so
 *  the same query always sees the same candidate list. */
export const vectorCandidateCount = (topK: number): number => Math.max(64, topK * 8);

/** Below this many eligible vectors a filtered query is answered exactly, by brute force. */
const EXACT_LIMIT = 4096;

/** USearch has no filtered search. A filtered query over a small eligible set is searched
 *  exactly; otherwise the neighbour count widens with the same query vector until enough
 *  eligible hits are found or the whole graph was searched, and if the graph still yields fewer
 *  than exist, the eligible set is searched exactly. A short list is never taken as proof that
 *  nothing else matched. */
async function vectorRanks(
  ns: NamespaceIndex,
  query: Float32Array,
  wanted: number,
  filter: DocFilter | null,
  readVectors: VectorReader,
  /** Cosine distance at or below which a neighbour matches the query. */
  matchDistance: number,
): Promise<MatchRanking> {
  const index = ns.vectors;
  if (!index || index.size === 0) return { ranks: new Map(), matched: new Set(), searched: 0 };
  if (index.wantsExact) {
    const keys = index.allKeys();
    const vectors = await readVectors(ns.agentId, keys);
    index.restoreExact(keys.flatMap((key, i) => (vectors[i] ? [[key, vectors[i]!] as const] : [])));
  }
  const held = index.exactVectors();
  if (held) return exactOver(ns, query, wanted, [...held.keys()], [...held.values()], filter, matchDistance);
  const eligibleKeys = filter ? eligibleVectorKeys(ns, filter) : null;
  if (eligibleKeys && eligibleKeys.length <= EXACT_LIMIT) return exactRanks(ns, query, wanted, eligibleKeys, readVectors, matchDistance);
  let count = Math.min(wanted, index.size);
  for (;;) {
    const hits = await graphHits(ns, query, count, filter);
    const enough = hits.length >= wanted || hits.length === (eligibleKeys?.length ?? index.size);
    if (enough) return { ...toRanks(ns, hits, wanted, matchDistance), searched: count };
    if (count >= index.size) return exactRanks(ns, query, wanted, eligibleKeys ?? [...index.allKeys()], readVectors, matchDistance);
    count = Math.min(index.size, count * 4);
  }
}

interface VectorHitDoc {
  doc: number;
  distance: number;
}

async function graphHits(ns: NamespaceIndex, query: Float32Array, count: number, filter: DocFilter | null): Promise<VectorHitDoc[]> {
  const hits: VectorHitDoc[] = [];
  for (const hit of await ns.vectors!.search(query, count)) {
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

/** Cosine distance by brute force over the given vectors, read from the store. */
async function exactRanks(ns: NamespaceIndex, query: Float32Array, wanted: number, keys: number[], readVectors: VectorReader, matchDistance: number): Promise<MatchRanking> {
  return exactOver(ns, query, wanted, keys, await readVectors(ns.agentId, keys), null, matchDistance);
}

/** Cosine distance by brute force over these vectors (all stored L2-normalised), eligible docs only. */
function exactOver(ns: NamespaceIndex, query: Float32Array, wanted: number, keys: readonly number[], vectors: readonly (Float32Array | undefined)[], filter: DocFilter | null, matchDistance: number): MatchRanking {
  const hits: VectorHitDoc[] = [];
  keys.forEach((key, i) => {
    const doc = ns.docOfVectorKey(key);
    const vector = vectors[i];
    if (doc === undefined || !vector || (filter && !filter(ns.doc(doc)))) return;
    let dot = 0;
    for (let d = 0; d < vector.length; d++) dot += vector[d]! * query[d]!;
    hits.push({ doc, distance: 1 - dot });
  });
  // Searched = the eligible vectors compared with the query (all of them: the search is exact).
  return { ...toRanks(ns, hits, wanted, matchDistance), searched: hits.length };
}

function toRanks(ns: NamespaceIndex, hits: VectorHitDoc[], wanted: number, matchDistance: number): { ranks: RankMap; matched: Set<number> } {
  hits.sort((a, b) => a.distance - b.distance || ns.idOrder(a.doc, b.doc));
  const ranks: RankMap = new Map();
  const matched = new Set<number>();
  hits.slice(0, wanted).forEach((hit, i) => {
    ranks.set(hit.doc, i + 1);
    if (hit.distance <= matchDistance) matched.add(hit.doc);
  });
  return { ranks, matched };
}
