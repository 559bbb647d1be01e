// A bad value given to a CLI flag or argument is a usage error about that flag: exit 2, one line
// naming the flag (never the request field the library or the daemon calls it) and the
// command's --help. Number flags take plain decimal numbers only: an empty item of a weight list
// or a hex one is refused, not read as 0 or 16.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { useCliDaemon } from './fixtures/cli.ts';

const env = useCliDaemon();
const { engram, engramJson } = env;
const agent = 'cli-flags';

beforeAll(async () => {
  await env.client.put(agent, 'Bulk green tea arrives on Mondays');
  await env.client.put(agent, 'The tea cupboard is in the kitchen');
});

/** The run was refused as a usage error of `command`, in one line naming `name`, with nothing
 *  on stdout. */
function expectUsage(run: { code: number | null; stdout: string; stderr: string }, command: string, name: string): string {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  const lines = run.stderr.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]!.startsWith(`engram: ${name}`), lines[0]).toBe(true);
  expect(lines[0]).toMatch(new RegExp(`\\(see "engram ${command} --help"\\)$`));
  return lines[0]!;
}

// The usage errors below write nothing, so their runs go at once (test.concurrent, Promise.all):
// each is a process of its own against the one daemon.
describe('weight lists take plain decimal numbers', () => {
  test.concurrent.each([
    ['an empty item', '1,,1', 'keyword', ''],
    ['a hex item', '0x10,1,1', 'vector', '0x10'],
    ['an empty last item', '1,1,', 'recency', ''],
    ['a blank item', '1, ,1', 'keyword', ''],
    ['a binary item', '1,1,0b1', 'recency', '0b1'],
  ])('recall --weights refuses %s naming the flag and the item', async (_name, weights, signal, item) => {
    const line = expectUsage(await engram(['recall', agent, 'tea', '-k', '1', '--weights', weights, '--explain']), 'recall', '--weights');
    expect(line).toContain(`--weights: ${signal}: must be a number, got "${item}" (in "${weights}")`);
  });

  test('batch-recall shares the rule', async () => {
    expectUsage(await engram(['batch-recall', agent, 'tea', 'kitchen', '--weights', '1,,1']), 'batch-recall', '--weights');
  });

  test('the decimal forms accepted before still are: spaces, .5, 1e-3, a sign, a trailing point', async () => {
    const out = await engramJson(['recall', agent, 'tea', '-k', '1', '--weights', ' 1 , .5 , 1e-3 ']);
    expect(out.retrieval.weights).toEqual({ vector: 1, keyword: 0.5, recency: 0.001, decay: 0, graph: 0 });
    const signed = await engramJson(['recall', agent, 'tea', '-k', '1', '--weights', '+1,2.,0', '--explain']);
    expect(signed.retrieval.weights).toMatchObject({ vector: 1, keyword: 2, recency: 0 });
  });

  test('the other number flags of recall refuse "" and hex too', async () => {
    const runs = await Promise.all([
      engram(['recall', agent, 'tea', '--min-relevance', '']),
      engram(['recall', agent, 'tea', '--min-relevance', '0x1']),
      engram(['recall', agent, 'tea', '--confidence-weight', '0x0']),
      engram(['recall', agent, 'tea', '-k', '0x10']),
    ]);
    expectUsage(runs[0]!, 'recall', '--min-relevance');
    expectUsage(runs[1]!, 'recall', '--min-relevance');
    expectUsage(runs[2]!, 'recall', '--confidence-weight');
    expectUsage(runs[3]!, 'recall', '--top-k');
  });
});

describe('a refused flag value names the flag and exits 2', () => {
  test.concurrent.each([
    ['--confidence-weight 0.6', ['--confidence-weight', '0.6'], '--confidence-weight: must be a finite number in [0, 0.5], got 0.6'],
    ['--weights -1,1,0.5', ['--weights', '-1,1,0.5'], '--weights: vector: must be a finite number in [0, 100], got -1'],
    ['--weights 1,101,1', ['--weights', '1,101,1'], '--weights: keyword: must be a finite number in [0, 100], got 101'],
    ['--min-relevance 2', ['--min-relevance', '2'], '--min-relevance: must be a finite number in [0, 1], got 2'],
    ['--min-confidence sure', ['--min-confidence', 'sure'], '--min-confidence: must be one of verified, inferred, unverified, got "sure"'],
    ['--min-score -1', ['--min-score', '-1'], '--min-score: must be a finite number >= 0, got -1'],
    ['--window-days 40000', ['--window-days', '40000'], '--window-days: must be a whole number of days between 1 and 36500'],
    // The daemon's to decide (its advertised limit), worded as the flag.
    ['-k 1001', ['-k', '1001'], '-k/--top-k: must be between 1 and 1000, got 1001'],
    // The daemon's to decide too (the signals left out take its defaults).
    ['--weights 0,0,0', ['--weights', '0,0,0'], '--weights: at least one signal weight must be positive'],
  ])('recall %s', async (_name, flags, message) => {
    const line = expectUsage(await engram(['recall', agent, 'tea', ...flags]), 'recall', flags[0]!.startsWith('-k') ? '-k/--top-k' : flags[0]!);
    expect(line).toBe(`engram: ${message} (see "engram recall --help")`);
    expect(line).not.toMatch(/options\.|signal_weights|min_relevance|top_k|confidenceWeight|minConfidence/);
  });

  // Parsed before the command's action runs, these pointed at "engram --help".
  test.concurrent.each([
    ['list', [agent, '--limit', '0'], '--limit'],
    ['logs', ['-n', 'abc'], '--lines'],
    ['import', [agent, 'facts.jsonl', '--concurrency', '0'], '--concurrency'],
  ])('%s: a refused number points at the command\'s own help', async (command, args, flag) => {
    expectUsage(await engram([command, ...args]), command, flag);
  });

  test('batch-recall -k 1001 names -k/--top-k, not options.top_k', async () => {
    const line = expectUsage(await engram(['batch-recall', agent, 'tea', 'kitchen', '-k', '1001']), 'batch-recall', '-k/--top-k');
    expect(line).not.toContain('options.top_k');
  });

  test('with --json the error is {"kind": "usage"} with the flag as its field', async () => {
    for (const [flags, field] of [
      [['-k', '1001'], '--top-k'],
      [['--weights', '-1,1,0.5'], '--weights'],
      [['--min-confidence', 'sure'], '--min-confidence'],
    ] as const) {
      const run = await engram(['recall', agent, 'tea', ...flags, '--json']);
      expect(run.code, flags.join(' ')).toBe(2);
      expect(JSON.parse(run.stdout).error).toMatchObject({ kind: 'usage', field });
    }
  });

  test('values within the rules still recall (no stricter limit in the CLI)', async () => {
    const out = await engramJson(['recall', agent, 'tea', '-k', '1000', '--confidence-weight', '0.5', '--min-relevance', '1', '--weights', '0,0,0,1', '--min-confidence', 'unverified']);
    expect(out.retrieval.weights).toEqual({ vector: 0, keyword: 0, recency: 0, decay: 1, graph: 0 });
  });

  test('the library keeps the daemon\'s field names (other doors are unchanged)', async () => {
    await expect(env.client.recall(agent, 'tea', { minRelevance: 2 })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'options.min_relevance' });
    await expect(env.client.recall(agent, 'tea', { weights: { vector: -1 } })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'options.signal_weights.vector' });
    await expect(env.client.recall(agent, 'tea', { topK: 1001 })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'top_k' });
  });
});

describe('the <agent> argument', () => {
  test('import "" FILE names <agent>, exits 2 and imports nothing', async () => {
    const file = join(env.cwd, 'one.jsonl');
    writeFileSync(file, '{"text": "a fact for nobody"}\n');
    const before = await env.client.stats();
    const line = expectUsage(await engram(['import', '', file]), 'import', '<agent>');
    expect(line).toBe('engram: <agent>: must not be empty (see "engram import --help")');
    expect((await env.client.stats()).factCount).toBe(before.factCount);
  });

  test('every command checks it the same way; --json names the field agent', async () => {
    expectUsage(await engram(['recall', '   ', 'tea']), 'recall', '<agent>');
    expectUsage(await engram(['stats', '']), 'stats', '<agent>');
    const run = await engram(['remember', '', 'a fact', '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({ error: { kind: 'usage', message: '<agent>: must not be empty', field: 'agent' } });
  });

  test('write-status --agent "" names --agent', async () => {
    expectUsage(await engram(['write-status', 'some-request', '--agent', '']), 'write-status', '--agent');
  });
});

describe('write and list flags are checked before anything is sent', () => {
  const writes = 'cli-flags-writes';

  test.concurrent.each([
    ['remember --confidence sure', ['remember', writes, 'a fact', '--confidence', 'sure'], 'remember', '--confidence'],
    ['remember --tag ""', ['remember', writes, 'a fact', '--tag', 'ok', '--tag', ''], 'remember', '--tag'],
    ['remember --entity "  "', ['remember', writes, 'a fact', '--entity', '  '], 'remember', '--entity'],
    ['remember ""', ['remember', writes, ''], 'remember', '<text...>'],
    ['remember "   "', ['remember', writes, '   '], 'remember', '<text...>'],
  ])('%s is a usage error naming the flag, and nothing is stored', async (_name, args, command, name) => {
    const line = expectUsage(await engram(args), command, name);
    expect(line).not.toMatch(/ (tags|entities|confidence|text)(\[\d+\])?:/);
    expect((await env.client.list(writes)).facts).toEqual([]);
  });

  test('revise --text "" and --confidence sure name their flags and retire nothing', async () => {
    const { fact } = await env.client.put(writes + '-r', 'The bike is blue');
    expectUsage(await engram(['revise', writes + '-r', fact.id, '--text', ' ']), 'revise', '--text');
    expectUsage(await engram(['revise', writes + '-r', fact.id, '--text', 'The bike is red', '--confidence', 'sure']), 'revise', '--confidence');
    expect((await env.client.list(writes + '-r')).facts.map((f) => f.supersededBy ?? '')).toEqual(['']);
  });

  test.concurrent.each([
    ['--limit 100000', ['--limit', '100000'], '--limit', '--limit: must be an integer between 1 and 1000'],
    ['--page-token bogus', ['--page-token', 'bogus'], '--page-token', '--page-token: "bogus" is not a page token (pass the next_page_token of the previous page)'],
    ['--tag ""', ['--tag', ''], '--tag', '--tag[0]: must not be empty'],
  ])('list %s names the flag', async (_name, flags, flag, message) => {
    const line = expectUsage(await engram(['list', agent, ...flags]), 'list', flag);
    expect(line).toContain(message);
  });

  test('the values at the limits still work', async () => {
    const page = await engramJson(['list', agent, '--limit', '1000', '--tag', 'none-such']);
    expect(page.facts).toEqual([]);
    const stored = await engramJson(['remember', writes + '-ok', 'a labelled fact', '--confidence', 'verified', '--tag', 'a', '--entity', 'B']);
    expect(stored.fact).toMatchObject({ confidence: 'verified', tags: ['a'], entities: ['B'] });
  });
});

describe('a malformed --address is refused at once, not dialled until the deadline', () => {
  test.concurrent.each(['bogus:::', 'unix:', 'localhost', 'host:0', 'host:99999', '[::1]'])('--address %s names the flag', async (address) => {
    // A usage error (exit 2), not "unavailable: cannot reach the Engram daemon" after the deadline.
    const line = expectUsage(await engram(['--address', address, 'recall', agent, 'tea']), 'recall', '--address');
    expect(line).not.toContain('cannot reach');
  });

  test('the library refuses it in connect() naming the address field', async () => {
    const { connect } = await import('../client/index.ts');
    await expect(connect({ address: 'bogus:::' })).rejects.toMatchObject({ kind: 'invalid_argument', field: 'address' });
  });

  test('the forms grpc dials pass the check (and then fail only as unreachable)', async () => {
    const { dialAddress } = await import('../shared/validate.ts');
    for (const ok of ['unix:/tmp/engram.sock', 'unix:relative.sock', 'unix:///tmp/e.sock', '127.0.0.1:7777', 'localhost:1', '[::1]:7777', 'dns:example.com:443', 'dns:///example.com:443']) {
      expect(dialAddress(ok)).toBe(ok);
    }
  });
});

describe('a refusal the daemon decides names the flag or argument that set the field', () => {
  const other = 'cli-flags-daemon';

  test.concurrent.each([
    ['analyze ""', ['analyze', ''], 'analyze', '<message...>'],
    ['touch AGENT nope', ['touch', other, 'nope'], 'touch', '<fact-id>'],
    ['cluster --threshold 5', ['cluster', other, '--threshold', '5'], 'cluster', '--threshold'],
    ['slots put --confidence 2', ['slots', 'put', 'flag-slot', '"v"', '--confidence', '2'], 'slots put', '--confidence'],
    ['slots put --scope ""', ['slots', 'put', 'flag-slot', '"v"', '--scope', ''], 'slots put', '--scope'],
    ['slots put NEW (no value)', ['slots', 'put', 'flag-slot-new'], 'slots put', '[value...]'],
    ['promote AGENT (no fact, no --auto)', ['promote', other], 'promote', 'name the fact'],
    ['token create --agent ""', ['token', 'create', '--agent', ''], 'token create', '--agent'],
    ['slots list --page-token zzz', ['slots', 'list', '--page-token', 'zzz'], 'slots list', '--page-token'],
    ['cluster --duplicate-threshold 5', ['cluster', other, '--duplicates', '--duplicate-threshold', '5'], 'cluster', '--duplicate-threshold'],
    ['cluster --max-size 100000', ['cluster', other, '--max-size', '100000'], 'cluster', '--max-size'],
    ['recipes save --vector-top-k 0', ['recipes', 'save', 'flag-recipe', '--vector-top-k', '0'], 'recipes save', '--vector-top-k'],
    ['recipes save --graph-depth 4', ['recipes', 'save', 'flag-recipe', '--graph-depth', '4'], 'recipes save', '--graph-depth'],
    ['recipes save "bad name!"', ['recipes', 'save', 'bad name!'], 'recipes save', '<name>'],
    ['consolidate AGENT cluster-nonexist', ['consolidate', other, 'cluster-nonexist'], 'consolidate', '[cluster-id]'],
    ['token create --label (300 characters)', ['token', 'create', '--agent', other, '--label', 'x'.repeat(300)], 'token create', '--label'],
    ['token revoke ""', ['token', 'revoke', ''], 'token revoke', '<id>'],
    ['consolidate AGENT CLUSTER --apply --dry-run', ['consolidate', other, 'cluster-0123456789abcdef', '--apply', '--dry-run'], 'consolidate', '--apply'],
    ['gc --limit 99999999999999', ['gc', other, '--limit', '99999999999999'], 'gc', '--limit'],
    ['graph --limit 500', ['graph', other, '--entity', 'x', '--limit', '500'], 'graph', '--limit'],
    ['search-unified --limit 100000', ['search-unified', other, 'tea', '--limit', '100000'], 'search-unified', '--limit'],
    ['slots put "" v', ['slots', 'put', '', 'v'], 'slots put', '<name>'],
    ['slots put --evidence ""', ['slots', 'put', 'flag-slot', 'v', '--evidence', ''], 'slots put', '--evidence'],
    ['promote AGENT FACT --auto', ['promote', other, '01M96RT2K1S1Y6YPYG6JM44KNJ', '--auto'], 'promote', '--auto'],
    ['recall --recipe nope', ['recall', other, 'tea', '--recipe', 'nope'], 'recall', '--recipe'],
    ['batch-recall --recipe nope', ['batch-recall', other, 'tea', 'cups', '--recipe', 'nope'], 'batch-recall', '--recipe'],
    ['context --recipe nope', ['context', other, 'tea', '--recipe', 'nope'], 'context', '--recipe'],
    ['observe AGENT ID nope', ['observe', other, '01M96RT2K1S1Y6YPYG6JM44KNJ', 'nope'], 'observe', '<fact-ids...>'],
    ['observe --tag ""', ['observe', other, '01M96RT2K1S1Y6YPYG6JM44KNJ', '--tag', ''], 'observe', '--tag'],
    ['remember --meta nested 100 deep', ['remember', other, 'deep meta', '--meta', `${'{"a":'.repeat(99)}{}${'}'.repeat(99)}`], 'remember', '--meta'],
    ['remember --source (2000 bytes)', ['remember', other, 'long source', '--source', 's'.repeat(2000)], 'remember', '--source'],
    ['alias AGENT "" eq', ['alias', other, '', 'eq'], 'alias', '<term>'],
    // Text over the daemon's limit (the handshake's max_text_bytes), refused before it is sent.
    ['remember (40000 bytes)', ['remember', other, 'a'.repeat(40_000)], 'remember', '<text...>'],
    ['revise --text (40000 bytes)', ['revise', other, '01M96RT2K1S1Y6YPYG6JM44KNJ', '--text', 'a'.repeat(40_000)], 'revise', '--text'],
    ['recall (40000 bytes)', ['recall', other, 'a'.repeat(40_000)], 'recall', '<query...>'],
    ['search-unified (40000 bytes)', ['search-unified', other, 'a'.repeat(40_000)], 'search-unified', '<query...>'],
    ['context (40000 bytes)', ['context', other, 'a'.repeat(40_000)], 'context', '[query...]'],
    ['list --text (2000 bytes)', ['list', other, '--text', 'a'.repeat(2000)], 'list', '--text'],
    ['write-status ""', ['write-status', ''], 'write-status', '<request-id>'],
    ['write-status (200 bytes)', ['write-status', 'r'.repeat(200)], 'write-status', '<request-id>'],
    ['token create --agent __shared__', ['token', 'create', '--agent', '__shared__'], 'token create', '--agent'],
    ['token revoke (100 bytes)', ['token', 'revoke', 'a'.repeat(100)], 'token revoke', '<id>'],
    ['recall --tag ""', ['recall', other, 'tea', '--tag', ''], 'recall', '--tag'],
    ['recall --all-tags ""', ['recall', other, 'tea', '--all-tags', ''], 'recall', '--all-tags'],
    ['batch-recall --tag ""', ['batch-recall', other, 'tea', 'cups', '--tag', ''], 'batch-recall', '--tag'],
    ['alias AGENT term ""', ['alias', other, 'term', ''], 'alias', '<equivalents...>'],
    ['revise AGENT nope', ['revise', other, 'nope', '--text', 'new'], 'revise', '<fact-ids...>'],
    ['search-unified --tag ""', ['search-unified', other, 'tea', '--tag', ''], 'search-unified', '--tag'],
    ['search-unified --stm-weight 1e9', ['search-unified', other, 'tea', '--stm-weight', '1e9'], 'search-unified', '--stm-weight'],
    ['search-unified --ltm-weight 1e9', ['search-unified', other, 'tea', '--ltm-weight', '1e9'], 'search-unified', '--ltm-weight'],
    ['link --type (2000 bytes)', ['link', other, '01M96RT2K1S1Y6YPYG6JM44KNJ', 'Tea', '--type', 'a'.repeat(2000)], 'link', '--type'],
    ['graph --fact ""', ['graph', other, '--fact', ''], 'graph', '--fact'],
    ['slots put --project "   "', ['slots', 'put', 'flag-slot', 'v', '--project', '   '], 'slots put', '--project'],
    ['slots get ""', ['slots', 'get', ''], 'slots get', '<record-id>'],
    ['slots history ""', ['slots', 'history', ''], 'slots history', '<record-id>'],
    ['slots context --name ""', ['slots', 'context', '--name', ''], 'slots context', '--name'],
    ['context --slot ""', ['context', other, 'tea', '--slot', ''], 'context', '--slot'],
  ])('%s is a usage error (exit 2) naming it, and nothing is written', async (_name, args, command, name) => {
    const line = expectUsage(await engram(args), command, name);
    expect(line).not.toMatch(/(?<![-\w])(message|fact_id|memory_id|threshold|slot_value|agents(\[0\])?|text|query|queries(\[\d\])?|request_id|id|record_id|project_id|slot_names\[0\]|stm_weight|ltm_weight|entity_type|target_ids\[0\]|equivalents\[0\]|(options\.)?(filters\.)?tags_(any|all)\[0\]|tags\[0\]):/);
    expect(line).not.toContain('omit it and the library');
    expect((await env.client.listSlots({})).slots.filter((s) => s.slotName.startsWith('flag-slot'))).toEqual([]);
  });

  test('promote AGENT FACT --auto names the [fact-id] argument and --auto, not the request fields', async () => {
    const line = expectUsage(await engram(['promote', other, '01M96RT2K1S1Y6YPYG6JM44KNJ', '--auto']), 'promote', '--auto');
    expect(line).toContain('give a [fact-id] or --auto (every fact that qualifies), not both');
    expect(line).not.toMatch(/memory_id|auto_detect/);
  });

  test('cluster --max-size beyond the wire (uint32) is refused in the range accepted, as 100000 is', async () => {
    const line = expectUsage(await engram(['cluster', other, '--max-size', '99999999999999999999']), 'cluster', '--max-size');
    expect(line).toContain('--max-size: must be a whole number between 1 and 1000, got 100000000000000000000');
  });

  test('cluster --threshold abc is refused in the words of its range, as 5 is', async () => {
    expect(expectUsage(await engram(['cluster', other, '--threshold', 'abc']), 'cluster', '--threshold')).toContain('--threshold must be a number in (0, 1], got "abc"');
  });

  test('link AGENT ID "" names <entity>; checkpoint save with a state over the limit names --state-file', async () => {
    const { fact } = await env.client.put(other, 'A fact to link an entity to');
    expectUsage(await engram(['link', other, fact.id, '']), 'link', '<entity>');
    expect((await env.client.get(other, fact.id)).entities).toEqual([]);
    const big = join(env.cwd, 'big-state.json');
    writeFileSync(big, JSON.stringify({ k: 'a'.repeat(1_100_000) }));
    expectUsage(await engram(['checkpoint', 'save', other, '--state-file', big]), 'checkpoint save', '--state-file');
  });

  test('relate A causes A names <to-id> and relates nothing', async () => {
    const { fact } = await env.client.put(other, 'A fact that cannot cause itself');
    expectUsage(await engram(['relate', other, fact.id, 'causes', fact.id]), 'relate', '<to-id>');
    expect((await env.client.readGraph(other, { factId: fact.id })).edges.filter((e) => e.type === 'causes')).toEqual([]);
  });
});

describe('flags that ask for opposite things, given together, are a usage error naming both (the run took the last, or ignored some)', () => {
  test.concurrent.each([
    ['recall --kg --no-kg', ['recall', agent, 'tea', '--kg', '--no-kg'], 'recall', '--kg and --no-kg cannot be combined'],
    ['recall --no-kg --kg', ['recall', agent, 'tea', '--no-kg', '--kg'], 'recall', '--no-kg and --kg cannot be combined'],
    ['batch-recall --kg --no-kg', ['batch-recall', agent, 'tea', 'kitchen', '--kg', '--no-kg'], 'batch-recall', '--kg and --no-kg cannot be combined'],
    ['consolidate AGENT --dry-run --status', ['consolidate', agent, '--dry-run', '--status'], 'consolidate', '--status and --dry-run cannot be combined'],
    ['consolidate --status --apply', ['consolidate', '--status', '--apply'], 'consolidate', '--status and --apply cannot be combined'],
    ['consolidate AGENT --status', ['consolidate', agent, '--status'], 'consolidate', `--status prints the lifetime totals of every agent: it takes no [agent] (got "${agent}"); give one or the other`],
  ])('%s', async (_name, args, command, said) => {
    expect(expectUsage(await engram(args), command, said.split(' ')[0]!)).toContain(said);
  });

  test('either flag alone (or one given twice) still runs', async () => {
    expect((await engramJson(['recall', agent, 'tea', '--kg', '--kg'])).facts.length).toBeGreaterThan(0);
    expect((await engramJson(['recall', agent, 'tea', '--no-kg'])).facts.length).toBeGreaterThan(0);
    expect(await engramJson(['consolidate', '--status'])).toMatchObject({ runs: expect.any(Number) });
  });
});

describe('text from stdin or a file must be UTF-8: refused (exit 2, saying where), never stored with replacement characters', () => {
  const agentU = 'cli-flags-utf8';
  const bad = Buffer.from([0x62, 0x61, 0x64, 0x20, 0xff, 0x20, 0x75, 0x74, 0x66, 0x38]); // "bad \xff utf8"

  test.concurrent.each([
    ['remember AGENT -', ['remember', agentU, '-'], 'remember', '<text...>: stdin is not valid UTF-8'],
    ['revise AGENT ID --text -', ['revise', agentU, '01M96RT2K1S1Y6YPYG6JM44KNJ', '--text', '-'], 'revise', '--text: stdin is not valid UTF-8'],
    ['recall AGENT -', ['recall', agentU, '-'], 'recall', '<query...>: stdin is not valid UTF-8'],
    ['extract AGENT - --remember', ['extract', agentU, '-', '--remember'], 'extract', '<message...>: stdin is not valid UTF-8'],
    ['analyze -', ['analyze', '-'], 'analyze', '<message...>: stdin is not valid UTF-8'],
    ['checkpoint save AGENT --state -', ['checkpoint', 'save', agentU, '--state', '-'], 'checkpoint save', '--state - (stdin) is not valid UTF-8'],
    ['import AGENT - --format conversation', ['import', agentU, '-', '--format', 'conversation'], 'import', '<file>: stdin is not valid UTF-8'],
  ])('%s', async (_name, args, command, said) => {
    const line = expectUsage(await engram(args, { input: bad }), command, said.split(' ')[0]!.replace(/:$/, ''));
    expect(line).toContain(said);
    expect((await env.client.list(agentU)).facts).toEqual([]);
    expect(await env.client.checkpointResume(agentU)).toBeFalsy();
  });

  test('a file named with --state-file is checked the same way', async () => {
    const file = join(env.cwd, 'not-utf8.json');
    writeFileSync(file, Buffer.concat([Buffer.from('{"k": "'), bad, Buffer.from('"}')]));
    const line = expectUsage(await engram(['checkpoint', 'save', agentU, '--state-file', file]), 'checkpoint save', '--state-file');
    expect(line).toContain('is not valid UTF-8');
    expect(await env.client.checkpointResume(agentU)).toBeFalsy();
  });

  test('UTF-8 on stdin is stored as it is (a byte-order mark dropped)', async () => {
    const stored = await engramJson(['remember', agentU + '-ok', '-'], { input: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('café ☕\n')]) });
    expect(stored.fact.text).toBe('café ☕');
  });
});

describe('--request-id: a write sent again with the same request id is stored once', () => {
  const agentR = 'cli-flags-request-id';

  test('remember answers a resend as already stored, and write-status finds it', async () => {
    const first = await engramJson(['remember', agentR, 'The spare key is under the mat', '--request-id', 'cli-req-1']);
    expect(first.replayed).toBe(false);
    const again = await engram(['remember', agentR, 'The spare key is under the mat', '--request-id', 'cli-req-1']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`already stored ${first.fact.id} in "${agentR}": request id cli-req-1 was sent before (nothing new stored)\n`);
    const json = await engramJson(['remember', agentR, 'The spare key is under the mat', '--request-id', 'cli-req-1']);
    expect(json).toMatchObject({ replayed: true, fact: { id: first.fact.id } });
    expect((await env.client.list(agentR)).facts.map((f) => f.id)).toEqual([first.fact.id]);
    expect(await engramJson(['write-status', 'cli-req-1'])).toMatchObject({ committed: true, fact: { id: first.fact.id } });
  });

  test('revise takes it too', async () => {
    const { fact } = await env.client.put(agentR + '-r', 'The bike is blue');
    const first = await engramJson(['revise', agentR + '-r', fact.id, '--text', 'The bike is red', '--request-id', 'cli-req-2']);
    const again = await engram(['revise', agentR + '-r', fact.id, '--text', 'The bike is red', '--request-id', 'cli-req-2']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^already revised: ${first.replacement.id} .*request id cli-req-2 was sent before`));
    expect((await env.client.list(agentR + '-r')).facts).toHaveLength(2);
  });

  test('an empty or oversized --request-id names the flag, with advice that fits', async () => {
    const empty = expectUsage(await engram(['remember', agentR, 'a fact', '--request-id', '']), 'remember', '--request-id');
    expect(empty).not.toContain('library');
    expectUsage(await engram(['remember', agentR, 'a fact', '--request-id', 'r'.repeat(200)]), 'remember', '--request-id');
  });
});

describe('help', () => {
  test('token create shows its defaults as they are typed', async () => {
    const help = (await engram(['token', 'create', '--help'])).stdout;
    expect(help).toContain('(default: read,write)');
    expect(help).toContain('(default: read)');
    expect(help).not.toContain('["read"');
  });

  test('start and restart point to the daemon\'s flags', async () => {
    for (const command of ['start', 'restart']) {
      const help = (await engram([command, '--help'])).stdout;
      expect(help).toContain('engram daemon --help');
      expect(help).toMatch(/--store.*--embedder.*--http/s);
    }
  });

  test('a subcommand\'s help lists the global options', async () => {
    for (const args of [['remember', '--help'], ['checkpoint', 'save', '--help']]) {
      const help = (await engram(args)).stdout;
      expect(help).toContain('Global Options:');
      expect(help).toMatch(/--data-dir <dir>/);
      expect(help).toMatch(/--token <token>/);
    }
    expect((await engram(['remember', '--help'])).stdout).toContain('--request-id <id>');
  });
});
