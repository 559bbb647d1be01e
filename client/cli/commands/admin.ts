// The store commands: agents, stats, status (status.ts), doctor, reindex, maintenance.
import type { Command } from 'commander';
import { out, printJson, withClient, type Cli } from '../context.ts';
import { statsJson } from '../json.ts';
import { ProgressBar } from '../../../shared/progress-bar.ts';
import { printStats } from '../render.ts';
import { compactReportJson, storageReportJson } from '../../../shared/json/shapes.ts';
import { registerStatusCommand } from './status.ts';

export function registerAdminCommands(cli: Cli): void {
  const { program, globals, setExit } = cli;
  program
    .command('agents')
    .description('list agent namespaces')
    .option('--json', 'print JSON')
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      const agents = await withClient(opts, (c) => c.listAgents());
      if (opts.json) printJson({ agents });
      // An agent token is shown only the namespaces it may read: "none yet" would mislead it.
      else out(agents.length ? agents.join('\n') : opts.token ? 'No namespace this token may read holds facts (a token without the read right reads none).' : 'No agents yet.');
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
      else printStats(stats, out, agent);
    });

  registerStatusCommand(cli);

  program
    .command('doctor')
    .description('check that every derived index agrees with the facts')
    .option('--rebuild', 'rebuild the derived indexes from the facts')
    .option('--repair', "with no daemon running: LevelDB's repair of a store that no longer opens (it keeps every record it can read)")
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

  const maintenance = program.command('maintenance').description("the store's storage: statistics with hints, and compaction");
  maintenance
    .command('stats')
    .description('what the store holds table by table (entries, bytes), and whether compaction or collection would pay off')
    .option('--json', 'print JSON')
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      const r = await withClient(opts, (c) => c.storageStats());
      if (opts.json) return printJson(storageReportJson(r));
      out(`store ${mib(r.storeBytes)} MiB, ${r.factCount} facts (${r.retiredCount} retired)`);
      for (const t of r.tables) out(`  ${t.name.padEnd(12)} ${String(t.entries).padStart(9)} entries  ${mib(t.bytes).padStart(8)} MiB`);
      for (const hint of r.hints) out(`hint: ${hint}`);
    });
  maintenance
    .command('compact')
    .description("rewrite the store's files without what deletes, rewrites and retirements left behind (writes go on meanwhile)")
    .option('--json', 'print JSON')
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      if (!opts.json) process.stderr.write('compacting the store...\n');
      const r = await withClient(opts, (c) => c.compact());
      if (opts.json) return printJson(compactReportJson(r));
      out(`compacted in ${r.seconds.toFixed(1)} s: ${mib(r.bytesBefore)} MiB -> ${mib(r.bytesAfter)} MiB`);
    });
}

const mib = (bytes: number): string => (bytes / (1024 * 1024)).toFixed(2);
