// The structuredContent payloads of the MCP tools (the GrayMatter wire contract), as TypeScript
// types. output-schemas.ts declares the same shapes as JSON Schema; the contract tests check that
// every payload a real server returns validates against the declared schema.
//
// Facts are plain texts. GrayMatter's Recall returns []string and its MCP payloads carry those
// strings in `facts`/`merged`; a client compiled against that contract reads strings, so we do
// too. A caller that needs a fact's id (to update, forget or pin it) asks with explain: true,
// whose receipts carry provenance.fact_id — or passes the exact text as the reflect target.
import type { receiptJson } from '../json/shapes.ts';
import type { ConfidenceLabel } from '../validate.ts';

/** One explain receipt: the RecallReceipt JSON shape of `engram recall --explain --json`. */
export type ReceiptJson = ReturnType<typeof receiptJson>;

/** The effective confidence policy of a search (present only when confidence options applied). */
export interface RetrievalJson {
  /** The filter in effect; null = none. */
  min_confidence: ConfidenceLabel | null;
  confidence_weight: number;
  policy: string;
  kg: string;
}

export interface SearchPayload {
  agent_id: string;
  query: string;
  count: number;
  facts: string[];
  /** The weak-match vocabulary block, when the query's words barely occur in memory. */
  feedback?: string;
  /** With explain: one receipt per fact (then `facts` is present but empty). */
  explained?: ReceiptJson[];
  retrieval?: RetrievalJson;
}

export interface BatchPayload {
  agent_id: string;
  /** Distinct facts in `merged`. */
  count: number;
  merged: string[];
  per_query: { query: string; facts: string[]; error?: string }[];
  retrieval?: RetrievalJson;
}

export interface AddPayload {
  agent_id: string;
  stored: true;
  /** Only for an add with an explicit confidence label. */
  fact_id?: string;
  confidence?: ConfidenceLabel;
}

export interface AliasPayload {
  agent_id: string;
  term: string;
  equivalents: string[];
  stored: true;
}

export interface CheckpointSavePayload {
  agent_id: string;
  checkpoint_id: string;
  /** RFC 3339. */
  created_at: string;
}

export type CheckpointResumePayload =
  | { id: string; created_at: string; state?: Record<string, unknown>; message_count?: number }
  | { found: false; agent_id: string };

export const REFLECT_ACTIONS = ['add', 'update', 'forget', 'link', 'pin', 'unpin'] as const;
export type ReflectAction = (typeof REFLECT_ACTIONS)[number];

export interface ReflectPayload {
  action: ReflectAction;
  /** The identity the action used (agent_id, else the deprecated `agent`). */
  agent: string;
  ok: true;
  /** Only for add/update with an explicit confidence label. */
  fact_id?: string;
  confidence?: ConfidenceLabel;
}
