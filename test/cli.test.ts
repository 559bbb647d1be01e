// The `engram` command, run as a user runs it (`node bin/engram.js ...`) against a real daemon:
// every command's output (human and --json shapes), and its exit codes (0 success, 1 the
// operation failed, 2 usage).
import { beforeAll, describe, expect, test } from 'vitest';
import { FACT_ID, useCliDaemon } from './fixtures/cli.ts';
import { removeDir, tempDataDir, useDaemon } from './fixtures/daemon.ts';

const env = useCliDaemon();
/** A second daemon, serving HTTP, that no test writes to: the status test reads its HTTP address,
 *  the doctor tests check its store as a fresh one. */
const fresh = useDaemon({ embedder: 'none', args: ['--http', '127.0.0.1:0'] });
const { engram, engramJson } = env;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function seed(agent: string, texts: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const text of texts) ids.push((await env.client.put(agent, text)).fact.id);
  return ids;
}

describe('remember', () => {
  test('stores the fact and prints its id and namespace', async () => {
    const run = await engram(['remember', 'cli-remember', 'The build server is called hopper']);
    expect(run.code, run.stderr).toBe(0);
    const match = /^remembered ([0-9A-HJKMNP-TV-Z]{26}) in "cli-remember"\n$/.exec(run.stdout);
    expect(match, run.stdout).not.toBeNull();
    const stored = await env.client.get('cli-remember', match![1]!);
    expect(stored.text).toBe('The build server is called hopper');
  });

  test('--json prints {fact, replayed, change} with the stored record in snake_case', async () => {
    const before = Date.now();
    const out = await engramJson(['remember', 'cli-remember', 'Backups run at 02:00 UTC', '--source', 'runbook', '--tag', 'ops']);
    expect(Object.keys(out).sort()).toEqual(['change', 'duplicate', 'fact', 'replayed']);
    // The change number another daemon's reader passes as --min-change.
    expect(out.change).toBeGreaterThan(0);
    expect(out.replayed).toBe(false);
    expect(out.duplicate).toBe(false);
    expect(out.fact).toMatchObject({
      agent_id: 'cli-remember',
      text: 'Backups run at 02:00 UTC',
      kind: 'fact',
      occurred_at: null,
      superseded_by: null,
      pinned: false,
      confidence: null,
      tags: ['ops'],
      source: 'runbook',
      meta: {},
    });
    expect(out.fact.id).toMatch(FACT_ID);
    expect(out.fact.created_at).toMatch(ISO_TIME);
    expect(Date.parse(out.fact.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(out.fact.created_at)).toBeLessThanOrEqual(Date.now() + 1000);
    expect((await env.client.get('cli-remember', out.fact.id)).source).toBe('runbook');
  });
});

describe('recall', () => {
  const agent = 'cli-recall';
  let ids: string[];
  let sharedId: string;

  beforeAll(async () => {
    ids = await seed(agent, [
      'deploy the api with the blue green script',
      'the deploy window is Tuesday afternoon',
      'deploy keys rotate every quarter',
      'lunch is at noon on Fridays',
    ]);
    sharedId = (await env.client.putShared('company wide deploy freeze in December')).fact.id;
  });

  test('prints one line per fact, id first, with its score and signals; filler is labelled', async () => {
    const run = await engram(['recall', agent, 'deploy']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    const factLines = lines.filter((l) => FACT_ID.test(l.slice(0, 26)));
    expect(factLines).toHaveLength(4);
    expect(factLines.map((l) => l.slice(0, 26)).sort()).toEqual([...ids].sort());
    expect(factLines[0]).toMatch(/^\S{26}  \d{4}-\d{2}-\d{2}  \d\.\d{4} kw\+rec\s+.*deploy/);
    // "lunch is at noon" shares no word with the query: it only fills the count.
    expect(factLines[3]).toMatch(/lunch is at noon on Fridays  \(filler\)$/);
    expect(lines.at(-1)).toBe('(3 of 4 matched the query; the rest only fill --top-k)');
  });

  test('batch-recall marks each query\'s filler as recall does, in text and JSON', async () => {
    const [run, json] = await Promise.all([engram(['batch-recall', agent, 'deploy', 'lunch']), engramJson(['batch-recall', agent, 'deploy', 'lunch'])]);
    expect(run.code, run.stderr).toBe(0);
    const sections = run.stdout.split(/^# /m).filter(Boolean);
    expect(sections.map((s) => s.split('\n')[0])).toEqual(['deploy', 'lunch', 'merged']);
    expect(sections[0]).toMatch(/lunch is at noon on Fridays  \(filler\)$/m);
    expect(sections[0]).toContain('(3 of 4 matched the query; the rest only fill --top-k)');
    expect(sections[1]).toMatch(/^\S{26}  \d{4}-\d{2}-\d{2}  \d\.\d{4} kw\+rec\s+lunch is at noon on Fridays$/m);
    expect(json.per_query.map((q: { matched: number }) => q.matched)).toEqual([3, 1]);
    const lunch = json.per_query[1];
    expect(lunch.matches.map((m: { matched: boolean }) => m.matched)).toEqual([true, false, false, false]);
  });

  test('an unquoted multi-word query is one query; nothing matching is said plainly', async () => {
    const [quoted, unquoted, nothing, json] = await Promise.all([
      engramJson(['recall', agent, 'deploy window']),
      engramJson(['recall', agent, 'deploy', 'window']),
      engram(['recall', agent, 'quantum', 'chromodynamics', 'lecture', 'notes']),
      engramJson(['recall', agent, 'quantum chromodynamics', '--min-relevance', '0.5']),
    ]);
    expect(unquoted.query).toBe('deploy window');
    expect(unquoted.facts.map((f: { id: string }) => f.id)).toEqual(quoted.facts.map((f: { id: string }) => f.id));
    expect(nothing.stdout.split('\n')[0]).toBe('Nothing matched "quantum chromodynamics lecture notes"; these 4 facts only fill the count:');
    expect(json).toMatchObject({ count: 0, matched: 0, facts: [] });
  });

  test('weights that turn off every signal matching words say so, not that nothing matched the query', async () => {
    const [decay, both] = await Promise.all([engram(['recall', agent, 'deploy', '--weights', '0,0,0,1']), engram(['recall', agent, 'deploy', '--weights', '0,0,1,1', '--explain'])]);
    expect(decay.code, decay.stderr).toBe(0);
    expect(decay.stdout.split('\n')[0]).toBe('Nothing could match "deploy": the weights left only decay on, which orders facts and matches no words (vector, keyword and graph are 0); these 4 facts only fill the count:');
    expect(both.stdout).toContain('Nothing could match "deploy": the weights left only recency and decay on, which order facts and match no words');
  });

  test('a vector weight under an embedder that makes no vectors is not a signal that could match', async () => {
    // This daemon runs with --embedder none: with keyword 0, only recency ran.
    const run = await engram(['recall', agent, 'deploy', '--weights', '1,0,1']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe('Nothing could match "deploy": the weights left only recency on, which orders facts and matches no words (keyword and graph are 0; vector is off for this query); these 4 facts only fill the count:');
  });

  test('a query that barely matches gets a hint: a misspelt word, or only stopwords', async () => {
    const [typo, stopwords, json, plain] = await Promise.all([
      engram(['recall', agent, 'deplyo']),
      engram(['recall', agent, 'what', 'is', 'it']),
      engramJson(['recall', agent, 'what is it']),
      engramJson(['recall', agent, 'deploy']),
    ]);
    expect(typo.stdout.trim().split('\n').at(-1)).toBe('hint: Only 0 of 1 query terms occur in memory. If "deplyo" means one of "deploy", add an alias (engram alias <agent> "deplyo" "<equivalent>") so future queries match.');
    expect(stopwords.stdout).toMatch(/^Nothing matched "what is it"/);
    expect(stopwords.stdout.trim().split('\n').at(-1)).toBe('hint: Every word of the query ("what", "is", "it") is too common to search by keyword, so no fact matched a keyword. Add a word that names what you are looking for.');
    expect(json.feedback).toMatchObject({ query_terms: 0, known_terms: 0 });
    expect(plain.feedback).toBeUndefined();
  });

  test('an empty query lists the most recent facts, none labelled filler', async () => {
    const run = await engram(['recall', agent, '', '-k', '2']);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe('No query: the 2 most recent facts:');
    expect(lines.slice(1).every((l) => FACT_ID.test(l.slice(0, 26)) && !l.includes('(filler)')), run.stdout).toBe(true);
  });

  test('-k 2 returns at most 2 facts; --json shape is {agent_id, query, count, facts, retrieval, kg_hints}', async () => {
    const out = await engramJson(['recall', agent, 'deploy', '-k', '2']);
    expect(Object.keys(out).sort()).toEqual(['agent_id', 'count', 'facts', 'kg_hints', 'matched', 'matches', 'query', 'retrieval']);
    expect(out.matched).toBe(2);
    expect(out.matches).toEqual([expect.objectContaining({ matched: true, signals: ['keyword', 'recency'] }), expect.objectContaining({ matched: true })]);
    expect(out.agent_id).toBe(agent);
    expect(out.query).toBe('deploy');
    expect(out.count).toBe(2);
    expect(out.facts).toHaveLength(2);
    for (const fact of out.facts) {
      expect(ids).toContain(fact.id);
      expect(fact.agent_id).toBe(agent);
      expect(fact.text).toContain('deploy');
    }
    expect(out.retrieval).toMatchObject({ rrf_k: 60, embedder: 'none', signals: ['keyword', 'recency'] });
    // The none embedder's defaults: no vector signal, keyword and recency as the seed weights them.
    expect(out.retrieval.weights).toEqual({ vector: 0, keyword: 1, recency: 0.5, decay: 0, graph: 0 });
  });

  test('--explain --json gives a receipt per fact whose fused_score reproduces from its ranks', async () => {
    const out = await engramJson(['recall', agent, 'deploy', '--explain']);
    expect(Object.keys(out).sort()).toEqual(['agent_id', 'count', 'explained', 'facts', 'matched', 'query', 'retrieval']);
    expect(out).toMatchObject({ agent_id: agent, query: 'deploy', facts: [] });
    expect(out.count).toBe(4);
    expect(out.explained).toHaveLength(4);
    expect(out.retrieval.rrf_k).toBe(60);

    for (const receipt of out.explained) {
      expect(Object.keys(receipt).sort()).toEqual(['age_days', 'kg_links', 'matched', 'provenance', 'ranking', 'ranks', 'text', 'weight']);
      expect(receipt.matched).toBe(receipt.ranks.keyword_rank > 0);
      expect(Object.keys(receipt.ranks).sort()).toEqual(['decay_rank', 'fused_score', 'graph_rank', 'k', 'keyword_rank', 'recency_rank', 'vector_rank', 'weights']);
      expect(Object.keys(receipt.provenance).sort()).toEqual(['agent_id', 'confidence', 'fact_id', 'pinned', 'superseded_by', 'written_at']);
      expect(ids).toContain(receipt.provenance.fact_id);
      expect(receipt.provenance).toMatchObject({ agent_id: agent, superseded_by: '', confidence: '', pinned: false });
      expect(receipt.provenance.written_at).toMatch(ISO_TIME);
      expect(receipt.kg_links).toEqual([]);
      expect(receipt.age_days).toBeGreaterThanOrEqual(0);

      const { k, weights, vector_rank, keyword_rank, recency_rank, fused_score } = receipt.ranks;
      expect(k).toBe(60);
      expect(vector_rank).toBe(0); // embedder none: the vector signal ranks nothing
      // Recency ranks the facts the query matched; the unmatched rest fill top_k with score 0.
      if (keyword_rank > 0) expect(recency_rank).toBeGreaterThan(0);
      else expect(recency_rank).toBe(0);
      let expected = 0;
      if (vector_rank > 0) expected += weights.vector / (k + vector_rank);
      if (keyword_rank > 0) expected += weights.keyword / (k + keyword_rank);
      if (recency_rank > 0) expected += weights.recency / (k + recency_rank);
      expect(receipt.ranks.decay_rank).toBe(0); // the decay signal is off unless asked for
      expect(fused_score).toBeCloseTo(expected, 12);
      expect(receipt.weight).toBeCloseTo(fused_score, 12); // no confidence weight configured
    }
    // Both keyword and recency contributed somewhere, so the sum above was exercised.
    expect(out.explained.some((r: any) => r.ranks.keyword_rank > 0)).toBe(true);
    expect(out.explained.some((r: any) => r.ranks.keyword_rank === 0)).toBe(true);

    // Explain returns the same facts in the same order as plain recall.
    const plain = await engramJson(['recall', agent, 'deploy']);
    expect(out.explained.map((r: any) => r.provenance.fact_id)).toEqual(plain.facts.map((f: any) => f.id));
  });

  test('--explain labels and counts the filler as recall does, and says when nothing matched', async () => {
    const [run, nothing] = await Promise.all([engram(['recall', agent, 'deploy', '--explain']), engram(['recall', agent, 'quantum', 'chromodynamics', '--explain'])]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toContain('4. lunch is at noon on Fridays  (filler)');
    expect(lines.filter((l) => l.endsWith('(filler)'))).toHaveLength(1);
    expect(lines.at(-1)).toBe('(3 of 4 matched the query; the rest only fill --top-k)');
    expect(nothing.stdout).toContain('Nothing matched "quantum chromodynamics"; these 4 facts only fill the count:\n1. ');
    expect(nothing.stdout.split('\n').filter((l) => /^\d\. /.test(l)).every((l) => l.endsWith('  (filler)'))).toBe(true);
  });

  test('--all also searches the shared namespace; without it shared facts stay out', async () => {
    const [all, own] = await Promise.all([engramJson(['recall', agent, 'deploy freeze', '--all']), engramJson(['recall', agent, 'deploy freeze'])]);
    const shared = all.facts.find((f: any) => f.id === sharedId);
    expect(shared, JSON.stringify(all.facts)).toBeDefined();
    expect(shared.agent_id).toBe('__shared__');
    expect(all.facts.some((f: any) => f.agent_id === agent)).toBe(true);

    expect(own.facts.map((f: any) => f.id)).not.toContain(sharedId);
  });
});

describe('list', () => {
  const agent = 'cli-list';
  let ids: string[];

  beforeAll(async () => {
    ids = await seed(agent, ['first listed fact', 'second listed fact']);
  });

  test('prints every fact of the namespace, oldest first', async () => {
    const run = await engram(['list', agent]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n').map((l) => l.slice(0, 26))).toEqual(ids);
  });

  test('--limit 1 --json pages with next_page_token until the last page', async () => {
    const first = await engramJson(['list', agent, '--limit', '1']);
    expect(Object.keys(first).sort()).toEqual(['agent_id', 'facts', 'next_page_token']);
    expect(first.agent_id).toBe(agent);
    expect(first.facts.map((f: any) => f.id)).toEqual([ids[0]]);
    expect(first.next_page_token).not.toBe('');

    const second = await engramJson(['list', agent, '--limit', '1', '--page-token', first.next_page_token]);
    expect(second.facts.map((f: any) => f.id)).toEqual([ids[1]]);
    expect(second.next_page_token).toBe('');
  });
});

describe('agents', () => {
  test('lists the namespaces, sorted, in text and --json', async () => {
    await seed('cli-agents-b', ['b']);
    await seed('cli-agents-a', ['a']);
    const run = await engram(['agents']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toContain('cli-agents-a');
    expect(lines).toContain('cli-agents-b');
    expect(lines.indexOf('cli-agents-a')).toBeLessThan(lines.indexOf('cli-agents-b'));

    const out = await engramJson(['agents']);
    expect(Object.keys(out)).toEqual(['agents']);
    expect(out.agents).toEqual(lines);
  });
});

describe('stats', () => {
  test('for one agent counts only that namespace', async () => {
    const agent = 'cli-stats';
    await seed(agent, ['one', 'two', 'three']);
    const out = await engramJson(['stats', agent]);
    expect(out).toMatchObject({ agent_id: agent, fact_count: 3, live_count: 3, retired_count: 0, agent_count: 1 });
    const run = await engram(['stats', agent]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^facts\s+3 \(3 live, 0 retired, 0 pinned\) in 1 namespace$/m);
    // The text is the namespace's; the size on disk is the whole store's (there is none per
    // namespace), and says so rather than passing for the agent's.
    expect(run.stdout).toMatch(/^text\s+11 bytes in "cli-stats"$/m);
    expect(run.stdout).toMatch(/^store\s+\d+ KiB on disk for the whole store \(every namespace, not "cli-stats" alone\)$/m);
  });

  test('without an agent counts the whole store', async () => {
    const expected = await env.client.stats();
    const out = await engramJson(['stats']);
    expect(out.agent_id).toBeNull();
    expect(out).toMatchObject({ fact_count: expected.factCount, live_count: expected.liveCount, agent_count: expected.agentCount });
    expect(out.agent_count).toBeGreaterThan(1);
    expect((await engram(['stats'])).stdout).toMatch(new RegExp(`^facts\\s+${expected.factCount} \\(.*\\) in ${expected.agentCount} namespaces$`, 'm'));
  });
});

describe('forget', () => {
  test('the fact stops being recalled but stays listed with superseded_by "agent"', async () => {
    const agent = 'cli-forget';
    const [gone, kept] = await seed(agent, ['the old vpn host is vpn1', 'the new vpn host is vpn2']);

    const run = await engram(['forget', agent, gone!]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`forgot ${gone}\n`);

    const recalled = await engramJson(['recall', agent, 'vpn host']);
    expect(recalled.facts.map((f: any) => f.id)).toEqual([kept]);

    const listed = await engramJson(['list', agent]);
    expect(listed.facts.map((f: any) => [f.id, f.superseded_by])).toEqual([
      [gone, 'agent'],
      [kept, null],
    ]);

    // The text says what retired each fact: "agent" is a sentinel of superseded_by, not a name.
    const revised = await engramJson(['revise', agent, kept!, '--text', 'the vpn host is vpn3']);
    const lines = (await engram(['list', agent])).stdout.split('\n');
    expect(lines.find((l) => l.startsWith(gone!))).toMatch(/  \(retired by the agent\)$/);
    expect(lines.find((l) => l.startsWith(kept!))).toMatch(new RegExp(`  \\(superseded by ${revised.replacement.id}\\)$`));
  });
});

describe('status', () => {
  test('--json names the daemon (version, capabilities, instance) and the store size', async () => {
    const expected = await env.client.stats();
    const out = await engramJson(['status']);
    expect(out.data_dir).toBe(env.daemon.dataDir);
    expect(out.pid).toBe(env.daemon.child.pid);
    expect(out.daemon.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(out.daemon.instance_id).toBe(env.daemon.discovery.instanceId);
    expect(out.daemon.capabilities).toContain('doctor-v1');
    expect(out.daemon.capabilities).toEqual([...out.daemon.capabilities].sort());
    expect(out.store.fact_count).toBe(expected.factCount);
  });

  test('prints a human summary', async () => {
    const run = await engram(['status']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`pid ${env.daemon.child.pid}`);
    expect(run.stdout).toContain(`data dir  ${env.daemon.dataDir}`);
    expect(run.stdout).toMatch(/^facts\s+\d+ \(/m);
    expect(run.stdout).not.toMatch(/^http /m); // this daemon serves no HTTP
  });

  test('names the HTTP address of a daemon started with --http', async () => {
    const withHttp = fresh.daemon;
    const run = await engram(['status'], { dataDir: withHttp.dataDir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`http      http://${withHttp.discovery.httpAddress} (REST, MCP at /mcp, the inspector at /inspector/)`);
  });
});

describe('doctor', () => {
  test('a fresh store is healthy (exit 0)', async () => {
    const out = await engramJson(['doctor'], { dataDir: fresh.daemon.dataDir });
    expect(out.healthy).toBe(true);
    expect(out.rebuilt).toBe(false);
    expect(out.checks.length).toBeGreaterThan(0);
    for (const check of out.checks) expect(check.ok, `${check.name}: ${check.detail}`).toBe(true);
  });

  test('--rebuild exits 0 and reports a healthy rebuilt store', async () => {
    const out = await engramJson(['doctor', '--rebuild'], { dataDir: fresh.daemon.dataDir });
    expect(out).toMatchObject({ healthy: true, rebuilt: true });
  });

  test('the store the other tests wrote to (including a forgotten fact) is healthy too', async () => {
    const run = await engram(['doctor']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n').pop()).toBe('healthy');
  });
});

describe('exit codes', () => {
  test.concurrent.each([
    ['a missing argument', ['remember', 'cli-usage'], /missing required argument 'text'/],
    ['-k 0', ['recall', 'cli-usage', 'anything', '-k', '0'], /--top-k must be a positive integer/],
    ['an unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
  ])('2 for a usage error: %s', async (_name, args, message) => {
    const run = await engram(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  test('an unknown command that is another word for one suggests that command; others keep commander\'s guess by spelling', async () => {
    const [search, add, typo] = await Promise.all([engram(['search', 'cli-usage', 'tea']), engram(['add', 'cli-usage', 'tea']), engram(['statr'])]);
    expect(search.code).toBe(2);
    expect(search.stderr).toBe(`engram: unknown command 'search'\n(Did you mean recall? engram recall [options] <agent> <query...>) (see "engram --help")\n`);
    expect(add.stderr).toContain('(Did you mean remember? engram remember [options] <agent> <text...>)');
    expect(typo.stderr).toContain('(Did you mean one of start, stats?)');
  });

  test('2 for a refused argument: an empty agent id names <agent>, and nothing is stored', async () => {
    const before = await env.client.stats();
    const run = await engram(['remember', '', 'a fact for nobody']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('engram: <agent>: must not be empty (see "engram remember --help")\n');
    expect((await env.client.stats()).factCount).toBe(before.factCount);
  });

  test('2 for a fact over the daemon\'s text limit (known from the handshake, refused before sending), naming the argument', async () => {
    const run = await engram(['remember', 'cli-usage', 'x'.repeat(40 * 1024)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('engram: <text...>: is 40960 bytes; the limit is 32768 (see "engram remember --help")\n');
  });

  test('1 with not_found when forgetting a well-formed id that does not exist', async () => {
    const run = await engram(['forget', 'cli-missing', '01ARZ3NDEKTSV4RRFFQ69G5FAV']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/not_found/);
    expect(run.stderr).toContain('01ARZ3NDEKTSV4RRFFQ69G5FAV');
  });

  test('1 with a hint to start a daemon when --data-dir has none', async () => {
    const empty = tempDataDir('engram-cli-empty-');
    try {
      const run = await engram(['recall', 'anyone', 'anything'], { dataDir: empty });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`engram start --data-dir ${empty}`);
    } finally {
      removeDir(empty);
    }
  });
});

describe('ENGRAM_HOME', () => {
  test('selects the data dir when --data-dir is absent', async () => {
    const run = await engram(['remember', 'cli-home', 'found through ENGRAM_HOME'], { dataDir: null, env: { ENGRAM_HOME: env.daemon.dataDir } });
    expect(run.code, run.stderr).toBe(0);
    const listed = await env.client.list('cli-home');
    expect(listed.facts.map((f) => f.text)).toEqual(['found through ENGRAM_HOME']);
  });

  test('an ENGRAM_HOME without a daemon fails naming that dir; --data-dir overrides it', async () => {
    const empty = tempDataDir('engram-cli-home-');
    try {
      const missing = await engram(['agents'], { dataDir: null, env: { ENGRAM_HOME: empty } });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(empty);

      const overridden = await engram(['agents'], { env: { ENGRAM_HOME: empty } });
      expect(overridden.code, overridden.stderr).toBe(0);
      expect(overridden.stdout).toContain('cli-home');
    } finally {
      removeDir(empty);
    }
  });
});

describe('front-door rough edges', () => {
  const agent = 'cli-edges';

  test('an identical remember is already remembered; --allow-duplicate stores a copy', async () => {
    const first = await engramJson(['remember', agent, 'The office wifi is called orbit']);
    const again = await engram(['remember', agent, 'The office wifi', 'is called orbit']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`already remembered ${first.fact.id} in "${agent}" (nothing new stored; --allow-duplicate stores a copy)\n`);
    const json = await engramJson(['remember', agent, 'The office wifi is called orbit']);
    expect(json).toMatchObject({ duplicate: true, fact: { id: first.fact.id } });
    const copy = await engramJson(['remember', agent, 'The office wifi is called orbit', '--allow-duplicate']);
    expect(copy.duplicate).toBe(false);
    expect(copy.fact.id).not.toBe(first.fact.id);
  });

  test('--tag and --entity repeat and never swallow the text; every write field is accepted', async () => {
    const out = await engramJson(['remember', agent, '--tag', 'ops', 'Backups', 'run', 'nightly', '--tag', 'infra', '--entity', 'backup job', '--meta', '{"ticket": 42}', '--confidence', 'verified', '--context', 'runbook v2', '--occurred-at', '2024-05-08T02:00:00Z']);
    expect(out.fact).toMatchObject({ text: 'Backups run nightly', tags: ['ops', 'infra'], entities: ['backup job'], meta: { ticket: 42 }, confidence: 'verified', context: 'runbook v2', occurred_at: '2024-05-08T02:00:00.000Z' });
  });

  test('"-" reads the text, a revision or the checkpoint state from stdin', async () => {
    const fromStdin = await engramJson(['remember', agent, '-'], { input: 'The printer is on floor 3\n' });
    expect(fromStdin.fact.text).toBe('The printer is on floor 3');
    const revised = await engramJson(['revise', agent, fromStdin.fact.id, '--text', '-'], { input: 'The printer moved to floor 4\n' });
    expect(revised.replacement.text).toBe('The printer moved to floor 4');
    const saved = await engramJson(['checkpoint', 'save', agent, '--state', '-'], { input: '{"step": 7}' });
    expect((await env.client.checkpointResume(agent))!.id).toBe(saved.checkpoint_id);
    expect((await env.client.checkpointResume(agent))!.state).toEqual({ step: 7 });
    const empty = await engram(['remember', agent, '-'], { input: '' });
    expect(empty.code).toBe(2);
  });

  test('usage errors exit 2 with one line that points at the command\'s --help', async () => {
    const refused = [['recall'], ['recall', agent, 'x', '--top-k', 'many'], ['checkpoint', 'save', agent], ['remember', agent, 'x', '--bogus']];
    // Nothing is written by any of them: run at once.
    const runs = await Promise.all(refused.map((args) => engram(args)));
    for (const [i, args] of refused.entries()) {
      const run = runs[i]!;
      expect(run.code, args.join(' ')).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^engram: .*\\(see "engram ${args[0] === 'checkpoint' ? 'checkpoint save' : args[0]} --help"\\)$`));
      expect(run.stdout).toBe('');
    }
    expect(runs[2]!.stderr).toMatch(/--state is required/);
  });

  test('with --json every error is JSON: {"error": {kind, message, field}}', async () => {
    const [bad, missing, unknown] = await Promise.all([engram(['get', agent, 'not-a-fact-id', '--json']), engram(['recall', '--json']), engram(['get', agent, '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--json'])]);
    // A malformed argument is the user's usage error, named as the command's help names it.
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toEqual({ error: { kind: 'usage', message: expect.stringMatching(/^<fact-id>: "not-a-fact-id" is not a fact id/), field: 'fact-id' } });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ kind: 'usage', field: 'agent' });
    expect(JSON.parse(unknown.stdout).error.kind).toBe('not_found');
  });

  test('status --json with no daemon prints {"running": false, ...} and exits 1', async () => {
    const dir = tempDataDir('engram-cli-nodaemon-');
    try {
      const run = await engram(['status', '--json'], { dataDir: dir });
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ running: false, data_dir: dir, data_dir_source: 'flag', reason: expect.stringMatching(/no Engram daemon/) });
      expect((await engramJson(['status'])).running).toBe(true);
    } finally {
      removeDir(dir);
    }
  });

  test('delete erases (get then fails); forget only retires', async () => {
    const kept = await engramJson(['remember', agent, 'The old build host was hopper']);
    const secret = await engramJson(['remember', agent, 'The deploy token is abc123']);
    expect((await engram(['forget', agent, kept.fact.id])).code).toBe(0);
    expect((await engramJson(['get', agent, kept.fact.id])).fact.superseded_by).toBe('agent');
    // The sentinel names no one: engram get says what retired the fact, as engram list does.
    expect((await engram(['get', agent, kept.fact.id])).stdout).toMatch(/^superseded_by {4}none \(retired by the agent\)$/m);
    const deleted = await engram(['delete', agent, secret.fact.id]);
    expect(deleted.stdout).toBe(`deleted ${secret.fact.id} (erased from the store)\n`);
    const gone = await engram(['get', agent, secret.fact.id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/not_found/);
    expect(await engramJson(['delete', agent, kept.fact.id])).toEqual({ agent_id: agent, fact_id: kept.fact.id, deleted: true });
  });
});
