// How every HNSW graph is built and searched. M = 16; each insert explores 40 candidates and each
// search 160 (or the number of neighbours asked for, when more); the vectors are 8-bit integers.
// Measured on 100k sentence vectors of the offline embedder, one insert thread, k 64 (the vector
// signal's depth at the default top_k; npm run bench:hnsw, two runs): 40 / 160 / i8 inserts
// 2.0–2.7x as fast as 64 / 96 / f16 (20–24k vs 9–11k a second) and searches as fast or faster
// (0.16–0.20 vs 0.27 ms), for 0.846 of the exact nearest found against 0.856; inserting is what
// bounds bulk writes, on a machine whose other core is busy with the writes themselves. 8-bit
// vectors alone insert 1.2x as fast as 16-bit ones and find 0.842; the smaller insert expansion
// does the rest, and the larger search expansion wins back what it loses. The store keeps every
// vector in 32 bits, and exact searches (small namespaces, filtered ones) read those. A graph
// saved with another scalar kind is rebuilt from the store once, at startup (vectors.ts); one
// saved with other expansions loads unchanged: they are how it is built and searched, not what
// it holds.
export const GRAPH_SETTINGS = { connectivity: 16, expansionAdd: 40, expansionSearch: 160, scalar: 'i8' } as const;
