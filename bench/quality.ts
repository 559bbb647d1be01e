// `npm run bench:quality [-- --data FILE] [-- --k-max 20] [-- --embedder none]`: LoCoMo retrieval
// quality through a real daemon with its default recall settings. Each conversation is imported
// with the client's conversation importer into its own namespace, every evaluated question is
// recalled once (one query in flight), and recall@k = |evidence ∩ top-k| / |evidence| is averaged
// per category and overall. The run ends with the line "overall recall@10: 0.xxx".
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { connect, type EngramClient } from '../client/client.ts';
import type { RecallOptions } from '../client/options.ts';
import type { RecipeFields, SignalWeights } from '../shared/model.ts';
import { weightList } from '../shared/validate.ts';
import { importConversation } from '../client/import/conversation.ts';
import { cleanup, installSignalCleanup, removeTempDir, startDaemon, tempDir } from './daemon.ts';
import { LOCOMO_DEV } from './corpus.ts';
import { CATEGORIES, loadLocomo, type LocomoSample } from './locomo.ts';
import { ms, summarize, table } from './stats.ts';
import { badArgument, benchArgs, embedderArg, positiveInt } from './args.ts';
import { ProgressBar } from '../shared/progress-bar.ts';

const { values } = benchArgs('bench:quality', '[--data FILE] [--k-max 20] [--embedder local|none] [--kg] [--weights v,k,r[,d[,g]]]... [--recipe NAME]... [--save-recipe NAME:field=value,...]...', {
    data: { type: 'string', default: LOCOMO_DEV },
    'k-max': { type: 'string', default: '20' },
    embedder: { type: 'string', default: 'local' },
    /** Per-call signal weights to evaluate on the same imported store, "v,k,r[,d[,g]]" each; repeatable. */
    weights: { type: 'string', multiple: true },
    /** A retrieval recipe to evaluate on the same store (cheap, balanced, deep, ...); repeatable. */
    recipe: { type: 'string', multiple: true },
    /** A recipe saved before the runs, "name:field=value,...", fields as the REST body spells them
     *  (reranker=false, graph_depth=0, lexical_top_k=64, ...), merged over the built-in of that
     *  name or balanced; repeatable. */
    'save-recipe': { type: 'string', multiple: true },
    /** The daemon's knowledge graph: entities extracted from every imported turn (for the graph signal). */
    kg: { type: 'boolean', default: false },
});
const kMax = positiveInt('bench:quality', 'k-max', values['k-max']);
const embedder = embedderArg('bench:quality', 'embedder', values.embedder);
if (kMax < 10) badArgument('bench:quality', `--k-max must be 10 or more, got ${kMax}`);
if (!existsSync(values.data)) badArgument('bench:quality', `--data: no file ${values.data} (the LoCoMo data is read from ../shared/data beside the repository unless --data names a file)`);
/** What each evaluation varies on the same store: weights, a recipe, or nothing (the daemon's defaults). */
interface Run {
  label: string;
  options: RecallOptions;
}
const weightLabel = (w: SignalWeights) => [w.vector, w.keyword, w.recency, ...(w.decay || w.graph ? [w.decay] : []), ...(w.graph ? [w.graph] : [])].join(',');
const RUNS: Run[] = (values.weights ?? []).map((w) => {
  let list: number[] = [];
  try {
    list = weightList(w);
  } catch (error) {
    badArgument('bench:quality', `--weights: ${(error as Error).message}`);
  }
  const [vector, keyword, recency, decay = 0, graph = 0] = list;
  if (![vector, keyword, recency, decay, graph].every((n) => n! >= 0)) badArgument('bench:quality', `--weights takes v,k,r[,d[,g]] (three to five numbers >= 0), got ${w}`);
  const weights = { vector: vector!, keyword: keyword!, recency: recency!, decay, graph };
  return { label: `weights ${weightLabel(weights)}`, options: { weights } };
});
for (const recipe of values.recipe ?? []) RUNS.push({ label: `recipe ${recipe}`, options: { recipe } });
if (RUNS.length === 0) RUNS.push({ label: "the daemon's defaults", options: {} });
const KS = [...new Set([5, 10, 20, kMax])].filter((k) => k <= kMax).sort((a, b) => a - b);

interface Scored {
  category: number;
  /** recall at each k of KS, in order. */
  recall: number[];
}

/** Imports one conversation; returns fact id → dia id from the import's own id list. */
async function importSample(client: EngramClient, sample: LocomoSample): Promise<Map<string, string>> {
  const sessions = sample.sessions.map((s) => ({
    occurredAt: s.occurredAt,
    turns: s.turns.map((t) => ({ speaker: t.speaker, text: t.text, id: t.diaId })),
  }));
  let shown = 0;
  const { factIds } = await importConversation(client, sample.id, sessions, {
    source: 'locomo',
    onProgress: ({ done, total }) => {
      if (done === total || performance.now() - shown > 200) {
        shown = performance.now();
        process.stderr.write(`\rimport ${sample.id}: ${done}/${total}${done === total ? '\n' : ''}`);
      }
    },
  });
  const diaIds = sample.sessions.flatMap((s) => s.turns.map((t) => t.diaId));
  return new Map(factIds.map((id, i) => [id, diaIds[i]!]));
}

function turnIdOf(meta: Record<string, unknown>): string | undefined {
  return typeof meta.turn_id === 'string' ? meta.turn_id : undefined;
}

async function evaluate(client: EngramClient, sample: LocomoSample, idMap: Map<string, string>, latencies: number[], options: RecallOptions): Promise<Scored[]> {
  const scored: Scored[] = [];
  const bar = new ProgressBar();
  for (const [i, q] of sample.questions.entries()) {
    const started = performance.now();
    const { facts } = await client.recall(sample.id, q.question, { topK: kMax, ...options });
    latencies.push(performance.now() - started);
    const ranked = facts.map((f) => turnIdOf(f.meta) ?? idMap.get(f.id));
    const evidence = new Set(q.evidence);
    const recall = KS.map((k) => ranked.slice(0, k).filter((id) => id !== undefined && evidence.has(id)).length / evidence.size);
    scored.push({ category: q.category, recall });
    bar.update(`recall ${sample.id}`, i + 1, sample.questions.length);
  }
  bar.done();
  return scored;
}

function report(scored: Scored[]): string {
  const mean = (rows: Scored[], j: number) => rows.reduce((sum, r) => sum + r.recall[j]!, 0) / rows.length;
  const line = (label: string, rows: Scored[]) => [label, String(rows.length), ...KS.map((_, j) => (rows.length ? mean(rows, j).toFixed(3) : '—'))];
  const rows = [['category', 'questions', ...KS.map((k) => `R@${k}`)]];
  for (const [c, name] of Object.entries(CATEGORIES)) rows.push(line(`${c} ${name}`, scored.filter((s) => s.category === Number(c))));
  rows.push(line('overall', scored));
  return table(rows);
}

const RECIPE_KEYS: Record<string, keyof RecipeFields> = {
  vector_top_k: 'vectorTopK',
  lexical_top_k: 'lexicalTopK',
  graph_depth: 'graphDepth',
  reranker: 'reranker',
  token_budget: 'tokenBudget',
  prefer_verified: 'preferVerified',
  verified_only: 'verifiedOnly',
  include_evidence: 'includeEvidence',
};

/** "name:reranker=false,graph_depth=0" → the name and its fields. */
function recipeSpec(spec: string): [string, Partial<RecipeFields>] {
  const [name, rest = ''] = spec.split(':');
  const fields: Record<string, number | boolean> = {};
  for (const pair of rest.split(',').filter(Boolean)) {
    const [key, value] = pair.split('=');
    const field = RECIPE_KEYS[key!];
    if (!field || value === undefined) throw new Error(`--save-recipe takes name:field=value,... with fields ${Object.keys(RECIPE_KEYS).join(', ')}; got ${spec}`);
    fields[field] = value === 'true' ? true : value === 'false' ? false : Number(value);
  }
  return [name!, fields as Partial<RecipeFields>];
}

async function main(): Promise<void> {
  installSignalCleanup();
  const started = performance.now();
  const samples = loadLocomo(values.data);
  const dataDir = tempDir('quality');
  const daemon = await startDaemon(dataDir, { embedder, ...(values.kg ? { args: ['--kg', '--consolidate-every', '0'] } : {}) });
  const client = await connect({ dataDir, clientName: 'engram-bench-quality', timeoutMs: 60_000 });
  try {
    for (const spec of values['save-recipe'] ?? []) await client.saveRecipe(...recipeSpec(spec));
    const idMaps: Map<string, string>[] = [];
    const importStart = performance.now();
    for (const sample of samples) idMaps.push(await importSample(client, sample));
    const importMs = performance.now() - importStart;

    const turns = samples.reduce((n, s) => n + s.sessions.reduce((m, x) => m + x.turns.length, 0), 0);
    process.stdout.write(`LoCoMo retrieval quality: ${values.data}\n`);
    process.stdout.write(`daemon: embedder ${embedder}${values.kg ? ', knowledge graph on (entities extracted at import)' : ''}; top_k ${kMax}; one query in flight\n`);
    process.stdout.write(`conversations: ${samples.length}, turns imported: ${turns} in ${(importMs / 1000).toFixed(1)} s\n`);
    const summary: string[][] = [['run (weights v,k,r[,d,g] or recipe)', 'R@10', 'recall p50 ms']];
    for (const { label, options } of RUNS) {
      const latencies: number[] = [];
      const scored: Scored[] = [];
      for (const [i, sample] of samples.entries()) scored.push(...(await evaluate(client, sample, idMaps[i]!, latencies, options)));
      const overall10 = scored.reduce((sum, s) => sum + s.recall[KS.indexOf(10)]!, 0) / scored.length;
      const l = summarize(latencies);
      process.stdout.write(`\n${label}\n${report(scored)}\n`);
      process.stdout.write(`questions evaluated: ${scored.length}; recall latency: mean ${ms(l.mean)} ms, p50 ${ms(l.p50)} ms, p99 ${ms(l.p99)} ms\n`);
      summary.push([label, overall10.toFixed(3), ms(l.p50)]);
    }
    if (RUNS.length > 1) process.stdout.write(`\n${table(summary)}\n`);
    const last = summary.at(-1)!;
    process.stdout.write(`total time: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    process.stdout.write(`overall recall@10: ${last[1]}\n`);
  } finally {
    client.close();
    await daemon.stop();
    removeTempDir(dataDir);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:quality failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  cleanup();
  process.exit(1);
});
