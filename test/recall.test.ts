// Recall's ordering guarantees (a total, repeatable order), against a real daemon.
import { describe, expect, test } from 'vitest';
import { useDaemon, useDaemonPool } from './fixtures/daemon.ts';
import { isTotalOrder, recomputeFusedScore } from './fixtures/receipts.ts';

const env = useDaemon({ embedder: 'local' });

const TOPICS = ['coffee', 'deploy', 'garden', 'invoice', 'piano', 'router', 'hiking', 'tax'];

async function seed(agent: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const topic = TOPICS[i % TOPICS.length];
    ids.push((await env.client.put(agent, `note ${i} about ${topic} and the ${TOPICS[(i * 3) % TOPICS.length]} plan`)).fact.id);
  }
  return ids;
}

describe('deterministic order', () => {
  test('the same query returns the same facts in the same order on every call', async () => {
    await seed('order', 60);
    const first = (await env.client.recall('order', 'coffee plan', { topK: 20 })).facts.map((f) => f.id);
    expect(first).toHaveLength(20);
    for (let i = 0; i < 15; i++) {
      expect((await env.client.recall('order', 'coffee plan', { topK: 20 })).facts.map((f) => f.id)).toEqual(first);
    }
  });

  test('results follow the total order: final score desc, created_at asc, id asc', async () => {
    const { receipts } = await env.client.recallExplain('order', 'garden invoice', { topK: 30 });
    expect(receipts.length).toBe(30);
    expect(isTotalOrder(receipts)).toBe(true);
  });

  test('facts written in the same instant order by id', async () => {
    // Written concurrently: many share a millisecond, and their texts score identically by keyword.
    const facts = await Promise.all(Array.from({ length: 24 }, (_, i) => env.client.put('instant', `zephyr reading q${i + 10}`)));
    const byTime = new Map<number, string[]>();
    for (const { fact } of facts) byTime.set(fact.createdAt, [...(byTime.get(fact.createdAt) ?? []), fact.id]);
    expect([...byTime.values()].some((ids) => ids.length > 1)).toBe(true);

    const { receipts } = await env.client.recallExplain('instant', 'zephyr', { topK: 24 });
    const keywordOrder = [...receipts].sort((a, b) => a.ranks.keywordRank - b.ranks.keywordRank).map((r) => r.fact.id);
    // Equal BM25 scores: keyword ranks follow created_at then id, i.e. id order.
    expect(keywordOrder).toEqual(facts.map((f) => f.fact.id).sort());
    // Recency ranks newest first; within one millisecond the greater id is the newer.
    const recencyOrder = [...receipts].sort((a, b) => a.ranks.recencyRank - b.ranks.recencyRank).map((r) => r.fact.id);
    expect(recencyOrder).toEqual(facts.map((f) => f.fact.id).sort().reverse());
    expect(isTotalOrder(receipts)).toBe(true);
  });

  test('duplicate text appears once and does not use up top_k', async () => {
    for (let i = 0; i < 5; i++) await env.client.put('dups', 'The printer on floor 3 is broken');
    await env.client.put('dups', 'The printer on floor 2 works');
    await env.client.put('dups', 'Printer toner is in the cupboard');
    await env.client.put('dups', 'Ask Sam about the printer');
    const { facts } = await env.client.recall('dups', 'printer', { topK: 4 });
    expect(facts).toHaveLength(4);
    expect(new Set(facts.map((f) => f.text)).size).toBe(4);
  });

  test('min top_k: absent top_k returns 8 when at least 8 distinct facts exist', async () => {
    expect((await env.client.recall('order', 'note')).facts).toHaveLength(8);
  });
});

describe('namespaces', () => {
  test('an agent never sees another agent’s facts', async () => {
    await env.client.put('ns-a', 'Project Falcon launches in June');
    await env.client.put('ns-b', 'Project Falcon was cancelled');
    const a = await env.client.recall('ns-a', 'Project Falcon');
    const b = await env.client.recall('ns-b', 'Project Falcon');
    expect(a.facts.map((f) => f.text)).toEqual(['Project Falcon launches in June']);
    expect(b.facts.map((f) => f.text)).toEqual(['Project Falcon was cancelled']);
  });

  test('RecallAll interleaves agent and shared rankings by position, agent first, and dedups text', async () => {
    for (const t of ['quarterly review A1', 'quarterly review A2', 'quarterly review A3']) await env.client.put('all-agent', t);
    for (const t of ['quarterly review S1', 'quarterly review S2', 'quarterly review A2']) await env.client.putShared(t);
    const agentOrder = (await env.client.recall('all-agent', 'quarterly review')).facts.map((f) => f.text);
    const sharedOrder = (await env.client.recallShared('quarterly review')).facts.map((f) => f.text).filter((t) => t.startsWith('quarterly'));
    const merged = (await env.client.recallAll('all-agent', 'quarterly review', { topK: 6 })).facts;

    const expected: string[] = [];
    for (let i = 0; i < 3; i++) for (const t of [agentOrder[i], sharedOrder[i]]) if (t && !expected.includes(t)) expected.push(t);
    expect(merged.map((f) => f.text)).toEqual(expected.slice(0, 6));
    expect(merged.filter((f) => f.text === 'quarterly review A2')).toHaveLength(1);
    expect(merged.find((f) => f.text === 'quarterly review A1')!.agentId).toBe('all-agent');
  });
});

describe('explain', () => {
  test('RecallExplain returns exactly the facts and order of Recall', async () => {
    for (const query of ['coffee', 'deploy plan', 'piano hiking tax', 'nothing matches this xyzzy']) {
      const plain = (await env.client.recall('order', query, { topK: 12 })).facts.map((f) => f.id);
      const explained = (await env.client.recallExplain('order', query, { topK: 12 })).receipts.map((r) => r.fact.id);
      expect(explained).toEqual(plain);
    }
  });

  test('every receipt reproduces its fused score from ranks, k and weights', async () => {
    const { receipts } = await env.client.recallExplain('order', 'router deploy', { topK: 25 });
    expect(receipts.length).toBe(25);
    for (const r of receipts) {
      expect(recomputeFusedScore(r)).toBe(r.ranks.fusedScore);
      expect(r.weight).toBe(r.ranks.fusedScore);
      expect(r.ranks.k).toBe(60);
      expect(r.provenance.factId).toBe(r.fact.id);
    }
    expect(receipts.some((r) => r.ranks.keywordRank > 0 && r.ranks.vectorRank > 0)).toBe(true);
  });
});

describe('recency among the best matches', () => {
  test('a newest fact that matches only a common word is not lifted above an older fact that answers the query', async () => {
    const agent = 'order-pool';
    const answer = await env.client.put(agent, 'garden hose kit'); // the oldest fact
    for (let i = 0; i < 19; i++) await env.client.put(agent, `garden hose nozzle brass fitting s${i}`); // better matches
    for (let i = 0; i < 20; i++) await env.client.put(agent, `garden bed number m${i}`); // weaker ones
    const chatter = await env.client.put(agent, 'the garden, far past the old fence and the shed, needs work before spring arrives');
    const { receipts } = await env.client.recallExplain(agent, 'garden hose nozzle', { weights: { keyword: 1, vector: 0, recency: 1 }, topK: 30 });
    // Ranked by recency among all 41 keyword hits, the newest (keyword rank 41, recency 1) and ten
    // weak matches would outscore the answer (keyword rank 20, recency 41) and push it out of the
    // top 30; ranked among the best 30 matches, the answer is the oldest of them, 30th by recency.
    expect(receipts).toHaveLength(30);
    expect(receipts.find((r) => r.fact.id === answer.fact.id)?.ranks).toMatchObject({ keywordRank: 20, recencyRank: 30 });
    expect(receipts.map((r) => r.fact.id)).not.toContain(chatter.fact.id);
    for (const r of receipts) expect(recomputeFusedScore(r)).toBe(r.ranks.fusedScore);
  });
});

describe('tokenizer in recall', () => {
  test('accented and non-Latin words are searchable words', async () => {
    await env.client.put('unicode', 'Rendez-vous au café à Montréal');
    await env.client.put('unicode', 'Встреча в Москве в пятницу');
    await env.client.put('unicode', '会議は東京で');
    expect((await env.client.recall('unicode', 'café', { topK: 1 })).facts[0]!.text).toBe('Rendez-vous au café à Montréal');
    expect((await env.client.recall('unicode', 'Москве', { topK: 1 })).facts[0]!.text).toBe('Встреча в Москве в пятницу');
    const { receipts } = await env.client.recallExplain('unicode', 'Montréal');
    expect(receipts[0]!.ranks.keywordRank).toBe(1);
    expect(receipts[0]!.text).toContain('Montréal');
  });

  test('a word inside Chinese or Japanese text, and an emoji, find their facts', async () => {
    const agent = 'unspaced';
    const tea = 'I drink green tea: 我喜欢喝绿茶';
    const sushi = '今日は寿司を食べました';
    const pizza = 'pizza night 🍕';
    for (const text of [tea, sushi, pizza]) await env.client.put(agent, text);
    // The facts the keyword signal matched, and the first fact recall returns.
    const found = async (query: string) => {
      const { receipts } = await env.client.recallExplain(agent, query, { topK: 3 });
      return { keyword: receipts.filter((r) => r.ranks.keywordRank > 0).map((r) => r.fact.text), first: receipts[0]!.fact.text };
    };
    expect(await found('绿茶')).toEqual({ keyword: [tea], first: tea });
    expect(await found('寿司')).toEqual({ keyword: [sushi], first: sushi });
    expect(await found('🍕')).toEqual({ keyword: [pizza], first: pizza });
  });
});

describe('vector search in a small namespace', () => {
  const pool = useDaemonPool();

  test('is exact: a distinct fact among many near-identical ones is found, before and after a restart', async () => {
    // 300 notes that differ only by a number the word vectors do not know: 3 distinct vectors, 100
    // copies each, which an HNSW graph can wall off from the one fact that differs.
    const dataDir = pool.newDir();
    const agent = 'near-identical';
    const first = await pool.start({ dataDir, embedder: 'local' });
    const client = await first.client();
    await client.putBatch(Array.from({ length: 300 }, (_, i) => ({ agentId: agent, text: `batch note ${i} about the ${['garden', 'invoice', 'piano'][i % 3]} plan` })));
    const mia = await client.put(agent, 'Mia prefers window seats on long flights');
    const vectorOnly = { weights: { keyword: 0, recency: 0, vector: 1 }, topK: 3 };
    const top = async (c: typeof client) => (await c.recallExplain(agent, 'window seat flight', vectorOnly)).receipts[0]!;
    expect(await top(client)).toMatchObject({ fact: { id: mia.fact.id }, ranks: { vectorRank: 1 } });
    client.close();
    await first.stop(); // a clean stop saves the graph; the next start loads it, without the vectors

    const second = await pool.start({ dataDir, embedder: 'local' });
    const again = await second.client();
    expect(await top(again)).toMatchObject({ fact: { id: mia.fact.id }, ranks: { vectorRank: 1 } });
    again.close();
  });
});
