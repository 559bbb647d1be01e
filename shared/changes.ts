// Read-your-writes across daemons that share a store. Every write's answer carries the change
// number it committed (gRPC trailing metadata / HTTP header engram-change); a call carrying
// engram-min-change is served once the daemon has applied that change, so a caller reading
// through another daemon than it wrote through still sees its own writes.
import { invalidArgument } from './errors.ts';

export const CHANGE_KEY = 'engram-change';
export const MIN_CHANGE_KEY = 'engram-min-change';

/** The change number a caller asks to have applied (0: none asked). */
export function parseMinChange(value: unknown): number {
  if (value === undefined || value === null || value === '') return 0;
  const text = String(value).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) throw invalidArgument(MIN_CHANGE_KEY, `must be a change number (a whole number ≥ 0) as a write's ${CHANGE_KEY} gave it, got "${String(value).slice(0, 40)}"`);
  return n;
}
