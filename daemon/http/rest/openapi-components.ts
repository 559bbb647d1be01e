// The components of the OpenAPI document (openapi.ts): response and request schemas, shared
// parameters and error responses. Response objects are closed (additionalProperties: false), so
// the contract test's validation of live responses catches any key added without documenting it.
import { DEFAULT_LIMITS, DEFAULT_PAGE_SIZE, DEFAULT_TOP_K, MAX_PAGE_SIZE } from '../../../shared/validate.ts';
import { BODY_LIMIT } from '../body.ts';

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const param = (name: string) => ({ $ref: `#/components/parameters/${name}` });
export const response = (name: string) => ({ $ref: `#/components/responses/${name}` });
const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });
const time = { type: 'string', format: 'date-time' };
const nullableTime = nullable('string', { format: 'date-time' });
const strings = { type: 'array', items: { type: 'string' } };

/** A closed object: every key listed, the required ones named. */
function object(properties: Record<string, unknown>, required: string[] = Object.keys(properties), description?: string) {
  return { type: 'object', ...(description ? { description } : {}), properties, required, additionalProperties: false };
}

export function json(schema: unknown, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export const schemas = {
  Error: object({
    error: object(
      {
        code: { type: 'string', description: 'invalid_argument, not_found, unauthenticated, method_not_allowed, resource_exhausted, internal, ...' },
        message: { type: 'string', description: 'For invalid_argument it starts with the field name.' },
        field: { type: 'string', description: 'The request field at fault (REST spelling: agent, k, q, id, ...).' },
        ref: { type: 'string', description: 'Internal errors only: quote it to find the details in the daemon log.' },
      },
      ['code', 'message'],
    ),
  }),
  SignalWeights: object({ vector: { type: 'number' }, keyword: { type: 'number' }, recency: { type: 'number' } }),
  Fact: object({
    id: { type: 'string', description: 'Time-ordered id: 26 characters, Crockford base32.' },
    agent_id: { type: 'string' },
    text: { type: 'string' },
    kind: { enum: ['fact', 'alias', 'summary'] },
    created_at: time,
    occurred_at: nullableTime,
    updated_at: time,
    access_count: { type: 'integer' },
    last_accessed_at: nullableTime,
    confidence: { type: 'string', description: '"" (legacy, unlabelled), verified, inferred or unverified.' },
    pinned: { type: 'boolean' },
    pinned_at: nullableTime,
    superseded_by: { type: 'string', description: '"" while live; "agent" once forgotten; a fact id once revised.' },
    tags: strings,
    entities: strings,
    source: { type: 'string' },
    context: { type: 'string' },
    meta: { type: 'object' },
    strength: { type: 'number' },
  }),
  Retrieval: object(
    {
      weights: ref('SignalWeights'),
      signals: strings,
      eligible_count: { type: 'integer' },
      keyword_candidates: { type: 'integer' },
      vector_candidates: { type: 'integer' },
      embedder: { type: 'string' },
      rrf_k: { type: 'integer' },
      notes: strings,
      min_relevance: { type: 'number' },
      filtered: { type: 'boolean' },
      expanded_terms: strings,
      vector_searched: { type: 'integer' },
      min_confidence: nullable('string'),
      confidence_weight: { type: 'number' },
      policy: { type: 'string' },
      kg: { type: 'string' },
    },
    ['weights', 'signals', 'eligible_count', 'keyword_candidates', 'vector_candidates', 'embedder', 'rrf_k', 'notes', 'min_relevance', 'filtered', 'expanded_terms', 'vector_searched'],
    'How recall ran. REST recall is the legacy call (no confidence preference), so the confidence keys are absent.',
  ),
  Feedback: object({
    query_terms: { type: 'integer' },
    known_terms: { type: 'integer' },
    unknown_terms: strings,
    nearby_terms: strings,
    advice: { type: 'string' },
  }, undefined, 'Present only when the query barely overlaps the namespace vocabulary.'),
  Receipt: object(
    {
      text: { type: 'string' },
      weight: { type: 'number', description: 'The final score that decided selection and order.' },
      age_days: { type: 'number' },
      ranks: object({
        vector_rank: { type: 'integer', description: '1-based; 0 = the signal did not rank the fact.' },
        keyword_rank: { type: 'integer' },
        recency_rank: { type: 'integer' },
        fused_score: { type: 'number', description: 'B = sum of w_s / (k + rank_s).' },
        k: { type: 'integer' },
        weights: ref('SignalWeights'),
      }),
      provenance: object({
        fact_id: { type: 'string' },
        written_at: nullableTime,
        superseded_by: { type: 'string' },
        confidence: { type: 'string' },
        pinned: { type: 'boolean' },
        agent_id: { type: 'string' },
      }),
      kg_links: strings,
      ranking: object({
        base_score: { type: 'number' },
        final_score: { type: 'number' },
        factor: { type: 'number' },
        effective_confidence: { type: 'string' },
        confidence_weight: { type: 'number' },
        policy: { type: 'string' },
      }),
    },
    ['text', 'weight', 'age_days', 'ranks', 'provenance', 'kg_links'],
  ),
  Stats: object({
    agent_id: nullable('string', { description: 'The namespace counted; null = the whole store.' }),
    fact_count: { type: 'integer' },
    live_count: { type: 'integer' },
    retired_count: { type: 'integer' },
    pinned_count: { type: 'integer' },
    text_bytes: { type: 'integer' },
    oldest_created_at: nullableTime,
    newest_created_at: nullableTime,
    agent_count: { type: 'integer' },
    vector_count: { type: 'integer' },
    pending_embeddings: { type: 'integer' },
    store_bytes: { type: 'integer' },
    embedder: { type: 'string' },
  }),
  FactEnvelope: object({ fact: ref('Fact') }),
  RecallResult: object(
    { agent_id: { type: 'string' }, query: { type: 'string' }, count: { type: 'integer' }, facts: { type: 'array', items: ref('Fact') }, retrieval: ref('Retrieval'), feedback: ref('Feedback') },
    ['agent_id', 'query', 'count', 'facts', 'retrieval'],
  ),
  ExplainResult: object(
    { agent_id: { type: 'string' }, query: { type: 'string' }, count: { type: 'integer' }, explained: { type: 'array', items: ref('Receipt') }, retrieval: ref('Retrieval'), feedback: ref('Feedback') },
    ['agent_id', 'query', 'count', 'explained', 'retrieval'],
  ),
  FactPage: object({
    agent_id: { type: 'string' },
    facts: { type: 'array', items: ref('Fact') },
    next_page_token: { type: 'string', description: 'Pass as page_token for the next page; "" on the last page.' },
  }),
  ForgetResult: object(
    {
      forgotten: { ...strings, description: 'Ids of the facts retired by this call.' },
      failures: { type: 'array', items: object({ id: { type: 'string' }, error: { type: 'string' } }), description: 'Facts the query recalled that could not be retired (the others were).' },
    },
    ['forgotten'],
  ),
  Agents: object({ agents: strings }),
  CheckpointSaved: object({ agent_id: { type: 'string' }, checkpoint_id: { type: 'string' }, created_at: time }),
  Checkpoint: object(
    { id: { type: 'string' }, created_at: time, state: { type: 'object' }, message_count: { type: 'integer', description: 'Length of state.messages when it is an array.' } },
    ['id', 'created_at', 'state'],
  ),
  Health: object({ status: { const: 'ok' } }),
  RememberRequest: object(
    {
      agent_id: { type: 'string', description: 'The namespace: non-empty, not only whitespace, at most 256 UTF-8 bytes; never trimmed.' },
      text: { type: 'string', description: `Non-empty, at most ${DEFAULT_LIMITS.maxTextBytes} UTF-8 bytes by default.` },
      occurred_at: { ...time, description: 'When the remembered thing happened (RFC 3339).' },
      tags: strings,
      source: { type: 'string' },
      context: { type: 'string', description: 'Indexed with the fact, not returned as its text.' },
    },
    ['agent_id', 'text'],
  ),
  ForgetRequest: object(
    {
      agent_id: { type: 'string' },
      query: { type: 'string' },
      k: { type: 'integer', minimum: 1, maximum: DEFAULT_LIMITS.maxTopK, default: DEFAULT_TOP_K },
      confirm: { const: true, description: 'Required: forgetting by query retires every fact the query recalls.' },
    },
    ['agent_id', 'query', 'confirm'],
  ),
  CheckpointRequest: object({ agent_id: { type: 'string' }, state: { type: 'object', description: 'The agent state; absent = {}.' } }, ['agent_id']),
};

export const parameters = {
  agent: { name: 'agent', in: 'query', required: true, description: 'Agent id (namespace).', schema: { type: 'string' } },
  agentOptional: { name: 'agent', in: 'query', required: false, description: 'Agent id; absent = the whole store.', schema: { type: 'string' } },
  q: { name: 'q', in: 'query', required: true, description: 'The query ("" = recency only).', schema: { type: 'string' } },
  k: { name: 'k', in: 'query', required: false, description: 'How many facts.', schema: { type: 'integer', minimum: 1, maximum: DEFAULT_LIMITS.maxTopK, default: DEFAULT_TOP_K } },
  limit: { name: 'limit', in: 'query', required: false, description: 'Page size.', schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE } },
  page_token: { name: 'page_token', in: 'query', required: false, description: 'next_page_token of the previous page.', schema: { type: 'string' } },
  id: { name: 'id', in: 'path', required: true, description: 'Fact id.', schema: { type: 'string' } },
};

export const responses = {
  BadRequest: json(ref('Error'), 'Invalid input; the message and `field` name the field.'),
  Unauthorized: json(ref('Error'), 'Missing or wrong bearer token.'),
  NotFound: json(ref('Error'), 'No such fact or checkpoint.'),
  PayloadTooLarge: json(ref('Error'), `The body exceeds ${BODY_LIMIT} bytes (1 MiB).`),
  Internal: json(ref('Error'), 'An internal error; never carries a stack trace (see the `ref` in the daemon log).'),
};

