import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { createEmbedder } from '../../daemon/embed/index.ts';
import { noneEmbedder } from '../../daemon/embed/none.ts';
import type { Embedder } from '../../daemon/embed/provider.ts';
import { buildWordVectorCache, loadWordVectorEmbedder } from '../../daemon/embed/word-vectors.ts';
import { nearestWords, NEIGHBOURS_PER_WORD } from '../../daemon/embed/word-neighbours.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

function cosine(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

function norm(v: Float32Array): number {
  return Math.sqrt(cosine(v, v));
}

function hex(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
}

async function embedOne(embedder: Embedder, text: string): Promise<Float32Array> {
  const [vector] = await embedder.embed([text]);
  if (!vector) throw new Error(`no vector for ${JSON.stringify(text)}`);
  return vector;
}

describe('local word-vector embedder', () => {
  let local: Embedder;

  // The first run on a machine converts the 300 MB JSON into the binary cache (~10–20 s).
  beforeAll(async () => {
    local = await loadWordVectorEmbedder();
  }, 120_000);

  test('has a stable id and 100 dimensions', () => {
    expect(local.id).toBe('local:wink-sg-100d-sif-v1');
    expect(local.dimensions).toBe(100);
  });

  test('gives one unit-length 100-d Float32Array per text, in order', async () => {
    const texts = ['the cat sat on the rug', 'Quarterly tax filing deadline!', 'I moved to Berlin in 2019'];
    const vectors = await local.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v!.length).toBe(100);
      expect(norm(v!)).toBeCloseTo(1, 5);
    }
    expect(cosine(vectors[0]!, vectors[1]!)).toBeLessThan(0.99);
  });

  test('places related sentences closer than unrelated ones', async () => {
    const cat = await embedOne(local, 'the cat sat on the rug');
    const kitten = await embedOne(local, 'a kitten rested on the carpet');
    const tax = await embedOne(local, 'quarterly tax filing deadline');
    expect(cosine(cat, kitten)).toBeGreaterThan(cosine(cat, tax));
  });

  test('is case- and punctuation-insensitive through the tokenizer', async () => {
    const a = await embedOne(local, 'The cat sat on the rug.');
    const b = await embedOne(local, 'the CAT, sat on the rug');
    expect(hex(a)).toBe(hex(b));
  });

  test('gives null for a text with no known word (stopwords do not count)', async () => {
    const vectors = await local.embed(['zqxjkvw blorptangle', '', '!!! ...', 'what did you do?']);
    expect(vectors).toEqual([null, null, null, null]);
  });

  test('unknown words are ignored next to known ones', async () => {
    const plain = await embedOne(local, 'coffee with friends');
    const noisy = await embedOne(local, 'coffee zqxjkvw with friends');
    expect(hex(noisy)).toBe(hex(plain));
  });

  test('is bit-identical across calls and within a batch', async () => {
    const text = 'Melanie painted a sunrise over the lake last summer';
    const first = await embedOne(local, text);
    const [second, third] = await local.embed([text, text]);
    expect(hex(second!)).toBe(hex(first));
    expect(hex(third!)).toBe(hex(first));
  });

  test('is bit-identical in another process', async () => {
    const text = 'Caroline went to an LGBTQ support group yesterday';
    const script = `
      const { loadWordVectorEmbedder } = await import('./daemon/embed/word-vectors.ts');
      const [v] = await (await loadWordVectorEmbedder()).embed([${JSON.stringify(text)}]);
      process.stdout.write(Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex'));
    `;
    const child = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    expect(child).toBe(hex(await embedOne(local, text)));
  }, 60_000);

  test('is shared: loading twice gives the same instance', async () => {
    expect(await loadWordVectorEmbedder()).toBe(local);
    expect(await createEmbedder('local')).toBe(local);
  });
});

describe('word-vector cache', () => {
  test('building again is a no-op returning the same file', async () => {
    const first = await buildWordVectorCache();
    const started = performance.now();
    expect(await buildWordVectorCache()).toBe(first);
    expect(performance.now() - started).toBeLessThan(1_000);
  }, 120_000);

  test('ENGRAM_CACHE_DIR chooses where the cache lives', async () => {
    const existing = await buildWordVectorCache();
    const dir = await mkdtemp(path.join(tmpdir(), 'engram-cache-'));
    const saved = process.env.ENGRAM_CACHE_DIR;
    try {
      // A valid cache already in the chosen directory is used as is (no rebuild).
      await copyFile(existing, path.join(dir, path.basename(existing)));
      process.env.ENGRAM_CACHE_DIR = dir;
      expect(await buildWordVectorCache()).toBe(path.join(dir, path.basename(existing)));
    } finally {
      if (saved === undefined) delete process.env.ENGRAM_CACHE_DIR;
      else process.env.ENGRAM_CACHE_DIR = saved;
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('none embedder', () => {
  test('has no dimensions and returns one null per text', async () => {
    expect(noneEmbedder.id).toBe('none');
    expect(noneEmbedder.dimensions).toBe(0);
    expect(await noneEmbedder.embed(['the cat sat on the rug', ''])).toEqual([null, null]);
    expect(await noneEmbedder.embed([])).toEqual([]);
  });
});

describe('createEmbedder', () => {
  test("'none' gives the none embedder", async () => {
    expect(await createEmbedder('none')).toBe(noneEmbedder);
  });

  test('an unknown name is an error that lists the valid names', async () => {
    // @ts-expect-error — names arrive from flags and config files at run time
    await expect(createEmbedder('word2vec')).rejects.toThrow(/unknown embedder "word2vec".*local, ollama, openai, none/);
  });
});

describe('word neighbours', () => {
  test('each row gets its nearest other rows by cosine, most similar first, the same on every build', () => {
    // 300 random rows in 8 dimensions; a brute-force scan is the reference.
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
    const d = 8;
    const n = 300;
    const matrix = Float32Array.from({ length: n * d }, random);
    const table = nearestWords(matrix, d, n);
    const unit = (r: number) => {
      const v = matrix.subarray(r * d, (r + 1) * d);
      const norm = Math.hypot(...v);
      return [...v].map((x) => x / norm);
    };
    const cos = (a: number, b: number) => unit(a).reduce((s, x, k) => s + x * unit(b)[k]!, 0);
    let agree = 0;
    for (let r = 0; r < n; r++) {
      const best = [...Array(n).keys()].filter((q) => q !== r).sort((a, b) => cos(r, b) - cos(r, a))[0]!;
      if (table.rows[r * NEIGHBOURS_PER_WORD] === best) agree++;
      const sims = [...table.similarities.subarray(r * NEIGHBOURS_PER_WORD, (r + 1) * NEIGHBOURS_PER_WORD)];
      expect(sims).toEqual([...sims].sort((a, b) => b - a));
      expect([...table.rows.subarray(r * NEIGHBOURS_PER_WORD, (r + 1) * NEIGHBOURS_PER_WORD)]).not.toContain(r);
      expect(sims[0]).toBeCloseTo(cos(r, table.rows[r * NEIGHBOURS_PER_WORD]!), 4);
    }
    expect(agree).toBeGreaterThanOrEqual(n * 0.98);
    expect(nearestWords(matrix, d, n)).toEqual(table);
  });

  test('the local embedder knows the nearest words of a frequent word', async () => {
    const local = await loadWordVectorEmbedder();
    const near = local.similarWords!('movie', 3).map((n) => n.word);
    expect(near).toContain('film');
    expect(local.similarWords!('qzxwvjk', 3)).toEqual([]);
  });
});
