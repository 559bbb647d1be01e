// The MCP tools agents were written against must keep working: every tool served by release 0.2.0
// (its tools/list, frozen in test/fixtures/mcp-tools-0.2.0.json) is still served, and each of its
// schemas is a revision of the old one: every old key is still there with the same type, bounds,
// enum and default, the required set is the same, and anything new is optional.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { TOOLS } from '../../shared/mcp/tools.ts';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[]; items?: Schema; oneOf?: Schema[] };
interface FrozenTool {
  name: string;
  title: string;
  inputSchema: Schema;
  outputSchema: Schema;
  annotations: Record<string, unknown>;
}

const frozen = JSON.parse(readFileSync(new URL('../fixtures/mcp-tools-0.2.0.json', import.meta.url), 'utf8')) as FrozenTool[];
/** Wording may improve; everything else is contract. */
const PROSE = new Set(['description', 'title']);

/** The places where `served` is not a revision of `old`, as paths (empty: it is one). */
function breaks(old: Schema, served: Schema, path: string): string[] {
  const found: string[] = [];
  for (const [key, value] of Object.entries(old)) {
    if (PROSE.has(key) || key === 'properties' || key === 'items' || key === 'oneOf') continue;
    if (JSON.stringify(value) !== JSON.stringify(served[key])) found.push(`${path}.${key}: ${JSON.stringify(value)} became ${JSON.stringify(served[key])}`);
  }
  for (const [name, child] of Object.entries(old.properties ?? {})) {
    const now = served.properties?.[name];
    if (!now) found.push(`${path}.${name} is gone`);
    else found.push(...breaks(child, now, `${path}.${name}`));
  }
  for (const name of Object.keys(served.properties ?? {})) {
    if (!old.properties?.[name] && served.required?.includes(name)) found.push(`${path}.${name} is new and required`);
  }
  if (old.items) found.push(...(served.items ? breaks(old.items, served.items, `${path}[]`) : [`${path}[] lost its items`]));
  old.oneOf?.forEach((branch, i) => found.push(...(served.oneOf?.[i] ? breaks(branch, served.oneOf[i]!, `${path}.oneOf[${i}]`) : [`${path}.oneOf[${i}] is gone`])));
  return found;
}

describe('MCP tool schemas are revisions of release 0.2.0', () => {
  test.each(frozen.map((t) => [t.name, t] as const))('%s', (name, old) => {
    const served = TOOLS.find((t) => t.name === name);
    expect(served, `${name} is no longer served`).toBeDefined();
    expect(served!.annotations).toEqual(old.annotations);
    expect(breaks(old.inputSchema, served!.inputSchema as Schema, `${name}.input`)).toEqual([]);
    expect(breaks(old.outputSchema, served!.outputSchema as Schema, `${name}.output`)).toEqual([]);
  });

  test('the check finds a break: a removed key, a changed type, a new required key', () => {
    const old: Schema = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer', default: 8 } }, required: ['a'] };
    expect(breaks(old, { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, 't')).toEqual(['t.b is gone']);
    expect(breaks(old, { type: 'object', properties: { a: { type: 'number' }, b: { type: 'integer', default: 8 } }, required: ['a'] }, 't')).toHaveLength(1);
    expect(breaks(old, { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer', default: 8 }, c: { type: 'string' } }, required: ['a', 'c'] }, 't')).toHaveLength(2);
    expect(breaks(old, { type: 'object', properties: { a: { type: 'string', description: 'now documented' }, b: { type: 'integer', default: 8 }, c: {} }, required: ['a'] }, 't')).toEqual([]);
  });
});
