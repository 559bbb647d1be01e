// How every HNSW graph is built and searched. M = 16 and USearch's default expansions: exact
// enough at this size, and bit-identical on every search. The vectors are 16-bit floats: measured
// on 100k sentence vectors (npm run bench:hnsw), they find exactly as many of the exact nearest
// 160 as 32-bit floats (0.882) with 1.5–1.7x the inserts per second, faster searches and a file
// 37% smaller. The store keeps every vector in 32 bits, and exact searches (small namespaces,
// filtered ones) read those.
export const GRAPH_SETTINGS = { connectivity: 16, expansionAdd: 128, expansionSearch: 64, scalar: 'f16' } as const;
