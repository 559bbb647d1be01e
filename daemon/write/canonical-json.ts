// A JSON value's text with every object's keys sorted, stable across key order: what a request's
// digest is taken of. Written straight into one string (every write of a batch digests its
// request, and building sorted copies of each object first cost more than the hash).
//
// The text is exactly JSON.stringify of a copy whose keys were inserted in sorted order, which
// is how digests were always taken (and stored with request records, so it must never change):
// keys with undefined values are left out, and — as any JavaScript object enumerates them —
// keys that are array indices ("0", "17") come first, in numeric order; an object is its own
// enumerable keys even if it has a toJSON (the copy had none).

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

/** Sorted keys of `value` whose values are not undefined, in the order JSON.stringify would
 *  enumerate them from an object built in that order. */
function orderedKeys(value: Record<string, unknown>): string[] {
  const keys = Object.keys(value)
    .sort()
    .filter((k) => value[k] !== undefined);
  if (!keys.some(isArrayIndex)) return keys;
  const indices = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...keys.filter((k) => !isArrayIndex(k))];
}

/** The canonical text of `value`; undefined for a value JSON has no text for (as JSON.stringify). */
export function canonicalJson(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i > 0 ? ',' : ''}${canonicalJson(value[i]) ?? 'null'}`;
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of orderedKeys(record)) {
    const text = canonicalJson(record[key]);
    if (text === undefined) continue; // a function or symbol value: left out, as JSON.stringify does
    out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
    first = false;
  }
  return `${out}}`;
}
