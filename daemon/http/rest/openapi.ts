// The OpenAPI 3.1 document served at GET /v1/openapi.json. Written by hand (it is the contract
// a reader sees), and checked against the route table and live responses by test/rest.test.ts,
// so the two cannot drift apart unnoticed. Schemas (openapi-components.ts) are JSON Schema
// 2020-12, as 3.1 requires.
import { ENGRAM_VERSION } from '../../../shared/version.ts';
import { json, param, parameters, ref, response, responses, schemas } from './openapi-components.ts';

/** Errors every authenticated operation may answer. */
const commonErrors = { '401': response('Unauthorized'), '500': response('Internal') };

const bodyOf = (schema: string) => ({ required: true, content: { 'application/json': { schema: ref(schema) } } });
const withBody = { '400': response('BadRequest'), '413': response('PayloadTooLarge'), ...commonErrors };

export function openApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Engram REST API',
      version: ENGRAM_VERSION,
      description:
        'JSON over HTTP on the Engram daemon (engram daemon --http ADDR). Every route but GET /healthz needs ' +
        '`Authorization: Bearer <token>`. Every response carries `Cache-Control: no-store`. Unknown query ' +
        'parameters and body fields are rejected (400); a method a path does not serve is 405.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    paths: {
      '/v1/facts': {
        post: {
          operationId: 'remember',
          summary: 'Remember a fact',
          requestBody: bodyOf('RememberRequest'),
          responses: { '201': json(ref('FactEnvelope'), 'The stored fact; Location names it.'), ...withBody },
        },
        get: {
          operationId: 'listFacts',
          summary: "List a namespace's facts, oldest first (retired ones included)",
          parameters: [param('agent'), param('limit'), param('page_token')],
          responses: { '200': json(ref('FactPage'), 'One page.'), '400': response('BadRequest'), ...commonErrors },
        },
      },
      '/v1/facts/{id}': {
        get: {
          operationId: 'getFact',
          summary: 'Read one fact',
          parameters: [param('id'), param('agent')],
          responses: { '200': json(ref('FactEnvelope'), 'The fact.'), '400': response('BadRequest'), '404': response('NotFound'), ...commonErrors },
        },
        delete: {
          operationId: 'forgetFact',
          summary: 'Forget a fact: retire it (superseded_by "agent"); it stays listable but is no longer recalled',
          parameters: [param('id'), param('agent')],
          responses: { '200': json(ref('FactEnvelope'), 'The retired fact.'), '400': response('BadRequest'), '404': response('NotFound'), ...commonErrors },
        },
      },
      '/v1/recall': {
        get: {
          operationId: 'recall',
          summary: 'Recall the facts that best match a query (legacy ranking: no confidence preference)',
          parameters: [param('agent'), param('q'), param('k')],
          responses: { '200': json(ref('RecallResult'), 'Best first.'), '400': response('BadRequest'), ...commonErrors },
        },
      },
      '/v1/recall/explain': {
        get: {
          operationId: 'recallExplain',
          summary: 'Recall with one receipt per fact showing how its score was made (same facts and order as recall)',
          parameters: [param('agent'), param('q'), param('k')],
          responses: { '200': json(ref('ExplainResult'), 'Receipts, best first.'), '400': response('BadRequest'), ...commonErrors },
        },
      },
      '/v1/forget': {
        post: {
          operationId: 'forgetByQuery',
          summary: 'Retire every fact a query recalls (up to k); requires "confirm": true',
          requestBody: bodyOf('ForgetRequest'),
          responses: { '200': json(ref('ForgetResult'), 'What was retired.'), ...withBody },
        },
      },
      '/v1/agents': {
        get: {
          operationId: 'listAgents',
          summary: 'Agent namespaces with at least one fact',
          responses: { '200': json(ref('Agents'), 'Sorted agent ids.'), ...commonErrors },
        },
      },
      '/v1/stats': {
        get: {
          operationId: 'stats',
          summary: 'Counts for one namespace or the whole store',
          parameters: [param('agentOptional')],
          responses: { '200': json(ref('Stats'), 'Counts.'), '400': response('BadRequest'), ...commonErrors },
        },
      },
      '/v1/checkpoints': {
        post: {
          operationId: 'saveCheckpoint',
          summary: "Save an agent's working state (older checkpoints beyond the per-agent count expire)",
          requestBody: bodyOf('CheckpointRequest'),
          responses: { '201': json(ref('CheckpointSaved'), 'The saved checkpoint.'), ...withBody },
        },
      },
      '/v1/checkpoints/latest': {
        get: {
          operationId: 'resumeCheckpoint',
          summary: "The agent's latest checkpoint",
          parameters: [param('agent')],
          responses: { '200': json(ref('Checkpoint'), 'The latest checkpoint.'), '400': response('BadRequest'), '404': response('NotFound'), ...commonErrors },
        },
      },
      '/healthz': {
        get: {
          operationId: 'health',
          summary: 'Liveness; needs no token',
          security: [],
          responses: { '200': json(ref('Health'), 'Serving.') },
        },
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          summary: 'Prometheus metrics (text format 0.0.4)',
          responses: {
            '200': { description: 'engram_facts_total, engram_requests_total, engram_request_duration_seconds, engram_pending_embeddings, ...', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } },
            ...commonErrors,
          },
        },
      },
      '/v1/openapi.json': {
        get: {
          operationId: 'openapi',
          summary: 'This document',
          responses: { '200': json({ type: 'object' }, 'The OpenAPI 3.1 document.'), ...commonErrors },
        },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The token file in the data directory, --token, or ENGRAM_TOKEN.' } },
      schemas,
      parameters,
      responses,
    },
  };
}
