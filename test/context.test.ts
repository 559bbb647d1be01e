// Context assembly against a real daemon: POST /v1/context, the library, MCP and the CLI give one
// block — slots, then pinned facts, then recalled facts in recall order — within the mode's or
// recipe's budget, counted by the named tokenizer (checked here with the same tokenizer), cutting
// recalled facts first and saying what was cut and why; bad input is refused naming the field.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, test } from 'vitest';
import { CapabilityError } from '../client/index.ts';
import { runEngram } from './fixtures/cli.ts';
import { useDaemonPool } from './fixtures/daemon.ts';
import { openStdio } from './fixtures/mcp.ts';

const pool = useDaemonPool();
const AGENT = 'ctx';

async function start() {
  const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--http', '127.0.0.1:0'] });
  const client = await daemon.client();
  const post = async (body: unknown) => {
    const res = await fetch(`http://${daemon.discovery.httpAddress}/v1/context`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.discovery.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  await client.putSlot({ slotName: 'do_not_do', slotValue: 'never run a migration unreviewed', projectId: 'atlas', status: 'approved', confidence: 0.95 });
  await client.putSlot({ slotName: 'user_preferences', slotValue: { spelling: 'en-GB' } });
  await client.putSlot({ slotName: 'project_context', slotValue: { db: 'postgres 16' }, projectId: 'other' });
  const pinned = (await client.put(AGENT, 'the production database is postgres 16 with row level security', { confidence: 'verified' })).fact;
  await client.pin(AGENT, pinned.id);
  const recalled: string[] = [];
  for (let i = 0; i < 30; i++) recalled.push((await client.put(AGENT, `migration step ${i}: copy the ${['orders', 'users', 'invoices'][i % 3]} table and check the row counts before switching reads`)).fact.id);
  return { daemon, client, post, pinned };
}

describe('context assembly', () => {
  test('slots, then pinned facts, then recalled facts, within the mode budget counted by the named tokenizer', async () => {
    const { post, pinned } = await start();
    const { status, json } = await post({ agent_id: AGENT, query: 'migration row counts', mode: 'cheap', project_id: 'atlas' });
    expect(status).toBe(200);
    expect(json).toMatchObject({ token_budget: 1800, tokenizer: 'o200k_base (gpt-tokenizer)', mode: 'cheap', recipe: { id: 'builtin:cheap', lexical_top_k: 12 } });
    expect(countTokens(json.block)).toBe(json.tokens);
    expect(json.tokens).toBeLessThanOrEqual(1800);
    const kinds = json.items.map((i: { kind: string }) => i.kind);
    expect(kinds.slice(0, 3)).toEqual(['slot', 'slot', 'pinned']);
    expect(kinds.slice(3).every((k: string) => k === 'recalled')).toBe(true);
    expect(kinds.length).toBeGreaterThan(5);
    // The project's slot and the global one; not another project's.
    expect(json.items.slice(0, 2).map((i: any) => i.slot.slot_name)).toEqual(['do_not_do', 'user_preferences']);
    expect(json.items[0].confidence).toBe(0.95);
    expect(json.items[2].fact.id).toBe(pinned.id);
    // Recalled facts carry their receipts, in recall order, and never repeat the pinned fact.
    const recalledItems = json.items.filter((i: any) => i.kind === 'recalled');
    expect(recalledItems.every((i: any) => i.receipt && i.fact.id !== pinned.id)).toBe(true);
    // Only facts the query matched: filler that merely fills top_k is not context.
    expect(recalledItems.every((i: any) => i.receipt.matched)).toBe(true);
    const nothing = await post({ agent_id: AGENT, query: 'zebra', mode: 'cheap' });
    expect(nothing.json.items.map((i: any) => i.kind)).toEqual(['slot', 'pinned']);
    const weights = recalledItems.map((i: any) => i.receipt.weight);
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
    expect(json.block.indexOf('## Memory slots')).toBeLessThan(json.block.indexOf('## Pinned facts'));
    expect(json.block.indexOf('## Pinned facts')).toBeLessThan(json.block.indexOf('## Recalled facts'));
    expect(json.block).toContain('do_not_do (project atlas): "never run a migration unreviewed" (confidence 0.95, approved, human_reviewed, unverified, private)');
  });

  test('a small budget cuts recalled facts first and says why; one too small for a slot keeps no recalled fact', async () => {
    const { daemon, client, post } = await start();
    const small = await post({ agent_id: AGENT, query: 'migration row counts', project_id: 'atlas', token_budget: 160 });
    expect(small.json.tokens).toBeLessThanOrEqual(160);
    expect(small.json.items.filter((i: any) => i.kind !== 'recalled')).toHaveLength(3);
    expect(small.json.cut.length).toBeGreaterThan(0);
    expect(small.json.cut.every((c: any) => c.kind === 'recalled')).toBe(true);
    expect(small.json.cut[0].reason).toMatch(/over the budget/);
    // A use is counted for what went into the block, not for what the budget cut.
    for (const c of small.json.cut) expect((await client.get(AGENT, c.id)).accessCount, c.id).toBe(0);
    for (const i of small.json.items.filter((x: any) => x.kind === 'recalled')) expect((await client.get(AGENT, i.id)).accessCount).toBe(1);
    // The CLI names each cut with its own tokens once; the reason counts the budget left, and the
    // item again only as what it would have cost with its section's heading.
    const cli = await runEngram(['context', AGENT, 'migration', 'row', 'counts', '--project', 'atlas', '--budget', '160'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(cli.code, cli.stderr).toBe(0);
    const cuts = cli.stderr.split('\n').filter((l) => l.startsWith('cut '));
    expect(cuts.length).toBeGreaterThan(0);
    expect(cuts[0]).toMatch(/^cut recalled \S+ \(\d+ tokens\): over the budget: \d+ of 160 tokens left( \(with the heading of its section it would have cost \d+\))?$/);
    for (const l of cuts.slice(1)) expect(l).toMatch(/^cut recalled \S+ \(\d+ tokens\): (over the budget after a higher-ranked recalled fact|the whole block counted \d+ tokens, over the budget of 160)$/);

    const tiny = await post({ agent_id: AGENT, query: 'migration row counts', project_id: 'atlas', token_budget: 30 });
    expect(tiny.json.tokens).toBeLessThanOrEqual(30);
    expect(tiny.json.cut.some((c: any) => c.kind !== 'recalled')).toBe(true);
    expect(tiny.json.items.some((i: any) => i.kind === 'recalled')).toBe(false);
    expect(tiny.json.cut.filter((c: any) => c.kind === 'recalled').every((c: any) => /slot or pinned fact did not fit/.test(c.reason))).toBe(true);
  });

  test('a recipe sets the retrieval and the budget; bad input is refused naming the field and changes nothing', async () => {
    const { client, post } = await start();
    await client.saveRecipe('briefing', { tokenBudget: 400, lexicalTopK: 5, reranker: false });
    const viaRecipe = await post({ agent_id: AGENT, query: 'migration', recipe: 'briefing' });
    expect(viaRecipe.json).toMatchObject({ token_budget: 400, mode: '', recipe: { id: 'briefing@1', lexical_top_k: 5, reranker: '' } });
    expect(viaRecipe.json.retrieval.keyword_candidates).toBe(5);
    expect(viaRecipe.json.tokens).toBeLessThanOrEqual(400);
    // No query: slots and pinned facts only.
    const noQuery = await post({ agent_id: AGENT });
    expect(noQuery.json.items.map((i: any) => i.kind)).toEqual(['slot', 'pinned']);
    // A recipe with include_evidence resolves a slot's evidence references, in the shared namespace too.
    const clause = (await client.putShared('the client signed the weekly-report clause')).fact;
    await client.putSlot({ slotName: 'user_preferences', evidenceRefs: [clause.id, 'ticket-42'] });
    const forensic = await post({ agent_id: AGENT, recipe: 'forensic' });
    const preference = forensic.json.items.find((i: any) => i.slot?.slot_name === 'user_preferences');
    expect(preference.evidence).toEqual([
      { kind: 'evidence_ref', ref: clause.id, text: clause.text, retired: false },
      { kind: 'evidence_ref', ref: 'ticket-42', text: '', retired: false },
    ]);
    expect(forensic.json.block).toContain(`  evidence (evidence_ref) ${clause.id}: ${clause.text}\n`);

    for (const [body, field] of [
      [{ agent_id: AGENT, mode: 'deep', recipe: 'briefing' }, 'recipe'],
      [{ agent_id: AGENT, mode: 'lavish' }, 'mode'],
      [{ agent_id: AGENT, recipe: 'nope' }, 'recipe'],
      [{ agent_id: AGENT, token_budget: 0 }, 'token_budget'],
      [{ query: 'x' }, 'agent_id'],
    ] as const) {
      const bad = await post(body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.json.error.field).toBe(field);
    }
    await expect(client.assembleContext(AGENT, 'x', { recipe: 'nope' })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'recipe' });
    await expect(client.assembleContext(AGENT, 'x', { tokenBudget: -5 })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'token_budget' });
    await expect(client.assembleContext(AGENT, 'x', { topK: 1.5 })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'top_k' });
  });

  test('the library, MCP and the CLI give the same block; an old daemon is refused before sending', async () => {
    const { daemon, client, post } = await start();
    const rest = await post({ agent_id: AGENT, query: 'invoices table', mode: 'balanced', project_id: 'atlas' });
    const lib = await client.assembleContext(AGENT, 'invoices table', { mode: 'balanced', projectId: 'atlas' });
    expect(lib.block).toBe(rest.json.block);
    expect(lib.tokens).toBe(rest.json.tokens);
    expect(lib.items[0]!.slot!.slotName).toBe('do_not_do');

    const mcp = await openStdio(['--data-dir', daemon.dataDir]);
    try {
      const viaMcp = await mcp.ok<{ block: string; tokens: number; token_budget: number }>('memory_context', { agent_id: AGENT, query: 'invoices table', mode: 'balanced', project_id: 'atlas' });
      expect(viaMcp.block).toBe(rest.json.block);
      expect(viaMcp.token_budget).toBe(3500);
      expect(await mcp.fails('memory_context', { agent_id: AGENT, mode: 'lavish' })).toMatch(/mode/);
      // A budget too small for anything says so (the slots applied; they were cut), not that no slot applies.
      const starved = await mcp.call('memory_context', { agent_id: AGENT, query: 'invoices table', project_id: 'atlas', token_budget: 1 });
      expect((starved.structuredContent as { block: string }).block).toBe('');
      expect((starved.content[0] as { text: string }).text).toMatch(/^Nothing fits the budget: \d+ items would have been injected .* raise token_budget\./);
    } finally {
      await mcp.close();
    }

    const cli = await runEngram(['context', AGENT, 'invoices', 'table', '--project', 'atlas'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(cli.code).toBe(0);
    expect(`${cli.stdout}`).toBe(rest.json.block);
    expect(cli.stderr).toMatch(new RegExp(`^${rest.json.tokens} of 3500 tokens \\(o200k_base \\(gpt-tokenizer\\)\\)`));
    const json = await runEngram(['context', AGENT, 'invoices', 'table', '--project', 'atlas', '--json'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(JSON.parse(json.stdout).block).toBe(rest.json.block);
    const bad = await runEngram(['context', AGENT, '--mode', 'lavish'], { dataDir: daemon.dataDir, cwd: daemon.dataDir });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--mode/);

    const old = await pool.start({ dataDir: pool.newDir(), args: ['--compat', 'v0.2'] });
    const oldClient = await old.client();
    await expect(oldClient.assembleContext(AGENT, 'x')).rejects.toBeInstanceOf(CapabilityError);
    // The slot value limit is advertised by daemons that have slots, and only by them.
    expect(client.daemon.limits.maxSlotValueBytes).toBe(16384);
    expect(oldClient.daemon.limits.maxSlotValueBytes).toBe(0);
  });
});
