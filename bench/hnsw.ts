// `npm run bench:hnsw [-- --facts 100000] [-- --k 64] [-- --queries 1500] [-- --settings
// 128/64/f16/16,64/192/f16/16]`: what the HNSW graph's build and search settings (expansion_add /
// expansion_search / scalar kind / connectivity) cost and find, on the offline embedder's sentence
// vectors of generated facts: inserts per second (batches of 256 on one thread, as the daemon's
// graph thread adds them), search time, and how many of the exact nearest k each setting finds.
// The first row is the daemon's own setting (daemon/index/graph-settings.ts); k 64 is the vector
// signal's depth at the default top_k (8). USearch searches max(k, expansion_search) candidates,
// so an expansion_search below k changes nothing. Prints a report; never asserts.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exactSearch, Index, MetricKind, ScalarKind } from 'usearch';
import { createEmbedder } from '../daemon/embed/index.ts';
import { GRAPH_SETTINGS } from '../daemon/index/graph-settings.ts';
import { generateFacts, generateQueries } from './corpus.ts';
import { ms, table } from './stats.ts';
import { badArgument, benchArgs, positiveInt } from './args.ts';

const { values } = benchArgs('bench:hnsw', '[--facts 100000] [--k 64] [--queries 1500] [--settings add/search/scalar/connectivity,...]', { facts: { type: 'string', default: '100000' }, k: { type: 'string', default: '64' }, queries: { type: 'string', default: '1500' }, settings: { type: 'string' } });
const [count, k, queryCount] = (['facts', 'k', 'queries'] as const).map((flag) => positiveInt('bench:hnsw', flag, values[flag])) as [number, number, number];
if (k > count) badArgument('bench:hnsw', `--k must be at most --facts (${count}), got ${k}`);

interface Setting {
  add: number;
  search: number;
  scalar: 'f32' | 'f16' | 'i8';
  connectivity: number;
}

const SCALARS = { f32: ScalarKind.F32, f16: ScalarKind.F16, i8: ScalarKind.I8 } as const;

const { expansionAdd, expansionSearch, scalar, connectivity } = GRAPH_SETTINGS;
/** The daemon's first. */
const DEFAULT_SETTINGS = [`${expansionAdd}/${expansionSearch}/${scalar}/${connectivity}`, '128/64/f16/16', '128/192/f16/16', '64/192/f16/16', '64/256/f16/16', '128/64/i8/16'].filter((s, i, all) => all.indexOf(s) === i).join(',');

function parseSetting(text: string): Setting {
  const [add, search, scalar = 'f32', connectivity = '16'] = text.split('/');
  const setting = { add: Number(add), search: Number(search), scalar: scalar as Setting['scalar'], connectivity: Number(connectivity) };
  if (![setting.add, setting.search, setting.connectivity].every((n) => Number.isInteger(n) && n > 0) || !(setting.scalar in SCALARS)) {
    throw new Error(`--settings takes add/search[/f32|f16|i8[/connectivity]], comma-separated; got ${text}`);
  }
  return setting;
}
const SETTINGS = (values.settings ?? DEFAULT_SETTINGS).split(',').map(parseSetting);
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

function measure(data: Float32Array, queries: Float32Array, truth: BigUint64Array, dimensions: number, { add, search, scalar, connectivity }: Setting): string[] {
  const index = new Index({ dimensions, metric: MetricKind.Cos, quantization: SCALARS[scalar], connectivity, expansion_add: add, expansion_search: search, multi: false });
  const built = performance.now();
  for (let i = 0; i < count; i += BATCH) {
    const n = Math.min(BATCH, count - i);
    index.add(BigUint64Array.from({ length: n }, (_, j) => BigInt(i + j)), data.subarray(i * dimensions, (i + n) * dimensions), 1);
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
  return [`${add} / ${search}`, scalar, String(connectivity), String(Math.round(count / buildSeconds)), ms(searchMs), (found / (queryCount * k)).toFixed(3), (savedBytes(index) / 2 ** 20).toFixed(0)];
}

/** The size of the index's file: what it costs on disk and, loaded, in memory. */
function savedBytes(index: Index): number {
  const dir = mkdtempSync(join(tmpdir(), 'engram-hnsw-'));
  try {
    index.save(join(dir, 'index.usearch'));
    return statSync(join(dir, 'index.usearch')).size;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const dimensions = 100;
  const facts = generateFacts(count, 9);
  const data = await embedAll(facts, dimensions);
  const queries = await embedAll(generateQueries(facts, queryCount, 4), dimensions);
  const truth = (exactSearch(data, queries, dimensions, k, MetricKind.Cos, 0) as unknown as { keys: BigUint64Array }).keys;
  process.stdout.write(`HNSW settings — ${new Date().toISOString()}, ${count} sentence vectors (local embedder), ${queryCount} queries, k ${k}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  const rows = [['expansion add / search', 'scalar', 'connectivity', 'inserts/s', 'search ms', `recall@${k} vs exact`, 'file MiB']];
  for (const setting of SETTINGS) {
    process.stderr.write(`building with ${Object.values(setting).join(' / ')}\n`);
    rows.push(measure(data, queries, truth, dimensions, setting));
  }
  process.stdout.write(`${table(rows)}\n`);
}

await main();
