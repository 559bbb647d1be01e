// `npm run bench:cli [-- --runs 15]`: how long the `engram` command takes to start and answer,
// from the built package, beside `node -e 0` measured in the same run (absolute times move with
// the machine's load; the ratio is what to compare). Also the idle daemon's resident memory.
// Prints a report; never asserts.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { cleanup, installSignalCleanup, startDaemon, tempDir } from './daemon.ts';
import { ms, percentile, table } from './stats.ts';
import { benchArgs, positiveInt } from './args.ts';

const ENGRAM_BIN = fileURLToPath(new URL('../dist/engram.js', import.meta.url));
const TARGET_STATUS_RATIO = 5;

const { values } = benchArgs('bench:cli', '[--runs 15]', { runs: { type: 'string', default: '15' } });
const runs = positiveInt('bench:cli', 'runs', values.runs);

function medianMs(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const started = performance.now();
    execFileSync(process.execPath, args, { stdio: 'ignore' });
    if (i >= 2) times.push(performance.now() - started); // the first two warm the file cache
  }
  return percentile(times, 50);
}

async function main(): Promise<void> {
  installSignalCleanup();
  const dataDir = tempDir('cli');
  const daemon = await startDaemon(dataDir, { embedder: 'none' });
  execFileSync(process.execPath, [ENGRAM_BIN, '--data-dir', dataDir, 'remember', 'bench', 'The CLI answers quickly'], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 2000));
  const idleRss = daemon.rssMiB();

  const floor = medianMs(['-e', '0']);
  const rows = [['command', 'median ms', '× node -e 0', 'target']];
  rows.push(['node -e 0', ms(floor), '1.0', '']);
  for (const [label, args] of [
    ['engram --version', ['--version']],
    ['engram status', ['--data-dir', dataDir, 'status']],
    ['engram recall', ['--data-dir', dataDir, 'recall', 'bench', 'quickly']],
  ] as const) {
    const median = medianMs([ENGRAM_BIN, ...args]);
    const ratio = median / floor;
    rows.push([label, ms(median), ratio.toFixed(1), label === 'engram status' ? `<= ${TARGET_STATUS_RATIO}× ${ratio <= TARGET_STATUS_RATIO ? 'meets' : 'MISSES'}` : '']);
  }
  await daemon.stop();
  const local = await startDaemon(tempDir('cli-local'), { embedder: 'local' });
  await new Promise((r) => setTimeout(r, 2000));
  const localRss = local.rssMiB();
  await local.stop();
  process.stdout.write(`Engram CLI start-up — ${new Date().toISOString()}, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  process.stdout.write(`median of ${runs} runs each (after 2 warm-up runs), from the built package (dist/engram.js), against a daemon with --embedder none\n\n`);
  process.stdout.write(`${table(rows)}\n\nidle daemon RSS: ${idleRss.toFixed(0)} MiB with --embedder none, ${localRss.toFixed(0)} MiB with the default local embedder (its word vectors mapped in)\n`);
}

main().finally(cleanup);
