// The `engram` command line (every command except `daemon`, which bin/engram.js routes to the
// daemon). Each command is a client of the daemon found through --data-dir's discovery file.
// Exit codes: 0 success, 1 the operation failed (daemon error, not found, unhealthy), 2 usage.
import { Command, CommanderError, Option } from 'commander';
import { connect, type EngramClient } from '../client.ts';
import type { Fact } from '../types.ts';
import { EngramError } from '../../shared/errors.ts';
import { DaemonNotRunningError, readDiscovery, resolveDataDir } from '../../shared/discovery.ts';
import { ENGRAM_VERSION } from '../../shared/version.ts';
import { daemonJson, factJson, feedbackJson, receiptJson, retrievalJson, statsJson } from './json.ts';
import { ProgressBar } from './progress.ts';
import { printFacts, printReceipts, printStats } from './render.ts';
import { addRecallFlags, recallOptionsFrom } from './recall-flags.ts';

interface GlobalOptions {
  dataDir?: string;
  address?: string;
  token?: string;
  json?: boolean;
}

const out = (text: string) => process.stdout.write(`${text}\n`);
const printJson = (value: unknown) => out(JSON.stringify(value, null, 2));

function positiveInt(name: string) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new CommanderError(2, 'engram.usage', `${name} must be a positive integer, got "${value}"`);
    return n;
  };
}

/** Opens a client for one command and always closes it. */
async function withClient<T>(opts: GlobalOptions, work: (client: EngramClient) => Promise<T>): Promise<T> {
  const client = await connect({
    dataDir: resolveDataDir(opts.dataDir),
    address: opts.address,
    token: opts.token,
    clientName: 'engram-cli',
    timeoutMs: 10_000,
  });
  try {
    return await work(client);
  } finally {
    client.close();
  }
}

function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('engram')
    .description('Long-term memory for AI agents: a shared daemon with hybrid, explainable recall.')
    .version(ENGRAM_VERSION)
    .addOption(new Option('--data-dir <dir>', 'data directory of the daemon (default ./.engram or $ENGRAM_HOME)'))
    .addOption(new Option('--address <target>', 'daemon address instead of the discovery file (unix:/path or host:port)'))
    .addOption(new Option('--token <token>', 'bearer token for a TCP address').env('ENGRAM_TOKEN'))
    .showHelpAfterError()
    .exitOverride();
  const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals() as GlobalOptions;

  program
    .command('daemon')
    .description('run the daemon (engram daemon --help for its flags)');

  program
    .command('remember')
    .description('store a fact in an agent namespace')
    .argument('<agent>', 'agent id (namespace)')
    .argument('<text>', 'the fact')
    .option('--occurred-at <time>', 'when it happened (ISO 8601)')
    .option('--tag <tag...>', 'tags')
    .option('--source <source>', 'where the fact came from')
    .option('--context <text>', 'text indexed with the fact but not returned as it')
    .option('--confidence <label>', 'verified, inferred or unverified')
    .option('--json', 'print JSON')
    .action(async (agent: string, text: string, o, cmd: Command) => {
      const opts = globals(cmd);
      const occurredAt = o.occurredAt === undefined ? undefined : parseTime(o.occurredAt, '--occurred-at');
      const { fact, replayed } = await withClient(opts, (c) =>
        c.put(agent, text, { occurredAt, tags: o.tag, source: o.source, context: o.context, confidence: o.confidence }),
      );
      if (opts.json) printJson({ fact: factJson(fact), replayed });
      else out(`remembered ${fact.id} in "${fact.agentId}"`);
    });

  addRecallFlags(
    program
      .command('recall')
      .description('recall the facts that best match a query')
      .argument('<agent>', 'agent id (namespace)')
      .argument('<query>', 'what to look for'),
  )
    .option('--explain', 'show how each score was made')
    .option('--all', 'also search the shared namespace (RecallAll)')
    .option('--json', 'print JSON')
    .action(async (agent: string, query: string, o, cmd: Command) => {
      const opts = globals(cmd);
      const options = recallOptionsFrom(o);
      if (o.explain && o.all) throw new CommanderError(2, 'engram.usage', '--explain and --all cannot be combined');
      await withClient(opts, async (c) => {
        if (o.explain) {
          const { receipts, retrieval, feedback } = await c.recallExplain(agent, query, options);
          if (opts.json) printJson({ agent_id: agent, query, count: receipts.length, facts: [], explained: receipts.map(receiptJson), retrieval: retrievalJson(retrieval), ...feedbackJson(feedback) });
          else printReceipts(receipts, retrieval, out);
          if (!opts.json && feedback) out(`hint: ${feedback.advice}`);
          return;
        }
        const { facts, retrieval, feedback } = o.all ? await c.recallAll(agent, query, options) : await c.recall(agent, query, options);
        if (opts.json) printJson({ agent_id: agent, query, count: facts.length, facts: facts.map(factJson), retrieval: retrievalJson(retrieval), ...feedbackJson(feedback) });
        else printFacts(facts, out, 'No memories found.');
        if (!opts.json && feedback) out(`hint: ${feedback.advice}`);
      });
    });

  addRecallFlags(
    program
      .command('batch-recall')
      .description('several queries in one call; prints each query\'s facts and the merged view')
      .argument('<agent>', 'agent id (namespace)')
      .argument('<queries...>', 'the queries'),
  )
    .option('--json', 'print JSON')
    .action(async (agent: string, queries: string[], o, cmd: Command) => {
      const opts = globals(cmd);
      const res = await withClient(opts, (c) => c.batchRecall(agent, queries, recallOptionsFrom(o)));
      if (opts.json) {
        printJson({
          agent_id: agent,
          count: res.merged.length,
          merged: res.merged.map(factJson),
          per_query: res.results.map((r) => ({ query: r.query, facts: r.facts.map(factJson), ...(r.error ? { error: r.error } : {}) })),
        });
        return;
      }
      for (const r of res.results) {
        out(`# ${r.query}`);
        if (r.error) out(`error: ${r.error}`);
        else printFacts(r.facts, out, 'No memories found.');
      }
      out('# merged');
      printFacts(res.merged, out, 'No memories found.');
    });

  program
    .command('alias')
    .description('make queries with <term> also match its equivalents ("k8s" = "kubernetes")')
    .argument('<agent>', 'agent id (namespace)')
    .argument('<term>', 'the word users search with')
    .argument('<equivalents...>', 'words or phrases stored facts use')
    .option('--json', 'print JSON')
    .action(async (agent: string, term: string, equivalents: string[], _o, cmd: Command) => {
      const opts = globals(cmd);
      const { fact } = await withClient(opts, (c) => c.alias(agent, term, equivalents));
      if (opts.json) printJson({ agent_id: agent, term, equivalents, stored: true, fact: factJson(fact) });
      else out(`alias ${fact.id}: ${fact.text}`);
    });

  program
    .command('reindex')
    .description("re-embed every fact with the daemon's current model (after switching --embedder); resumable")
    .option('--json', 'print JSON')
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      const bar = new ProgressBar();
      const report = await withClient(opts, async (c) => {
        let last;
        for await (const event of c.reindex()) {
          if (event.progress) bar.update(event.progress.phase, event.progress.done, event.progress.total);
          if (event.report) last = event.report;
        }
        return last;
      });
      bar.done();
      if (!report) throw new Error('the daemon ended reindex without a report');
      if (opts.json) printJson({ embedded: report.embedded, already_done: report.alreadyDone, embedder: report.embedder });
      else out(`reindexed with ${report.embedder}: ${report.embedded} facts embedded, ${report.alreadyDone} already done`);
    });

  program
    .command('list')
    .description("list a namespace's facts, oldest first (retired facts included)")
    .argument('<agent>', 'agent id (namespace)')
    .option('--limit <n>', 'page size (default 100)', positiveInt('--limit'))
    .option('--page-token <token>', 'continue after this page token')
    .option('--json', 'print JSON')
    .action(async (agent: string, o, cmd: Command) => {
      const opts = globals(cmd);
      const page = await withClient(opts, (c) => c.list(agent, { pageSize: o.limit, pageToken: o.pageToken }));
      if (opts.json) printJson({ agent_id: agent, facts: page.facts.map(factJson), next_page_token: page.nextPageToken });
      else {
        printFacts(page.facts, out, 'No facts.');
        if (page.nextPageToken) out(`(more: --page-token ${page.nextPageToken})`);
      }
    });

  program
    .command('agents')
    .description('list agent namespaces')
    .option('--json', 'print JSON')
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      const agents = await withClient(opts, (c) => c.listAgents());
      if (opts.json) printJson({ agents });
      else out(agents.length ? agents.join('\n') : 'No agents yet.');
    });

  program
    .command('stats')
    .description('counts for one namespace, or the whole store')
    .argument('[agent]', 'agent id (namespace)')
    .option('--json', 'print JSON')
    .action(async (agent: string | undefined, _o, cmd: Command) => {
      const opts = globals(cmd);
      const stats = await withClient(opts, (c) => c.stats(agent));
      if (opts.json) printJson({ agent_id: agent ?? null, ...statsJson(stats) });
      else printStats(stats, out);
    });

  program
    .command('revise')
    .description('replace one or several facts by a new one (the old ones are retired, still listed)')
    .argument('<agent>', 'agent id (namespace)')
    .argument('<fact-ids...>', 'the facts the new one replaces')
    .requiredOption('--text <text>', 'the new fact')
    .option('--confidence <label>', 'verified, inferred or unverified (default: the most cautious of the targets, at most inferred)')
    .option('--json', 'print JSON')
    .action(async (agent: string, factIds: string[], o, cmd: Command) => {
      const opts = globals(cmd);
      const result = await withClient(opts, (c) => c.revise(agent, factIds, o.text, { confidence: o.confidence }));
      if (opts.json) {
        printJson({ replacement: factJson(result.replacement), retired_ids: result.retiredIds, failures: result.failures.map((f) => ({ fact_id: f.factId, error: f.error })), replayed: result.replayed });
      } else {
        out(`revised: ${result.replacement.id} (${result.replacement.confidence}) replaces ${result.retiredIds.join(', ') || 'nothing'}`);
        for (const f of result.failures) out(`not retired: ${f.factId}: ${f.error}`);
      }
      if (result.failures.length > 0) setExit(1);
    });

  const lifecycleCommand = (name: string, description: string, done: string, run: (c: EngramClient, agent: string, id: string) => Promise<Fact>) =>
    program
      .command(name)
      .description(description)
      .argument('<agent>', 'agent id (namespace)')
      .argument('<fact-id>', 'the fact')
      .option('--json', 'print JSON')
      .action(async (agent: string, factId: string, _o, cmd: Command) => {
        const opts = globals(cmd);
        const fact = await withClient(opts, (c) => run(c, agent, factId));
        if (opts.json) printJson({ fact: factJson(fact) });
        else out(`${done} ${fact.id}`);
      });
  lifecycleCommand('forget', 'retire a fact: it is no longer recalled but stays listed', 'forgot', (c, a, id) => c.forget(a, id));
  lifecycleCommand('pin', 'pin a fact', 'pinned', (c, a, id) => c.pin(a, id));
  lifecycleCommand('unpin', 'unpin a fact', 'unpinned', (c, a, id) => c.unpin(a, id));

  program
    .command('status')
    .description('is the daemon up, which version, what it can do, how big the store is')
    .option('--json', 'print JSON')
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      const dataDir = resolveDataDir(opts.dataDir);
      const discovery = opts.address ? undefined : readDiscovery(dataDir);
      const { daemon, stats } = await withClient(opts, async (c) => ({ daemon: await c.hello(), stats: await c.stats() }));
      if (opts.json) {
        printJson({ data_dir: dataDir, address: opts.address ?? discovery?.address, pid: discovery?.pid ?? null, daemon: daemonJson(daemon), store: statsJson(stats) });
        return;
      }
      out(`daemon    engram ${daemon.daemonVersion} (profile ${daemon.profile}), pid ${discovery?.pid ?? '?'}`);
      out(`address   ${opts.address ?? discovery?.address}${discovery?.tcpAddress ? ` and ${discovery.tcpAddress}` : ''}`);
      out(`data dir  ${dataDir}`);
      out(`features  ${daemon.capabilities.join(', ') || '(none: legacy daemon)'}`);
      out(`embedder  ${daemon.embedder}`);
      printStats(stats, out);
    });

  program
    .command('doctor')
    .description('check that every derived index agrees with the facts')
    .option('--rebuild', 'rebuild the derived indexes from the facts')
    .option('--json', 'print JSON')
    .action(async (o, cmd: Command) => {
      const opts = globals(cmd);
      const bar = new ProgressBar();
      const report = await withClient(opts, async (c) => {
        let last;
        for await (const event of c.doctor({ rebuild: o.rebuild })) {
          if (event.progress) bar.update(event.progress.phase, event.progress.done, event.progress.total);
          if (event.report) last = event.report;
        }
        return last;
      });
      bar.done();
      if (!report) throw new Error('the daemon ended doctor without a report');
      if (opts.json) printJson(report);
      else {
        for (const check of report.checks) out(`${check.ok ? 'ok  ' : 'FAIL'}  ${check.name}: ${check.detail}`);
        out(report.healthy ? 'healthy' : 'unhealthy: run engram doctor --rebuild');
      }
      if (!report.healthy) setExit(1);
    });

  return program;
}

function parseTime(value: string, flag: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new CommanderError(2, 'engram.usage', `${flag} must be a date/time like 2024-05-08T13:56:00Z, got "${value}"`);
  return ms;
}

/** Runs the CLI and returns the exit code (bin/engram.js sets it). */
export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = buildProgram((code) => (exitCode = code));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // Help and version are "errors" to commander but successes to a user.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    if (error.code === 'engram.usage') process.stderr.write(`engram: ${error.message}\n`);
    return 2;
  }
  if (error instanceof DaemonNotRunningError) {
    process.stderr.write(`engram: ${error.message}\n`);
    return 1;
  }
  if (error instanceof EngramError) {
    process.stderr.write(`engram: ${error.kind}: ${error.message}\n`);
    return 1;
  }
  process.stderr.write(`engram: ${(error as Error)?.stack ?? error}\n`);
  return 1;
}
