// Where a bench daemon's recall time went, read from its /metrics as an operator would: the
// totals before and after a run of queries give each stage's mean per query.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Seconds in total, by stage or signal name, and the recalls they were spent on. */
export interface StageTotals {
  recalls: number;
  stages: Map<string, number>;
  signals: Map<string, number>;
}

/** Reads the totals from the daemon of `dataDir`, which must serve HTTP (`--http`). */
export async function readStageTotals(dataDir: string): Promise<StageTotals> {
  const { httpAddress, token } = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as { httpAddress?: string; token: string };
  if (!httpAddress) throw new Error('the bench daemon serves no HTTP: start it with --http to read its recall stages');
  const res = await fetch(`http://${httpAddress}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  const text = await res.text();
  const sample = (name: string, label: string) => {
    const out = new Map<string, number>();
    for (const m of text.matchAll(new RegExp(`^${name}\\{${label}="([^"]+)"\\} (\\S+)$`, 'gm'))) out.set(m[1]!, Number(m[2]));
    return out;
  };
  const recalls = Number(/^engram_recalls_total (\S+)$/m.exec(text)?.[1] ?? NaN);
  return { recalls, stages: sample('engram_recall_stage_seconds_total', 'stage'), signals: sample('engram_recall_signal_seconds_total', 'signal') };
}

/** Milliseconds per recall over runs of queries, each read before and after, by name (stages
 *  in the daemon's order). */
export function meanMsPerRecall(runs: readonly (readonly [StageTotals, StageTotals])[], pick: (t: StageTotals) => Map<string, number>): Map<string, number> {
  const recalls = runs.reduce((n, [before, after]) => n + after.recalls - before.recalls, 0);
  const out = new Map<string, number>();
  for (const [before, after] of runs) {
    for (const [name, seconds] of pick(after)) out.set(name, (out.get(name) ?? 0) + seconds - (pick(before).get(name) ?? 0));
  }
  for (const [name, seconds] of out) out.set(name, (seconds * 1000) / recalls);
  return out;
}
