// Input rules. The daemon enforces every rule before any effect; the client
// runs the same checks early so a bad call fails without a round trip. Each error names the field.
import { invalidArgument } from './errors.ts';
import { MAX_SLOT_VALUE_BYTES } from './slots.ts';

export const SHARED_AGENT_ID = '__shared__';

export interface Limits {
  maxTextBytes: number;
  maxTopK: number;
  maxBatch: number;
  /** Items per BatchPut; 0 = the daemon has no batch write. */
  maxWriteBatch: number;
  /** A slot value's size as JSON; 0 = the daemon has no slots. */
  maxSlotValueBytes: number;
  /** One BatchRecall's work: queries × top_k; 0 = the daemon names no budget. */
  maxBatchResults: number;
  /** One BatchRecall's queries together, UTF-8 bytes; 0 = the daemon names no budget. */
  maxBatchQueryBytes: number;
}

// A batch's budget keeps one call from holding the daemon for seconds: 64 queries of 32 KB at
// top_k 1,000 took 4.6 s and delayed every other client; within it a batch takes well under one.
export const DEFAULT_LIMITS: Limits = { maxTextBytes: 32 * 1024, maxTopK: 1000, maxBatch: 64, maxWriteBatch: 1000, maxSlotValueBytes: MAX_SLOT_VALUE_BYTES, maxBatchResults: 16_384, maxBatchQueryBytes: 256 * 1024 };
export const DEFAULT_TOP_K = 8;
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

const MAX_AGENT_ID_BYTES = 256;
const MAX_REQUEST_ID_BYTES = 128;
const MAX_TAGS = 64;
export const MAX_TAG_BYTES = 256;
const MAX_SOURCE_BYTES = 1024;
const FACT_ID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalidArgument(field, `must be a string, got ${kindOf(value)}`);
  if (!value.isWellFormed()) throw invalidArgument(field, 'must be valid UTF-8 (lone surrogate found)');
  return value;
}

/** A camelCase name as the wire and the JSON doors spell it ("createdAfter" → "created_after"). */
export const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A value's kind as error messages name it: "null", "an array", "string", "number"… */
export function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** What JSON text that must hold an object holds: the object, or why it is not one — it does not
 *  parse (`syntax`: the parser's message), or it parses to something else (`got`: its kind). Every
 *  front door words its own error from this. */
export type JsonObjectResult = { object: Record<string, unknown> } | { syntax: string } | { got: string };

export function parseJsonObject(text: string): JsonObjectResult {
  // Said in words: the parser's own message for it is "Unexpected end of JSON input".
  if (text.trim() === '') return { syntax: text === '' ? 'it is empty' : 'it holds only white space' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { syntax: (error as Error).message };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { got: kindOf(parsed) };
  return { object: parsed as Record<string, unknown> };
}

/** What a client dials: "unix:PATH", or "HOST:PORT" ("[v6]:PORT"), optionally after grpc's
 *  "dns:" scheme. Checked before connecting: grpc-js would otherwise retry a malformed address
 *  until the connect deadline and then call it unreachable. */
export function dialAddress(value: unknown, field = 'address'): string {
  const address = requireString(value, field);
  const socket = /^unix:(?:\/\/)?(.*)$/.exec(address);
  if (socket) {
    if (socket[1] === '') throw invalidArgument(field, `"${address}" names no socket path (unix:PATH)`);
    return address;
  }
  const hostPort = /^(?:\[([^\]]+)\]|([^:[\]/]+)):(\d{1,5})$/.exec(address.replace(/^dns:(?:\/\/[^/]*\/)?/, ''));
  const port = Number(hostPort?.[3]);
  if (!hostPort || port < 1 || port > 65535) throw invalidArgument(field, `expected unix:PATH or HOST:PORT (e.g. 127.0.0.1:7777), got "${truncate(address)}"`);
  return address;
}

/** Agent ids are never trimmed or normalised: " a " and "a" are distinct namespaces. */
export function agentId(value: unknown, field = 'agent_id'): string {
  const id = requireString(value, field);
  if (id.length === 0) throw invalidArgument(field, 'must not be empty');
  if (id.trim().length === 0) throw invalidArgument(field, 'must not be only whitespace');
  if (id.includes('\u0000')) throw invalidArgument(field, 'must not contain NUL');
  if (utf8Bytes(id) > MAX_AGENT_ID_BYTES) throw invalidArgument(field, `must be at most ${MAX_AGENT_ID_BYTES} UTF-8 bytes`);
  return id;
}

/** Whether a value is a valid agent id (for a check that must not throw). */
export function isAgentId(value: unknown): value is string {
  try {
    agentId(value);
    return true;
  } catch {
    return false;
  }
}

export function factText(value: unknown, limits: Limits, field = 'text'): string {
  const text = requireString(value, field);
  if (text.length === 0) throw invalidArgument(field, 'must not be empty');
  if (text.trim().length === 0) throw invalidArgument(field, 'must not be only whitespace');
  if (utf8Bytes(text) > limits.maxTextBytes) {
    throw invalidArgument(field, `is ${utf8Bytes(text)} bytes; the limit is ${limits.maxTextBytes}`);
  }
  return text;
}

/** A query may be empty (recency-only recall) but must be well-formed and within the text limit. */
export function query(value: unknown, limits: Limits, field = 'query'): string {
  const q = requireString(value, field);
  if (utf8Bytes(q) > limits.maxTextBytes) throw invalidArgument(field, `must be at most ${limits.maxTextBytes} bytes`);
  return q;
}

/** Absent means the default (8); a present value must be an integer in 1..maxTopK. */
export function topK(value: unknown, limits: Limits, field = 'top_k'): number {
  if (value === undefined) return DEFAULT_TOP_K;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidArgument(field, `must be an integer, got ${kindOf(value)}`);
  if (value < 1 || value > limits.maxTopK) throw invalidArgument(field, `must be between 1 and ${limits.maxTopK}, got ${value}`);
  return value;
}

/** Whether a string has the shape of a fact id (superseded_by also holds "agent"). */
export const isFactId = (value: string): boolean => FACT_ID_PATTERN.test(value);

export function factId(value: unknown, field = 'fact_id'): string {
  const id = requireString(value, field);
  if (id.length === 0) throw invalidArgument(field, 'must not be empty');
  if (!FACT_ID_PATTERN.test(id)) throw invalidArgument(field, `"${truncate(id)}" is not a fact id (26 characters, Crockford base32)`);
  return id;
}

/** Empty is allowed (an old client that sends none gets no replay protection). */
export function requestId(value: unknown, field = 'request_id'): string {
  const id = requireString(value, field);
  if (utf8Bytes(id) > MAX_REQUEST_ID_BYTES) throw invalidArgument(field, `must be at most ${MAX_REQUEST_ID_BYTES} bytes`);
  if (id.includes('\u0000')) throw invalidArgument(field, 'must not contain NUL');
  return id;
}

export function pageSize(value: unknown, field = 'page_size'): number {
  if (value === undefined || value === 0) return DEFAULT_PAGE_SIZE;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
    throw invalidArgument(field, `must be an integer between 1 and ${MAX_PAGE_SIZE}`);
  }
  return value;
}

export function tags(value: unknown, field = 'tags'): string[] {
  if (!Array.isArray(value)) throw invalidArgument(field, `must be a list of strings, got ${kindOf(value)}`);
  if (value.length > MAX_TAGS) throw invalidArgument(field, `at most ${MAX_TAGS} entries`);
  return value.map((tag, i) => {
    const t = requireString(tag, `${field}[${i}]`);
    if (t.trim().length === 0) throw invalidArgument(`${field}[${i}]`, 'must not be empty');
    if (utf8Bytes(t) > MAX_TAG_BYTES) throw invalidArgument(`${field}[${i}]`, `must be at most ${MAX_TAG_BYTES} bytes`);
    return t;
  });
}

/** A short free-form string (a label, an id), at most `maxBytes` UTF-8 bytes. */
export function string(value: unknown, field: string, maxBytes: number): string {
  const s = requireString(value, field);
  if (utf8Bytes(s) > maxBytes) throw invalidArgument(field, `must be at most ${maxBytes} bytes`);
  return s;
}

export function source(value: unknown, field = 'source'): string {
  const s = requireString(value, field);
  if (utf8Bytes(s) > MAX_SOURCE_BYTES) throw invalidArgument(field, `must be at most ${MAX_SOURCE_BYTES} bytes`);
  return s;
}

/** How deep a JSON value (`meta`, a slot value, a checkpoint state) may nest: deeper than any
 *  record needs, and far from where the recursive JSON writers of every door (and a reader's own
 *  tools) run out of stack. */
export const MAX_META_DEPTH = 64;

/** Why a number is no JSON number: JSON.stringify writes NaN and ±Infinity (what a JSON 1e999
 *  parses to) as null, so such a value would be stored as a null nobody sent. */
export function notFinite(value: number): string {
  return `must be a finite number, got ${value}${Number.isNaN(value) ? '' : " (out of a double's range)"}`;
}

/** `base` and a key below it, as fields are named: "meta.room", "slot_value.x[0]". */
const below = (base: string, key: string | number): string => (typeof key === 'number' ? `${base}[${key}]` : `${base}.${key}`);

/** What is wrong with one node of a JSON value, if anything: a kind JSON has no value for
 *  (JSON.stringify drops a function, symbol or undefined, or writes null for it in a list, and
 *  throws on a BigInt), or a number it would write as null. */
function jsonNodeProblem(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : notFinite(value);
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'object') return undefined;
  return `must be a JSON value (a string, number, boolean, null, list or object), got ${kindOf(value)}`;
}

/** A JSON value (meta, a slot value, a checkpoint state) as a door received it, before it is
 *  turned into JSON text: the one check every door runs, so that what is stored is what was sent.
 *  It nests at most MAX_META_DEPTH levels, and holds nothing JSON.stringify would change — each
 *  problem named by its path ("slot_value.x[0]: must be a finite number…"). A key whose value is
 *  undefined is left out, as JavaScript's own JSON writer leaves it out. Walked without recursion:
 *  the value may nest thousands deep. */
export function jsonValue<T>(value: T, field: string): T {
  // Each node with its parent's path and its key: a path is spelled out only for a node that has
  // children or a problem, not for every leaf (this runs on every write that carries a value).
  const stack: [unknown, string, string | number | undefined, number][] = [[value, field, undefined, 0]];
  while (stack.length) {
    const [v, parent, key, depth] = stack.pop()!;
    const problem = jsonNodeProblem(v);
    if (problem) throw invalidArgument(key === undefined ? parent : below(parent, key), problem);
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > MAX_META_DEPTH) throw invalidArgument(field, `nests deeper than ${MAX_META_DEPTH} levels`);
    const path = key === undefined ? parent : below(parent, key);
    // Pushed last to first, so the first problem in the text's order is the one reported.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], path, i, depth + 1]);
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const child = (v as Record<string, unknown>)[keys[i]!];
        if (child !== undefined) stack.push([child, path, keys[i], depth + 1]);
      }
    }
  }
  return value;
}

/** "" is the empty object; anything else must parse to a JSON object. */
export function metaJson(value: unknown, limits: Limits, field = 'meta_json'): string {
  const text = requireString(value, field);
  if (text === '') return '';
  if (utf8Bytes(text) > limits.maxTextBytes) throw invalidArgument(field, `must be at most ${limits.maxTextBytes} bytes`);
  const parsed = parseJsonObject(text);
  if ('syntax' in parsed) throw invalidArgument(field, 'must be a JSON object (it does not parse)');
  if ('got' in parsed) throw invalidArgument(field, `must be a JSON object, got ${parsed.got}`);
  jsonValue(parsed.object, field);
  return text;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** The calendar date a time names exists (Date.parse turns 2024-02-30 into 1 March) and its
 *  clock is within a day. */
function realDate(value: string): boolean {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  // setUTCFullYear, not Date.UTC: the latter reads years 0-99 as 1900-1999.
  const day = new Date(0);
  day.setUTCFullYear(y, m - 1, d);
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return false;
  const clock = /[Tt ](\d{2}):(\d{2}):(\d{2})/.exec(value);
  return !clock || (Number(clock[1]) < 24 && Number(clock[2]) < 60 && Number(clock[3]) < 60);
}

/** A time a person types: an RFC 3339 time, or a date alone (midnight UTC). Anything looser
 *  ("May 8", "8") is refused rather than guessed, and so is a day the calendar lacks. */
export function typedTimeMs(value: unknown, field: string): number {
  if (typeof value === 'string' && DATE_ONLY.test(value)) {
    if (!realDate(value)) throw invalidArgument(field, `${value} is not a date of the calendar`);
    return timestampMs(Date.parse(`${value}T00:00:00Z`), field);
  }
  if (typeof value !== 'string' || !RFC3339.test(value) || !realDate(value) || Number.isNaN(Date.parse(value))) {
    throw invalidArgument(field, `must be a date like 2024-05-08 or a time like 2024-05-08T13:56:00Z, got ${JSON.stringify(value)}`);
  }
  return timestampMs(Date.parse(value), field);
}

/** Event times: a whole number of milliseconds within years 1..9999. */
export function timestampMs(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalidArgument(field, 'must be an integer number of milliseconds');
  if (value < -62135596800000 || value > 253402300799999) throw invalidArgument(field, 'must be between year 1 and year 9999');
  return value;
}

/** The strength a fact written without one has (the start of its decay). */
export const DEFAULT_STRENGTH = 1;

export function strength(value: unknown, field = 'strength'): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 2) {
    throw invalidArgument(field, 'must be a finite number in [0, 2]');
  }
  return value;
}

function truncate(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

const MAX_SIGNAL_WEIGHT = 100;

/** A signal weight: finite, >= 0 (0 turns the signal off). */
export function signalWeight(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_SIGNAL_WEIGHT) {
    throw invalidArgument(field, `must be a finite number in [0, ${MAX_SIGNAL_WEIGHT}], got ${String(value)}`);
  }
  return value;
}

/** read_graph's centre: a fact or an entity, exactly one of them (every door names both alike). */
export function graphCentre(factId: unknown, entity: unknown): void {
  if ((factId === undefined) === (entity === undefined)) throw invalidArgument('fact_id', 'name exactly one of fact_id and entity');
}

/** A slot's confidence: its own number in [0, 1] (a fact's confidence is a label). */
export function slotConfidence(value: unknown, field = 'confidence'): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw invalidArgument(field, `must be a number in [0, 1], got ${JSON.stringify(value)}`);
  }
  return value;
}

/** 0 = no floor; otherwise a fraction of the top score in (0, 1]. */
/** A similarity threshold of clustering (cosine or token overlap): 0 would put every fact in one
 *  cluster, so it is left out of the range. */
export function similarityThreshold(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1) throw invalidArgument(field, `must be a number in (0, 1], got ${String(value)}`);
  return value;
}

export function minRelevance(value: unknown, field = 'min_relevance'): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw invalidArgument(field, `must be a finite number in [0, 1], got ${String(value)}`);
  }
  return value;
}

export function windowDays(value: unknown, field = 'window_days'): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 36_500) {
    throw invalidArgument(field, 'must be a whole number of days between 1 and 36500');
  }
  return value;
}

/** Options variants treat a top_k <= 0 as the default (8): in a proto3 message 0 means unset. */
export function optionsTopK(value: unknown, limits: Limits, field = 'top_k'): number {
  if (typeof value === 'number' && Number.isInteger(value) && value <= 0) return DEFAULT_TOP_K;
  return topK(value, limits, field);
}

export function queries(value: unknown, limits: Limits, field = 'queries'): unknown[] {
  if (!Array.isArray(value)) throw invalidArgument(field, `must be a list of strings, got ${kindOf(value)}`);
  if (value.length === 0) throw invalidArgument(field, 'must name at least one query');
  if (value.length > limits.maxBatch) throw invalidArgument(field, `at most ${limits.maxBatch} queries per batch, got ${value.length}`);
  return value;
}

/** A batch within its budget: queries × top_k results, and the queries' bytes together. */
export function batchBudget(queries: readonly unknown[], topK: number, limits: Limits, field = 'queries'): void {
  if (limits.maxBatchResults && queries.length * topK > limits.maxBatchResults) {
    throw invalidArgument(field, `${queries.length} queries × top_k ${topK} = ${queries.length * topK} results; one batch may ask for at most ${limits.maxBatchResults} (fewer queries per call, or a smaller top_k)`);
  }
  const bytes = queries.reduce<number>((n, q) => n + (typeof q === 'string' ? utf8Bytes(q) : 0), 0);
  if (limits.maxBatchQueryBytes && bytes > limits.maxBatchQueryBytes) {
    throw invalidArgument(field, `the queries are ${bytes} bytes together; one batch may carry at most ${limits.maxBatchQueryBytes} (split it into several calls)`);
  }
}

export const CONFIDENCE_LABELS = ['verified', 'inferred', 'unverified'] as const;
export type ConfidenceLabel = (typeof CONFIDENCE_LABELS)[number];
export const MAX_CONFIDENCE_WEIGHT = 0.5;
/** The ranking policy name recall reports when confidence options are in effect. */
export const CONFIDENCE_POLICY = 'confidence-v1';

/** An explicit label: exactly one of the three; null, other types and other strings are errors. */
export function confidenceLabel(value: unknown, field = 'confidence'): ConfidenceLabel {
  if (typeof value !== 'string' || !(CONFIDENCE_LABELS as readonly string[]).includes(value)) {
    throw invalidArgument(field, `must be one of ${CONFIDENCE_LABELS.join(', ')}, got ${value === null ? 'null' : JSON.stringify(value)}`);
  }
  return value as ConfidenceLabel;
}

export function confidenceWeight(value: unknown, field = 'confidence_weight'): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_CONFIDENCE_WEIGHT) {
    throw invalidArgument(field, `must be a finite number in [0, ${MAX_CONFIDENCE_WEIGHT}], got ${String(value)}`);
  }
  return value;
}

/** A method's options object. null is refused like any other value that is not an object (as a
 *  null filter or batch item is), rather than read as none: it is a caller's bad value, and it
 *  crashed reading its first field. */
export function options<T>(value: T, field = 'options'): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(field, `must be an object (or omitted), got ${kindOf(value)}`);
  return value;
}

/** An options object (as options()) whose every key is one of `known`'s: a misspelt key (tagz)
 *  is refused, naming it, where it would otherwise be ignored and its value lost. */
export function knownOptions<T>(value: T, known: Readonly<Record<string, true>>, field = 'options'): T {
  const unknown = Object.keys(options(value, field) as object).find((key) => !Object.hasOwn(known, key));
  if (unknown !== undefined) throw invalidArgument(`${field}.${unknown}`, `unknown option; known: ${Object.keys(known).join(', ')}`);
  return value;
}

export function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalidArgument(field, `must be a boolean, got ${kindOf(value)}`);
  return value;
}

/** At most this many facts per garbage collection (one atomic commit). */
export const MAX_GC_LIMIT = 100_000;

/** At most this many slots per page of a slot listing (limit). */
export const MAX_SLOT_PAGE = 1000;

/** At most this many facts per cluster (max_cluster_size). */
export const MAX_CLUSTER_SIZE = 1000;

/** At most this many facts a graph read around an entity lists (its limit). */
export const MAX_GRAPH_LIMIT = 200;

/** How many facts one observed use may name. */
export const MAX_OBSERVED_FACTS = 100;

/** A page token a listing handed out (the id of the last item of the previous page): anything
 *  else would silently list from an arbitrary place, or from nowhere. */
export function pageToken(value: unknown, field = 'page_token'): string {
  const token = requireString(value, field);
  if (!FACT_ID_PATTERN.test(token)) throw invalidArgument(field, `"${truncate(token)}" is not a page token (pass the next_page_token of the previous page)`);
  return token;
}

/** A non-empty list of fact ids, at most `max`. */
export function factIds(value: unknown, field: string, max: number): string[] {
  if (!Array.isArray(value)) throw invalidArgument(field, `must be a list of fact ids, got ${kindOf(value)}`);
  if (value.length === 0) throw invalidArgument(field, 'must name at least one fact');
  if (value.length > max) throw invalidArgument(field, `at most ${max} fact ids, got ${value.length}`);
  return value.map((id, i) => factId(id, `${field}[${i}]`));
}

/** A whole number from `min` (1 unless told) to `max`. */
export function count(value: unknown, field: string, max: number, min = 1): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidArgument(field, `must be a whole number between ${min} and ${max}, got ${typeof value === 'number' ? value : kindOf(value)}`);
  }
  return value;
}

/** A decay-score floor: finite and >= 0. */
export function minScore(value: unknown, field = 'min_score'): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw invalidArgument(field, `must be a finite number >= 0, got ${typeof value === 'number' ? value : kindOf(value)}`);
  return value;
}

/** A plain decimal number as a person types it ("1", "-2", "0.5", ".5", "1e-3", spaces around
 *  it allowed), or undefined. Number() alone would read "" as 0 and "0x10" as 16, so a typo would
 *  quietly become a value; an overflow ("1e400") is no number either. Every number a flag,
 *  setting or environment variable takes is read with it, on the CLI and the daemon alike. */
export function decimal(text: string): number | undefined {
  const t = text.trim();
  if (!/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

/** The signals a weight list ("1,1,0.5") names, in order: the registry's order, which every door's
 *  list (`--weights`, `--signal-weights`, REST's `weights=`) follows. */
export const WEIGHT_LIST_NAMES = ['vector', 'keyword', 'recency', 'decay', 'graph'] as const;

/** A weight list that is not one: `item` names the signal whose number is wrong (undefined: the
 *  count is). Each door words it as its own error. */
export class WeightListError extends Error {
  constructor(
    readonly problem: string,
    readonly item?: string,
  ) {
    super(item ? `${item}: ${problem}` : problem);
  }

  /** As a flag's error: "--weights: keyword: must be a number…", "--weights takes 3 to 5…". */
  worded(flag: string): string {
    return this.item ? `${flag}: ${this.item}: ${this.problem}` : `${flag} ${this.problem}`;
  }
}

/** A comma-separated weight list ("1,1,0.5"): one plain decimal number per name of
 *  WEIGHT_LIST_NAMES, in order, at least three of them (the later names may be left out). An
 *  empty item ("1,,1") or a hex one ("0x10") is refused naming the item, never read as 0 or 16.
 *  Its range is each door's rule (check.signalWeight). */
export function weightList(value: string): number[] {
  const names = WEIGHT_LIST_NAMES;
  const items = value.split(',');
  if (items.length < 3 || items.length > names.length) {
    throw new WeightListError(`takes 3 to ${names.length} numbers ${names.slice(0, 3).join(',')}${names.slice(3).map((n) => `[,${n}`).join('')}${']'.repeat(names.length - 3)}, got "${value}"`);
  }
  return items.map((item, i) => {
    const n = decimal(item);
    if (n === undefined) throw new WeightListError(`must be a number, got "${item.trim()}" (in "${value}")`, names[i]);
    return n;
  });
}
