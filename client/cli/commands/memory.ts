// The fact commands: remember, get, recall, batch-recall, alias, list, revise, forget, pin, unpin, delete.
import type { Command } from 'commander';
import type { EngramClient, FactFilter, FactMatch, WriteOptions } from '../../client.ts';
import type { Fact } from '../../types.ts';
import { checkedFlag, confidenceFlag, out, parseTime, positiveInt, printJson, repeatable, requestIdRule, usage, withClient, type Cli } from '../context.ts';
import { textArgument } from '../io/read-file.ts';
import { factJson, feedbackJson, kgHintJson, matchJson, receiptJson, retrievalJson, writeStatusJson } from '../json.ts';
import { addRecallFlags, recallOptionsFrom } from '../recall-flags.ts';
import { printFacts, printReceipts, printRecall } from '../render.ts';
import * as check from '../../../shared/validate.ts';
import { decimal, parseJsonObject } from '../../../shared/validate.ts';
import { retiredText, SUPERSEDED_BY_AGENT } from '../../../shared/retired.ts';

/** engram get's view: every field of the fact's JSON by name. */
function printFactFields(fact: Fact): void {
  for (const [key, value] of Object.entries(factJson(fact))) out(`${key.padEnd(16)} ${fieldText(key, value, fact)}`);
}

/** A field's value as text. superseded_by's sentinel "agent" names no one (nothing replaced the
 *  fact), so it is said as engram list says it. */
function fieldText(key: string, value: unknown, fact: Fact): string {
  if (key === 'superseded_by' && value === SUPERSEDED_BY_AGENT) return `none (${retiredText(value, fact.retiredReason)})`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function metaFlag(value: string): Record<string, unknown> {
  const parsed = parseJsonObject(value);
  if (!('object' in parsed)) usage(`--meta must be a JSON object, got "${value}"`);
  return parsed.object;
}

/** The write fields every fact write takes (remember, revise), as flags. */
function addWriteFlags(cmd: Command): Command {
  return cmd
    .option('--request-id <id>', 'send the write with this request id: sent again with the same one (after "outcome unknown", see engram write-status), it is stored once')
    .option('--occurred-at <time>', 'when it happened (ISO 8601)')
    .option('--tag <tag>', 'a tag (repeat for more)', repeatable)
    .option('--entity <name>', 'an entity the fact is about (repeat for more; wikilinks in a markdown export)', repeatable)
    .option('--source <source>', 'where the fact came from')
    .option('--context <text>', 'text indexed with the fact but not returned as it')
    .option('--meta <json>', 'a JSON object stored with the fact')
    .option('--confidence <label>', 'verified, inferred or unverified');
}

function writeOptionsFrom(o: Record<string, string | string[] | undefined>): WriteOptions {
  return {
    ...(o.occurredAt !== undefined ? { occurredAt: parseTime(o.occurredAt as string, '--occurred-at') } : {}),
    ...(o.tag ? { tags: labelsFlag(o.tag as string[], '--tag') } : {}),
    ...(o.entity ? { entities: labelsFlag(o.entity as string[], '--entity') } : {}),
    ...(o.source !== undefined ? { source: o.source as string } : {}),
    ...(o.context !== undefined ? { context: o.context as string } : {}),
    ...(o.meta !== undefined ? { meta: metaFlag(o.meta as string) } : {}),
    ...(o.confidence !== undefined ? { confidence: confidenceFlag(o.confidence as string, '--confidence') } : {}),
    ...(o.requestId !== undefined ? { requestId: checkedFlag('--request-id', () => requestIdRule(o.requestId as string, '--request-id')) } : {}),
  };
}

/** Repeated --tag or --entity values, put through the daemon's rule for a list of labels (none
 *  empty, none too long, not too many): a refusal names the flag ("--tag[1]: must not be
 *  empty"), before anything is sent. */
const labelsFlag = (values: string[], flag: string): string[] => checkedFlag(flag, () => check.tags(values, flag));

function strengthFlag(value: string): number {
  const n = decimal(value);
  if (n === undefined || n < 0 || n > 2) usage(`--strength must be a number in [0, 2], got "${value}"`);
  return n;
}

/** A fact's text: never empty or only whitespace (the daemon's rule), refused before sending. */
function factTextArgument(value: string, name: string, field: string): string {
  const text = textArgument(value, name, field);
  if (text.trim() === '') usage(`${name}: must not be empty`, field);
  return text;
}

/** --limit of list: a page holds at most MAX_PAGE_SIZE facts. */
const pageSizeFlag = (value: string): number => checkedFlag('--limit', () => check.pageSize(positiveInt('--limit')(value), '--limit'));

/** A page token is the id of the last fact of the page before. */
const pageTokenFlag = (value: string): string => checkedFlag('--page-token', () => check.pageToken(value, '--page-token'));

export function registerMemoryCommands({ program, globals, setExit }: Cli): void {
  addWriteFlags(
    program
      .command('remember')
      .description('store a fact in an agent namespace (an identical live fact is not stored twice)')
      .argument('<agent>', 'agent id (namespace)')
      .argument('<text...>', 'the fact ("-" reads it from stdin)'),
  )
    .option('--allow-duplicate', 'store it even if an identical fact is already remembered')
    .option('--strength <s>', 'importance in [0, 2] (default 1): it multiplies the decay score')
    .option('--json', 'print JSON')
    .action(async (agent: string, words: string[], o, cmd: Command) => {
      const opts = globals(cmd);
      const text = factTextArgument(words.join(' '), '<text...>', 'text');
      const options = { ...writeOptionsFrom(o), ...(o.allowDuplicate ? { allowDuplicate: true } : {}), ...(o.strength !== undefined ? { strength: strengthFlag(o.strength) } : {}) };
      const { fact, replayed, duplicate, change } = await withClient(opts, async (c) => ({ ...(await c.put(agent, text, options)), change: c.lastChange }));
      // The change number: `engram --min-change N recall …` through another daemon sees this fact.
      if (opts.json) printJson({ fact: factJson(fact), replayed, duplicate, ...(change ? { change } : {}) });
      // A resend of a write that committed answers as the write did: the daemon replays it.
      else if (replayed) out(`already stored ${fact.id} in "${fact.agentId}": request id ${options.requestId} was sent before (nothing new stored)`);
      else if (duplicate) out(`already remembered ${fact.id} in "${fact.agentId}" (nothing new stored; --allow-duplicate stores a copy)`);
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
      else printFactFields(fact);
    });

  program
    .command('write-status')
    .description('did the write sent with this request id commit, and what did it write (after "outcome unknown")')
    .argument('<request-id>', 'the request id the error named')
    .option('--agent <name>', 'the namespace it went to (default: every one you may read)')
    .option('--json', 'print JSON')
    .action(async (requestId: string, o: { agent?: string }, cmd: Command) => {
      const opts = globals(cmd);
      const status = await withClient(opts, (c) => c.writeStatus(requestId, o.agent === undefined ? {} : { agentId: o.agent }));
      if (opts.json) return printJson(writeStatusJson(status));
      if (!status.committed) return out(`not committed: no write with request id ${requestId}${o.agent ? ` in "${o.agent}"` : ''}. Sending it again with the same request id is safe.`);
      out(`committed: ${status.op} in "${status.agentId}"${status.fact ? `, fact ${status.fact.id}: ${status.fact.text}` : ''}`);
    });

  addRecallFlags(
    program
      .command('recall')
      .description('recall the facts that best match a query; each line shows its score and the signals that ranked it')
      .argument('<agent>', 'agent id (namespace)')
      .argument('<query...>', 'what to look for (several words are one query)'),
  )
    .option('--explain', 'show how each score was made')
    .option('--all', 'also search the shared namespace (RecallAll)')
    .option('--json', 'print JSON')
    .action(async (agent: string, words: string[], o, cmd: Command) => {
      const opts = globals(cmd);
      // Words the shell split (an unquoted sentence) are one query again.
      const query = textArgument(words.join(' '), '<query...>', 'query');
      // A person reading the result is told when the query's words barely occur in memory.
      const options = { ...recallOptionsFrom(o), advice: true };
      if (o.explain && o.all) usage('--explain and --all cannot be combined', '--explain');
      await withClient(opts, async (c) => {
        if (o.explain) {
          const { receipts, retrieval, feedback, matches } = await c.recallExplain(agent, query, options);
          if (opts.json) printJson({ agent_id: agent, query, count: receipts.length, ...matchedJson(matches), facts: [], explained: receipts.map(receiptJson), retrieval: retrievalJson(retrieval), ...feedbackJson(feedback) });
          else printReceipts(receipts, retrieval, out, query, matches);
          if (!opts.json && feedback) out(`hint: ${feedback.advice}`);
          return;
        }
        const { facts, retrieval, feedback, matches, hints } = o.all ? await c.recallAll(agent, query, options) : await c.recall(agent, query, options);
        if (opts.json) {
          printJson({ agent_id: agent, query, count: facts.length, ...matchedJson(matches), facts: facts.map(factJson), ...(matches ? { matches: matches.map(matchJson) } : {}), retrieval: retrievalJson(retrieval), ...feedbackJson(feedback), kg_hints: hints.map(kgHintJson) });
        } else printRecall(facts, matches, query, out, hints, retrieval);
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
          per_query: res.results.map((r) => ({
            query: r.query,
            ...matchedJson(r.matches),
            facts: r.facts.map(factJson),
            ...(r.matches ? { matches: r.matches.map(matchJson) } : {}),
            ...(r.error ? { error: r.error } : {}),
          })),
        });
        return;
      }
      // Each query as recall prints it: scores, signals, and the facts that only fill top_k marked.
      for (const r of res.results) {
        out(`# ${r.query === '' ? '(no query)' : r.query}`);
        if (r.error) out(`error: ${r.error}`);
        else printRecall(r.facts, r.matches, r.query, out);
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
      const { fact, duplicate } = await withClient(opts, (c) => c.alias(agent, term, equivalents));
      if (opts.json) printJson({ agent_id: agent, term, equivalents, stored: true, duplicate, fact: factJson(fact) });
      else out(`alias ${fact.id}: ${fact.text}${duplicate ? ' (already stored)' : ''}`);
    });

  program
    .command('list')
    .description("list a namespace's facts, oldest first (retired facts included), or newest first and filtered")
    .argument('<agent>', 'agent id (namespace)')
    .option('--limit <n>', `page size, at most ${check.MAX_PAGE_SIZE} (default ${check.DEFAULT_PAGE_SIZE})`, pageSizeFlag)
    .option('--page-token <token>', 'continue after this page token', pageTokenFlag)
    .option('--newest', 'newest first')
    .option('--text <words>', 'only facts holding every one of these words (case-insensitive)')
    .option('--confidence <label>', 'only facts with this label (repeatable: verified, inferred, unverified)', repeatable)
    .option('--pinned', 'only pinned facts')
    .option('--unpinned', 'only facts not pinned')
    .option('--live', 'only live facts')
    .option('--retired', 'only retired facts')
    .option('--tag <tag>', 'only facts with this tag (repeatable: every one)', repeatable)
    .option('--entity <entity>', 'only facts naming this entity (repeatable: every one)', repeatable)
    .option('--created-after <time>', 'created at or after (a date or an RFC 3339 time)')
    .option('--created-before <time>', 'created before')
    .option('--occurred-after <time>', 'happened (occurred_at) at or after')
    .option('--occurred-before <time>', 'happened before')
    .option('--json', 'print JSON')
    .action(async (agent: string, o, cmd: Command) => {
      const opts = globals(cmd);
      const filter = listFilter(o);
      const page = await withClient(opts, (c) => c.list(agent, { pageSize: o.limit, pageToken: o.pageToken, ...(o.newest ? { order: 'newest' as const } : {}), ...(filter ? { filter } : {}) }));
      if (opts.json) printJson({ agent_id: agent, facts: page.facts.map(factJson), next_page_token: page.nextPageToken, ...(page.scanned !== undefined ? { scanned: page.scanned } : {}) });
      else {
        printFacts(page.facts, out, 'No facts.');
        if (page.nextPageToken) out(`(more: the same flags and --page-token ${page.nextPageToken})`);
      }
    });

  addWriteFlags(
    program
      .command('revise')
      .description('replace one or several facts by a new one (the old ones are retired, still listed)')
      .argument('<agent>', 'agent id (namespace)')
      .argument('<fact-ids...>', 'the facts the new one replaces')
      .requiredOption('--text <text>', 'the new fact ("-" reads it from stdin)'),
  )
    .option('--json', 'print JSON')
    .action(async (agent: string, factIds: string[], o, cmd: Command) => {
      const opts = globals(cmd);
      const text = factTextArgument(o.text, '--text', '--text');
      // Without --confidence the daemon picks the most cautious label of the targets.
      const result = await withClient(opts, (c) => c.revise(agent, factIds, text, writeOptionsFrom(o)));
      if (opts.json) {
        printJson({ replacement: factJson(result.replacement), retired_ids: result.retiredIds, failures: result.failures.map((f) => ({ fact_id: f.factId, error: f.error })), replayed: result.replayed });
      } else {
        const replayed = result.replayed ? ` (request id ${o.requestId} was sent before: nothing new written)` : '';
        out(`${result.replayed ? 'already revised' : 'revised'}: ${result.replacement.id} (${result.replacement.confidence ?? 'no label'}) replaces ${result.retiredIds.join(', ') || 'nothing'}${replayed}`);
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
  lifecycleCommand('forget', 'retire a fact: it is no longer recalled but stays listed and readable (delete erases it)', 'forgot', (c, a, id) => c.forget(a, id));
  lifecycleCommand('pin', 'pin a fact', 'pinned', (c, a, id) => c.pin(a, id));
  lifecycleCommand('unpin', 'unpin a fact', 'unpinned', (c, a, id) => c.unpin(a, id));

  program
    .command('delete')
    .description('erase a fact for good: its text and everything derived from it leave the store (forget only retires it)')
    .argument('<agent>', 'agent id (namespace)')
    .argument('<fact-id>', 'the fact')
    .option('--json', 'print JSON')
    .action(async (agent: string, factId: string, _o, cmd: Command) => {
      const opts = globals(cmd);
      await withClient(opts, (c) => c.delete(agent, factId));
      if (opts.json) printJson({ agent_id: agent, fact_id: factId, deleted: true });
      else out(`deleted ${factId} (erased from the store)`);
    });
}

/** `matched`: how many of the facts a query signal matched (daemons with recall-matches-v1). */
const matchedJson = (matches: FactMatch[] | undefined) => (matches ? { matched: matches.filter((m) => m.matched).length } : {});

/** The list filter the flags name, or undefined when they name none. */
function listFilter(o: Record<string, unknown>): FactFilter | undefined {
  const either = (yes: string, no: string): boolean | undefined => {
    if (o[yes] && o[no]) usage(`--${yes} and --${no} exclude each other`, `--${yes}`);
    return o[yes] ? true : o[no] ? false : undefined;
  };
  const time = (flag: string, value: unknown) => (value === undefined ? undefined : parseTime(String(value), flag));
  const confidence = (o.confidence as string[] | undefined)?.map((label) => confidenceFlag(label, '--confidence'));
  const filter: FactFilter = {
    ...(o.text !== undefined ? { text: String(o.text) } : {}),
    ...(confidence ? { confidence } : {}),
    ...(either('pinned', 'unpinned') !== undefined ? { pinned: either('pinned', 'unpinned') } : {}),
    ...(either('retired', 'live') !== undefined ? { retired: either('retired', 'live') } : {}),
    ...(o.tag ? { tags: labelsFlag(o.tag as string[], '--tag') } : {}),
    ...(o.entity ? { entities: labelsFlag(o.entity as string[], '--entity') } : {}),
    ...(o.createdAfter !== undefined ? { createdAfter: time('--created-after', o.createdAfter) } : {}),
    ...(o.createdBefore !== undefined ? { createdBefore: time('--created-before', o.createdBefore) } : {}),
    ...(o.occurredAfter !== undefined ? { occurredAfter: time('--occurred-after', o.occurredAfter) } : {}),
    ...(o.occurredBefore !== undefined ? { occurredBefore: time('--occurred-before', o.occurredBefore) } : {}),
  };
  return Object.keys(filter).length ? filter : undefined;
}
