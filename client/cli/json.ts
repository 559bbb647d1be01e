// The stable JSON shapes of `engram ... --json` (documented in README.md, "JSON output"):
// the same snake_case shapes REST and MCP print (shared/json/shapes.ts), plus the daemon block
// of `engram status`, which only the CLI prints.
import type { DaemonInfo } from '../connection.ts';

export { checkpointJson, checkpointSavedJson, consolidationCountersJson, factJson, feedbackJson, kgHintJson, matchJson, receiptJson, retrievalJson, statsJson, tokenJson, writeStatusJson } from '../../shared/json/shapes.ts';

export function daemonJson(d: DaemonInfo) {
  return {
    protocol: d.protocol,
    version: d.daemonVersion,
    instance_id: d.instanceId,
    profile: d.profile,
    capabilities: d.capabilities,
    default_confidence_weight: d.defaultConfidenceWeight ?? null,
    limits: { max_text_bytes: d.limits.maxTextBytes, max_top_k: d.limits.maxTopK, max_batch: d.limits.maxBatch, max_write_batch: d.limits.maxWriteBatch, max_slot_value_bytes: d.limits.maxSlotValueBytes },
    embedder: d.embedder,
    default_signal_weights: d.defaultWeights ?? null,
    // "level" or "postgres" (null from a daemon before read-your-writes-v1).
    store: d.store || null,
    store_id: d.storeId || null,
  };
}
