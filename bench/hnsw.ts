// `npm run bench:hnsw [-- --facts 100000] [-- --k 160] [-- --queries 1500]`: what the HNSW
// graph's build and search settings cost and find, on the offline embedder's sentence vectors of
// generated facts: inserts per second (batches of 256 with USearch's threads, as the daemon adds
// them), search time, and how many of the exact nearest k each setting finds. The daemon uses
// expansion_add 128 / expansion_search 64 (daemon/index/vectors.ts); k 160 is the vector
// signal's depth at top_k 20. Prints a report; never asserts.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { exactSearch, Index, MetricKind, ScalarKind } from 'usearch';
import { createEmbedder } from '../daemon/embed/index.ts';
import { generateFacts, generateQueries } from './corpus.ts';
import { ms, table } from './stats.ts';

const { values } = parseArgs({ options: { facts: { type: 'string', default: '100000' }, k: { type: 'string', default: '160' }, queries: { type: 'string', default: '1500' } } });
const [count, k, queryCount] = [values.facts, values.k, values.queries].map(Number) as [number, number, number];
if (![count, k, queryCount].every((n) => Number.isInteger(n) && n > 0) || k > count) throw new Error('--facts, --k and --queries take positive integers, k at most facts');

/** [expansion_add, expansion_search] pairs; the daemon's first. */
const SETTINGS: [number, number][] = [[128, 64], [128, 256], [64, 192], [64, 256], [32, 256]];
const BATCH = 256;

async function embedAll(texts: string[], dimensions: number): Promise<Float32Array> {
  const embedder = await createEmbedder('local');
  const out = new Float32Array(texts.length * dimensions);
  for (let i = 0; i < texts.length; i += 1000) {
    const vectors = await embedder.embed(texts.slice(i, i + 1000));
    vectors.forEach((v, j) => v && out.set(v, (i + j) * dimensions));
    process.stderr.write(`\rembedding: ${Math.min(i + 1000, texts.length)}/${texts.length}`);
  }
  process.stderr.write('\n');
  return out;
}

function measure(data: Float32Array, queries: Float32Array, truth: BigUint64Array, dimensions: number, [add, search]: [number, number]): string[] {
  const index = new Index({ dimensions, metric: MetricKind.Cos, quantization: ScalarKind.F32, connectivity: 16, expansion_add: add, expansion_search: search, multi: false });
  const built = performance.now();
  for (let i = 0; i < count; i += BATCH) {
    const n = Math.min(BATCH, count - i);
    index.add(BigUint64Array.from({ length: n }, (_, j) => BigInt(i + j)), data.subarray(i * dimensions, (i + n) * dimensions));
  }
  const buildSeconds = (performance.now() - built) / 1000;
  let found = 0;
  const searched = performance.now();
  for (let q = 0; q < queryCount; q++) {
    const hits = index.search(queries.subarray(q * dimensions, (q + 1) * dimensions), k, 1) as unknown as { keys: BigUint64Array };
    const got = new Set(hits.keys);
    for (let j = 0; j < k; j++) if (got.has(truth[q * k + j]!)) found++;
  }
  const searchMs = (performance.now() - searched) / queryCount;
  return [`${add} / ${search}`, String(Math.round(count / buildSeconds)), ms(searchMs), (found / (queryCount * k)).toFixed(3)];
}

async function main(): Promise<void> {
  const dimensions = 100;
  const facts = generateFacts(count, 9);
  const data = await embedAll(facts, dimensions);
  const queries = await embedAll(generateQueries(facts, queryCount, 4), dimensions);
  const truth = (exactSearch(data, queries, dimensions, k, MetricKind.Cos, 0) as unknown as { keys: BigUint64Array }).keys;
  process.stdout.write(`HNSW settings — ${new Date().toISOString()}, ${count} sentence vectors (local embedder), ${queryCount} queries, k ${k}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  const rows = [['expansion add / search', 'inserts/s', 'search ms', `recall@${k} vs exact`]];
  for (const setting of SETTINGS) {
    process.stderr.write(`building with ${setting.join(' / ')}\n`);
    rows.push(measure(data, queries, truth, dimensions, setting));
  }
  process.stdout.write(`${table(rows)}\n`);
}

await main();
