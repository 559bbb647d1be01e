// Deterministic benchmark text: facts recombined from LoCoMo conversation turns, and queries
// made of words of stored facts. Same seed ⇒ same facts and queries, on every machine.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The benchmark data beside the repository (../shared/data), wherever the clone is. */
export const LOCOMO_DEV = fileURLToPath(new URL('../../shared/data/locomo-dev.json', import.meta.url));
const MIN_WORDS = 10;
const MAX_WORDS = 25;

/** mulberry32: a tiny seeded PRNG returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const int = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1)); // inclusive

let turnsCache: string[][] | undefined;

/** Every turn's text of every session, as whitespace-separated words. */
export function loadTurns(path = LOCOMO_DEV): string[][] {
  if (turnsCache) return turnsCache;
  if (!existsSync(path)) {
    process.stderr.write(`bench: no benchmark data at ${path}: the benchmarks make their facts from the LoCoMo file in ../shared/data beside the repository; put locomo-dev.json there\n`);
    process.exit(2);
  }
  const samples = JSON.parse(readFileSync(path, 'utf8')) as { conversation: Record<string, unknown> }[];
  const turns: string[][] = [];
  for (const sample of samples) {
    for (const [key, value] of Object.entries(sample.conversation)) {
      if (!/^session_\d+$/.test(key) || !Array.isArray(value)) continue;
      for (const turn of value as { text?: string }[]) {
        const words = (turn.text ?? '').split(/\s+/).filter(Boolean);
        if (words.length >= 3) turns.push(words);
      }
    }
  }
  return (turnsCache = turns);
}

/** A run of `length` words of a turn, starting anywhere it fits. */
function window(rand: () => number, words: string[], length: number): string[] {
  const n = Math.min(length, words.length);
  const start = int(rand, 0, words.length - n);
  return words.slice(start, start + n);
}

/** `count` distinct facts of 10–25 words: a piece of one turn, then a piece of another. */
export function generateFacts(count: number, seed = 1): string[] {
  const rand = prng(seed);
  const turns = loadTurns();
  const seen = new Set<string>();
  const facts: string[] = [];
  while (facts.length < count) {
    const target = int(rand, MIN_WORDS, MAX_WORDS);
    const first = window(rand, turns[int(rand, 0, turns.length - 1)]!, int(rand, 4, target - 4));
    const second = window(rand, turns[int(rand, 0, turns.length - 1)]!, target - first.length);
    const words = [...first, ...second];
    if (words.length < MIN_WORDS) continue;
    let text = words.join(' ').replace(/[.!?,;:]+$/, '');
    text = `${text[0]!.toUpperCase()}${text.slice(1)}.`;
    if (seen.has(text)) continue;
    seen.add(text);
    facts.push(text);
  }
  return facts;
}

/** `count` queries of 2–6 words taken from random facts: half contiguous phrases, half
 *  scattered content words (≥ 4 letters), in the fact's order. */
export function generateQueries(facts: readonly string[], count: number, seed = 2): string[] {
  const rand = prng(seed);
  const queries: string[] = [];
  while (queries.length < count) {
    const words = (facts[int(rand, 0, facts.length - 1)]!.toLowerCase().match(/[a-z0-9']+/g) ?? []);
    const length = int(rand, 2, 6);
    let picked: string[];
    if (rand() < 0.5) {
      picked = window(rand, words, length);
    } else {
      const content = words.filter((w) => w.length >= 4);
      picked = content.filter(() => rand() < length / Math.max(content.length, 1)).slice(0, length);
    }
    if (picked.length >= 2) queries.push(picked.join(' '));
  }
  return queries;
}
