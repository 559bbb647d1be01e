// What a REST route is: its method and path, what it takes (zod schemas), how the OpenAPI
// document describes it, and its handler. The table of routes is routes.ts.
import type { z } from 'zod';
import type { CallContext } from '../../core/context.ts';
import type { Engram } from '../../core/engram.ts';
import type { Metrics } from './metrics.ts';
import type { ObjectSchema } from './parse.ts';
import { NoQuery, type REQUESTS, type RequestName, type ResponseName } from './schemas.ts';

export type Method = 'GET' | 'POST' | 'DELETE';

/** What a route handler gets: the core, the call's context, and the request's checked parts. */
export interface RestInput<Q, B> {
  core: Engram;
  ctx: CallContext;
  params: Record<string, string>;
  query: Q;
  body: B;
  metrics: Metrics;
}

export interface Reply {
  status?: number;
  /** Serialised as JSON unless `text` is set. */
  json?: unknown;
  text?: { contentType: string; body: string };
  headers?: Record<string, string>;
}

/** How the OpenAPI document describes a route. */
export interface Operation {
  operationId: string;
  summary: string;
  /** The success status and the component its body is (absent: not JSON). */
  status: number;
  response?: ResponseName;
  description: string;
  /** Error statuses beyond those every route may answer. */
  errors: readonly ('400' | '404' | '409' | '413')[];
}

export interface Route {
  method: Method;
  /** An OpenAPI path template ("/v1/facts/{id}"). */
  path: string;
  /** false for routes anyone may call (health, the OpenAPI document: they hold no data). */
  auth: boolean;
  /** The query parameters; any other is a 400 (a typo like top_x= would otherwise be ignored). */
  query: ObjectSchema;
  /** The JSON body, for POSTs. */
  body?: RequestName;
  operation: Operation;
  handle(input: RestInput<unknown, unknown>): Promise<Reply>;
}

type Spec<Q extends ObjectSchema, B extends RequestName | undefined> = {
  auth?: boolean;
  query?: Q;
  body?: B;
} & Omit<Operation, 'errors'> & { errors?: Operation['errors'] };

type BodyOf<B> = B extends RequestName ? z.infer<(typeof REQUESTS)[B]> : undefined;

export function route<Q extends ObjectSchema = typeof NoQuery, B extends RequestName | undefined = undefined>(
  method: Method,
  path: string,
  spec: Spec<Q, B>,
  handle: (input: RestInput<z.infer<Q>, BodyOf<B>>) => Promise<Reply>,
): Route {
  const { auth, query, body, errors, ...operation } = spec;
  const defaults: Operation['errors'] = body || query ? ['400'] : [];
  return {
    method,
    path,
    auth: auth ?? true,
    query: query ?? NoQuery,
    ...(body ? { body } : {}),
    operation: { ...operation, errors: errors ?? (body ? [...defaults, '413'] : defaults) },
    handle: handle as Route['handle'],
  };
}

