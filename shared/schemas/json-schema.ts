// JSON Schema from the zod definitions, in the plain form the served contracts use: no $schema
// key, nullable values as a type list (`["string", "null"]`), integers without zod's safe-integer
// bounds, free-form objects as `{ "type": "object" }`, exclusive unions as `oneOf` under an
// object root. Every door's schema (MCP tools, the OpenAPI document) is made here.
import { z } from 'zod';

export type JsonSchema = { [key: string]: unknown };

const SAFE = Number.MAX_SAFE_INTEGER;

function simplify(schema: JsonSchema): void {
  if (schema.type === 'integer') {
    if (schema.minimum === -SAFE) delete schema.minimum;
    if (schema.maximum === SAFE) delete schema.maximum;
  }
  // z.record(z.string(), z.unknown()): any JSON object.
  if (schema.type === 'object' && schema.propertyNames && !schema.properties) {
    delete schema.propertyNames;
    delete schema.additionalProperties;
  }
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (anyOf?.length === 2 && anyOf.some((s) => s.type === 'null' && Object.keys(s).length === 1)) {
    const value = anyOf.find((s) => s.type !== 'null')!;
    delete schema.anyOf;
    Object.assign(schema, value, { type: [value.type, 'null'] });
    if (Array.isArray(value.enum)) schema.enum = [...value.enum, null];
  }
  if (Array.isArray(schema.oneOf) && schema.type === undefined) schema.type = 'object';
}

const options = (io: 'input' | 'output') => ({
  target: 'draft-2020-12' as const,
  io,
  unrepresentable: 'any' as const,
  override: (ctx: { jsonSchema: unknown }) => simplify(ctx.jsonSchema as JsonSchema),
});

/** `io`: "input" for what a caller sends (defaults make a key optional), "output" for answers. */
export function jsonSchema(type: z.ZodType, io: 'input' | 'output' = 'output'): JsonSchema {
  const schema = z.toJSONSchema(type, options(io)) as JsonSchema;
  delete schema.$schema;
  return schema;
}

/** Every schema of a registry by its id, each referring to the others as `uri(id)`. */
export function jsonSchemas(registry: z.core.$ZodRegistry<{ id: string }>, io: 'input' | 'output', uri: (id: string) => string): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(registry, { ...options(io), uri }) as { schemas: Record<string, JsonSchema> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return schemas;
}

/** An RFC 3339 date-time (as every door prints times). */
export const dateTime = () => z.string().meta({ format: 'date-time' });
