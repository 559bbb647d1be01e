// The OpenAPI 3.1 document served at GET /v1/openapi.json, generated from the route table
// (routes.ts, handed in) and the zod schemas (schemas.ts), so it describes exactly what is served and how
// it is validated. Its schemas are JSON Schema 2020-12, as 3.1 requires.
import { z } from 'zod';
import { jsonSchema, jsonSchemas, type JsonSchema } from '../../../shared/schemas/json-schema.ts';
import { ENGRAM_VERSION } from '../../../shared/version.ts';
import { BODY_LIMIT } from '../body.ts';
import { ALIASES, REQUESTS, RESPONSES } from './schemas.ts';
import type { Route } from './route.ts';

const uri = (id: string) => `#/components/schemas/${id}`;
const ref = (id: string) => ({ $ref: uri(id) });
const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } });

const ERRORS = {
  '400': ['BadRequest', 'Invalid input; the message and `field` name the field as you spelled it.'],
  '401': ['Unauthorized', 'Missing, wrong or revoked bearer token.'],
  '403': ['Forbidden', 'The agent token presented does not grant this right on this namespace.'],
  '404': ['NotFound', 'No such fact, entity, slot, recipe, cluster, token or checkpoint; when a request field named it, `field` names that field as you spelled it (a path\'s {id} is "id").'],
  '409': ['Conflict', 'The request conflicts with the stored state (e.g. a revise target already retired).'],
  '413': ['PayloadTooLarge', `The body exceeds ${BODY_LIMIT} bytes (1 MiB); \`field\` is "body".`],
  '500': ['Internal', 'An internal error; never carries a stack trace (see the `ref` in the daemon log).'],
} as const;

function registryOf(schemas: Record<string, z.ZodType>) {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  return registry;
}

/** The query parameters of a route: its schema's keys, then their (deprecated) aliases. */
function queryParameters(route: Route): object[] {
  const properties = (jsonSchema(route.query, 'input').properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((jsonSchema(route.query, 'input').required ?? []) as string[]);
  const out: object[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    const { description, ...type } = schema;
    out.push({ name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: type });
  }
  for (const [alias, canonical] of Object.entries(ALIASES)) {
    if (!properties[canonical]) continue;
    const { description: _d, ...type } = properties[canonical]!;
    out.push({ name: alias, in: 'query', required: false, deprecated: true, description: `Alias of ${canonical} (the older REST name); give one or the other.`, schema: type });
  }
  return out;
}

/** What a path's {id} names, by the collection it follows: a client generated from the document
 *  shows this beside the parameter, so "Fact id." on a token's or a write's path misleads. */
const PATH_ID_DESCRIPTIONS: Record<string, string> = {
  facts: 'Fact id.',
  clusters: 'Cluster id (from GET /v1/clusters).',
  slots: 'Slot record id.',
  tokens: 'Token id (from GET /v1/tokens; not the secret).',
  writes: 'The request id the write was sent with.',
  'retrieval-recipes': 'Recipe name.',
};

function pathParamDescription(path: string, at: number): string {
  const collection = path.slice(0, at).split('/').filter(Boolean).at(-1) ?? '';
  const description = PATH_ID_DESCRIPTIONS[collection];
  // A new route under a new collection must say what its id is: found when the document is built.
  if (!description) throw new Error(`openapi: no description for the id of ${path} (add "${collection}" to PATH_ID_DESCRIPTIONS)`);
  return description;
}

function operationOf(route: Route) {
  const op = route.operation;
  const success = op.response ? json(ref(op.response), op.description) : op.operationId === 'metrics'
    ? { description: op.description, content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } }
    : json({ type: 'object' }, op.description);
  const errors = [...op.errors, ...(route.auth ? (['401', '403'] as const) : []), '500' as const];
  const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, description: pathParamDescription(route.path, m.index), schema: { type: 'string' } }));
  const parameters = [...pathParams, ...queryParameters(route)];
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(route.auth ? {} : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: ref(route.body) } } } } : {}),
    responses: { [String(op.status)]: success, ...Object.fromEntries(errors.map((s) => [s, { $ref: `#/components/responses/${ERRORS[s][0]}` }])) },
  };
}

/** Body aliases are documented beside their canonical field (deprecated), so a strict reader of
 *  the document accepts what the server accepts. */
function withAliases(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return schema;
  for (const [alias, canonical] of Object.entries(ALIASES)) {
    if (properties[canonical]) properties[alias] = { ...properties[canonical], deprecated: true, description: `Alias of ${canonical}; give one or the other.` };
  }
  return schema;
}

export function openApiDocument(routes: readonly Route[]) {
  const requests = jsonSchemas(registryOf(REQUESTS), 'input', uri);
  const responses = jsonSchemas(registryOf(RESPONSES), 'output', uri);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Engram REST API',
      version: ENGRAM_VERSION,
      description:
        'JSON over HTTP on the Engram daemon (engram daemon --http ADDR). Every route but GET /healthz, GET /readyz and this document needs ' +
        '`Authorization: Bearer <token>`. Every response carries `Cache-Control: no-store`. Field names are those of the gRPC protocol ' +
        'and the MCP tools (agent_id, query, top_k, page_size); the older names agent, q, k and limit are accepted as aliases. Unknown ' +
        'query parameters and body fields are rejected (400); a method a path does not serve is 405. Recall takes the per-call options of ' +
        "the protocol's RecallOptions, flat: weights (GET: vector,keyword,recency[,decay[,graph]]; a JSON body: an object), min_relevance, " +
        'window_days, tags_any, tags_all, created_after, created_before, occurred_after, occurred_before, min_decay_score (times are a date ' +
        'or an RFC 3339 time), beside min_confidence, confidence_weight, kg and recipe.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The token file in the data directory, --token, or ENGRAM_TOKEN.' } },
      schemas: { ...responses, ...Object.fromEntries(Object.entries(requests).map(([id, s]) => [id, withAliases(s)])) },
      responses: Object.fromEntries(Object.values(ERRORS).map(([name, description]) => [name, json(ref('Error'), description)])),
    },
  };
}
