// How every HNSW graph is built and searched. M = 16; each insert explores 64 candidates and each
// search 96 (or the number of neighbours asked for, when more). Measured on 100k sentence vectors
// of the offline embedder, one insert thread, k 64 (the vector signal's depth at the default
// top_k; npm run bench:hnsw): 64 / 96 inserts twice as fast as USearch's default 128 / 64
// (10.0–10.5k vs 4.8–5.1k a second) and finds as many of the exact nearest (0.856 vs 0.849), for
// a search ~0.05 ms longer; inserting is what bounds bulk writes, and a search runs beside the
// keyword signal's scoring. The vectors are 16-bit floats: they find exactly as many of the exact
// nearest 160 as 32-bit floats (0.882) with 1.5–1.7x the inserts per second, faster searches and
// a file 37% smaller. The store keeps every vector in 32 bits, and exact searches (small
// namespaces, filtered ones) read those. A graph saved with other expansions loads unchanged: they
// are how it is built and searched, not what it holds.
export const GRAPH_SETTINGS = { connectivity: 16, expansionAdd: 64, expansionSearch: 96, scalar: 'f16' } as const;
