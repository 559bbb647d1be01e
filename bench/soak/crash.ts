// The crash soak: cycles of a mixed write storm from several client processes, ended by kill -9 of
// the daemon at a random moment; after each restart every acknowledged write must be there
// exactly once (a put, batch item or revision: its text once; an erasure: gone; a pin: pinned; a
// checkpoint: listed), no write whose outcome was unknown twice, nothing invented, write status
// agreeing with what is stored, and doctor healthy. A fresh data directory every `perDir` cycles
// keeps the run bounded.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connect, type EngramClient } from '../../client/index.ts';
import { prng } from '../corpus.ts';
import { removeTempDir, startDaemon, tempDir, track, type BenchDaemon } from '../daemon.ts';

const WRITER = fileURLToPath(new URL('./storm-writer.ts', import.meta.url));
const AGENT = 'storm';
const WRITERS = 3;

export interface CrashOptions {
  cycles: number;
  perDir: number;
  seed: number;
  onCycle(done: number, total: number): void;
}

export interface CrashReport {
  cycles: number;
  acknowledged: number;
  uncertain: number;
  /** Every way a cycle broke the promise, with the cycle and what it was. */
  violations: string[];
  stored: number;
  writeStatusChecked: number;
  restartMs: number[];
}

interface Ledger {
  texts: Map<string, string>; // acknowledged text → fact id
  how: Map<string, string>; // acknowledged text → how it was written ("put rid", "revise")
  rids: Map<string, string>; // request id → text (sampled for write status)
  deleted: Set<string>;
  retired: Set<string>;
  pinned: Set<string>;
  checkpoints: Set<string>;
  uncertain: Set<string>;
  /** Facts an erasure whose outcome is unknown named. */
  mayBeErased: Set<string>;
}

const newLedger = (): Ledger => ({ texts: new Map(), how: new Map(), rids: new Map(), deleted: new Set(), retired: new Set(), pinned: new Set(), checkpoints: new Set(), uncertain: new Set(), mayBeErased: new Set() });

export async function runCrashSoak(options: CrashOptions): Promise<CrashReport> {
  const report: CrashReport = { cycles: 0, acknowledged: 0, uncertain: 0, violations: [], stored: 0, writeStatusChecked: 0, restartMs: [] };
  const next = prng(options.seed);
  for (let start = 0; start < options.cycles; start += options.perDir) {
    const dataDir = tempDir('soak-crash');
    const ledger = newLedger();
    // Consolidation on: every 200 writes, of any live fact (below 1 = everything), so summaries
    // retire sources in the middle of the storm.
    const args = ['--consolidate-every', '200', '--consolidate-below', '1', '--checkpoint-keep', '1000000', '--reconcile-ms', '500'];
    for (let cycle = start; cycle < Math.min(start + options.perDir, options.cycles); cycle++) {
      const began = Date.now();
      const daemon = await startDaemon(dataDir, { embedder: 'local', args });
      report.restartMs.push(Date.now() - began);
      if (cycle > start) await verify(daemon, ledger, cycle, report);
      const writers = Array.from({ length: WRITERS }, (_, w) => storm(dataDir, `c${cycle}w${w}`, Math.floor(next() * 2 ** 31), ledger, report));
      await Promise.all(writers.map((w) => w.ready));
      await new Promise((resolve) => setTimeout(resolve, 300 + next() * 1200));
      process.kill(daemon.pid, 'SIGKILL');
      await Promise.all(writers.map((w) => w.exited));
      report.cycles++;
      options.onCycle(report.cycles, options.cycles);
    }
    const last = await startDaemon(dataDir, { embedder: 'local', args });
    await verify(last, ledger, options.cycles, report);
    await last.stop();
    removeTempDir(dataDir);
  }
  return report;
}

/** One writer process, its outcomes written into the ledger as they arrive; `ready` once it is
 *  connected (or gone). */
function storm(dataDir: string, prefix: string, seed: number, ledger: Ledger, report: CrashReport): { ready: Promise<void>; exited: Promise<void> } {
  const child = track(spawn(process.execPath, ['--import', 'tsx', WRITER, dataDir, AGENT, prefix, String(seed)], { stdio: ['ignore', 'pipe', 'inherit'] }));
  const lines = createInterface({ input: child.stdout! });
  let isReady!: () => void;
  const ready = new Promise<void>((resolve) => (isReady = resolve));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => isReady());
  lines.on('line', (line) => {
    const o = JSON.parse(line) as { ready?: boolean; ack?: string; text?: string; id?: string; rid?: string; target?: string; uncertain?: string[]; erasing?: string };
    if (o.ready) return isReady();
    if (o.uncertain) {
      report.uncertain++;
      for (const t of o.uncertain) ledger.uncertain.add(t);
      if (o.erasing) ledger.mayBeErased.add(o.erasing);
      return;
    }
    report.acknowledged++;
    if (o.ack === 'put' || o.ack === 'revise') {
      ledger.texts.set(o.text!, o.id!);
      ledger.how.set(o.text!, o.ack === 'put' ? `put ${o.rid} in cycle ${prefix}` : `revise of ${o.target} in cycle ${prefix}`);
    }
    if (o.ack === 'put' && ledger.rids.size < 2000) ledger.rids.set(o.rid!, o.text!);
    if (o.ack === 'revise') ledger.retired.add(o.target!);
    if (o.ack === 'pin') ledger.pinned.add(o.id!);
    if (o.ack === 'delete') ledger.deleted.add(o.id!);
    if (o.ack === 'checkpoint') ledger.checkpoints.add(o.id!);
  });
  return { ready, exited };
}

async function verify(daemon: BenchDaemon, ledger: Ledger, cycle: number, report: CrashReport): Promise<void> {
  const client = await connect({ dataDir: daemon.dataDir, timeoutMs: 60_000 });
  const broke = (what: string) => report.violations.push(`cycle ${cycle}: ${what}`);
  try {
    const byText = new Map<string, { id: string; pinned: boolean; retired: boolean }[]>();
    const byId = new Map<string, { pinned: boolean; retired: boolean }>();
    let stored = 0;
    for await (const fact of client.listAll(AGENT, 1000)) {
      stored++;
      const seen = { id: fact.id, pinned: fact.pinned, retired: fact.supersededBy !== '' };
      byId.set(fact.id, seen);
      if (fact.kind === 'summary') continue; // consolidation's own writes
      const list = byText.get(fact.text) ?? [];
      list.push(seen);
      byText.set(fact.text, list);
    }
    report.stored = stored;
    for (const [text, id] of ledger.texts) {
      const copies = byText.get(text)?.length ?? 0;
      if (ledger.deleted.has(id) || (ledger.mayBeErased.has(id) && copies === 0)) continue;
      if (copies !== 1) broke(`acknowledged "${text}" (${ledger.how.get(text)}, fact ${id}) stored ${copies} times`);
    }
    for (const id of ledger.deleted) if (byId.has(id)) broke(`erased fact ${id} is back`);
    for (const id of ledger.retired) if (byId.has(id) && !byId.get(id)!.retired) broke(`revised fact ${id} is live again`);
    for (const id of ledger.pinned) if (byId.has(id) && !byId.get(id)!.retired && !byId.get(id)!.pinned) broke(`pinned fact ${id} is not pinned`);
    for (const text of ledger.uncertain) if ((byText.get(text)?.length ?? 0) > 1) broke(`uncertain "${text}" stored twice`);
    for (const [text, list] of byText) {
      if (!ledger.texts.has(text) && !ledger.uncertain.has(text)) broke(`"${text}" was never written (${list.length} copies)`);
    }
    const saved = new Set((await client.checkpointList(AGENT)).map((c) => c.id));
    for (const id of ledger.checkpoints) if (!saved.has(id)) broke(`acknowledged checkpoint ${id} is gone`);
    await checkWriteStatus(client, ledger, broke, report);
    let healthy = false;
    let detail = '';
    for await (const event of client.doctor()) {
      if (!event.report) continue;
      healthy = event.report.healthy;
      detail = event.report.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`).join('; ');
    }
    if (!healthy) broke(`doctor unhealthy: ${detail}`);
  } finally {
    client.close();
  }
}

/** A sample of acknowledged puts, asked by request id: each must say committed, with its text. */
async function checkWriteStatus(client: EngramClient, ledger: Ledger, broke: (what: string) => void, report: CrashReport): Promise<void> {
  const sample = [...ledger.rids].slice(-50);
  for (const [rid, text] of sample) {
    const id = ledger.texts.get(text)!;
    if (ledger.deleted.has(id) || ledger.mayBeErased.has(id)) continue;
    const status = await client.writeStatus(rid, { agentId: AGENT });
    report.writeStatusChecked++;
    if (!status.committed || status.fact?.text !== text) broke(`write status of ${rid} says ${status.committed ? `"${status.fact?.text}"` : 'not committed'}`);
  }
}
