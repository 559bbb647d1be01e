// Daemon records → the shared JSON shapes (shared/json/shapes.ts), for REST and MCP over HTTP.
// Only field renames live here:
// the shapes themselves are shared with the CLI so `engram ... --json` and REST agree.
import { factJson, receiptJson, type CheckpointView, type FactView, type ReceiptView } from '../../shared/json/shapes.ts';
import type { Receipt } from '../recall/receipts.ts';
import type { CheckpointRecord } from '../store/database.ts';
import type { FactRecord } from '../store/record.ts';

export const factView = (f: FactRecord): FactView => ({ ...f, metaJson: f.meta });

export const restFact = (f: FactRecord) => factJson(factView(f));

export function restReceipt(r: Receipt) {
  const view: ReceiptView = {
    ...r,
    ranks: {
      vectorRank: r.ranks.vector,
      keywordRank: r.ranks.keyword,
      recencyRank: r.ranks.recency,
      fusedScore: r.ranks.fusedScore,
      k: r.ranks.k,
      weights: r.ranks.weights,
    },
  };
  return receiptJson(view);
}

/** The stored record with its state text parsed (the core stores it as validated JSON text). */
export const checkpointView = (c: CheckpointRecord): CheckpointView => ({ ...c, state: JSON.parse(c.state) as Record<string, unknown> });
