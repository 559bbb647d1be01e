// Tool argument readers. MCP clients differ in how strictly they follow an input schema, and the
// server does not turn on global schema enforcement (that would change what other tools of a
// shared host accept), so every argument a handler uses is checked here,
// explicitly, before any backend call. "Supplied" means the key is present — an explicit null
// is a supplied value, and wrong.
import { EngramError } from '../errors.ts';
import * as check from '../validate.ts';
import { CONFIDENCE_LABELS, type ConfidenceLabel } from '../validate.ts';
import type { z } from 'zod';
import { INPUT_TYPES, type ToolName } from './input-schemas.ts';
import { problemOf } from '../schemas/issues.ts';

export type Args = Record<string, unknown>;

/** Bad arguments: reported as a tool error before anything reaches a backend. */
export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolInputError';
  }
}

export const supplied = (args: Args, key: string): boolean => Object.hasOwn(args, key);

const describe = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

/** Runs a shared/validate.ts check and reports its complaint as a tool input error. */
function validated<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof EngramError) throw new ToolInputError(error.message);
    throw error;
  }
}

/** An agent identity: non-empty, not only whitespace, no NUL, ≤ 256 bytes; never trimmed. */
export function identity(value: unknown, field: string): string {
  return validated(() => check.agentId(value, field));
}

export function requiredAgentId(args: Args): string {
  if (!supplied(args, 'agent_id')) throw new ToolInputError('agent_id is required');
  return identity(args.agent_id, 'agent_id');
}

export function requiredString(args: Args, key: string, what = key): string {
  if (!supplied(args, key)) throw new ToolInputError(`${what} is required`);
  return stringValue(args[key], key);
}

export function optionalString(args: Args, key: string): string | undefined {
  return supplied(args, key) ? stringValue(args[key], key) : undefined;
}

function stringValue(value: unknown, key: string): string {
  if (typeof value !== 'string') throw new ToolInputError(`${key} must be a string, got ${describe(value)}`);
  return value;
}

export function nonEmpty(value: string, key: string): string {
  if (value.trim() === '') throw new ToolInputError(`${key} must not be empty`);
  return value;
}

/** top_k: default 8; omitted or non-positive means the default, as in the options RPCs (where 0 is unset). */
export function topK(args: Args): number {
  if (!supplied(args, 'top_k')) return check.DEFAULT_TOP_K;
  const value = args.top_k;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new ToolInputError(`top_k must be an integer, got ${describe(value)}`);
  return value <= 0 ? check.DEFAULT_TOP_K : value;
}

export function booleanArg(args: Args, key: string, fallback: boolean): boolean {
  if (!supplied(args, key)) return fallback;
  if (typeof args[key] !== 'boolean') throw new ToolInputError(`${key} must be a boolean, got ${describe(args[key])}`);
  return args[key] as boolean;
}

/** A required, non-empty list of non-empty strings. */
export function stringList(args: Args, key: string): string[] {
  if (!supplied(args, key)) throw new ToolInputError(`${key} is required`);
  const value = args[key];
  if (!Array.isArray(value)) throw new ToolInputError(`${key} must be an array of strings, got ${describe(value)}`);
  if (value.length === 0) throw new ToolInputError(`${key} must hold at least one value`);
  return value.map((item, i) => nonEmpty(stringValue(item, `${key}[${i}]`), `${key}[${i}]`));
}

export function enumArg<T extends string>(args: Args, key: string, allowed: readonly T[], fallback: T): T {
  if (!supplied(args, key)) return fallback;
  const value = args[key];
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new ToolInputError(`${key} must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${value === null ? 'null' : JSON.stringify(value)}`);
  }
  return value as T;
}

// Confidence options: confidence only on writes that take a
// label, min_confidence and confidence_weight only on searches. Explicit null, wrong types,
// unknown labels and non-finite or out-of-range weights are errors, never ignored.

const SEARCH_TOOLS = new Set(['memory_search', 'memory_search_batch']);
const LABEL_TOOLS = new Set(['memory_add', 'memory_reflect']);

/** Rejects a confidence option on a tool that does not take it (before anything else runs).
 *  `declared`: the tool's own parameters; a slot's `confidence` is its own number, not a label. */
export function rejectMisplacedConfidence(tool: string, args: Args, declared: readonly string[]): void {
  if (supplied(args, 'confidence') && !LABEL_TOOLS.has(tool) && !declared.includes('confidence')) throw new ToolInputError(`confidence is not supported by ${tool}`);
  for (const key of ['min_confidence', 'confidence_weight']) {
    if (supplied(args, key) && !SEARCH_TOOLS.has(tool)) throw new ToolInputError(`${key} is not supported by ${tool}`);
  }
}

export function confidenceLabel(args: Args, key = 'confidence'): ConfidenceLabel | undefined {
  if (!supplied(args, key)) return undefined;
  const value = args[key];
  if (typeof value !== 'string' || !(CONFIDENCE_LABELS as readonly string[]).includes(value)) {
    throw new ToolInputError(`${key} must be one of ${CONFIDENCE_LABELS.join(', ')}, got ${value === null ? 'null' : JSON.stringify(value)}`);
  }
  return value as ConfidenceLabel;
}

export interface RecallConfidence {
  minConfidence?: ConfidenceLabel;
  confidenceWeight?: number;
  /** Whether the caller gave either option (then the result reports its retrieval policy). */
  requested: boolean;
}

export function recallConfidence(args: Args): RecallConfidence {
  const minConfidence = confidenceLabel(args, 'min_confidence');
  let confidenceWeight: number | undefined;
  if (supplied(args, 'confidence_weight')) {
    const value = args.confidence_weight;
    if (typeof value !== 'number') throw new ToolInputError(`confidence_weight must be a number, got ${describe(value)}`);
    confidenceWeight = validated(() => check.confidenceWeight(value));
  }
  return {
    ...(minConfidence !== undefined ? { minConfidence } : {}),
    ...(confidenceWeight !== undefined ? { confidenceWeight } : {}),
    requested: minConfidence !== undefined || confidenceWeight !== undefined,
  };
}

/** An optional list of non-empty strings (an empty list is the same as omitting it). */
export function optionalStringList(args: Args, key: string): string[] | undefined {
  if (!supplied(args, key)) return undefined;
  return validated(() => check.tags(args[key], key));
}

/** An optional list of strings, its type checked and nothing else: where each value's rules
 *  (not empty, how many, how long) are the write's to apply (a batch item, see writeFields). */
export function optionalStringArray(args: Args, key: string): string[] | undefined {
  if (!supplied(args, key)) return undefined;
  const value = args[key];
  if (!Array.isArray(value)) throw new ToolInputError(`${key} must be a list of strings, got ${describe(value)}`);
  return value.map((item, i) => stringValue(item, `${key}[${i}]`));
}

/** A list of 1..max argument objects (the items of a batch). */
export function objectList(args: Args, key: string, max: number): Args[] {
  if (!supplied(args, key)) throw new ToolInputError(`${key} is required`);
  const value = args[key];
  if (!Array.isArray(value)) throw new ToolInputError(`${key} must be a list, got ${describe(value)}`);
  if (value.length === 0 || value.length > max) throw new ToolInputError(`${key} must hold 1 to ${max} entries, got ${value.length}`);
  value.forEach((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new ToolInputError(`${key}[${i}] must be an object, got ${describe(item)}`);
  });
  return value as Args[];
}

/** Refuses a key the item's schema does not declare (a typo would otherwise drop a field). */
export function knownKeys(args: Args, allowed: readonly string[]): void {
  const unknown = Object.keys(args).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw new ToolInputError(`${unknown} is not a field (known: ${allowed.join(', ')})`);
}

/** Runs the checks of one item of a list, naming the item in what they report. */
export function within<T>(item: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ToolInputError) throw new ToolInputError(`${item}.${error.message}`);
    throw error;
  }
}

/** The optional fields of a write, checked and in the backend's names. `list` reads tags and
 *  entities: memory_add applies their rules here; a batch item checks only their type, so that
 *  a value a rule refuses (an empty tag) fails that item alone, in its slot, when the write
 *  applies the rules — the same code REST's and gRPC's batches run. */
export function writeFields(args: Args, list: (args: Args, key: string) => string[] | undefined = optionalStringList) {
  const occurredAt = supplied(args, 'occurred_at') ? validated(() => check.typedTimeMs(args.occurred_at, 'occurred_at')) : undefined;
  const meta = supplied(args, 'meta') ? jsonObject(args.meta, 'meta') : undefined;
  const fields = {
    occurredAt,
    tags: list(args, 'tags'),
    entities: list(args, 'entities'),
    source: optionalString(args, 'source'),
    context: optionalString(args, 'context'),
    meta,
    allowDuplicate: supplied(args, 'allow_duplicate') ? booleanArg(args, 'allow_duplicate', false) : undefined,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<typeof fields>;
}

function jsonObject(value: unknown, key: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ToolInputError(`${key} must be a JSON object, got ${describe(value)}`);
  return value as Record<string, unknown>;
}

/** A tool's arguments as its input schema reads them (defaults filled in), or a ToolInputError
 *  naming the first field at fault — for tools whose schema says all there is to check. */
export function schemaArgs<T extends ToolName>(tool: T, args: Args): z.infer<(typeof INPUT_TYPES)[T]> {
  const result = INPUT_TYPES[tool].safeParse(args);
  if (result.success) return result.data as z.infer<(typeof INPUT_TYPES)[T]>;
  // In the words every other door uses ("limit: must be at least 1", "turns[0].text: …").
  const { field, problem } = problemOf(result.error, args, 'arguments', 'is not a parameter of this tool');
  throw new ToolInputError(`${field}: ${problem}`);
}
