// Turning URL and body text into the values the core takes. Only what HTTP itself leaves
// ambiguous is decided here (a repeated parameter, "abc" where a number goes, RFC 3339 → ms);
// every rule about the values (ranges, emptiness, lengths) stays in the core.
import * as check from '../../../shared/validate.ts';
import { badRequest } from '../errors.ts';

/** Rejects query parameters the route does not declare. */
export function checkQueryNames(query: URLSearchParams, allowed: readonly string[]): void {
  for (const name of new Set(query.keys())) {
    if (!allowed.includes(name)) {
      throw badRequest(name, allowed.length ? `is not a parameter of this route (accepted: ${allowed.join(', ')})` : 'is not a parameter of this route (it takes none)');
    }
  }
}

/** One query parameter; undefined when absent; a repeated parameter is ambiguous and refused. */
export function param(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw badRequest(name, 'must be given at most once');
  return values[0];
}

/** An integer query parameter; the core checks its range. */
export function intParam(query: URLSearchParams, name: string): number | undefined {
  const raw = param(query, name);
  if (raw === undefined) return undefined;
  if (!/^[+-]?\d{1,15}$/.test(raw)) throw badRequest(name, `must be an integer, got "${raw}"`);
  return Number(raw);
}

/** Rejects body fields the route does not declare (a misspelt "agent" would otherwise vanish). */
export function checkBodyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw badRequest(key, `is not a field of this request (accepted: ${allowed.join(', ')})`);
  }
}

/** An RFC 3339 time (the shape every response prints) → milliseconds; absent stays absent. */
export const timeField = (value: unknown, field: string): number | undefined => (value === undefined ? undefined : check.rfc3339Ms(value, field));
