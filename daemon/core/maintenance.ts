// Storage maintenance: what the store holds table by table, with hints on when compaction or
// collection would pay off, and compaction itself (the store rewrites its files without what
// deletes, rewrites and retirements left behind), reporting the bytes before and after.
import type { CompactReport, StorageReport } from '../../shared/model.ts';
import type { MemoryStore } from '../store/store.ts';
export type { CompactReport, StorageReport } from '../../shared/model.ts';

const MiB = 1024 * 1024;
/** Retired facts above this share of the store are worth collecting. */
const RETIRED_SHARE_HINT = 0.2;
/** Files larger than this multiple of the tables' data hold that much garbage. */
const SLACK_HINT = 2;
const SLACK_MIN_BYTES = 16 * MiB;

export async function storageReport(store: MemoryStore): Promise<StorageReport> {
  const tables = await store.tableStats();
  let factCount = 0;
  let retiredCount = 0;
  for await (const { fact } of store.scanFacts()) {
    factCount++;
    if (fact.supersededBy) retiredCount++;
  }
  const storeBytes = store.sizeBytes();
  const dataBytes = tables.reduce((sum, t) => sum + t.bytes, 0);
  const hints: string[] = [];
  if (factCount > 0 && retiredCount / factCount >= RETIRED_SHARE_HINT) {
    hints.push(`${retiredCount} of ${factCount} facts are retired (${Math.round((100 * retiredCount) / factCount)} %): they stay listed until deleted; engram delete erases one, then engram maintenance compact reclaims their space`);
  }
  if (storeBytes > SLACK_MIN_BYTES && storeBytes > SLACK_HINT * dataBytes) {
    hints.push(`the files take ${(storeBytes / MiB).toFixed(1)} MiB for ${(dataBytes / MiB).toFixed(1)} MiB of table data (deleted and rewritten rows not compacted yet): engram maintenance compact`);
  }
  if (hints.length === 0) hints.push('nothing to do: no compaction needed');
  return { storeBytes, tables, factCount, retiredCount, hints };
}

export async function compactStore(store: MemoryStore): Promise<CompactReport> {
  const started = performance.now();
  const bytesBefore = store.sizeBytes();
  await store.compact();
  return { bytesBefore, bytesAfter: store.sizeBytes(), seconds: (performance.now() - started) / 1000 };
}
