// Input schemas of the MCP tools: the parameter names, required sets and defaults of the
// GrayMatter wire contract, so agents written for it work unchanged. They are JSON Schema objects (not generated from types) because they ARE the
// contract: a client compiles against exactly this text. Every schema is a flat object with
// additionalProperties: false and no root combinator — several MCP hosts drop tools whose input
// root has anyOf/oneOf/allOf.
import { CONFIDENCE_LABELS, DEFAULT_TOP_K, MAX_CONFIDENCE_WEIGHT, SHARED_AGENT_ID } from '../validate.ts';
import { REFLECT_ACTIONS } from './payloads.ts';

export type JsonSchema = { [key: string]: unknown };

/** A non-empty string with at least one non-whitespace character (never trimmed). */
const identity = (description: string): JsonSchema => ({ type: 'string', minLength: 1, pattern: '\\S', description });

const agentId = identity(
  `Stable agent identifier (the memory namespace), e.g. "my-project". Use the same one every session. Pass "${SHARED_AGENT_ID}" for memory shared by all agents.`,
);

const topK = (what: string): JsonSchema => ({
  type: 'integer',
  default: DEFAULT_TOP_K,
  description: `How many facts to return ${what}. Omitted or non-positive means ${DEFAULT_TOP_K}.`,
});

const minConfidence: JsonSchema = {
  type: 'string',
  enum: [...CONFIDENCE_LABELS],
  description:
    'Only facts at least this confident, applied before ranking and top_k. Facts stored without a label count as inferred; unknown historical labels as unverified.',
};

const confidenceWeight: JsonSchema = {
  type: 'number',
  minimum: 0,
  maximum: MAX_CONFIDENCE_WEIGHT,
  description: `Finite preference weight in [0, ${MAX_CONFIDENCE_WEIGHT}]; omitted = the daemon's default (0). final score = base RRF score x (1 + weight x c), c = +1 verified, 0 inferred, -1 unverified. 0 keeps any min_confidence filter.`,
};

const confidence: JsonSchema = {
  type: 'string',
  enum: [...CONFIDENCE_LABELS],
  description: 'Your own declaration of how sure you are (not verification by Engram). Omitted: stored without a label, which counts as inferred.',
};

const object = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

export const INPUT_SCHEMAS = {
  memory_search: object(
    {
      agent_id: agentId,
      query: { type: 'string', description: 'What you want to know, in natural language; matching is hybrid (keyword + semantic + recency).' },
      top_k: topK('at most'),
      explain: {
        type: 'boolean',
        default: false,
        description:
          'true: return one receipt per fact under `explained` (per-signal ranks, fused and final score, fact_id, written_at, confidence, pinned) instead of bare texts. Same facts, same order.',
      },
      min_confidence: minConfidence,
      confidence_weight: confidenceWeight,
    },
    ['agent_id', 'query'],
  ),
  memory_search_batch: object(
    {
      agent_id: agentId,
      queries: {
        type: 'array',
        items: { type: 'string' },
        minItems: 1,
        description: 'One natural-language query per open question; each is ranked on its own, then merged.',
      },
      top_k: topK('per query, at most'),
      min_confidence: minConfidence,
      confidence_weight: confidenceWeight,
    },
    ['agent_id', 'queries'],
  ),
  memory_add: object(
    {
      agent_id: agentId,
      text: { type: 'string', description: 'The fact: one atomic, self-contained sentence that will make sense in a later session.' },
      confidence,
    },
    ['agent_id', 'text'],
  ),
  memory_alias: object(
    {
      agent_id: agentId,
      term: { type: 'string', description: 'The word or phrase as you would write it in a query.' },
      equivalents: {
        type: 'array',
        items: { type: 'string' },
        minItems: 1,
        description: 'The words the stored facts actually use for the same thing; one or more.',
      },
    },
    ['agent_id', 'term', 'equivalents'],
  ),
  checkpoint_save: object(
    {
      agent_id: agentId,
      state: { type: 'string', description: 'A JSON object as a string, e.g. "{\\"task\\": \\"migrate db\\", \\"step\\": 3}". Anything else is rejected. Omitted: {}.' },
    },
    ['agent_id'],
  ),
  checkpoint_resume: object(
    {
      agent_id: agentId,
      on_missing: {
        type: 'string',
        enum: ['error', 'empty'],
        default: 'error',
        description: 'When the agent has no checkpoint: "error" (default) returns a tool error; "empty" returns a successful {"found": false, "agent_id"} result.',
      },
    },
    ['agent_id'],
  ),
  // Both identity spellings stay schema-optional so canonical-only and alias-only callers pass
  // client-side validation; the handler requires at least one at runtime.
  memory_reflect: object(
    {
      action: {
        type: 'string',
        enum: [...REFLECT_ACTIONS],
        description:
          'add: store text. update: replace fact target with text. forget: retire fact target. pin / unpin: protect fact target (or stop protecting it). link: attach text as an entity of fact target.',
      },
      agent_id: identity('The agent whose memory to change (canonical). Supply agent_id or agent; at least one is required. agent_id wins when both are valid.'),
      agent: identity('Deprecated alias of agent_id, accepted for compatibility. agent_id wins when both are valid.'),
      text: { type: 'string', description: 'add/update: the fact text. link: the entity to attach. forget/pin/unpin: accepted in place of target.' },
      target: {
        type: 'string',
        description: 'update/forget/pin/unpin/link: the existing fact, by fact_id (from explain receipts) or by its exact text.',
      },
      confidence: { ...confidence, description: `${confidence.description as string} Only for add and update; an omitted update label is min(inferred, the replaced facts' confidence).` },
    },
    ['action'],
  ),
} as const satisfies Record<string, JsonSchema>;
