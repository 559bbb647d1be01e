// The disk-full soak: the data directory on a small tmpfs of its own, written until the disk is
// full. Writes must fail with a clear error and nothing acknowledged may be lost; reads go on;
// once the file system grows again, writes are accepted again. Mounting needs root: without it
// the phase says so and is skipped.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, EngramError } from '../../client/index.ts';
import { cleanup, startDaemon } from '../daemon.ts';

const SIZE_MIB = 24;
const GROWN_MIB = 256;
const FACT_BYTES = 24_000;

export interface DiskReport {
  skipped?: string;
  sizeMiB: number;
  grownMiB: number;
  acknowledgedBefore: number;
  refused: number;
  refusalKinds: string[];
  sampleError: string;
  readsTried: number;
  readsWhileFull: number;
  aliveWhileFull: boolean;
  writesAfter: boolean;
  recoveryNote: string;
  acknowledgedAfter: number;
  presentAfter: number;
  /** Doctor after a restart: "healthy", or the failing checks. */
  healthyAfterRestart: string;
}

export async function runDiskFull(options: { log(line: string): void }): Promise<DiskReport> {
  const report: DiskReport = { sizeMiB: SIZE_MIB, grownMiB: GROWN_MIB, acknowledgedBefore: 0, refused: 0, refusalKinds: [], sampleError: '', readsTried: 0, readsWhileFull: 0, aliveWhileFull: false, writesAfter: false, recoveryNote: '', acknowledgedAfter: 0, presentAfter: 0, healthyAfterRestart: 'not run' };
  // Not a tracked temp dir: it can be removed only once unmounted.
  const mountPoint = mkdtempSync(join(tmpdir(), 'engram-soak-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE_MIB}m,mode=700`, 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (error) {
    rmSync(mountPoint, { recursive: true, force: true });
    return { ...report, skipped: `could not mount a tmpfs (${(error as Error).message.split('\n')[0]}); run the soak as root` };
  }
  const dataDir = join(mountPoint, 'engram');
  mkdirSync(dataDir, { mode: 0o700 });
  chmodSync(mountPoint, 0o700);
  try {
    const daemon = await startDaemon(dataDir, { embedder: 'none', args: ['--log-file', join(tmpdir(), 'engram-soak-disk.log')] });
    const client = await connect({ dataDir, timeoutMs: 30_000 });
    const acked: string[] = [];
    const kinds = new Set<string>();
    // Random words, so the store's compression cannot make the disk last for ever.
    const filler = (i: number) => `disk fact ${i} harbour crane ${randomBytes(FACT_BYTES).toString('base64').replace(/(.{12})/g, '$1 ')}`.slice(0, FACT_BYTES);
    let i = 0;
    for (let refusedInARow = 0; refusedInARow < 20 && i < 5000; i++) {
      try {
        acked.push((await client.put('disk', filler(i))).fact.id);
        refusedInARow = 0;
      } catch (error) {
        refusedInARow++;
        report.refused++;
        kinds.add(error instanceof EngramError ? error.kind : 'unknown');
        report.sampleError ||= (error as Error).message;
      }
    }
    report.acknowledgedBefore = acked.length;
    report.refusalKinds = [...kinds];
    options.log(`${acked.length} facts acknowledged, then ${report.refused} refused: ${report.sampleError}`);

    for (let r = 0; r < 20; r++) {
      report.readsTried++;
      try {
        await client.recall('disk', 'harbour crane', { topK: 5 });
        report.readsWhileFull++;
      } catch {
        /* counted as not answered */
      }
    }
    try {
      process.kill(daemon.pid, 0);
      report.aliveWhileFull = true;
    } catch {
      report.aliveWhileFull = false;
    }

    execFileSync('mount', ['-o', `remount,size=${GROWN_MIB}m`, mountPoint], { stdio: 'pipe' });
    const after: string[] = [];
    for (let k = 0; k < 20; k++) {
      try {
        after.push((await client.put('disk', `disk fact after growth ${k}`)).fact.id);
      } catch (error) {
        report.recoveryNote ||= `first write after growth: ${(error as Error).message}`;
      }
    }
    report.writesAfter = after.length === 20;
    report.acknowledgedAfter = after.length;
    const present = new Set<string>();
    for await (const fact of client.listAll('disk', 200)) present.add(fact.id);
    report.presentAfter = [...acked, ...after].filter((id) => present.has(id)).length;
    client.close();
    await daemon.stop();
    // The next start replays what the full disk left: it must be whole, and doctor healthy.
    const again = await startDaemon(dataDir, { embedder: 'none' });
    const reopened = await connect({ dataDir, timeoutMs: 30_000 });
    for await (const event of reopened.doctor()) if (event.report) report.healthyAfterRestart = event.report.healthy ? 'healthy' : event.report.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`).join('; ');
    reopened.close();
    await again.stop();
  } finally {
    unmount(mountPoint);
  }
  return report;
}

/** Unmounts the tmpfs (after the daemon has let go of its files) and removes the mount point. */
function unmount(mountPoint: string): void {
  cleanup(); // a daemon still running after an error holds files open
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      execFileSync('umount', [mountPoint], { stdio: 'pipe' });
      rmSync(mountPoint, { recursive: true, force: true });
      return;
    } catch {
      execFileSync('sleep', ['0.1']);
    }
  }
  process.stderr.write(`soak: could not unmount ${mountPoint}; umount it by hand\n`);
}
