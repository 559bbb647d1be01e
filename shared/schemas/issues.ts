// A zod validation failure in Engram's words: the field at fault (as the caller spelled it, with
// list positions: "tags[1]") and what is wrong with it, the way every other input error reads.
import type { z } from 'zod';
import { EngramError } from '../errors.ts';
import { confidenceWeight, kindOf, minRelevance, minScore, notFinite, similarityThreshold, slotConfidence, strength, windowDays } from '../validate.ts';

export interface InputProblem {
  field: string;
  problem: string;
}

/** "tags[1]", "meta.room"; the empty path is the whole input. */
export function fieldPath(path: readonly PropertyKey[], root = 'body'): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out || root;
}

const ZOD_DEFAULT = /^(Invalid|Too (small|big)|Unrecognized)/;

/** zod's type names as a JSON caller knows them (a record is a JSON object). */
const JSON_NAMES: Record<string, string> = { int: 'integer', record: 'object' };
const article = (type: string) => {
  const name = JSON_NAMES[type] ?? type;
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
};

/** z.int()'s own bounds: the whole numbers a double holds exactly, ±(2^53 - 1). */
const SAFE = Number.MAX_SAFE_INTEGER;
const beyondSafe = (issue: z.core.$ZodIssue): boolean =>
  issue.code === 'too_big' ? issue.origin === 'int' && issue.maximum === SAFE : issue.code === 'too_small' && issue.origin === 'int' && issue.minimum === -SAFE;

/** The daemon's own checks of the bounded numbers it checks itself, by field name (a name means
 *  one number throughout the API: a numeric `confidence` is a slot's). A door whose schema refuses
 *  such a number before the daemon sees it says what a door that leaves it to the daemon says. */
const DAEMON_BOUNDS: Record<string, (value: unknown, field: string) => unknown> = {
  confidence: slotConfidence,
  strength,
  confidence_weight: confidenceWeight,
  min_relevance: minRelevance,
  window_days: windowDays,
  min_score: minScore,
  threshold: similarityThreshold,
  duplicate_threshold: similarityThreshold,
};

/** The daemon's words for a number out of its field's bounds, if the daemon checks that field
 *  (and refuses the value: a schema bound that differs from the daemon's keeps zod's words). */
function daemonWording(issue: z.core.$ZodIssue, field: string, value: unknown): string | undefined {
  const name = issue.path.at(-1);
  const daemonCheck = typeof name === 'string' && Object.hasOwn(DAEMON_BOUNDS, name) ? DAEMON_BOUNDS[name] : undefined;
  if (!daemonCheck) return undefined;
  try {
    daemonCheck(value, field);
  } catch (error) {
    if (error instanceof EngramError && error.message.startsWith(`${field}: `)) return error.message.slice(field.length + 2);
  }
  return undefined;
}

/** The first issue of a failed parse (zod reports the first problem of each field in order).
 *  `unknownKey`: what a key the schema does not declare is called ("a parameter of this tool"). */
export function problemOf(error: z.ZodError, input: unknown, root = 'body', unknownKey = 'is not a field of this request'): InputProblem {
  let issue = error.issues[0]!;
  // A number past a double's exact integers (1e20) breaks z.int()'s bound first; the field's own
  // bound, when it has one, is the rule the caller can follow ("at most 100000", as 100001 is told).
  if (beyondSafe(issue)) issue = error.issues.find((other) => other !== issue && other.code === issue.code && fieldPath(other.path) === fieldPath(issue.path)) ?? issue;
  if (issue.code === 'unrecognized_keys') return { field: fieldPath([...issue.path, issue.keys[0]!], root), problem: unknownKey };
  const field = fieldPath(issue.path, root);
  const value = valueAt(input, issue.path);
  // A schema's own wording (given with `error:`) says it best; zod's defaults are reworded below.
  if (!ZOD_DEFAULT.test(issue.message)) return { field, problem: issue.message };
  const daemon = (issue.code === 'too_small' || issue.code === 'too_big') && (issue.origin === 'number' || issue.origin === 'int') && !beyondSafe(issue) ? daemonWording(issue, field, value) : undefined;
  if (daemon) return { field, problem: daemon };
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return { field, problem: 'is required' };
      // JSON parses a number too large for a double (1e400) to Infinity, which zod calls no number.
      if (typeof value === 'number' && !Number.isFinite(value)) return { field, problem: notFinite(value) };
      return { field, problem: `must be ${article(issue.expected)}, got ${kindOf(value)}` };
    case 'invalid_value':
      return { field, problem: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(value)}` };
    case 'too_small':
      if (beyondSafe(issue)) return { field, problem: `must be at least -(2^53 - 1), that is ${-SAFE}: past it a JSON number cannot hold every whole number exactly` };
      return { field, problem: issue.origin === 'array' ? `must hold at least ${issue.minimum} value${issue.minimum === 1 ? '' : 's'}` : issue.origin === 'string' ? 'must not be empty' : `must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${issue.minimum}` };
    case 'too_big':
      if (beyondSafe(issue)) return { field, problem: `must be at most 2^53 - 1, that is ${SAFE}: past it a JSON number cannot hold every whole number exactly` };
      return { field, problem: issue.origin === 'array' ? `must hold at most ${issue.maximum} values` : `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${issue.maximum}` };
    default:
      return { field, problem: issue.message };
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let at = input;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return at;
}
