// `npm run soak [-- --only crash,disk,fuzz,load] [--cycles 100] [--inputs 100000] [--clients 32]
// [--minutes 5]`: the reliability proof, as a printed report (it never asserts): kill -9 cycles
// during a mixed write storm, a disk that fills up, fuzzed inputs on every door, and many client
// processes for minutes. Bounded in time; progress on stderr.
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { cleanup, installSignalCleanup } from './daemon.ts';
import { runCrashSoak, type CrashReport } from './soak/crash.ts';
import { runDiskFull, type DiskReport } from './soak/disk-full.ts';
import { runFuzz, type FuzzReport } from './soak/fuzz.ts';
import { runLoad, type LoadReport } from './soak/load.ts';
import { ms, summarize } from './stats.ts';

const PHASES = ['crash', 'disk', 'fuzz', 'load'] as const;
type Phase = (typeof PHASES)[number];

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: PHASES.join(',') },
    cycles: { type: 'string', default: '100' },
    'per-dir': { type: 'string', default: '20' },
    inputs: { type: 'string', default: '100000' },
    clients: { type: 'string', default: '32' },
    minutes: { type: 'string', default: '5' },
    writes: { type: 'string', default: '0.2' },
    seed: { type: 'string', default: '20261202' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write(`usage: npm run soak -- [--only ${PHASES.join(',')}] [--cycles 100] [--per-dir 20] [--inputs 100000]
                    [--clients 32] [--minutes 5] [--writes 0.2] [--seed N]
  crash  kill -9 at random moments of a mixed write storm; every acknowledged write checked after each restart
  disk   a small tmpfs fills up during writes (needs root to mount it), then grows again
  fuzz   fast-check inputs (fixed seed) on gRPC, REST and MCP
  load   many client processes, mixed reads and writes (--writes: the share that remember): throughput,
         p50/p99, RSS over time\n`);
  process.exit(0);
}
const only = values.only.split(',') as Phase[];
const writeShare = Number(values.writes);
const numbers = { cycles: Number(values.cycles), perDir: Number(values['per-dir']), inputs: Number(values.inputs), clients: Number(values.clients), minutes: Number(values.minutes), seed: Number(values.seed) };
if (only.some((p) => !PHASES.includes(p)) || Object.values(numbers).some((n) => !(n > 0)) || !(writeShare >= 0 && writeShare <= 1)) {
  process.stderr.write('soak: bad arguments (see --help)\n');
  process.exit(2);
}

const progress = (label: string) => (done: number, total: number) => process.stderr.write(`\r${label} ${done}/${total}   ${done === total ? '\n' : ''}`);

function crashSection(r: CrashReport): string {
  const restart = summarize(r.restartMs);
  return [
    `## kill -9 during a mixed storm (${r.cycles} cycles, 3 writer processes × 4 in flight; puts, batch puts, revisions, pins, erasures, checkpoints, automatic consolidation)`,
    `- acknowledged writes: ${r.acknowledged}; outcome unknown (in flight at the kill): ${r.uncertain}; facts stored at the last check: ${r.stored}`,
    `- write status asked for ${r.writeStatusChecked} acknowledged puts`,
    `- restart (start until serving, indexes rebuilt after the crash): p50 ${ms(restart.p50)} ms, max ${ms(restart.max)} ms`,
    `- **violations: ${r.violations.length}**${r.violations.length ? `\n${r.violations.slice(0, 20).map((v) => `  - ${v}`).join('\n')}` : ' (lost, duplicated, invented, resurrected, unpinned, doctor unhealthy)'}`,
  ].join('\n');
}

function diskSection(r: DiskReport): string {
  if (r.skipped) return `## disk full\n- not run: ${r.skipped}`;
  return [
    `## disk full (a ${r.sizeMiB} MiB tmpfs, grown to ${r.grownMiB} MiB afterwards)`,
    `- acknowledged before the disk filled: ${r.acknowledgedBefore}; refused while full: ${r.refused} (${r.refusalKinds.join(', ')}), e.g. "${r.sampleError}"`,
    `- reads while full: ${r.readsWhileFull} of ${r.readsTried} answered; daemon alive while full: ${r.aliveWhileFull}`,
    `- after the disk grew: writes ${r.writesAfter ? 'accepted' : 'REFUSED'}${r.recoveryNote ? ` (${r.recoveryNote})` : ''}; acknowledged facts present: ${r.presentAfter} of ${r.acknowledgedBefore + r.acknowledgedAfter}`,
    `- doctor after a restart: ${r.healthyAfterRestart}`,
  ].join('\n');
}

function fuzzSection(r: FuzzReport): string {
  const rows = r.doors.map((d) => `| ${d.door} | ${d.inputs} | ${d.accepted} | ${d.refused} | ${d.internal} | ${d.hangs} | ${d.partialWrites} |`);
  return [
    `## fuzzed inputs (fast-check, seed ${r.seed}; ${r.seconds.toFixed(0)} s)`,
    '| door | inputs | accepted | refused cleanly | internal errors | hangs (> 10 s) | partial writes |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    `- daemon crashes: ${r.crashes}; doctor after: ${r.healthyAfter ? 'healthy' : 'UNHEALTHY'}`,
    ...(r.samples.length ? ['- problems, one of each kind:', ...distinct(r.samples).slice(0, 20).map((s) => `  - ${s}`)] : []),
  ].join('\n');
}

/** One sample per door, outcome and operation. */
const distinct = (samples: string[]) => [...new Map(samples.map((s) => [s.split(' ').slice(0, 4).join(' '), s])).values()];

function loadSection(r: LoadReport): string {
  const rows = r.windows.map((w) => `| ${w.atSeconds} | ${w.calls} | ${(w.calls / w.seconds).toFixed(0)} | ${ms(w.p50)} | ${ms(w.p99)} | ${w.errors} | ${w.rssMiB.toFixed(0)} |`);
  return [
    `## ${r.clients} client processes × ${r.minutes} min (each: one call at a time, ${Math.round((1 - r.writeShare) * 100)} % recall, ${Math.round(r.writeShare * 100)} % remember)`,
    `- floor (a no-op gRPC health check, same run): idle p50 ${ms(r.idleFloor.p50)} ms, p99 ${ms(r.idleFloor.p99)} ms; under the load p50 ${ms(r.floor.p50)} ms, p99 ${ms(r.floor.p99)} ms (the ratios below are to the floor under load)`,
    `- overall: ${r.calls} calls, ${(r.calls / (r.minutes * 60)).toFixed(0)}/s, p50 ${ms(r.p50)} ms (${(r.p50 / r.floor.p50).toFixed(1)}× floor), p99 ${ms(r.p99)} ms (${(r.p99 / r.floor.p99).toFixed(1)}× floor), errors ${r.errors}; facts at the end ${r.factsAtEnd}`,
    `- daemon RSS: first window ${r.windows[0]?.rssMiB.toFixed(0)} MiB, last ${r.windows.at(-1)?.rssMiB.toFixed(0)} MiB, max ${Math.max(...r.windows.map((w) => w.rssMiB)).toFixed(0)} MiB`,
    '| at s | calls | calls/s | p50 ms | p99 ms | errors | daemon RSS MiB |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

installSignalCleanup();
const sections: string[] = [];
const started = Date.now();
try {
  if (only.includes('crash')) sections.push(crashSection(await runCrashSoak({ cycles: numbers.cycles, perDir: numbers.perDir, seed: numbers.seed, onCycle: progress('crash cycles') })));
  if (only.includes('disk')) sections.push(diskSection(await runDiskFull({ log: (line) => process.stderr.write(`disk: ${line}\n`) })));
  if (only.includes('fuzz')) sections.push(fuzzSection(await runFuzz({ inputs: numbers.inputs, seed: numbers.seed, onProgress: progress('fuzz inputs') })));
  if (only.includes('load')) sections.push(loadSection(await runLoad({ clients: numbers.clients, minutes: numbers.minutes, writeShare, onProgress: progress('load seconds') })));
} finally {
  cleanup();
}
process.stdout.write(
  [
    `# Engram soak (${new Date().toISOString()}, ${((Date.now() - started) / 60_000).toFixed(1)} min, ${cpus().length} cores, load average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')})`,
    ...sections,
    '',
  ].join('\n\n'),
);
