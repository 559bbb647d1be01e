// A JSON value's text with every object's keys in a fixed order, whatever order they were given
// in: what digests of requests and content are taken of. Written straight into one string (a
// write, and each line of an import, digests one; building sorted copies first cost more than
// the hash). Both orders below are stored forever, in digests and request ids, so neither may
// ever change.

/** Largest array index: 2^32 - 2. */
const MAX_INDEX = 4_294_967_294;

const isArrayIndex = (key: string): boolean => {
  if (key === '0') return true;
  if (key.length === 0 || key.length > 10 || key.charCodeAt(0) < 49 || key.charCodeAt(0) > 57) return false;
  for (let i = 1; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return Number(key) <= MAX_INDEX;
};

/** How an object's keys are ordered:
 *  - 'object': as JavaScript enumerates an object whose keys were inserted in sorted order —
 *    keys that are array indices ("0", "17") first, in numeric order, then the rest sorted (the
 *    daemon's request digests, taken of JSON.stringify of such a copy);
 *  - 'sorted': all keys sorted as strings (the request ids engram import derives from lines). */
export type KeyOrder = 'object' | 'sorted';

function orderedKeys(value: Record<string, unknown>, order: KeyOrder): string[] {
  const keys = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort();
  if (order === 'sorted' || !keys.some(isArrayIndex)) return keys;
  const indices = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...keys.filter((k) => !isArrayIndex(k))];
}

/** The canonical text of `value`, as JSON.stringify would write it but for the key order; keys
 *  whose values are undefined are left out, and an object is its own enumerable keys even if it
 *  has a toJSON. Undefined for a value JSON has no text for (undefined, a function). */
export function canonicalJson(value: unknown, order: KeyOrder = 'object'): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i > 0 ? ',' : ''}${canonicalJson(value[i], order) ?? 'null'}`;
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of orderedKeys(record, order)) {
    const text = canonicalJson(record[key], order);
    if (text === undefined) continue; // a function or symbol: left out, as JSON.stringify does
    out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
    first = false;
  }
  return `${out}}`;
}
