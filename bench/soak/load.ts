// The load soak: many client processes on one daemon for minutes. Per window: calls, throughput,
// p50/p99 and the daemon's RSS, which must stay flat; the floor is a no-op gRPC call measured
// meanwhile, under the same load.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connect } from '../../client/index.ts';
import { removeTempDir, startDaemon, tempDir, track } from '../daemon.ts';
import { healthClient } from '../floor.ts';
import { percentile, summarize } from '../stats.ts';
import { AGENTS, WINDOW_MS } from './load-shape.ts';

const CLIENT = fileURLToPath(new URL('./load-client.ts', import.meta.url));
const SEED_FACTS = 5000;

export interface LoadOptions {
  clients: number;
  minutes: number;
  /** The share of calls that remember (the rest recall). */
  writeShare: number;
  onProgress(done: number, total: number): void;
}

export interface LoadWindow {
  atSeconds: number;
  seconds: number;
  calls: number;
  errors: number;
  p50: number;
  p99: number;
  rssMiB: number;
}

export interface LoadReport {
  clients: number;
  minutes: number;
  writeShare: number;
  calls: number;
  errors: number;
  p50: number;
  p99: number;
  /** A no-op call during the load, and before it (clients connected, idle). */
  floor: { p50: number; p99: number };
  idleFloor: { p50: number; p99: number };
  windows: LoadWindow[];
  factsAtEnd: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const dataDir = tempDir('soak-load');
  const daemon = await startDaemon(dataDir, { embedder: 'local' });
  const seeder = await connect({ dataDir, timeoutMs: 120_000 });
  for (let i = 0; i < SEED_FACTS; i += 500) {
    await seeder.putBatch(Array.from({ length: 500 }, (_, k) => ({ agentId: `load-${(i + k) % AGENTS}`, text: `seed fact ${i + k}: the harbour pilot boards ship ${(i + k) * 7} at the quay` })));
  }

  const windows: number[][] = [];
  const windowErrors: number[] = [];
  const children = Array.from({ length: options.clients }, (_, c) => {
    const child = track(spawn(process.execPath, ['--import', 'tsx', CLIENT, dataDir, String(c + 1), String(options.writeShare)], { stdio: ['pipe', 'pipe', 'inherit'] }));
    let seen = 0;
    const ready = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line === 'ready') return resolve();
        const { latencies, errors } = JSON.parse(line) as { latencies: number[]; errors: number };
        const w = seen++;
        (windows[w] ??= []).push(...latencies);
        windowErrors[w] = (windowErrors[w] ?? 0) + errors;
      });
    });
    return { child, ready, exited: new Promise<void>((resolve) => child.once('exit', () => resolve())) };
  });
  await Promise.all(children.map((c) => c.ready));
  const floor = healthClient(dataDir);
  const idleMs: number[] = [];
  for (let i = 0; i < 300; i++) {
    const began = performance.now();
    await floor.check();
    idleMs.push(performance.now() - began);
  }

  const seconds = options.minutes * 60;
  const startedAt = Date.now();
  const endAt = startedAt + seconds * 1000;
  for (const c of children) c.child.stdin!.end(`${JSON.stringify({ startAt: startedAt, endAt })}\n`);
  const floorMs: number[] = [];
  const rss: number[] = [];
  let nextWindow = startedAt + WINDOW_MS;
  while (Date.now() < endAt) {
    const began = performance.now();
    await floor.check();
    floorMs.push(performance.now() - began);
    if (Date.now() >= nextWindow) {
      rss.push(daemon.rssMiB());
      nextWindow += WINDOW_MS;
      options.onProgress(Math.min(seconds, Math.round((Date.now() - startedAt) / 1000)), seconds);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  rss.push(daemon.rssMiB());
  options.onProgress(seconds, seconds);
  await Promise.all(children.map((c) => c.exited));
  floor.close();
  const factsAtEnd = (await seeder.stats()).liveCount;
  seeder.close();
  await daemon.stop();
  removeTempDir(dataDir);

  const all = windows.flat();
  const overall = summarize(all);
  return {
    clients: options.clients,
    minutes: options.minutes,
    writeShare: options.writeShare,
    calls: all.length,
    errors: windowErrors.reduce((a, b) => a + b, 0),
    p50: overall.p50,
    p99: overall.p99,
    floor: { p50: percentile(floorMs, 50), p99: percentile(floorMs, 99) },
    idleFloor: { p50: percentile(idleMs, 50), p99: percentile(idleMs, 99) },
    windows: windows.map((w, i) => ({ atSeconds: (i + 1) * (WINDOW_MS / 1000), seconds: WINDOW_MS / 1000, calls: w.length, errors: windowErrors[i] ?? 0, p50: percentile(w, 50), p99: percentile(w, 99), rssMiB: rss[i] ?? rss.at(-1) ?? NaN })),
    factsAtEnd,
  };
}
