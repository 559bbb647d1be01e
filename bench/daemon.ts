// Real daemon processes for the benchmark, and cleanup of everything the benchmark started
// (daemons, writer children, temp dirs), also on error and on SIGINT/SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GRAPH_THREAD_NAME } from '../daemon/index/graph-thread.ts';
import type { BenchEmbedder } from './args.ts';

const ENGRAM_BIN = fileURLToPath(new URL('../dist/engram.js', import.meta.url));
const CLOCK_TICKS = 100; // USER_HZ on Linux
const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

/** CPU time (seconds) every process on the machine has used since boot: busy fields of /proc/stat. */
export function machineCpuSeconds(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / CLOCK_TICKS;
}

/** User + system CPU seconds in a /proc stat line (fields 14 and 15, counted after the ")" that
 *  ends the command name, which may itself hold spaces). */
function statCpuSeconds(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** CPU seconds a process's threads have used so far: its main thread, its HNSW graph thread, and
 *  all the others together (LevelDB's, libuv's pool, V8's helpers). Threads that ended are not
 *  counted. */
export interface ThreadCpu {
  main: number;
  graph: number;
  other: number;
}

function threadCpuSeconds(pid: number): ThreadCpu {
  const out: ThreadCpu = { main: 0, graph: 0, other: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let seconds: number;
    let name: string;
    try {
      seconds = statCpuSeconds(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    } catch {
      continue; // the thread ended meanwhile
    }
    if (Number(tid) === pid) out.main += seconds;
    else if (name === GRAPH_THREAD_NAME) out.graph += seconds;
    else out.other += seconds;
  }
  return out;
}

/** CPU time (seconds) of this process's children that have exited and been waited for: fields
 *  cutime and cstime of /proc/self/stat. The difference across a child's whole life is its CPU. */
export function exitedChildrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}

/** Registers a child process so cleanup() kills it if it is still running. */
export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `engram-bench-${label}-`));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** Synchronous, so it also works from a signal handler. */
export function cleanup(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

export function installSignalCleanup(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nbench: ${signal}, killing children and removing temp dirs\n`);
      cleanup();
      process.exit(130);
    });
  }
}

export interface BenchDaemon {
  pid: number;
  dataDir: string;
  /** VmRSS of the daemon process, in MiB. */
  rssMiB(): number;
  /** CPU time (user + system) the daemon has used so far, in seconds. */
  cpuSeconds(): number;
  /** The same, by thread. */
  threadCpuSeconds(): ThreadCpu;
  /** The last 4,000 characters the daemon logged. */
  log(): string;
  /** SIGTERM (drain, persist, close), SIGKILL after STOP_GRACE_MS. */
  stop(): Promise<void>;
}

/** A clean stop after a bulk load inserts the vectors still waiting for the HNSW graph and saves
 *  it, which takes tens of seconds at a million facts: give it that long. */
const STOP_GRACE_MS = 180_000;

export interface StartOptions {
  embedder: BenchEmbedder;
  /** Directory for V8 CPU profiles of the daemon (written when it exits). */
  cpuProfDir?: string;
  /** More `engram daemon` flags. */
  args?: string[];
  /** How long start-up may take (default 120 s; a daemon joining a million-fact store needs more). */
  startTimeoutMs?: number;
}

export async function startDaemon(dataDir: string, options: StartOptions): Promise<BenchDaemon> {
  // Node 20 refuses --cpu-prof in NODE_OPTIONS, so it goes on the command line.
  const profile = options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [];
  const child = track(
    spawn(process.execPath, [...profile, ENGRAM_BIN, 'daemon', '--data-dir', dataDir, '--embedder', options.embedder, ...(options.args ?? [])], {
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  // Started = the discovery file names this process (a file left by an earlier daemon does not count).
  const discovery = join(dataDir, 'daemon.json');
  const namesThisProcess = () => existsSync(discovery) && (JSON.parse(readFileSync(discovery, 'utf8')) as { pid?: number }).pid === child.pid;
  const startTimeoutMs = options.startTimeoutMs ?? 120_000;
  const deadline = Date.now() + startTimeoutMs;
  while (!namesThisProcess()) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`daemon exited during start-up:\n${log}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`daemon did not start within ${startTimeoutMs / 1000} s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }

  return {
    pid: child.pid!,
    dataDir,
    log: () => log,
    rssMiB() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
      return kb / 1024;
    },
    cpuSeconds() {
      return statCpuSeconds(readFileSync(`/proc/${child.pid}/stat`, 'utf8'));
    },
    threadCpuSeconds() {
      return threadCpuSeconds(child.pid!);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        process.stderr.write(`bench: the daemon did not stop within ${STOP_GRACE_MS / 1000} s; killed (its indexes will be rebuilt on the next start)\n`);
        child.kill('SIGKILL');
      }, STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits (at most `maxMs`) until the daemon is nearly idle (under a tenth of a core over `stepMs`),
 *  e.g. done compacting and inserting vectors after writes. */
export async function settle(daemon: BenchDaemon, { maxMs = 15_000, stepMs = 500 } = {}): Promise<void> {
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    const before = daemon.cpuSeconds();
    await new Promise((r) => setTimeout(r, stepMs));
    if (daemon.cpuSeconds() - before < stepMs / 10_000) return;
  }
}
