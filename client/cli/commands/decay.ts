// Decay from the command line: touch (one use of a fact), observe (facts used in a conversation)
// and gc (collect faded facts; a dry run unless --apply).
import type { Command } from 'commander';
import { gcJson, observeJson, touchJson } from '../../../shared/json/shapes.ts';
import { out, positiveInt, printJson, repeatable, withClient, type Cli } from '../context.ts';

const score = (x: number): string => x.toFixed(4);

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
