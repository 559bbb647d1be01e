// HTTP input → the typed values a route hands the core. URL parameters arrive as text, so each
// is first turned into the type its schema declares (an integer, a number); then aliases become
// their canonical names, and the zod schema checks the whole. Errors name the field as the
// caller spelled it. Rules about values the core also enforces (lengths, id syntax) stay there.
import type { z } from 'zod';
import { jsonSchema } from '../../../shared/schemas/json-schema.ts';
import { problemOf } from '../../../shared/schemas/issues.ts';
import { badRequest } from '../errors.ts';
import { ALIASES } from './schemas.ts';

export type ObjectSchema = z.ZodObject;

export interface Parsed<T> {
  value: T;
  /** Canonical name → the name the caller used (itself, or an alias), for every field given. */
  spelled: Record<string, string>;
}

/** The names a schema accepts: its own keys and their aliases. */
export function acceptedNames(schema: ObjectSchema): string[] {
  const keys = Object.keys(schema.shape);
  return [...keys, ...Object.keys(ALIASES).filter((alias) => keys.includes(ALIASES[alias]!))];
}

export function parseQuery<S extends ObjectSchema>(schema: S, query: URLSearchParams): Parsed<z.infer<S>> {
  const raw: Record<string, unknown> = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    // A list parameter is repeated (slot_names=a&slot_names=b); any other is given once.
    if (typeOf(schema, name) === 'array') raw[name] = values;
    else if (values.length > 1) throw badRequest(name, 'must be given at most once');
    else raw[name] = values[0];
  }
  return parse(schema, raw, 'parameter of this route', (canonical, value) => fromText(schema, canonical, value));
}

export function parseBody<S extends ObjectSchema>(schema: S, body: Record<string, unknown>): Parsed<z.infer<S>> {
  return parse(schema, body, 'field of this request', (_, value) => value);
}

function parse<S extends ObjectSchema>(schema: S, input: Record<string, unknown>, what: string, convert: (canonical: string, value: unknown, given: string) => unknown): Parsed<z.infer<S>> {
  const accepted = acceptedNames(schema);
  const spelled: Record<string, string> = {};
  const value: Record<string, unknown> = {};
  for (const [given, raw] of Object.entries(input)) {
    if (!accepted.includes(given)) throw badRequest(given, `is not a ${what} (accepted: ${accepted.join(', ') || 'none'})`);
    const canonical = schema.shape[given] ? given : ALIASES[given]!;
    if (canonical !== given && Object.hasOwn(input, canonical)) throw badRequest(given, `give ${canonical} or its alias ${given}, not both`);
    spelled[canonical] = given;
    try {
      value[canonical] = convert(canonical, raw, given);
    } catch (error) {
      if (error instanceof TypeError) throw badRequest(given, error.message);
      throw error;
    }
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const { field, problem } = problemOf(result.error, value);
    const head = field.split(/[.[]/)[0]!;
    throw badRequest(spelled[head] ? spelled[head] + field.slice(head.length) : field, problem);
  }
  return { value: result.data as z.infer<S>, spelled };
}

const declaredTypes = new WeakMap<ObjectSchema, Record<string, unknown>>();

/** A URL parameter's text as the type its schema declares. */
function typeOf(schema: ObjectSchema, name: string): unknown {
  let types = declaredTypes.get(schema);
  if (!types) {
    const properties = (jsonSchema(schema, 'input').properties ?? {}) as Record<string, { type?: unknown }>;
    types = Object.fromEntries(Object.entries(properties).map(([key, p]) => [key, p.type]));
    declaredTypes.set(schema, types);
  }
  // A route whose schema has a parameter of the alias's name (slots' and the graph's `limit`)
  // means its own, not the alias's target.
  return types[Object.hasOwn(schema.shape, name) ? name : (ALIASES[name] ?? name)];
}

function fromText(schema: ObjectSchema, name: string, text: unknown): unknown {
  if (Array.isArray(text)) return text;
  const s = String(text);
  switch (typeOf(schema, name)) {
    case 'integer':
      if (!/^[+-]?\d{1,15}$/.test(s)) throw new TypeError(`must be an integer, got ${JSON.stringify(s)}`);
      return Number(s);
    case 'number':
      if (s.trim() === '' || !Number.isFinite(Number(s))) throw new TypeError(`must be a number, got ${JSON.stringify(s)}`);
      return Number(s);
    case 'boolean':
      if (s !== 'true' && s !== 'false') throw new TypeError(`must be true or false, got ${JSON.stringify(s)}`);
      return s === 'true';
    default:
      return s;
  }
}
