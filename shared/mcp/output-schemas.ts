// Output schemas: authoritative declarations of each tool's structuredContent (payloads.ts has the
// same shapes as types). Every result shape sets additionalProperties: false, nested objects
// included, so a new key can only arrive through a schema revision. checkpoint_resume has two
// successful shapes under oneOf; each branch closes itself, since a root-level
// additionalProperties would apply to (and reject) both.
import { CONFIDENCE_LABELS, MAX_CONFIDENCE_WEIGHT } from '../validate.ts';
import type { JsonSchema } from './input-schemas.ts';
import { REFLECT_ACTIONS } from './payloads.ts';

const string: JsonSchema = { type: 'string' };
const number: JsonSchema = { type: 'number' };
const count: JsonSchema = { type: 'integer', minimum: 0 };
const strings: JsonSchema = { type: 'array', items: string };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const label: JsonSchema = { type: 'string', enum: [...CONFIDENCE_LABELS] };

const closed = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** Fact texts; nullable in the schema so clients of the GrayMatter contract validate, though Engram always sends an array. */
const facts: JsonSchema = { type: ['array', 'null'], items: string };

const retrieval = closed(
  {
    min_confidence: { type: ['string', 'null'], enum: [...CONFIDENCE_LABELS, null] },
    confidence_weight: { type: 'number', minimum: 0, maximum: MAX_CONFIDENCE_WEIGHT },
    policy: string,
    kg: string,
  },
  ['min_confidence', 'confidence_weight', 'policy', 'kg'],
);

const receipt = closed(
  {
    text: string,
    weight: number,
    age_days: number,
    ranks: closed(
      {
        vector_rank: count,
        keyword_rank: count,
        recency_rank: count,
        fused_score: number,
        k: number,
        weights: closed({ vector: number, keyword: number, recency: number }, ['vector', 'keyword', 'recency']),
      },
      ['vector_rank', 'keyword_rank', 'recency_rank', 'fused_score', 'k', 'weights'],
    ),
    provenance: closed(
      {
        fact_id: string,
        written_at: { type: ['string', 'null'], format: 'date-time' },
        superseded_by: string,
        confidence: string,
        pinned: { type: 'boolean' },
        agent_id: string,
      },
      ['fact_id', 'written_at', 'superseded_by', 'confidence', 'pinned', 'agent_id'],
    ),
    kg_links: strings,
    ranking: closed(
      { base_score: number, final_score: number, factor: number, effective_confidence: string, confidence_weight: number, policy: string },
      ['base_score', 'final_score', 'factor', 'effective_confidence', 'confidence_weight', 'policy'],
    ),
  },
  ['text', 'weight', 'age_days', 'ranks', 'provenance', 'kg_links'],
);

const stored: JsonSchema = { type: 'boolean', const: true };

export const OUTPUT_SCHEMAS = {
  memory_search: closed(
    {
      agent_id: string,
      query: string,
      count,
      facts,
      feedback: string,
      explained: { type: 'array', items: receipt },
      retrieval,
    },
    ['agent_id', 'query', 'count', 'facts'],
  ),
  memory_search_batch: closed(
    {
      agent_id: string,
      count,
      merged: strings,
      per_query: { type: 'array', items: closed({ query: string, facts, error: string }, ['query', 'facts']) },
      retrieval,
    },
    ['agent_id', 'count', 'merged', 'per_query'],
  ),
  memory_add: closed({ agent_id: string, stored, fact_id: string, confidence: label }, ['agent_id', 'stored']),
  memory_alias: closed({ agent_id: string, term: string, equivalents: strings, stored }, ['agent_id', 'term', 'equivalents', 'stored']),
  checkpoint_save: closed({ agent_id: string, checkpoint_id: string, created_at: dateTime }, ['agent_id', 'checkpoint_id', 'created_at']),
  checkpoint_resume: {
    type: 'object',
    oneOf: [
      // `state` is the agent's own JSON object, so it is the one open object here.
      closed({ id: string, created_at: dateTime, state: { type: 'object' }, message_count: count }, ['id', 'created_at']),
      closed({ found: { type: 'boolean', const: false }, agent_id: string }, ['found', 'agent_id']),
    ],
  },
  memory_reflect: closed(
    { action: { type: 'string', enum: [...REFLECT_ACTIONS] }, agent: string, ok: { type: 'boolean', const: true }, fact_id: string, confidence: label },
    ['action', 'agent', 'ok'],
  ),
} as const satisfies Record<string, JsonSchema>;
