// What WriteStatus says a committed write recorded, in the words of that write's own answer:
// snake_case keys and the shapes every door's JSON uses. The record a repeat is answered from
// is the daemon's own (its field names are the store's, camelCase, free to change), so it is
// never handed out as it is. The op is said beside the result, not in it.
import { gcJson, iso, observeJson } from '../../shared/json/shapes.ts';
import type { ConsolidationRun, GcResult, ObserveUsageResult } from '../../shared/model.ts';
import { snakeCase } from '../../shared/validate.ts';
import type { Json } from '../store/store.ts';

type Shape = (recorded: Record<string, unknown>) => Record<string, unknown>;

/** The answer's `replayed` says how a write was answered, not what it wrote. */
const withoutReplayed = ({ replayed: _replayed, ...rest }: { replayed: boolean } & Record<string, unknown>) => rest;

/** A consolidation's record (consolidation.ts recordOf): its run without the summary's text,
 *  which is never kept, and the summary by id. */
type RecordedRun = Omit<ConsolidationRun, 'summary' | 'text' | 'replayed'> & { summaryId: string };

const consolidated: Shape = (r) => {
  const run = r.run as RecordedRun;
  return {
    dry_run: run.dryRun,
    faded_count: run.fadedCount,
    summary_id: run.summaryId || null,
    source_ids: run.sourceIds,
    retired_ids: run.retiredIds,
    failures: run.failures.map((f) => ({ fact_id: f.factId, error: f.error })),
    summarizer: run.summarizer,
    rejected: run.rejected,
    message: run.message,
  };
};

/** The kinds whose record is more than a few ids; the rest are said key by key (`snake`). */
const SHAPES: Record<string, Shape> = {
  gc: (r) => withoutReplayed(gcJson(r as unknown as GcResult)),
  observe: (r) => withoutReplayed(observeJson(r as unknown as ObserveUsageResult)),
  consolidate: consolidated,
  // The namespace is the status's agent_id; the time as every answer gives one.
  delete: (r) => ({ fact_id: r.factId, created_at: iso(r.createdAt as number), kind: r.kind }),
};

/** A record of ids and counts (factId, retiredIds, oldScore, recordId, checkpointId, name, version…). */
const snake: Shape = (r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [snakeCase(k), v]));

/** `recorded`: the request record, without its digest. */
export function writeResult(recorded: Json): Record<string, unknown> {
  const { op, ...rest } = recorded as Record<string, unknown>;
  return (SHAPES[String(op ?? 'fact')] ?? snake)(rest);
}
