// The REST route table: each route translates HTTP into one core call and the result into the
// shared JSON shapes. No business rule lives here; the core validates every value and its errors
// are renamed to the REST field names (`fields`). The OpenAPI document (openapi.ts) describes
// exactly this table; test/rest.test.ts compares the two.
import { notFound } from '../../../shared/errors.ts';
import { checkpointJson, checkpointSavedJson, feedbackJson, retrievalJson, statsJson } from '../../../shared/json/shapes.ts';
import type { CallContext } from '../../core/context.ts';
import type { Engram } from '../../core/engram.ts';
import { badRequest } from '../errors.ts';
import { checkBodyFields, intParam, param, timeField } from './input.ts';
import { checkpointView, restFact, restReceipt } from '../views.ts';
import { METRICS_CONTENT_TYPE, type Metrics } from './metrics.ts';
import { openApiDocument } from './openapi.ts';

export type Method = 'GET' | 'POST' | 'DELETE';

/** What a route handler gets: the core, the call's context, and the request's parts. */
export interface RestContext {
  core: Engram;
  ctx: CallContext;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Reads the body as a JSON object (400 if malformed). */
  body(): Promise<Record<string, unknown>>;
  metrics: Metrics;
}

export interface Reply {
  status?: number;
  /** Serialised as JSON unless `text` is set. */
  json?: unknown;
  text?: { contentType: string; body: string };
  headers?: Record<string, string>;
}

export interface Route {
  method: Method;
  /** An OpenAPI path template ("/v1/facts/{id}"), so the route table and the OpenAPI document
   *  speak one vocabulary and can be compared mechanically. */
  path: string;
  /** false only for routes anyone may call (GET /healthz). */
  auth: boolean;
  /** Query parameters the route accepts; any other is a 400 (a typo like top_k= would
   *  otherwise be silently ignored). */
  query: string[];
  /** Core field name → REST field name, for error messages. */
  fields: Record<string, string>;
  handle(ctx: RestContext): Promise<Reply>;
}

/** Core field names → the names a URL uses. */
const QUERY_FIELDS = { agent_id: 'agent', query: 'q', top_k: 'k', page_size: 'limit', fact_id: 'id' };
/** Core field names → the names a JSON body uses. */
const BODY_FIELDS = { top_k: 'k', occurred_at_ms: 'occurred_at', state_json: 'state' };

function route(
  method: Method,
  path: string,
  spec: { auth?: boolean; query?: string[]; fields?: Record<string, string> },
  handle: (ctx: RestContext) => Promise<Reply>,
): Route {
  return { method, path, auth: spec.auth ?? true, query: spec.query ?? [], fields: spec.fields ?? {}, handle };
}

export const REMEMBER_FIELDS = ['agent_id', 'text', 'occurred_at', 'tags', 'source', 'context'];
export const FORGET_FIELDS = ['agent_id', 'query', 'k', 'confirm'];
export const CHECKPOINT_FIELDS = ['agent_id', 'state'];

export const ROUTES: readonly Route[] = [
  route('POST', '/v1/facts', { fields: BODY_FIELDS }, async ({ core, ctx, body }) => {
    const b = await body();
    checkBodyFields(b, REMEMBER_FIELDS);
    const occurredAt = timeField(b.occurred_at, 'occurred_at');
    const { fact } = await core.put(ctx, { agentId: b.agent_id, text: b.text, occurredAt, tags: b.tags, source: b.source, context: b.context });
    return {
      status: 201,
      json: { fact: restFact(fact) },
      headers: { location: `/v1/facts/${fact.id}?agent=${encodeURIComponent(fact.agentId)}` },
    };
  }),

  // The legacy recall: default options, so no confidence preference whatever the daemon's
  // configured default weight: REST clients written before confidence weighting keep their ranking.
  route('GET', '/v1/recall', { query: ['agent', 'q', 'k'], fields: QUERY_FIELDS }, async ({ core, ctx, query }) => {
    const agent = param(query, 'agent');
    const q = param(query, 'q');
    const outcome = await core.recall(ctx, { agentId: agent, query: q, topK: intParam(query, 'k'), feedback: true });
    const facts = outcome.facts.map(restFact);
    return { json: { agent_id: agent, query: q, count: facts.length, facts, retrieval: retrievalJson(outcome.retrieval), ...feedbackJson(outcome.feedback) } };
  }),

  route('GET', '/v1/recall/explain', { query: ['agent', 'q', 'k'], fields: QUERY_FIELDS }, async ({ core, ctx, query }) => {
    const agent = param(query, 'agent');
    const q = param(query, 'q');
    const outcome = await core.recall(ctx, { agentId: agent, query: q, topK: intParam(query, 'k'), explain: true, feedback: true });
    const explained = (outcome.receipts ?? []).map(restReceipt);
    return { json: { agent_id: agent, query: q, count: explained.length, explained, retrieval: retrievalJson(outcome.retrieval), ...feedbackJson(outcome.feedback) } };
  }),

  route('GET', '/v1/facts', { query: ['agent', 'limit', 'page_token'], fields: QUERY_FIELDS }, async ({ core, ctx, query }) => {
    const agent = param(query, 'agent');
    const page = await core.listFacts(ctx, agent, intParam(query, 'limit'), param(query, 'page_token'));
    return { json: { agent_id: agent, facts: page.facts.map(restFact), next_page_token: page.nextPageToken } };
  }),

  route('GET', '/v1/facts/{id}', { query: ['agent'], fields: QUERY_FIELDS }, async ({ core, ctx, query, params }) => {
    return { json: { fact: restFact(await core.getFact(ctx, param(query, 'agent'), params.id)) } };
  }),

  // Forgets (retires: superseded_by "agent"); it does not erase. The fact stays listable and
  // readable by id, and is no longer recalled (operation forgetFact in the OpenAPI document).
  route('DELETE', '/v1/facts/{id}', { query: ['agent'], fields: QUERY_FIELDS }, async ({ core, ctx, query, params }) => {
    return { json: { fact: restFact(await core.patchFact(ctx, { agentId: param(query, 'agent'), factId: params.id, forget: true })) } };
  }),

  route('POST', '/v1/forget', { fields: BODY_FIELDS }, async ({ core, ctx, body }) => {
    const b = await body();
    checkBodyFields(b, FORGET_FIELDS);
    // Checked before anything runs: a query can match more than the caller expects.
    if (b.confirm !== true) {
      throw badRequest('confirm', 'must be true: forgetting by query retires every fact the query recalls (up to k); recall first to see which');
    }
    const { forgotten, failures } = await core.forgetMatching(ctx, { agentId: b.agent_id, query: b.query, topK: b.k });
    return { json: { forgotten, ...(failures.length ? { failures } : {}) } };
  }),

  route('GET', '/v1/agents', {}, async ({ core, ctx }) => ({ json: { agents: await core.listAgents(ctx) } })),

  route('GET', '/v1/stats', { query: ['agent'], fields: QUERY_FIELDS }, async ({ core, ctx, query }) => {
    const agent = param(query, 'agent');
    return { json: { agent_id: agent ?? null, ...statsJson(await core.stats(ctx, agent)) } };
  }),

  route('POST', '/v1/checkpoints', { fields: BODY_FIELDS }, async ({ core, ctx, body }) => {
    const b = await body();
    checkBodyFields(b, CHECKPOINT_FIELDS);
    const state = b.state;
    if (state !== undefined && (state === null || typeof state !== 'object' || Array.isArray(state))) throw badRequest('state', 'must be a JSON object');
    const saved = await core.saveCheckpoint(ctx, { agentId: b.agent_id, state: state === undefined ? '' : JSON.stringify(state) });
    return { status: 201, json: checkpointSavedJson(checkpointView(saved)) };
  }),

  route('GET', '/v1/checkpoints/latest', { query: ['agent'], fields: QUERY_FIELDS }, async ({ core, ctx, query }) => {
    const agent = param(query, 'agent');
    const latest = await core.resumeCheckpoint(ctx, agent);
    if (!latest) throw notFound(`no checkpoint for agent ${JSON.stringify(agent)}`);
    return { json: checkpointJson(checkpointView(latest)) };
  }),

  route('GET', '/healthz', { auth: false }, async () => ({ json: { status: 'ok' } })),

  route('GET', '/metrics', {}, async ({ core, metrics }) => ({ text: { contentType: METRICS_CONTENT_TYPE, body: metrics.render(core.gauges()) } })),

  route('GET', '/v1/openapi.json', {}, async () => ({ json: openApiDocument() })),
];
