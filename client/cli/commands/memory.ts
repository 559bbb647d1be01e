// The fact commands: remember, get, recall, batch-recall, alias, list, revise, forget, pin, unpin.
import type { Command } from 'commander';
import type { EngramClient } from '../../client.ts';
import type { Fact } from '../../types.ts';
import { out, parseTime, positiveInt, printJson, usage, withClient, type Cli } from '../context.ts';
import { factJson, feedbackJson, receiptJson, retrievalJson } from '../json.ts';
import { addRecallFlags, recallOptionsFrom } from '../recall-flags.ts';
import { printFacts, printReceipts } from '../render.ts';
import { parseJsonObject } from '../../../shared/validate.ts';

function metaFlag(value: string): string {
  if (!('object' in parseJsonObject(value))) usage(`--meta must be a JSON object, got "${value}"`);
  return value;
}

export function registerMemoryCommands({ program, globals, setExit }: Cli): void {
  program
    .command('remember')
    .description('store a fact in an agent namespace')
    .argument('<agent>', 'agent id (namespace)')
    .argument('<text>', 'the fact')
    .option('--occurred-at <time>', 'when it happened (ISO 8601)')
    .option('--tag <tag...>', 'tags')
    .option('--entity <name...>', 'entities the fact is about (wikilinks in a markdown export)')
    .option('--source <source>', 'where the fact came from')
    .option('--context <text>', 'text indexed with the fact but not returned as it')
    .option('--meta <json>', 'a JSON object stored with the fact')
    .option('--confidence <label>', 'verified, inferred or unverified')
    .option('--json', 'print JSON')
    .action(async (agent: string, text: string, o, cmd: Command) => {
      const opts = globals(cmd);
      const occurredAt = o.occurredAt === undefined ? undefined : parseTime(o.occurredAt, '--occurred-at');
      const metaJson = o.meta === undefined ? undefined : metaFlag(o.meta);
      const { fact, replayed } = await withClient(opts, (c) =>
        c.put(agent, text, { occurredAt, tags: o.tag, entities: o.entity, source: o.source, context: o.context, metaJson, confidence: o.confidence }),
      );
      if (opts.json) printJson({ fact: factJson(fact), replayed });
      else out(`remembered ${fact.id} in "${fact.agentId}"`);
    });

  program
    .command('get')
    .description('show one fact, every field')
    .argument('<agent>', 'agent id (namespace)')
    .argument('<fact-id>', 'the fact')
    .option('--json', 'print JSON')
    .action(async (agent: string, factId: string, _o, cmd: Command) => {
      const opts = globals(cmd);
      const fact = await withClient(opts, (c) => c.get(agent, factId));
      if (opts.json) printJson({ fact: factJson(fact) });
      else for (const [key, value] of Object.entries(factJson(fact))) out(`${key.padEnd(16)} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
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
      if (o.explain && o.all) usage('--explain and --all cannot be combined');
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
      .description("several queries in one call; prints each query's facts and the merged view")
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
}
