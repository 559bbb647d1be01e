// `npm run bench:import [-- --facts 100000] [-- --embedder local|none] [-- --cpu-prof DIR]`: `engram import` end to
// end, as a user runs it: a JSONL file of distinct facts (with dates and tags) imported by the
// built CLI into a fresh daemon, then the same file again (every line replayed). Facts per second
// beside `node -e 0` measured in the same run. Prints a report; never asserts. --cpu-prof writes
// V8 profiles of the daemon (its thread and the graph thread) and of each `engram import` to DIR.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanup, exitedChildrenCpuSeconds, installSignalCleanup, machineCpuSeconds, startDaemon, tempDir, track } from './daemon.ts';
import { generateFacts } from './corpus.ts';
import { ms, table } from './stats.ts';
import { benchArgs, embedderArg, positiveInt } from './args.ts';

const ENGRAM_BIN = fileURLToPath(new URL('../dist/engram.js', import.meta.url));
const TARGET_PER_SECOND = 10_000;

const { values } = benchArgs('bench:import', '[--facts 100000] [--embedder local|none] [--cpu-prof DIR]', { facts: { type: 'string', default: '100000' }, embedder: { type: 'string', default: 'local' }, 'cpu-prof': { type: 'string' } });
const count = positiveInt('bench:import', 'facts', values.facts);
const embedder = embedderArg('bench:import', 'embedder', values.embedder);

const DAY = 86_400_000;
/** With --cpu-prof, `engram import` writes its own profile beside the daemon's. */
const cliProfile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];

function jsonl(texts: string[]): string {
  const start = Date.UTC(2024, 0, 1);
  return texts.map((text, i) => JSON.stringify({ text, occurred_at: new Date(start + Math.floor(i / 50) * DAY).toISOString(), tags: [`topic${i % 11}`] })).join('\n') + '\n';
}

/** Runs `engram import`, showing its progress on this terminal; resolves with its stdout. */
function importFile(dataDir: string, file: string): Promise<{ seconds: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, [...cliProfile, ENGRAM_BIN, '--data-dir', dataDir, 'import', 'bench', file], { stdio: ['ignore', 'pipe', 'inherit'] }));
    let stdout = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.once('exit', (code) => (code === 0 ? resolve({ seconds: (performance.now() - started) / 1000, stdout: stdout.trim() }) : reject(new Error(`engram import exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  installSignalCleanup();
  const dir = tempDir('import');
  const file = join(dir, 'facts.jsonl');
  process.stderr.write(`generating ${count} facts...\n`);
  writeFileSync(file, jsonl(generateFacts(count)));
  const nodeStarted = performance.now();
  execFileSync(process.execPath, ['-e', '0']);
  const floor = performance.now() - nodeStarted;

  const dataDir = join(dir, 'data');
  const daemon = await startDaemon(dataDir, { embedder, ...(values['cpu-prof'] ? { cpuProfDir: values['cpu-prof'] } : {}) });
  const cpuBefore = { machine: machineCpuSeconds(), daemon: daemon.cpuSeconds(), threads: daemon.threadCpuSeconds(), cli: exitedChildrenCpuSeconds() };
  const first = await importFile(dataDir, file);
  const cpu = machineCpuSeconds() - cpuBefore.machine;
  const daemonCpu = daemon.cpuSeconds() - cpuBefore.daemon;
  const threads = daemon.threadCpuSeconds();
  const cliCpu = exitedChildrenCpuSeconds() - cpuBefore.cli;
  const again = await importFile(dataDir, file);
  const rss = daemon.rssMiB();
  await daemon.stop();

  const rate = count / first.seconds;
  const rows = [
    ['run', 'seconds', 'facts/s', 'output', `target (>= ${TARGET_PER_SECOND}/s)`],
    ['first import', first.seconds.toFixed(1), rate.toFixed(0), first.stdout, rate >= TARGET_PER_SECOND ? 'meets' : 'MISSES'],
    ['same file again', again.seconds.toFixed(1), (count / again.seconds).toFixed(0), again.stdout, ''],
  ];
  process.stdout.write(`engram import — ${new Date().toISOString()}, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  process.stdout.write(`${count} facts, embedder ${embedder}, one JSONL file through the built CLI; node -e 0 took ${ms(floor)} ms\n\n`);
  process.stdout.write(`${table(rows)}\n\nmachine CPU during the first import: ${(cpu / first.seconds).toFixed(2)} cores; daemon RSS after: ${rss.toFixed(0)} MiB\n`);
  // What a fact costs, so a change can be judged on a busy machine: 10,000/s on two cores leaves
  // 200 core-µs a fact, on the 1.6 cores two busy processes get here (LIMITS.md) 160.
  const perFact = (seconds: number) => ((seconds * 1e6) / count).toFixed(0);
  const { main: mainCpu, graph: graphCpu, other: otherCpu } = threads;
  const byThread = `main thread ${perFact(mainCpu - cpuBefore.threads.main)}, graph thread ${perFact(graphCpu - cpuBefore.threads.graph)}, other threads ${perFact(otherCpu - cpuBefore.threads.other)}`;
  process.stdout.write(`CPU a fact in the first import: daemon ${perFact(daemonCpu)} µs (${byThread}), engram import ${perFact(cliCpu)} µs, machine ${perFact(cpu)} µs\n`);
}

main().finally(cleanup);
