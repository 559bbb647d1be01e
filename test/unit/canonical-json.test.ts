import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalJson } from '../../shared/canonical-json.ts';
import { derivedRequestId } from '../../client/cli/io/records.ts';
import { requestDigest } from '../../daemon/write/pipeline.ts';

// How request digests were taken before canonicalJson: a copy with its keys inserted in sorted
// order, then JSON.stringify. Digests are stored with request records, so canonicalJson must give
// the same text for every value, or a replay after an upgrade would be refused as a new request.
function sortedCopyJson(value: unknown): string | undefined {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined).map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
    return v;
  };
  return JSON.stringify(canonical(value));
}

// How engram import derived request ids before: keys sorted as strings, written with map/join.
// Ids derived from lines are stored, so a re-import after an upgrade must derive the same ones.
function sortedKeysJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedKeysJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedKeysJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

const keys = fc.oneof(fc.string(), fc.constantFrom('0', '1', '9', '10', '007', '-1', '1.5', '4294967294', '4294967295', '__proto__', 'a', 'B'));
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.constant(undefined),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.string(),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(keys, tie('value'), { maxKeys: 6 }),
  ),
})).value;

describe('canonical JSON of a request', () => {
  test('is the text the sorted-copy digest took, for any JSON-like value (numeric keys, undefined, NaN, nesting)', () => {
    fc.assert(
      fc.property(values, (value) => {
        expect(canonicalJson(value)).toBe(sortedCopyJson(value));
      }),
      { numRuns: 3000, seed: 20261205 },
    );
  });

  test('with keys sorted as strings, is the text engram import derived request ids from, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.dictionary(keys, fc.jsonValue(), { maxKeys: 6 }), (json, object) => {
        expect(canonicalJson(json, 'sorted')).toBe(sortedKeysJson(json));
        expect(canonicalJson(object, 'sorted')).toBe(sortedKeysJson(object));
      }),
      { numRuns: 3000, seed: 20261205 },
    );
    // A line's id as the version before this canonical text derived it.
    expect(derivedRequestId(['engram-import-v1', 'agent', { text: 'x', tags: ['b', 'a'], metaJson: '{"10":1,"9":2}' }])).toBe('c72c4011-7bd9-fc4f-408e-a3c892c4258b');
  });

  test('does not depend on key order, and a put request digests as it always did', () => {
    const a = { op: 'put', text: 'x', tags: ['b', 'a'], meta: { z: 1, a: { '10': 1, '9': 2, k: [1, undefined] } }, occurredAt: undefined };
    const b = { meta: { a: { k: [1, undefined], '9': 2, '10': 1 }, z: 1 }, tags: ['b', 'a'], text: 'x', op: 'put' };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"meta":{"a":{"9":2,"10":1,"k":[1,null]},"z":1},"op":"put","tags":["b","a"],"text":"x"}');
    // The digest of this request as the previous implementation computed it.
    expect(requestDigest(a)).toBe(requestDigest(JSON.parse(sortedCopyJson(a)!)));
  });
});
