// Decay from the command line: touch (one use of a fact), observe (facts used in a conversation)
// and gc (collect faded facts; a dry run unless --apply); and analyze (is a message worth saving,
// or does it ask for a memory).
import type { Command } from 'commander';
import { gcJson, observeJson, promoteJson, recallAdviceJson, saveAdviceJson, touchJson, unifiedJson, unifiedText, extractJson, clusterReportJson } from '../../../shared/json/shapes.ts';
import { out, positiveInt, printJson, repeatable, usage, withClient, type Cli } from '../context.ts';
import { textArgument } from '../io/read-file.ts';
import { decimal } from '../../../shared/validate.ts';

const score = (x: number): string => x.toFixed(4);

const weightFlag = (flag: string) => (value: string): number => {
  const n = decimal(value);
  if (n === undefined || n < 0) usage(`${flag} must be a number >= 0, got "${value}"`);
  return n;
};

/** A similarity threshold: its whole range is checked here, so "abc" and 5 get the same words. */
const thresholdFlag = (flag: string) => (value: string): number => {
  const n = decimal(value);
  if (n === undefined || n <= 0 || n > 1) usage(`${flag} must be a number in (0, 1], got "${value}"`);
  return n;
};

export function registerDecayCommands({ program, globals }: Cli): void {
  program
    .command('touch')
    .description('reinforce a fact: use count + 1 and last used now, so its decay score rises (its text and indexes stay)')
    .argument('<agent>', 'agent id (namespace)')
    .argument('<fact-id>', 'the fact')
    .option('--boost', 'also raise its strength by 0.1 (at most 2)')
    .option('--json', 'print JSON')
    .action(async (agent: string, factId: string, o: { boost?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      const r = await withClient(opts, (c) => c.touch(agent, factId, { boostStrength: o.boost === true }));
      if (opts.json) printJson(touchJson(r));
      else out(`touched ${factId}: score ${score(r.oldScore)} -> ${score(r.newScore)}, used ${r.fact.useCount} times, strength ${r.fact.strength}`);
    });

  program
    .command('observe')
    .description('record that facts were used in a conversation: each gets a use and a review; a use outside its own tags (--tag) raises its strength')
    .argument('<agent>', 'agent id (namespace)')
    .argument('<fact-ids...>', 'the facts that were used')
    .option('--tag <tag>', "a tag of the conversation (repeat for more)", repeatable)
    .option('--json', 'print JSON')
    .action(async (agent: string, factIds: string[], o: { tag?: string[] }, cmd: Command) => {
      const opts = globals(cmd);
      const r = await withClient(opts, (c) => c.observeUsage(agent, factIds, { contextTags: o.tag ?? [] }));
      if (opts.json) return printJson(observeJson(r));
      if (!r.reinforced) return out(`nothing reinforced: ${r.reason}`);
      for (const f of r.results) out(`${f.factId} ${f.status}${f.status === 'reinforced' ? `: used ${f.useCount} times, strength ${f.strength}${f.crossDomain ? ' (cross-domain)' : ''}` : ''}`);
      out(`${r.count} reinforced, ${r.crossDomainCount} cross-domain`);
    });

  program
    .command('promote')
    .description("promote a fact (or, with --auto, every fact that qualifies) to a long-term note in the daemon's vault (--vault); it stays recallable and gc never collects it")
    .argument('<agent>', 'agent id (namespace)')
    .argument('[fact-id]', 'the fact')
    .option('--auto', 'every fact that qualifies: a high decay score, or frequent use while young; at least a day old')
    .option('--dry-run', 'show the candidates, promote nothing')
    .option('--force', 'promote the named fact even if it does not qualify')
    .option('--json', 'print JSON')
    .action(async (agent: string, factId: string | undefined, o: { auto?: boolean; dryRun?: boolean; force?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      if (!factId && !o.auto && !o.dryRun) usage('name the fact to promote, give --auto for every fact that qualifies, or --dry-run to list them', 'fact-id');
      // Checked here: the daemon's refusal names its request fields (memory_id, auto_detect).
      if (factId && o.auto) usage('--auto: give a [fact-id] or --auto (every fact that qualifies), not both', '--auto');
      // A dry run naming no fact lists the candidates, as --auto --dry-run does (sent as
      // auto_detect, so a daemon that needs the flag answers the same).
      const autoDetect = o.auto === true || (!factId && o.dryRun === true);
      const r = await withClient(opts, (c) => c.promote(agent, { ...(factId ? { factId } : {}), autoDetect, dryRun: o.dryRun === true, force: o.force === true }));
      if (opts.json) return printJson(promoteJson(r));
      for (const c of r.candidates) out(`${c.id} ${c.reason}: ${c.contentPreview}`);
      out(r.message);
    });

  program
    .command('search-unified')
    .description("search the store and the daemon's vault notes together (promoted facts and notes written by hand), best first")
    .argument('<agent>', 'agent id (namespace)')
    .argument('<query...>', 'what to search for')
    .option('--tag <tag>', 'only results with this tag (repeat for any of several)', repeatable)
    .option('--limit <n>', 'at most N results (default 10)', positiveInt('--limit'))
    .option('--stm-weight <w>', 'weight of the store\'s facts (default 1.0)', weightFlag('--stm-weight'))
    .option('--ltm-weight <w>', 'weight of the vault\'s notes (default 0.7)', weightFlag('--ltm-weight'))
    .option('--window-days <n>', 'only facts from the last N days', positiveInt('--window-days'))
    .option('--min-score <s>', 'only facts whose decay score is at least this', weightFlag('--min-score'))
    .option('--verbose', 'show ids and paths')
    .option('--json', 'print JSON')
    .action(async (agent: string, words: string[], o: { tag?: string[]; limit?: number; stmWeight?: number; ltmWeight?: number; windowDays?: number; minScore?: number; verbose?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      const query = words.join(' ');
      const r = await withClient(opts, (c) =>
        c.searchUnified(agent, query, { ...(o.tag ? { tags: o.tag } : {}), limit: o.limit, stmWeight: o.stmWeight, ltmWeight: o.ltmWeight, windowDays: o.windowDays, minScore: o.minScore }),
      );
      if (opts.json) return printJson(unifiedJson(r));
      out(unifiedText(r, o.verbose === true));
    });

  program
    .command('extract')
    .description("propose the durable facts a message states (preferences, decisions, dates, commitments, corrections) with the daemon's extractor; --remember stores them as unverified facts")
    .argument('<agent>', 'agent id (namespace)')
    .argument('<message...>', 'the message ("-" reads it from stdin)')
    .option('--remember', 'store the proposals')
    .option('--json', 'print JSON')
    .action(async (agent: string, words: string[], o: { remember?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      const message = textArgument(words.join(' '), '<message...>', 'message');
      const r = await withClient(opts, (c) => c.extract(agent, { message }, { remember: o.remember === true }));
      if (opts.json) return printJson(extractJson(r));
      if (r.rejected) return out(`nothing extracted (${r.extractor}): ${r.rejected}`);
      for (const f of r.facts) out(`[${f.kind}] ${f.text}${f.factId ? ` -> ${f.factId}${f.duplicate ? ' (already remembered)' : ''}` : ''}${f.error ? ` (not stored: ${f.error})` : ''}`);
      out(`${r.facts.length} proposed by ${r.extractor}${o.remember ? `, ${r.stored} stored` : ''}`);
    });

  program
    .command('cluster')
    .description('clusters of similar facts (stable ids, for engram consolidate), or with --duplicates near-duplicate pairs')
    .argument('<agent>', 'agent id (namespace)')
    .option('--threshold <f>', 'similarity threshold in (0, 1] (default 0.83)', thresholdFlag('--threshold'))
    .option('--max-size <n>', 'at most N facts per cluster (default 12)', positiveInt('--max-size'))
    .option('--duplicates', 'list near-duplicate pairs instead')
    .option('--duplicate-threshold <f>', 'duplicate threshold in (0, 1] (default 0.88)', thresholdFlag('--duplicate-threshold'))
    .option('--json', 'print JSON')
    .action(async (agent: string, o: { threshold?: number; maxSize?: number; duplicates?: boolean; duplicateThreshold?: number }, cmd: Command) => {
      const opts = globals(cmd);
      const r = await withClient(opts, (c) => c.clusterMemories(agent, { threshold: o.threshold, maxClusterSize: o.maxSize, findDuplicates: o.duplicates === true, duplicateThreshold: o.duplicateThreshold }));
      if (opts.json) return printJson(clusterReportJson(r));
      for (const c of r.clusters) out(`${c.id} (${c.size} facts, cohesion ${c.cohesion.toFixed(2)}, ${c.suggestedAction}): ${c.contentPreviews.join(' | ')}`);
      for (const d of r.duplicates) out(`${d.id1} ~ ${d.id2} (${d.similarity.toFixed(2)}): ${d.content1Preview} | ${d.content2Preview}`);
      out(`${r.message} (similarity by ${r.similarity})`);
    });

  program
    .command('analyze')
    .description('is a message worth saving (or, with --recall, does it ask for something remembered)? advice only: nothing is stored or searched')
    .argument('<message...>', 'the message ("-" reads it from stdin)')
    .option('--recall', 'analyze for recall intent instead')
    .option('--json', 'print JSON')
    .action(async (words: string[], o: { recall?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      const message = textArgument(words.join(' '), '<message...>', 'message');
      if (o.recall) {
        const a = await withClient(opts, (c) => c.analyzeForRecall(message));
        if (opts.json) return printJson(recallAdviceJson(a));
        out(`${a.shouldSearch ? 'search' : 'do not search'} (confidence ${a.confidence})${a.suggestedQuery ? `: ${a.suggestedQuery}` : ''}`);
        return out(a.reasoning);
      }
      const a = await withClient(opts, (c) => c.analyzeMessage(message));
      if (opts.json) return printJson(saveAdviceJson(a));
      out(`${a.shouldSave ? 'save' : 'do not save'} (confidence ${a.confidence}), strength ${a.suggestedStrength}${a.suggestedEntities.length ? `, entities ${a.suggestedEntities.join(', ')}` : ''}${a.suggestedTags.length ? `, tags ${a.suggestedTags.join(', ')}` : ''}`);
      out(a.reasoning);
    });

  program
    .command('gc')
    .description("collect an agent's faded facts (decay score below the daemon's forget threshold; pinned ones never): shows what would go unless --apply")
    .argument('<agent>', 'agent id (namespace)')
    .option('--apply', 'collect them (default: a dry run)')
    .option('--archive', 'retire them (kept and listed with the reason) instead of erasing them')
    .option('--limit <n>', 'at most N, lowest scores first', positiveInt('--limit'))
    .option('--json', 'print JSON')
    .action(async (agent: string, o: { apply?: boolean; archive?: boolean; limit?: number }, cmd: Command) => {
      const opts = globals(cmd);
      const r = await withClient(opts, (c) => c.collectGarbage(agent, { dryRun: o.apply !== true, archiveInstead: o.archive === true, ...(o.limit !== undefined ? { limit: o.limit } : {}) }));
      if (opts.json) return printJson(gcJson(r));
      r.factIds.forEach((id, i) => out(`${id} ${score(r.scores[i]!)}`));
      out(r.message + (r.dryRun && r.totalAffected > 0 ? '; run again with --apply to collect them' : ''));
    });
}
