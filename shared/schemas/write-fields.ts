// The optional fields of a write, beside its text: one definition for every door that takes JSON
// (MCP memory_add and memory_add_batch, REST POST /v1/facts, /v1/facts/batch and /v1/revisions), so their names and meanings match.
import { z } from 'zod';
import { CONFIDENCE_LABELS } from '../validate.ts';

export const CONFIDENCE_TEXT = 'Your own declaration of how sure you are (not verification by Engram). Omitted: stored without a label, which counts as inferred.';

export const confidence = z.enum(CONFIDENCE_LABELS).describe(CONFIDENCE_TEXT);

/** Everything a fact record holds that a writer gives, except text and confidence. */
export const FACT_FIELDS = {
  occurred_at: z.string().describe('When the remembered thing happened: an RFC 3339 time ("2024-05-08T13:56:00Z") or a date ("2024-05-08", midnight UTC). Recency ranks by it.').optional(),
  tags: z.array(z.string()).describe('Labels to filter recall by later.').optional(),
  entities: z.array(z.string()).describe('Names of the people, projects or things the fact is about.').optional(),
  source: z.string().describe('Where the fact came from (a file, a URL, a conversation).').optional(),
  context: z.string().describe('Text indexed with the fact (so searches find it) but not returned as its text.').optional(),
  meta: z.record(z.string(), z.unknown()).describe('Any JSON object to keep with the fact.').optional(),
};

export const allowDuplicate = z
  .boolean()
  .describe('true: store it even if an identical fact (same text, occurred_at and context) is already remembered. Omitted: the existing fact is returned instead.');

/** Everything a write takes beside its text (and its namespace): the confidence label, the fact
 *  fields and allow_duplicate — one put, or one item of a batch, at every door. */
export const WRITE_OPTIONS = { confidence: confidence.optional(), ...FACT_FIELDS, allow_duplicate: allowDuplicate.optional() };
