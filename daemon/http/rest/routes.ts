// The REST route table: each route names what it takes (zod schemas, schemas.ts), translates it
// into one core call and the result into the shared JSON shapes. No business rule lives here: the
// core checks every value, and its field names are mapped to REST's once (CORE_FIELDS). The
// OpenAPI document (openapi.ts) is generated from this table.
import type { z } from 'zod';
import { EngramError, itemError, noCheckpoint } from '../../../shared/errors.ts';
import { checkpointJson, checkpointSavedJson, compactReportJson, feedbackJson, gcJson, observeJson, promoteJson, recallAdviceJson, retrievalJson, saveAdviceJson, statsJson, storageReportJson, touchJson, unifiedJson, extractJson, clusterReportJson, consolidateJson, consolidationCountersJson, consolidationRunJson, graphJson, kgHintJson, matchJson, recipeJson, contextJson, relatedJson, slotChangeJson, slotJson, tokenJson, writeStatusJson } from '../../../shared/json/shapes.ts';
import type { ConsolidationRun, Fact } from '../../../shared/model.ts';
import { jsonValue, typedTimeMs, weightList, WeightListError, WEIGHT_LIST_NAMES } from '../../../shared/validate.ts';
import { authorizeDaemon } from '../../auth/grant.ts';
import { withRequestId, type CallContext } from '../../core/context.ts';
import type { Engram, FactMatch, RecallOptionsInput, SearchOutcome } from '../../core/engram.ts';
import { badRequest, restField } from '../errors.ts';
import { checkpointView, contextView, factView, restFact, restReceipt } from '../views.ts';
import { METRICS_CONTENT_TYPE } from './metrics.ts';
import { openApiDocument } from './openapi.ts';
import { route, type Reply, type Route } from './route.ts';
import { AgentQuery, CheckpointResumeQuery, GraphQuery, ListQuery, NoQuery, OptionalAgentQuery, RecallQuery, SlotContextQuery, SlotListQuery, WriteStatusQuery, type ResponseName, type ResponseOf } from './schemas.ts';

export type { Method, Reply, Route } from './route.ts';

/** The core's field names where REST's differ (the core speaks the protocol's field paths). */
export const CORE_FIELDS: Readonly<Record<string, string>> = {
  cluster_id: 'id',
  fact_id: 'id',
  // A slot's record id and a recipe's name are the {id} of their paths (a recipe's save, which
  // takes name in its body, keeps that name).
  record_id: 'id',
  name: 'id',
  // promote_memory's name (CortexGraph's) for the fact POST /v1/promotions takes as fact_id.
  memory_id: 'fact_id',
  occurred_at_ms: 'occurred_at',
  meta_json: 'meta',
  state_json: 'state',
  'options.confidence': 'confidence',
  'options.allow_duplicate': 'allow_duplicate',
  'options.strength': 'strength',
  'options.min_confidence': 'min_confidence',
  'options.confidence_weight': 'confidence_weight',
  'options.top_k': 'top_k',
  'options.recipe': 'recipe',
  'options.kg': 'kg',
  // Recall options: the protocol nests them (signal_weights, filters), REST has them flat. A
  // longer core path keeps its tail ("options.signal_weights.vector" → "weights.vector").
  'options.signal_weights': 'weights',
  'options.min_relevance': 'min_relevance',
  'options.filters.window_days': 'window_days',
  'options.filters.tags_any': 'tags_any',
  'options.filters.tags_all': 'tags_all',
  'options.filters.created_after_ms': 'created_after',
  'options.filters.created_before_ms': 'created_before',
  'options.filters.occurred_after_ms': 'occurred_after',
  'options.filters.occurred_before_ms': 'occurred_before',
  'options.filters.min_decay_score': 'min_decay_score',
};

const ok = <N extends ResponseName>(_name: N, json: ResponseOf<N>, extra: Omit<Reply, 'json'> = {}): Reply => ({ ...extra, json });

/** The write fields of a body, in the core's terms (times as ms, meta as the JSON text it keeps). */
function writeFields(b: { occurred_at?: string; tags?: string[]; entities?: string[]; source?: string; context?: string; meta?: Record<string, unknown>; confidence?: string; strength?: number }) {
  return {
    ...(b.occurred_at !== undefined ? { occurredAt: typedTimeMs(b.occurred_at, 'occurred_at') } : {}),
    tags: b.tags,
    entities: b.entities,
    source: b.source,
    context: b.context,
    ...(b.meta !== undefined ? { meta: JSON.stringify(jsonValue(b.meta, 'meta')) } : {}),
    ...(b.confidence !== undefined ? { confidence: b.confidence } : {}),
    ...(b.strength !== undefined ? { strength: b.strength } : {}),
  };
}

/** An error about one item of a batch, named as the caller sent it: "items[1].occurred_at", and
 *  "items[1].meta" where the core says "items[1].meta_json". */
function itemFailure(error: unknown, at: number): EngramError {
  return restNamed(itemError(error, at));
}

function restNamed(error: EngramError): EngramError {
  const field = error.field;
  const item = field === undefined ? null : /^items\[\d+\]\./.exec(field);
  if (field === undefined || !item) return error;
  const renamed = item[0] + restField(field.slice(item[0].length), CORE_FIELDS);
  if (renamed === field) return error;
  const message = error.message.startsWith(`${field}:`) ? renamed + error.message.slice(field.length) : error.message;
  return new EngramError(error.kind, message, renamed);
}

const factLocation = (f: { id: string; agentId: string }) => `/v1/facts/${f.id}?agent_id=${encodeURIComponent(f.agentId)}`;

type RecallFields = Omit<z.infer<typeof RecallQuery>, 'agent_id' | 'query' | 'weights'> & { weights?: RecallOptionsInput['weights'] };

/** "0,1,0" (vector,keyword,recency[,decay[,graph]]) → weights: plain decimal numbers, read as the
 *  CLI and the daemon's settings read them; their range is the core's to check. */
function weightsOfText(text: string | undefined): RecallOptionsInput['weights'] {
  if (text === undefined) return undefined;
  try {
    const numbers = weightList(text);
    return Object.fromEntries(numbers.map((n, i) => [WEIGHT_LIST_NAMES[i], n]));
  } catch (error) {
    if (!(error instanceof WeightListError)) throw error;
    throw badRequest(error.item ? `weights.${error.item}` : 'weights', error.problem);
  }
}

/** A recall's options in the core's terms: what gRPC's RecallOptions carries, checked by the same
 *  core code (typed times become ms here, each error naming its field). */
function recallOptions(o: RecallFields): RecallOptionsInput {
  const time = (value: string | undefined, field: string) => (value === undefined ? undefined : typedTimeMs(value, field));
  const filters = {
    windowDays: o.window_days,
    tagsAny: o.tags_any,
    tagsAll: o.tags_all,
    createdAfter: time(o.created_after, 'created_after'),
    createdBefore: time(o.created_before, 'created_before'),
    occurredAfter: time(o.occurred_after, 'occurred_after'),
    occurredBefore: time(o.occurred_before, 'occurred_before'),
    minDecayScore: o.min_decay_score,
  };
  return {
    topK: o.top_k,
    ...(o.weights !== undefined ? { weights: o.weights } : {}),
    ...(o.min_relevance !== undefined ? { minRelevance: o.min_relevance } : {}),
    ...(Object.values(filters).some((v) => v !== undefined) ? { filters } : {}),
    minConfidence: o.min_confidence,
    confidenceWeight: o.confidence_weight,
    ...(o.kg !== undefined ? { kg: o.kg } : {}),
    ...(o.recipe !== undefined ? { recipe: o.recipe } : {}),
  };
}

/** Recall with any option beside top_k takes the options path (RecallWithOptions, as gRPC);
 *  without, the legacy ranking (no confidence preference whatever the daemon's default weight),
 *  so older REST callers keep theirs. */
function recallCall(core: Engram, ctx: CallContext, q: z.infer<typeof RecallQuery>, explain: boolean): Promise<SearchOutcome> {
  const { agent_id, query, top_k, weights, ...rest } = q;
  if (weights === undefined && Object.values(rest).every((v) => v === undefined)) {
    return core.recall(ctx, { agentId: agent_id, query, topK: top_k, explain, feedback: true });
  }
  const options = recallOptions({ top_k, weights: weightsOfText(weights), ...rest });
  return core.recallWithOptions(ctx, { agentId: agent_id, query, scope: 'agent', explain, options });
}

/** The list filter in the core's terms: typed times as ms, each error naming its parameter. */
function browseFilter(q: Omit<z.infer<typeof ListQuery>, 'agent_id' | 'page_size' | 'page_token' | 'order'>): Record<string, unknown> {
  const time = (value: string | undefined, field: string) => (value === undefined ? undefined : typedTimeMs(value, field));
  return {
    text: q.text,
    confidence: q.confidence,
    pinned: q.pinned,
    retired: q.retired,
    tags: q.tags,
    entities: q.entities,
    createdAfter: time(q.created_after, 'created_after'),
    createdBefore: time(q.created_before, 'created_before'),
    occurredAfter: time(q.occurred_after, 'occurred_after'),
    occurredBefore: time(q.occurred_before, 'occurred_before'),
  };
}

const matchedCount = (o: Pick<SearchOutcome, 'matches'>) => o.matches.filter((m) => m.matched).length;

export const ROUTES: readonly Route[] = [
  route(
    'POST',
    '/v1/facts',
    { body: 'RememberRequest', operationId: 'remember', summary: 'Remember a fact', status: 201, response: 'Remembered', description: 'The stored fact (201, Location names it); an identical live fact is answered with 200 and duplicate: true, a repeated request_id with 200, replayed: true and the first write\'s fact.' },
    async ({ core, ctx, body: b }) => {
      const { fact, duplicate, replayed } = await core.put(withRequestId(ctx, b.request_id ?? ''), { agentId: b.agent_id, text: b.text, ...writeFields(b), ...(b.allow_duplicate ? { allowDuplicate: true } : {}) });
      return ok('Remembered', { fact: restFact(fact), duplicate, replayed }, { status: duplicate || replayed ? 200 : 201, headers: { location: factLocation(fact) } });
    },
  ),

  route(
    'POST',
    '/v1/facts/batch',
    { body: 'BatchRememberRequest', operationId: 'rememberBatch', summary: 'Remember many facts in one call', status: 200, response: 'BatchRemembered', description: "Each item's result or error, in order." },
    async ({ core, ctx, body: b }) => {
      // Every item is converted before any is written: a time that is not one (or meta nested too
      // deep) is a 400 for the whole body, naming items[N].field, and nothing of it is stored.
      const items = b.items.map((i, at) => {
        try {
          return { agentId: i.agent_id, text: i.text, ...writeFields(i), ...(i.allow_duplicate ? { allowDuplicate: true } : {}), ...(i.request_id !== undefined ? { requestId: i.request_id } : {}) };
        } catch (error) {
          throw itemFailure(error, at);
        }
      });
      const slots = await core.putBatch(ctx, { items });
      return ok('BatchRemembered', {
        results: slots.map((s) => {
          if (!s.error) return { fact_id: s.result.fact.id, replayed: s.result.replayed, duplicate: s.result.duplicate };
          const e = restNamed(s.error);
          return { error: { code: e.kind, message: e.message, ...(e.field ? { field: e.field } : {}) } };
        }),
      });
    },
  ),

  route(
    'GET',
    '/v1/facts',
    { query: ListQuery, operationId: 'listFacts', summary: "List a namespace's facts, oldest first (retired ones included), or newest first and narrowed by a filter", status: 200, response: 'FactPage', description: 'One page.' },
    async ({ core, ctx, query: q }) => {
      const { agent_id, page_size, page_token, order, ...filter } = q;
      if (order === undefined && Object.keys(filter).length === 0) {
        const page = await core.listFacts(ctx, agent_id, page_size, page_token);
        return ok('FactPage', { agent_id, facts: page.facts.map(restFact), next_page_token: page.nextPageToken });
      }
      const page = await core.browseFacts(ctx, agent_id, { order, pageSize: page_size, pageToken: page_token, filter: browseFilter(filter) });
      return ok('FactPage', { agent_id, facts: page.facts.map(restFact), next_page_token: page.nextPageToken, scanned: page.scanned });
    },
  ),

  route('GET', '/v1/timeline', { query: AgentQuery, operationId: 'factTimeline', summary: 'Facts created per day in a namespace (and how many of them are retired now)', status: 200, response: 'Timeline', description: 'Days with facts, oldest first.' }, async ({ core, ctx, query: q }) => {
    const days = await core.factTimeline(ctx, q.agent_id);
    return ok('Timeline', { agent_id: q.agent_id, days: days.map((d) => ({ day: new Date(d.day).toISOString().slice(0, 10), created: d.created, retired: d.retired })) });
  }),

  route('GET', '/v1/facts/{id}/lineage', { query: AgentQuery, operationId: 'factLineage', summary: 'Where a fact came from (what it replaced or summarises) and what replaced it', status: 200, response: 'Lineage', description: 'Sources and successors.', errors: ['400', '404'] }, async ({ core, ctx, query: q, params }) => {
    const l = await core.factLineage(ctx, q.agent_id, params.id);
    return ok('Lineage', { fact_id: params.id, sources: l.sources.map(restFact), successors: l.successors.map(restFact), missing: l.missing });
  }),

  route('GET', '/v1/facts/{id}/decay', { query: AgentQuery, operationId: 'factDecay', summary: "A fact's decay score now and how it falls if nothing uses it again", status: 200, response: 'DecayCurve', description: 'The curve.', errors: ['400', '404'] }, async ({ core, ctx, query: q, params }) => {
    const d = await core.factDecay(ctx, q.agent_id, params.id);
    const at = (ms: number) => new Date(ms).toISOString();
    return ok('DecayCurve', {
      fact_id: params.id,
      model: d.model,
      now: at(d.now),
      score: d.score,
      forget_threshold: d.forgetThreshold,
      promote_threshold: d.promoteThreshold,
      ...(d.forgetsAt !== undefined ? { forgets_at: at(d.forgetsAt) } : {}),
      points: d.points.map((p) => ({ at: at(p.at), score: p.score })),
    });
  }),

  route(
    'POST',
    '/v1/facts/{id}/confidence',
    { body: 'ConfidenceRequest', operationId: 'setFactConfidence', summary: "Change a fact's confidence label (verified, inferred, unverified)", status: 200, response: 'FactEnvelope', description: 'The fact as it now is.', errors: ['400', '404', '413'] },
    async ({ core, ctx, body: b, params }) => ok('FactEnvelope', { fact: restFact(await core.patchFact(ctx, { agentId: b.agent_id, factId: params.id, confidence: b.confidence })) }),
  ),

  route(
    'GET',
    '/v1/facts/{id}',
    { query: AgentQuery, operationId: 'getFact', summary: 'Read one fact', status: 200, response: 'FactEnvelope', description: 'The fact.', errors: ['400', '404'] },
    async ({ core, ctx, query: q, params }) => ok('FactEnvelope', { fact: restFact(await core.getFact(ctx, q.agent_id, params.id)) }),
  ),

  route(
    'DELETE',
    '/v1/facts/{id}',
    {
      query: AgentQuery,
      operationId: 'deleteFact',
      summary: 'Erase a fact: its text and everything derived from it leave the store (to stop recalling it but keep it, POST .../forget)',
      status: 200,
      response: 'DeleteResult',
      description: 'Erased.',
      errors: ['400', '404'],
    },
    async ({ core, ctx, query: q, params }) => {
      await core.deleteFact(ctx, q.agent_id, params.id);
      return ok('DeleteResult', { agent_id: q.agent_id, fact_id: params.id, deleted: true });
    },
  ),

  ...(['forget', 'pin', 'unpin'] as const).map((action) =>
    route(
      'POST',
      `/v1/facts/{id}/${action}`,
      {
        body: 'FactTargetRequest',
        operationId: `${action}Fact`,
        summary: {
          forget: 'Forget a fact: retire it (superseded_by "agent"); it stays listed and readable but is no longer recalled',
          pin: 'Pin a fact (protected from decay and cleanup)',
          unpin: 'Unpin a fact',
        }[action],
        status: 200,
        response: 'FactEnvelope',
        description: 'The fact as it now is.',
        errors: ['400', '404', '413'],
      },
      async ({ core, ctx, body: b, params }) => {
        const patch = action === 'forget' ? { forget: true } : { pinned: action === 'pin' };
        return ok('FactEnvelope', { fact: restFact(await core.patchFact(ctx, { agentId: b.agent_id, factId: params.id, ...patch })) });
      },
    ),
  ),

  route(
    'POST',
    '/v1/facts/{id}/touch',
    { body: 'TouchRequest', operationId: 'touchFact', summary: 'Reinforce a fact: use count + 1, last used now (boost_strength: strength + 0.1, at most 2)', status: 200, response: 'Touched', description: 'The fact and its decay score before and after.', errors: ['400', '404', '409'] },
    async ({ core, ctx, body: b, params }) => {
      const r = await core.touch(withRequestId(ctx, b.request_id ?? ''), { agentId: b.agent_id, factId: params.id, boostStrength: b.boost_strength });
      return ok('Touched', touchJson({ ...r, fact: factView(r.fact) }));
    },
  ),

  route(
    'POST',
    '/v1/observations',
    { body: 'ObserveRequest', operationId: 'observeUsage', summary: 'Record that facts were used in a conversation with these tags: each live one gets a use and a review; cross-domain use raises its strength', status: 200, response: 'Observed', description: 'What happened to each named fact, in order.', errors: ['400'] },
    async ({ core, ctx, body: b }) => ok('Observed', observeJson(await core.observeUsage(withRequestId(ctx, b.request_id ?? ''), { agentId: b.agent_id, factIds: b.fact_ids, contextTags: b.context_tags }))),
  ),

  route(
    'POST',
    '/v1/gc',
    { body: 'GcRequest', operationId: 'collectGarbage', summary: "Collect a namespace's faded facts (decay score below the forget threshold; pinned ones never); a dry run unless dry_run is false", status: 200, response: 'Collected', description: 'What was (or would be) collected, lowest score first.', errors: ['400'] },
    async ({ core, ctx, body: b }) =>
      ok('Collected', gcJson(await core.collectGarbage(withRequestId(ctx, b.request_id ?? ''), { agentId: b.agent_id, dryRun: b.dry_run, archiveInstead: b.archive_instead, limit: b.limit }))),
  ),

  route(
    'POST',
    '/v1/clusters',
    { body: 'ClusterRequest', operationId: 'clusterFacts', summary: 'Clusters of similar facts (stable ids), or near-duplicate pairs', status: 200, response: 'Clusters', description: 'The clusters or pairs.', errors: ['400', '409'] },
    async ({ core, ctx, body: b }) =>
      ok('Clusters', clusterReportJson(await core.clusterFacts(ctx, { agentId: b.agent_id, threshold: b.threshold, maxClusterSize: b.max_cluster_size, findDuplicates: b.find_duplicates, duplicateThreshold: b.duplicate_threshold }))),
  ),

  route(
    'POST',
    '/v1/clusters/{id}/consolidate',
    { body: 'ConsolidateRequest', operationId: 'consolidateCluster', summary: 'Merge a cluster into one fact that replaces its members (a dry run unless mode is "apply")', status: 200, response: 'Consolidated', description: 'The merged fact and what it retired.', errors: ['400', '404', '409'] },
    async ({ core, ctx, body: b, params }) =>
      ok('Consolidated', consolidateJson(await core.consolidateCluster(withRequestId(ctx, b.request_id ?? ''), { agentId: b.agent_id, clusterId: params.id, mode: b.mode }))),
  ),

  route(
    'POST',
    '/v1/consolidations',
    { body: 'ConsolidationRunRequest', operationId: 'consolidate', summary: "Summarise the namespace's faded facts into one summary that replaces them (dry_run: report only)", status: 200, response: 'ConsolidationRun', description: 'What the run wrote and retired, and what it kept.', errors: ['400'] },
    async ({ core, ctx, body: b }) => {
      const run = await core.consolidate(withRequestId(ctx, b.request_id ?? ''), { agentId: b.agent_id, dryRun: b.dry_run });
      return ok('ConsolidationRun', consolidationRunJson({ ...run, ...(run.summary ? { summary: factView(run.summary) } : {}) } as ConsolidationRun<Fact>));
    },
  ),

  route('GET', '/v1/consolidations/status', { operationId: 'consolidationStatus', summary: "Lifetime consolidation totals of the daemon's store", status: 200, response: 'ConsolidationCounters', description: 'Totals.' }, async ({ core }) =>
    ok('ConsolidationCounters', consolidationCountersJson(core.consolidationCounters())),
  ),

  route(
    'POST',
    '/v1/memory-controls/slots',
    { body: 'SlotRequest', operationId: 'putSlot', summary: 'Create or update a memory slot (an upsert on project, scope and slot name)', status: 200, response: 'SlotEnvelope', description: 'The slot as stored now (201 when it was created). A write that changes nothing records no version: the slot as it was, changed: false. A repeated request_id answers as the first write did (its status, the version it left), with replayed: true.', errors: ['400'] },
    async ({ core, ctx, body: b }) => {
      const r = await core.putSlot(withRequestId(ctx, b.request_id ?? ''), {
        slotName: b.slot_name,
        slotValue: b.slot_value,
        scope: b.scope,
        projectId: b.project_id,
        locked: b.locked,
        status: b.status,
        evidenceRefs: b.evidence_refs,
        confidence: b.confidence,
        visibility: b.visibility,
      });
      return ok('SlotEnvelope', { slot: slotJson(r.slot), created: r.created, changed: r.changed, replayed: r.replayed }, { status: r.created ? 201 : 200 });
    },
  ),

  route(
    'POST',
    '/v1/context',
    {
      body: 'ContextRequest',
      operationId: 'assembleContext',
      summary: 'One injection-ready context within a token budget: the slots that apply, the pinned facts, then the facts recalled for the query, each with its confidence (and receipt)',
      status: 200,
      response: 'Context',
      description: 'The block, its token count by the named tokenizer (never over the budget), its items, and what was cut and why.',
      errors: ['400'],
    },
    async ({ core, ctx, body: b }) => {
      const c = await core.assembleContext(ctx, {
        agentId: b.agent_id,
        query: b.query,
        mode: b.mode,
        recipe: b.recipe,
        tokenBudget: b.token_budget,
        projectId: b.project_id,
        slotNames: b.slot_names,
        topK: b.top_k,
      });
      return ok('Context', contextJson(b.agent_id, b.query ?? '', contextView(c)));
    },
  ),

  route('GET', '/v1/memory-controls/slots/context', { query: SlotContextQuery, operationId: 'slotContext', summary: 'The slots that apply, ready to inject: name, value, confidence, review status, authority, evidence and visibility of each', status: 200, response: 'SlotContext', description: 'The block.' }, async ({ core, ctx, query: q }) => {
    const slots = await core.slotContext(ctx, { projectId: q.project_id, slotNames: q.slot_names });
    return ok('SlotContext', { count: slots.length, slots: slots.map(slotJson) });
  }),

  route('GET', '/v1/memory-controls/slots', { query: SlotListQuery, operationId: 'listSlots', summary: 'Memory slots by project and substring, up to 1,000 per call', status: 200, response: 'SlotList', description: 'Slots in id order.' }, async ({ core, ctx, query: q }) => {
    const r = await core.listSlots(ctx, { projectId: q.project_id, query: q.query, archived: q.archived, limit: q.page_size, pageToken: q.page_token });
    return ok('SlotList', { count: r.slots.length, slots: r.slots.map(slotJson), next_page_token: r.nextPageToken });
  }),

  route('GET', '/v1/memory-controls/slots/{id}', { query: NoQuery, operationId: 'getSlot', summary: 'One memory slot (archived ones too)', status: 200, response: 'SlotEnvelope', description: 'The slot.', errors: ['404'] }, async ({ core, ctx, params }) =>
    ok('SlotEnvelope', { slot: slotJson(await core.getSlot(ctx, params.id)) }),
  ),

  route('GET', '/v1/memory-controls/slots/{id}/history', { query: NoQuery, operationId: 'slotHistory', summary: 'Every change of a slot: when, by whom, before and after', status: 200, response: 'SlotHistory', description: 'Oldest first.', errors: ['404'] }, async ({ core, ctx, params }) =>
    ok('SlotHistory', { record_id: params.id!, changes: (await core.slotHistory(ctx, params.id)).map(slotChangeJson) }),
  ),

  route('DELETE', '/v1/memory-controls/slots/{id}', { query: NoQuery, operationId: 'deleteSlot', summary: 'Archive a slot (409 "slot is locked" while it is locked)', status: 200, response: 'SlotEnvelope', description: 'The archived slot; one archived already stays as it was (changed: false, no new version).', errors: ['404', '409'] }, async ({ core, ctx, params }) => {
    const r = await core.deleteSlot(ctx, params.id);
    return ok('SlotEnvelope', { slot: slotJson(r.slot), changed: r.changed, replayed: r.replayed });
  }),

  route('POST', '/v1/tokens', { body: 'TokenRequest', operationId: 'createToken', summary: 'Make an agent token (needs the daemon\'s own token)', status: 201, response: 'TokenCreated', description: 'The token, shown only here, and what it opens.' }, async ({ core, ctx, body: b }) => {
    const { token, info } = await core.createToken(ctx, { agents: b.agents, rights: b.rights, shared: b.shared, label: b.label });
    return ok('TokenCreated', { token, info: tokenJson(info) }, { status: 201 });
  }),

  route('GET', '/v1/tokens', { query: NoQuery, operationId: 'listTokens', summary: 'Every agent token made, live and revoked (never their secrets)', status: 200, response: 'TokenList', description: 'Oldest first.' }, async ({ core, ctx }) =>
    ok('TokenList', { tokens: (await core.listTokens(ctx)).map(tokenJson) }),
  ),

  route('DELETE', '/v1/tokens/{id}', { query: NoQuery, operationId: 'revokeToken', summary: 'Revoke an agent token: the next request presenting it gets 401', status: 200, response: 'TokenEnvelope', description: 'The revoked token.', errors: ['404'] }, async ({ core, ctx, params }) =>
    ok('TokenEnvelope', { token: tokenJson(await core.revokeToken(ctx, params.id)) }),
  ),

  route('GET', '/v1/writes/{id}', { query: WriteStatusQuery, operationId: 'writeStatus', summary: 'Whether the write sent with this request id committed, and what it wrote', status: 200, response: 'WriteStatus', description: 'committed: false means no write with this request id committed: sending it again with the same request_id is safe.' }, async ({ core, ctx, params, query: q }) => {
    const { fact, ...status } = await core.writeStatus(ctx, { requestId: params.id, ...(q.agent_id !== undefined ? { agentId: q.agent_id } : {}) });
    return ok('WriteStatus', writeStatusJson({ ...status, ...(fact ? { fact: factView(fact) } : {}) }));
  }),

  route(
    'POST',
    '/v1/memory-controls/retrieval-recipes',
    { body: 'RecipeRequest', operationId: 'saveRecipe', summary: 'Save a retrieval recipe: the given fields merged over its latest version, else the built-in of that name', status: 201, response: 'RecipeEnvelope', description: 'The new version (201); settings its latest version already has save nothing: that version, 200, changed: false. A repeated request_id answers as the first save did (its status and version), with replayed: true.', errors: ['400'] },
    async ({ core, ctx, body: b }) => {
      const r = await core.saveRecipe(withRequestId(ctx, b.request_id ?? ''), {
        name: b.name,
        vectorTopK: b.vector_top_k,
        lexicalTopK: b.lexical_top_k,
        graphDepth: b.graph_depth,
        reranker: b.reranker,
        tokenBudget: b.token_budget,
        preferVerified: b.prefer_verified,
        verifiedOnly: b.verified_only,
        includeEvidence: b.include_evidence,
      });
      return ok('RecipeEnvelope', { recipe: recipeJson(r.recipe), changed: r.changed, replayed: r.replayed }, { status: r.changed ? 201 : 200 });
    },
  ),

  route('GET', '/v1/memory-controls/retrieval-recipes', { query: NoQuery, operationId: 'listRecipes', summary: 'Saved recipes (latest versions), plus every built-in not overridden (builtin: true, id builtin:{name})', status: 200, response: 'RecipeList', description: 'Recipes.' }, async ({ core, ctx }) => {
    const recipes = await core.listRecipes(ctx);
    return ok('RecipeList', { count: recipes.length, recipes: recipes.map(recipeJson) });
  }),

  route('GET', '/v1/memory-controls/retrieval-recipes/{id}', { query: NoQuery, operationId: 'getRecipe', summary: 'What a recipe name means now', status: 200, response: 'RecipeEnvelope', description: 'Its latest version, or its built-in.', errors: ['400', '404'] }, async ({ core, ctx, params }) =>
    ok('RecipeEnvelope', { recipe: recipeJson(await core.getRecipe(ctx, params.id)) }),
  ),

  route('GET', '/v1/memory-controls/retrieval-recipes/{id}/history', { query: NoQuery, operationId: 'recipeHistory', summary: 'Every saved version of a recipe', status: 200, response: 'RecipeList', description: 'Oldest first.', errors: ['400', '404'] }, async ({ core, ctx, params }) => {
    const versions = await core.recipeHistory(ctx, params.id);
    return ok('RecipeList', { count: versions.length, recipes: versions.map(recipeJson) });
  }),

  route(
    'POST',
    '/v1/relations',
    { body: 'RelateRequest', operationId: 'relate', summary: 'Add (or remove) a typed relation between two live facts of a namespace', status: 200, response: 'Related', description: 'The fact the relation starts from.', errors: ['400', '404', '409'] },
    async ({ core, ctx, body: b }) => {
      const r = await core.relate(withRequestId(ctx, b.request_id ?? ''), { agentId: b.agent_id, fromId: b.from_id, toId: b.to_id, type: b.type, remove: b.remove });
      return ok('Related', relatedJson({ ...r, fact: factView(r.fact) }));
    },
  ),

  route(
    'POST',
    '/v1/facts/{id}/entities',
    { body: 'LinkEntityRequest', operationId: 'linkEntity', summary: 'Attach an entity to a live fact (one transactional patch)', status: 200, response: 'FactEnvelope', description: 'The fact as stored now.', errors: ['400', '404', '409'] },
    async ({ core, ctx, body: b, params }) =>
      ok('FactEnvelope', { fact: restFact(await core.linkEntity(withRequestId(ctx, b.request_id ?? ''), { agentId: b.agent_id, factId: params.id, entity: b.entity, ...(b.entity_type ? { type: b.entity_type } : {}) })) }),
  ),

  route('GET', '/v1/graph', { query: GraphQuery, operationId: 'readGraph', summary: 'The knowledge graph around a fact or an entity', status: 200, response: 'Graph', description: 'Nodes and edges.', errors: ['400', '404'] }, async ({ core, ctx, query: q }) =>
    ok('Graph', graphJson(await core.readGraph(ctx, { agentId: q.agent_id, factId: q.fact_id, entity: q.entity, limit: q.limit }))),
  ),

  route(
    'POST',
    '/v1/extractions',
    { body: 'ExtractRequest', operationId: 'extract', summary: 'Propose the durable facts of a message or conversation (and, with remember, store them as unverified facts)', status: 200, response: 'Extracted', description: 'The proposals, and what storing them came to.', errors: ['400'] },
    async ({ core, ctx, body: b }) => ok('Extracted', extractJson(await core.extract(ctx, { agentId: b.agent_id, message: b.message, turns: b.turns, remember: b.remember }))),
  ),

  route(
    'POST',
    '/v1/search/unified',
    { body: 'UnifiedRequest', operationId: 'searchUnified', summary: "The store's facts and the vault's notes ranked together", status: 200, response: 'Unified', description: 'Best first; a promoted fact and its note count once.', errors: ['400'] },
    async ({ core, ctx, body: b }) =>
      ok('Unified', unifiedJson(await core.searchUnified(ctx, { agentId: b.agent_id, query: b.query, tags: b.tags, limit: b.limit, stmWeight: b.stm_weight, ltmWeight: b.ltm_weight, windowDays: b.window_days, minScore: b.min_score }))),
  ),

  route(
    'POST',
    '/v1/promotions',
    { body: 'PromoteRequest', operationId: 'promote', summary: "Promote a fact (or every qualifying one) to a long-term note in the daemon's vault", status: 200, response: 'Promoted', description: 'What was (or would be) promoted.', errors: ['400', '404', '409'] },
    async ({ core, ctx, body: b }) => ok('Promoted', promoteJson(await core.promote(ctx, { agentId: b.agent_id, factId: b.fact_id, autoDetect: b.auto_detect, dryRun: b.dry_run, force: b.force }))),
  ),

  route(
    'GET',
    '/v1/maintenance/stats',
    { query: NoQuery, operationId: 'storageStats', summary: 'What the store holds table by table, with hints on compaction and collection', status: 200, response: 'StorageReport', description: 'Entries and bytes per table, fact counts, hints.' },
    async ({ core, ctx }) => ok('StorageReport', storageReportJson(await core.storageReport(ctx))),
  ),

  route(
    'POST',
    '/v1/maintenance/compact',
    { body: 'EmptyRequest', operationId: 'compactStore', summary: "Rewrite the store's files without what deletes, rewrites and retirements left behind", status: 200, response: 'CompactReport', description: 'The store size before and after.' },
    async ({ core, ctx }) => ok('CompactReport', compactReportJson(await core.compact(ctx))),
  ),

  route(
    'POST',
    '/v1/analysis/save',
    { body: 'AnalyzeRequest', operationId: 'analyzeMessage', summary: 'Is a message worth saving? Advice only: nothing is stored', status: 200, response: 'SaveAdvice', description: 'The decision, its confidence, suggested entities, tags and strength.', errors: ['400'] },
    async ({ core, ctx, body: b }) => ok('SaveAdvice', saveAdviceJson(await core.analyzeMessage(ctx, { message: b.message }))),
  ),

  route(
    'POST',
    '/v1/analysis/recall',
    { body: 'AnalyzeRequest', operationId: 'analyzeForRecall', summary: 'Does a message ask for something remembered? Advice only: nothing is searched', status: 200, response: 'RecallAdvice', description: 'The decision, its confidence and a suggested query.', errors: ['400'] },
    async ({ core, ctx, body: b }) => ok('RecallAdvice', recallAdviceJson(await core.analyzeForRecall(ctx, { message: b.message }))),
  ),

  route(
    'POST',
    '/v1/revisions',
    { body: 'ReviseRequest', operationId: 'revise', summary: 'Replace live facts by a new one (each target is retired, superseded_by = the new fact)', status: 201, response: 'ReviseResult', description: 'The replacement and what was retired.', errors: ['400', '404', '409', '413'] },
    async ({ core, ctx, body: b }) => {
      const res = await core.revise(ctx, { agentId: b.agent_id, targetIds: b.target_ids, text: b.text, ...writeFields(b) });
      const json = { fact: restFact(res.replacement), retired_ids: res.retiredIds, failures: res.failures.map((f) => ({ fact_id: f.factId, error: f.error })) };
      return ok('ReviseResult', json, { status: 201, headers: { location: factLocation(res.replacement) } });
    },
  ),

  route(
    'POST',
    '/v1/aliases',
    { body: 'AliasRequest', operationId: 'alias', summary: 'Declare that a term means the same as other words, so recall reaches facts using either', status: 201, response: 'AliasResult', description: 'The stored alias (201); one the agent already had is answered with 200 and duplicate: true.' },
    async ({ core, ctx, body: b }) => {
      const { fact, duplicate } = await core.alias(ctx, { agentId: b.agent_id, term: b.term, equivalents: b.equivalents });
      // Nothing is created when the agent already had it: 200, as for a fact said again.
      return ok('AliasResult', { agent_id: b.agent_id, term: b.term, equivalents: b.equivalents, fact_id: fact.id, duplicate }, { status: duplicate ? 200 : 201 });
    },
  ),

  route(
    'GET',
    '/v1/recall',
    {
      query: RecallQuery,
      operationId: 'recall',
      summary: 'Recall the facts that best match a query: per-call signal weights, a relevance floor and filters (tags, time window, time ranges, decay score) as gRPC RecallOptions has them; confidence options opt into confidence ranking',
      status: 200,
      response: 'RecallResult',
      description: 'Best first, each with whether the query matched it.',
    },
    async ({ core, ctx, query: q }) => {
      const outcome = await recallCall(core, ctx, q, false);
      const facts = outcome.facts.map(restFact);
      return ok('RecallResult', {
        agent_id: q.agent_id,
        query: q.query,
        count: facts.length,
        matched: matchedCount(outcome),
        facts,
        matches: outcome.matches.map(matchJson),
        retrieval: retrievalJson(outcome.retrieval),
        ...feedbackJson(outcome.feedback),
        kg_hints: (outcome.hints ?? []).map(kgHintJson),
      });
    },
  ),

  route(
    'GET',
    '/v1/recall/explain',
    { query: RecallQuery, operationId: 'recallExplain', summary: 'Recall with one receipt per fact showing how its score was made (same facts, order and options as recall)', status: 200, response: 'ExplainResult', description: 'Receipts, best first.' },
    async ({ core, ctx, query: q }) => {
      const outcome = await recallCall(core, ctx, q, true);
      const explained = (outcome.receipts ?? []).map(restReceipt);
      return ok('ExplainResult', { agent_id: q.agent_id, query: q.query, count: explained.length, matched: matchedCount(outcome), explained, retrieval: retrievalJson(outcome.retrieval), ...feedbackJson(outcome.feedback) });
    },
  ),

  route(
    'POST',
    '/v1/recall/batch',
    { body: 'BatchRecallRequest', operationId: 'recallBatch', summary: 'Several queries against one namespace under one ranking policy (the options of recall, in the body; weights as an object), merged', status: 200, response: 'BatchRecallResult', description: 'Merged and per-query facts.' },
    async ({ core, ctx, body: b }) => {
      const { agent_id, queries, ...rest } = b;
      const outcome = await core.batchRecall(ctx, { agentId: agent_id, queries, scope: 'agent', options: recallOptions(rest) });
      return ok('BatchRecallResult', {
        agent_id: b.agent_id,
        count: outcome.merged.length,
        merged: outcome.merged.map(restFact),
        results: outcome.results.map((r) => ({ query: r.query, matched: matchedCount(r), facts: r.facts.map(restFact), matches: r.matches.map(matchJson), ...(r.error ? { error: r.error } : {}) })),
        ...(outcome.retrieval ? { retrieval: retrievalJson(outcome.retrieval) } : {}),
      });
    },
  ),

  route(
    'POST',
    '/v1/forget',
    { body: 'ForgetRequest', operationId: 'forgetByQuery', summary: 'Retire every fact a query matches (up to top_k; never the facts that only fill top_k); requires "confirm": true', status: 200, response: 'ForgetResult', description: 'What was retired.' },
    async ({ core, ctx, body: b }) => {
      const { forgotten, failures } = await core.forgetMatching(ctx, { agentId: b.agent_id, query: b.query, topK: b.top_k });
      return ok('ForgetResult', { forgotten, ...(failures.length ? { failures } : {}) });
    },
  ),

  route('GET', '/v1/agents', { operationId: 'listAgents', summary: 'Agent namespaces with at least one fact', status: 200, response: 'Agents', description: 'Sorted agent ids.' }, async ({ core, ctx }) =>
    ok('Agents', { agents: await core.listAgents(ctx) }),
  ),

  route(
    'GET',
    '/v1/stats',
    { query: OptionalAgentQuery, operationId: 'stats', summary: 'Counts for one namespace or the whole store', status: 200, response: 'Stats', description: "Counts; store_bytes is the whole store's size on disk, also for one namespace." },
    async ({ core, ctx, query: q }) => ok('Stats', { agent_id: q.agent_id ?? null, ...statsJson(await core.stats(ctx, q.agent_id)) }),
  ),

  route(
    'POST',
    '/v1/checkpoints',
    { body: 'CheckpointRequest', operationId: 'saveCheckpoint', summary: "Save an agent's working state (older checkpoints beyond the per-agent count expire)", status: 201, response: 'CheckpointSaved', description: 'The saved checkpoint.' },
    async ({ core, ctx, body: b }) => {
      const saved = await core.saveCheckpoint(withRequestId(ctx, b.request_id ?? ''), { agentId: b.agent_id, state: b.state === undefined ? '' : JSON.stringify(jsonValue(b.state, 'state_json')) });
      return ok('CheckpointSaved', checkpointSavedJson(checkpointView(saved)) as ResponseOf<'CheckpointSaved'>, { status: 201 });
    },
  ),

  route(
    'GET',
    '/v1/checkpoints/latest',
    { query: CheckpointResumeQuery, operationId: 'resumeCheckpoint', summary: "The agent's latest checkpoint", status: 200, response: 'CheckpointResumed', description: 'The latest checkpoint.', errors: ['400', '404'] },
    async ({ core, ctx, query: q }) => {
      const latest = await core.resumeCheckpoint(ctx, q.agent_id);
      if (!latest && q.on_missing === 'empty') return ok('CheckpointResumed', { found: false, agent_id: q.agent_id });
      if (!latest) throw noCheckpoint(q.agent_id);
      return ok('CheckpointResumed', checkpointJson(checkpointView(latest)) as ResponseOf<'Checkpoint'>);
    },
  ),

  route(
    'GET',
    '/v1/checkpoints',
    { query: AgentQuery, operationId: 'listCheckpoints', summary: "The agent's checkpoints, newest first", status: 200, response: 'Checkpoints', description: 'The checkpoints kept (none: an empty list).' },
    async ({ core, ctx, query: q }) => {
      const checkpoints = (await core.listCheckpoints(ctx, q.agent_id)).map((c) => checkpointJson(checkpointView(c)));
      return ok('Checkpoints', { agent_id: q.agent_id, count: checkpoints.length, checkpoints } as ResponseOf<'Checkpoints'>);
    },
  ),

  route('GET', '/healthz', { auth: false, operationId: 'health', summary: 'Liveness; needs no token', status: 200, response: 'Health', description: 'Serving.' }, async () => ok('Health', { status: 'ok' })),

  // Readiness apart from liveness: a daemon whose store is unreachable still serves (and must not
  // be restarted for it), but cannot answer what reads the store. The reason, which names the
  // store, is for callers with a token (engram status), not for this route that needs none.
  route(
    'GET',
    '/readyz',
    { auth: false, operationId: 'ready', summary: 'Readiness: whether the store is reachable; needs no token', status: 200, response: 'Ready', description: 'Ready (503 with status unready while the store is unreachable).' },
    async ({ core }) =>
      (await core.storeReachable()) ? ok('Ready', { status: 'ready', store: 'reachable' }) : ok('Ready', { status: 'unready', store: 'unreachable' }, { status: 503 }),
  ),

  route(
    'GET',
    '/metrics',
    { operationId: 'metrics', summary: 'Prometheus metrics (text format 0.0.4)', status: 200, description: 'engram_facts_total, engram_requests_total, engram_request_duration_seconds, engram_pending_embeddings, engram_recall_stage_seconds_total, ...' },
    async ({ core, ctx, metrics }) => {
      authorizeDaemon(ctx, 'read the metrics of the whole daemon');
      return { text: { contentType: METRICS_CONTENT_TYPE, body: metrics.render(core.gauges(), core.consolidationCounters(), core.recallTimes()) } };
    },
  ),

  route(
    'GET',
    '/v1/openapi.json',
    { auth: false, operationId: 'openapi', summary: 'This document; needs no token (it holds no data)', status: 200, description: 'The OpenAPI 3.1 document.' },
    async () => ({ json: openApiDocument(ROUTES) }),
  ),
];
