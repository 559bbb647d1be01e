// Consolidation from the command line: `engram consolidate AGENT` summarises the namespace's
// faded facts into one summary that replaces them (--dry-run reports only); with a cluster id
// (from `engram cluster`) it merges that cluster instead (a preview unless --apply).
// `engram consolidate --status` prints the lifetime totals.
import { Option, type Command } from 'commander';
import { consolidateJson, consolidationCountersJson, consolidationRunJson } from '../../../shared/json/shapes.ts';
import { out, printJson, usage, withClient, type Cli } from '../context.ts';

export function registerConsolidateCommand({ program, globals }: Cli): void {
  program
    .command('consolidate')
    .description("summarise an agent's faded facts into one summary that replaces them; with a cluster id, merge that cluster instead")
    .argument('[agent]', 'agent id (namespace)')
    .argument('[cluster-id]', 'a cluster from engram cluster: merge it (a preview unless --apply)')
    .option('--dry-run', 'report what a run would summarise; write nothing')
    .addOption(new Option('--apply', 'with a cluster id: write the merged fact and retire the members').conflicts('dryRun'))
    // The totals are every namespace's: a run's flags (or an agent, below) would be ignored.
    .addOption(new Option('--status', 'print the lifetime consolidation totals (of every agent) instead').conflicts(['dryRun', 'apply']))
    .option('--json', 'print JSON')
    .action(async (agent: string | undefined, clusterId: string | undefined, o: { dryRun?: boolean; apply?: boolean; status?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      if (o.status) {
        if (agent !== undefined) usage(`--status prints the lifetime totals of every agent: it takes no [agent] (got "${agent}"); give one or the other`, '--status');
        const c = await withClient(opts, (client) => client.consolidationStatus());
        if (opts.json) return printJson(consolidationCountersJson(c));
        out(`${c.runs} runs, ${c.summariesWritten} summaries written, ${c.factsRetired} facts retired, ${c.failures} failures, ${c.rejectedProposals} proposals refused${c.queued ? `, ${c.queued} queued` : ''}`);
        return;
      }
      if (agent === undefined) usage('name the agent to consolidate (or pass --status)');
      if (clusterId !== undefined) {
        const r = await withClient(opts, (c) => c.consolidateMemories(agent, clusterId, { mode: o.apply ? 'apply' : 'dry_run' }));
        if (opts.json) return printJson(consolidateJson(r));
        out(r.merged.text);
        out(r.message + (r.mode === 'dry_run' ? '; run again with --apply to merge' : ''));
        return;
      }
      if (o.apply) usage('--apply is for merging a cluster: name the cluster id');
      const r = await withClient(opts, (c) => c.consolidate(agent, { dryRun: o.dryRun === true }));
      if (opts.json) return printJson(consolidationRunJson(r));
      if (r.text) out(r.text);
      for (const f of r.failures) out(`kept ${f.factId}: ${f.error}`);
      out(r.message + (r.dryRun && r.sourceIds.length ? '; run again without --dry-run to write it' : ''));
    });
}
