// In-process recall timing: Memory without gRPC, to see the core's own cost.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Memory } from '../daemon/memory.ts';
import { openTables } from '../daemon/store/database.ts';
import { createEmbedder } from '../daemon/embed/index.ts';
import { DEFAULT_WEIGHTS } from '../daemon/recall/fusion.ts';
import { DEFAULT_LIMITS } from '../shared/validate.ts';
import { generateFacts, generateQueries } from '../bench/corpus.ts';

const n = Number(process.argv[2] ?? 30000);
const emb = process.argv[3] ?? 'none';
const dir = mkdtempSync(join(tmpdir(), 'micro-'));
const tables = await openTables(join(dir, 'store'));
const memory = await Memory.open({ dataDir: dir, embedder: await createEmbedder(emb as 'none'), limits: DEFAULT_LIMITS, recallDefaults: { weights: { ...DEFAULT_WEIGHTS }, minRelevance: 0 }, log: () => {} }, tables);
const facts = generateFacts(n);
let t = performance.now();
for (let i = 0; i < facts.length; i += 64) await Promise.all(facts.slice(i, i + 64).map((text) => memory.put({ agentId: 'a', text })));
console.log(`load ${n}: ${((performance.now() - t) / 1000).toFixed(1)} s, ${(n / ((performance.now() - t) / 1000)).toFixed(0)} puts/s`);
const queries = generateQueries(facts, 400);
for (const q of queries.slice(0, 50)) await memory.recall('a', q, undefined);
const times: number[] = [];
if (process.argv[4] === 'prof') { const { Session } = await import('node:inspector/promises'); }
for (const q of queries) { const s = performance.now(); await memory.recall('a', q, undefined); times.push(performance.now() - s); }
times.sort((a, b) => a - b);
console.log(`recall p50 ${times[Math.floor(times.length * 0.5)]!.toFixed(3)} ms p99 ${times[Math.floor(times.length * 0.99)]!.toFixed(3)} ms`);
await memory.close();
// phase timing
{
  const dir2 = mkdtempSync(join(tmpdir(), 'micro2-'));
  const t2 = await openTables(join(dir2, 'store'));
  const m2 = await Memory.open({ dataDir: dir2, embedder: await createEmbedder(emb as 'none'), limits: DEFAULT_LIMITS, recallDefaults: { weights: { ...DEFAULT_WEIGHTS }, minRelevance: 0 }, log: () => {} }, t2);
  for (let i = 0; i < facts.length; i += 64) await Promise.all(facts.slice(i, i + 64).map((text) => m2.put({ agentId: 'a', text })));
  let gm = 0; const orig = m2.store.getMany.bind(m2.store);
  m2.store.getMany = async (k) => { const s = performance.now(); const r = await orig(k); gm += performance.now() - s; return r; };
  const { rankNamespace } = await import('../daemon/recall/rank.ts');
  const { terms } = await import('../daemon/index/tokenizer.ts');
  let rk = 0; const ns = m2.namespace('a')!;
  const plan = { topK: 8, weights: { ...DEFAULT_WEIGHTS }, minRelevance: 0, filter: null };
  for (const q of queries) { const s = performance.now(); await rankNamespace(ns, { terms: terms(q), vector: null }, plan, m2.readVectors); rk += performance.now() - s; }
  let all = 0; for (const q of queries) { const s = performance.now(); await m2.recall('a', q, undefined); all += performance.now() - s; }
  console.log(`per query: rank ${(rk / queries.length).toFixed(3)} ms, full recall ${(all / queries.length).toFixed(3)} ms, getMany ${(gm / queries.length).toFixed(3)} ms`);
  await m2.close();
}
