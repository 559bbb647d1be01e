import { connect } from '../client/index.ts';
const c = await connect({ dataDir: '/tmp/e2' });
for (let i = 0; i < 150; i++) await c.put('widen2', `coffee espresso beans roast number ${i}`);
await c.put('widen2', 'tea leaves from the mountain garden', { tags: ['keep'] });
const r = await c.recallExplain('widen2', 'coffee espresso roast', { filters: { tagsAny: ['keep'] }, weights: { keyword: 0, recency: 0, vector: 1 } });
console.log(JSON.stringify(r.retrieval), r.receipts.map(x => [x.text, x.ranks]));
const r2 = await c.recallExplain('widen2', 'tea mountain', { weights: { keyword: 0, recency: 0, vector: 1 }, topK: 2 });
console.log(r2.receipts.map(x => [x.text, x.ranks.vectorRank]));
c.close();
