// Recipes bound to the engine, against a real daemon: each recipe setting changes what recall
// does — candidate counts, graph depth, the reranker, the verified preference and rule, the
// evidence — and receipts and retrieval metadata name the recipe and its version. The same
// call through REST, MCP and the CLI.
import { describe, expect, test } from 'vitest';
import { CapabilityError } from '../client/index.ts';
import { runEngram } from './fixtures/cli.ts';
import { useDaemonPool } from './fixtures/daemon.ts';
import { openStdio } from './fixtures/mcp.ts';

const pool = useDaemonPool();
const AGENT = 'recipes';

async function start(args: string[] = [], embedder: 'local' | 'none' = 'none') {
  const daemon = await pool.start({ dataDir: pool.newDir(), embedder, args: ['--http', '127.0.0.1:0', ...args] });
  const client = await daemon.client();
  const get = async (path: string) => {
    const res = await fetch(`http://${daemon.discovery.httpAddress}${path}`, { headers: { authorization: `Bearer ${daemon.discovery.token}` } });
    return { status: res.status, json: (await res.json()) as any };
  };
  return { daemon, client, get };
}

describe('recipes bound to recall', () => {
  test('lexical_top_k and vector_top_k are the candidate list sizes; the metadata names the recipe and its version', async () => {
    const { client } = await start([], 'local');
    for (let i = 0; i < 30; i++) await client.put(AGENT, `apple orchard note number ${i}`);
    const plain = await client.recall(AGENT, 'apple orchard', { topK: 10, weights: {} });
    expect(plain.retrieval.keywordCandidates).toBe(30);
    expect(plain.retrieval.recipe).toBeUndefined();

    await client.saveRecipe('narrow', { lexicalTopK: 4, vectorTopK: 3, reranker: false });
    const narrow = await client.recall(AGENT, 'apple orchard', { topK: 10, recipe: 'narrow' });
    expect(narrow.retrieval.keywordCandidates).toBe(4);
    expect(narrow.retrieval.vectorCandidates).toBe(3);
    expect(narrow.retrieval.recipe).toMatchObject({ id: 'narrow@1', name: 'narrow', version: 1, lexicalTopK: 4, vectorTopK: 3, rerankerStage: '' });
    // At most seven facts were candidates; the rest of top_k is filler.
    expect(narrow.matches!.filter((m) => m.matched).length).toBeLessThanOrEqual(7);

    await client.saveRecipe('narrow', { lexicalTopK: 6 });
    const explained = await client.recallExplain(AGENT, 'apple orchard', { topK: 3, recipe: 'narrow' });
    expect(explained.retrieval.keywordCandidates).toBe(6);
    expect(explained.receipts.map((r) => r.recipe)).toEqual(['narrow@2', 'narrow@2', 'narrow@2']);
    expect((await client.recallExplain(AGENT, 'apple', { topK: 1, recipe: 'cheap' })).receipts[0]!.recipe).toBe('builtin:cheap');

    await expect(client.recall(AGENT, 'apple', { recipe: 'no-such' })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'options.recipe' });
  });

  test('graph_depth is how far the graph signal follows relations (0 = no graph at all, and no hints)', async () => {
    const { client } = await start();
    const ids: string[] = [];
    ids.push((await client.put(AGENT, 'Zorblat leads the migration team', { entities: ['Zorblat'] })).fact.id);
    for (const text of ['the migration team ships on Tuesdays', 'Tuesday releases need a rollback plan', 'rollback plans live in the wiki']) ids.push((await client.put(AGENT, text)).fact.id);
    for (let i = 0; i + 1 < ids.length; i++) await client.relate(AGENT, ids[i]!, 'related', ids[i + 1]!);
    const graphRanks = async (recipe: string) => {
      const r = await client.recallExplain(AGENT, 'Zorblat', { topK: 4, recipe });
      return { ranks: ids.map((id) => r.receipts.find((x) => x.provenance.factId === id)?.ranks.graphRank ?? 0), weights: r.retrieval.weights };
    };
    for (const [name, depth] of [['g0', 0], ['g1', 1], ['g2', 2], ['g3', 3]] as const) await client.saveRecipe(name, { graphDepth: depth, reranker: false });

    const none = await graphRanks('g0');
    expect(none.weights.graph).toBe(0);
    expect(none.ranks).toEqual([0, 0, 0, 0]);
    const one = await graphRanks('g1');
    expect(one.weights.graph).toBe(0.2);
    expect(one.ranks.map((r) => r > 0)).toEqual([true, true, false, false]);
    expect((await graphRanks('g2')).ranks.map((r) => r > 0)).toEqual([true, true, true, false]);
    expect((await graphRanks('g3')).ranks).toEqual([1, 2, 3, 4]);

    // Hints come with a graph depth, not without.
    expect((await client.recall(AGENT, 'Zorblat', { topK: 1, recipe: 'g1' })).hints.length).toBeGreaterThan(0);
    const flat = await client.recall(AGENT, 'Zorblat', { topK: 1, recipe: 'g0' });
    expect(flat.hints).toEqual([]);
    expect(flat.retrieval.kg).toBe('');
  });

  test('the reranker reorders the fused pool by query coverage and each receipt says what it did', async () => {
    const { client } = await start();
    await client.put(AGENT, 'quantum banana split recipe');
    await new Promise((r) => setTimeout(r, 5));
    await client.put(AGENT, 'quantum theory lecture');
    // Recency dominates the fusion, so without the reranker the newer, half-matching fact leads.
    const weights = { vector: 0, keyword: 0.01, recency: 1 };
    await client.saveRecipe('plain', { reranker: false });
    await client.saveRecipe('reranked', { reranker: true });
    const before = await client.recallExplain(AGENT, 'quantum banana', { topK: 2, weights, recipe: 'plain' });
    expect(before.receipts.map((r) => r.text)).toEqual(['quantum theory lecture', 'quantum banana split recipe']);
    expect(before.receipts[0]!.rerank).toBeUndefined();

    const after = await client.recallExplain(AGENT, 'quantum banana', { topK: 2, weights, recipe: 'reranked' });
    expect(after.retrieval.recipe!.rerankerStage).toBe('term-coverage-v1');
    expect(after.receipts.map((r) => r.text)).toEqual(['quantum banana split recipe', 'quantum theory lecture']);
    const [top, second] = after.receipts;
    expect(top!.rerank).toMatchObject({ stage: 'term-coverage-v1', coverage: 1, factor: 1.5, rankBefore: 2, rankAfter: 1 });
    expect(second!.rerank).toMatchObject({ coverage: 0.5, factor: 1.25, rankBefore: 1, rankAfter: 2 });
    // The receipt reproduces the score: the stage's input times its factor.
    for (const r of after.receipts) expect(r.weight).toBeCloseTo(r.rerank!.scoreBefore * r.rerank!.factor, 12);
  });

  test('prefer_verified ranks verified facts up; verified_only drops everything else; explicit options still win', async () => {
    const { client } = await start();
    await client.put(AGENT, 'the deploy window is Monday', { confidence: 'unverified' });
    await client.put(AGENT, 'the deploy window is Thursday', { confidence: 'verified' });
    await client.put(AGENT, 'the deploy window moved again', { confidence: 'inferred' });

    const prefer = await client.recallExplain(AGENT, 'deploy window', { topK: 3, recipe: 'balanced' });
    expect(prefer.retrieval.confidenceWeight).toBe(0.25);
    const factor = (label: string) => prefer.receipts.find((r) => r.fact.confidence === label)!.ranking!.factor;
    expect([factor('verified'), factor('inferred'), factor('unverified')]).toEqual([1.25, 1, 0.75]);
    expect(prefer.receipts[0]!.fact.confidence).toBe('verified');
    expect(prefer.receipts.at(-1)!.fact.confidence).toBe('unverified');

    const only = await client.recall(AGENT, 'deploy window', { topK: 3, recipe: 'verified_only' });
    expect(only.facts.map((f) => f.confidence)).toEqual(['verified']);
    expect(only.retrieval).toMatchObject({ minConfidence: 'verified', kg: 'suppressed_min_confidence' });

    const overridden = await client.recall(AGENT, 'deploy window', { topK: 3, recipe: 'verified_only', minConfidence: 'unverified', confidenceWeight: 0 });
    expect(overridden.facts).toHaveLength(3);
    expect(overridden.retrieval.confidenceWeight).toBe(0);
  });

  test("include_evidence attaches a summary's sources and the facts that support a result", async () => {
    const { client } = await start(['--consolidate-below', '5', '--consolidate-every', '0']);
    const a = (await client.put(AGENT, 'the staging database runs postgres 16')).fact;
    const b = (await client.put(AGENT, 'the staging database has row level security')).fact;
    const c = (await client.put(AGENT, 'the staging database is backed up nightly')).fact;
    const run = await client.consolidate(AGENT);
    expect(run.retiredIds).toHaveLength(3);
    const claim = (await client.put(AGENT, 'the release checklist is signed off by Priya')).fact;
    const proof = (await client.put(AGENT, 'Priya signed the checklist on 3 March')).fact;
    await client.relate(AGENT, proof.id, 'supports', claim.id);

    const forensic = await client.recall(AGENT, 'staging database', { topK: 1, recipe: 'forensic' });
    expect(forensic.facts[0]!.id).toBe(run.summary!.id);
    const byRef = (list: { ref: string }[]) => [...list].sort((x, y) => (x.ref < y.ref ? -1 : 1));
    expect(byRef(forensic.matches![0]!.evidence!)).toEqual(byRef([a, b, c].map((f) => ({ kind: 'summary_source', ref: f.id, text: f.text, retired: true }))));

    const supported = await client.recall(AGENT, 'release checklist signed off', { topK: 1, recipe: 'forensic' });
    expect(supported.matches![0]!.evidence).toEqual([{ kind: 'supports', ref: proof.id, text: proof.text, retired: false }]);
    // Explained, the evidence is in the receipt.
    const explained = await client.recallExplain(AGENT, 'release checklist signed off', { topK: 1, recipe: 'forensic' });
    expect(explained.receipts[0]!.evidence).toEqual([{ kind: 'supports', ref: proof.id, text: proof.text, retired: false }]);
    // Without include_evidence, none.
    expect((await client.recall(AGENT, 'release checklist signed off', { topK: 1, recipe: 'deep' })).matches![0]!.evidence).toBeUndefined();
  });

  test('REST, MCP and the CLI take the recipe and report it the same way; an old daemon is refused before sending', async () => {
    const { daemon, client, get } = await start();
    await client.put(AGENT, 'the build cache lives in S3');
    await client.saveRecipe('doors', { lexicalTopK: 5 });

    const rest = await get(`/v1/recall?agent_id=${AGENT}&query=build+cache&recipe=doors`);
    expect(rest.status).toBe(200);
    expect(rest.json.retrieval.recipe).toMatchObject({ id: 'doors@1', lexical_top_k: 5, reranker: 'term-coverage-v1' });
    const explained = await get(`/v1/recall/explain?agent_id=${AGENT}&query=build+cache&recipe=doors`);
    expect(explained.json.explained[0]).toMatchObject({ recipe: 'doors@1', rerank: { stage: 'term-coverage-v1', rank_after: 1 } });
    const bad = await get(`/v1/recall?agent_id=${AGENT}&query=build&recipe=nope`);
    expect(bad.status).toBe(400);
    expect(bad.json.error.field).toBe('recipe');

    const cli = await runEngram(['recall', AGENT, 'build', 'cache', '--recipe', 'doors', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout).retrieval.recipe).toMatchObject({ id: 'doors@1', lexical_top_k: 5 });
    const text = await runEngram(['recall', AGENT, 'build', 'cache', '--recipe', 'doors'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(text.stdout).toMatch(/^recipe doors@1: lexical 5, vector 32, graph depth 1, reranker term-coverage-v1, prefer verified/m);

    const mcp = await openStdio(['--data-dir', daemon.dataDir]);
    try {
      const found = await mcp.ok<{ recipe: { id: string }; retrieval: { confidence_weight: number } }>('memory_search', { agent_id: AGENT, query: 'build cache', recipe: 'doors' });
      expect(found.recipe.id).toBe('doors@1');
      expect(found.retrieval.confidence_weight).toBe(0.25);
      expect(await mcp.fails('memory_search', { agent_id: AGENT, query: 'build', recipe: 'nope' })).toMatch(/^memory_search failed: recipe: no recipe "nope"/);
    } finally {
      await mcp.close();
    }

    const old = await pool.start({ dataDir: pool.newDir(), args: ['--compat', 'v0.2'] });
    const oldClient = await old.client();
    await expect(oldClient.recall(AGENT, 'build', { recipe: 'deep' })).rejects.toBeInstanceOf(CapabilityError);
  });
});
