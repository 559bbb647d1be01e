// Daemon records → the shared JSON shapes (shared/json/shapes.ts), for REST and MCP over HTTP.
// Only field renames live here: the shapes themselves are shared with the CLI so
// `engram ... --json` and REST agree.
import { factJson, receiptJson, type CheckpointView } from '../../shared/json/shapes.ts';
import { lastUsedOf, toFact } from '../../shared/fact-shape.ts';
import type { Fact } from '../../shared/model.ts';
import type { ContextAssembly, Receipt } from '../../shared/model.ts';
import type { CheckpointRecord } from '../core/engram.ts';
import type { FactRecord } from '../core/engram.ts';

export const factView = (f: FactRecord): Fact => toFact({ ...f, lastUsedAt: lastUsedOf(f) }, f.meta);

export const restFact = (f: FactRecord) => factJson(factView(f));

export const restReceipt = (r: Receipt<FactRecord>) => receiptJson(r);

/** The stored record with its state text parsed (the core stores it as validated JSON text). */
export const checkpointView = (c: CheckpointRecord): CheckpointView => ({ ...c, state: JSON.parse(c.state) as Record<string, unknown> });

/** An assembled context with its records as the public shapes. */
export const contextView = (c: ContextAssembly<FactRecord>): ContextAssembly<Fact> => ({
  ...c,
  items: c.items.map(({ fact, receipt, ...rest }) => ({ ...rest, ...(fact ? { fact: factView(fact) } : {}), ...(receipt ? { receipt: { ...receipt, fact: factView(receipt.fact) } } : {}) })),
});
