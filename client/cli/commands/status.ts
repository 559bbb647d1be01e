// engram status: is the daemon up, which version, what it can do, and the store's counts as far
// as the caller may read them and the store answers. The daemon is up when it answers Hello: a
// store it cannot reach (PostgreSQL down) or counts an agent token may not read are said as such,
// never as a daemon that is down.
import type { Command } from 'commander';
import { DaemonNotRunningError, describeChoice, locateDataDir, readDiscovery, type Discovery } from '../../../shared/discovery.ts';
import { EngramError, ErrorKind } from '../../../shared/errors.ts';
import type { DaemonInfo } from '../../connection.ts';
import type { Stats } from '../../types.ts';
import { out, printJson, withClient, type Cli } from '../context.ts';
import { consolidationCountersJson, daemonJson, statsJson } from '../json.ts';
import { Capability } from '../../../shared/capabilities.ts';
import type { ConsolidationCounters } from '../../../shared/model.ts';
import { printStats, weightsText } from '../render.ts';
import { readCounts, STORE_UNREACHABLE_EXIT, type Counts } from './status-counts.ts';

interface Answer {
  daemon: DaemonInfo;
  counts: Counts;
  consolidation?: ConsolidationCounters;
}

export function registerStatusCommand({ program, globals, setExit }: Cli): void {
  program
    .command('status')
    .description('is the daemon up, which version, what it can do, how big the store is')
    .option('--json', 'print JSON')
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      const choice = locateDataDir(opts.dataDir);
      const dataDir = choice.dir;
      let discovery: Discovery | undefined;
      let answer: Answer;
      try {
        discovery = opts.address ? undefined : readDiscovery(dataDir, describeChoice(choice));
        answer = await withClient(opts, async (c) => {
          const daemon = await c.hello();
          const consolidation = daemon.capabilities.includes(Capability.Consolidate) ? await c.consolidationStatus() : undefined;
          return { daemon, counts: await readCounts(c), ...(consolidation ? { consolidation } : {}) };
        });
      } catch (error) {
        // A script asking whether the daemon runs gets an answer, not an error (exit 1 still says no).
        const down = error instanceof DaemonNotRunningError || (error instanceof EngramError && error.kind === ErrorKind.Unavailable);
        if (!opts.json || !down) throw error;
        printJson({ running: false, data_dir: dataDir, data_dir_source: choice.source, address: opts.address ?? discovery?.address ?? null, reason: (error as Error).message });
        setExit(1);
        return;
      }
      if (answer.counts.kind === 'unreachable') setExit(STORE_UNREACHABLE_EXIT);
      const where = { dataDir, source: choice.source, how: describeChoice(choice), address: opts.address ?? discovery?.address, discovery };
      if (opts.json) printJson(statusJson(answer, where));
      else printStatus(answer, where);
    });
}

/** Where the daemon was found: the data dir, how it was chosen, its discovery file. */
interface Where {
  dataDir: string;
  source: string;
  how: string;
  address?: string;
  discovery?: Discovery;
}

function statusJson({ daemon, counts, consolidation }: Answer, where: Where) {
  return {
    running: true,
    data_dir: where.dataDir,
    data_dir_source: where.source,
    address: where.address,
    pid: where.discovery?.pid ?? null,
    log: where.discovery?.logFile ?? null,
    daemon: daemonJson(daemon),
    store_reachable: counts.kind !== 'unreachable',
    store_error: counts.kind === 'unreachable' ? counts.reason : null,
    store: counts.kind === 'store' ? statsJson(counts.stats) : null,
    counts_not_shown: counts.kind === 'store' ? null : notShown(counts),
    namespaces: counts.kind === 'namespaces' ? counts.namespaces.map((n) => ({ agent_id: n.agentId, ...statsJson(n.stats) })) : null,
    consolidation: consolidation ? consolidationCountersJson(consolidation) : null,
  };
}

/** Why the whole store's counts are missing. */
function notShown(counts: Exclude<Counts, { kind: 'store' }>): string {
  if (counts.kind === 'unreachable') return 'the daemon cannot reach its store';
  const names = counts.namespaces.map((n) => n.agentId);
  // listAgents names only namespaces that hold facts: an empty one the token opens is not named.
  // A token without read is in the same place: it may read none, so it is told that may be why.
  return names.length
    ? `this token may read only some namespaces: ${names.join(', ')}`
    : 'this token reads no namespace that holds facts: it may read none (a token without the read right), or those it may read are empty';
}

function printStatus({ daemon, counts, consolidation }: Answer, where: Where): void {
  const { discovery } = where;
  out(`daemon    engram ${daemon.daemonVersion} (profile ${daemon.profile}), pid ${discovery?.pid ?? '?'}`);
  out(`address   ${where.address}${discovery?.tcpAddress ? ` and ${discovery.tcpAddress}` : ''}`);
  out(`data dir  ${where.dataDir} (${where.how})`);
  if (discovery?.httpAddress) out(`http      http://${discovery.httpAddress} (REST, MCP at /mcp${daemon.capabilities.includes(Capability.Inspector) ? ', the inspector at /inspector/' : ''})`);
  if (discovery?.mcpHttpAddress) out(`mcp       http://${discovery.mcpHttpAddress}/mcp`);
  if (discovery?.logFile) out(`log       ${discovery.logFile}`);
  out(`features  ${daemon.capabilities.join(', ') || '(none: legacy daemon)'}`);
  out(`embedder  ${daemon.embedder}`);
  if (daemon.store) out(`kept in   ${daemon.store === 'postgres' ? `PostgreSQL, shared by every daemon on it (store ${daemon.storeId})` : 'the embedded store of the data dir'}`);
  if (daemon.defaultWeights) out(`weights   ${weightsText(daemon.defaultWeights)} (recall defaults)`);
  printCounts(counts);
  if (consolidation) {
    const c = consolidation;
    const last = c.lastRunAt ? `, last ${new Date(c.lastRunAt).toISOString()}` : '';
    out(`consolidation  ${c.runs} runs, ${c.summariesWritten} summaries, ${c.factsRetired} facts retired, ${c.failures} failures, ${c.rejectedProposals} refused${last}`);
  }
}

function printCounts(counts: Counts): void {
  if (counts.kind === 'store') return printStats(counts.stats, out);
  if (counts.kind === 'unreachable') out(`store     UNREACHABLE: ${counts.reason}`);
  out(`counts    not shown (${notShown(counts)})`);
  if (counts.kind === 'namespaces') for (const n of counts.namespaces) printNamespace(n.agentId, n.stats);
}

function printNamespace(agentId: string, stats: Stats): void {
  out(`namespace ${agentId}`);
  printStats(stats, (line) => out(`  ${line}`), agentId);
}
