// A filter on what a person looks for in a namespace's facts (words, confidence, pinned,
// retired, tags, entities, time ranges), checked by one set of rules wherever it is given: the
// daemon checks what a call carries, the library what an app passes, before anything is sent.
import { invalidArgument } from './errors.ts';
import * as check from './validate.ts';

const MAX_FILTER_TEXT_BYTES = 1024;

export interface FactFilter {
  /** Words the fact's text (or context) holds, case-insensitively, in any order. */
  text?: string;
  /** Its confidence is one of these (a fact without a label counts as inferred). */
  confidence?: string[];
  pinned?: boolean;
  retired?: boolean;
  /** Every one of these tags / entities (case-insensitive). */
  tags?: string[];
  entities?: string[];
  /** Time ranges in ms: after is inclusive, before exclusive. */
  createdAfter?: number;
  createdBefore?: number;
  occurredAfter?: number;
  occurredBefore?: number;
}

/** The filter's fields, checked and named `at` + the protocol's name (`at` "filter." in the
 *  library, whose caller names the filter itself). An empty text or list is no condition, as on
 *  the wire. Times must be whole numbers of ms. */
export function checkFactFilter(raw: Record<string, unknown>, at = ''): FactFilter {
  const f: FactFilter = {};
  const given = (name: string) => raw[name] !== undefined && raw[name] !== '' && !(Array.isArray(raw[name]) && raw[name].length === 0);
  if (given('text')) f.text = check.string(raw.text, `${at}text`, MAX_FILTER_TEXT_BYTES);
  if (given('confidence')) f.confidence = listOf(raw.confidence, `${at}confidence`).map((c, i) => check.confidenceLabel(c, `${at}confidence[${i}]`));
  if (given('pinned')) f.pinned = check.boolean(raw.pinned, `${at}pinned`);
  if (given('retired')) f.retired = check.boolean(raw.retired, `${at}retired`);
  if (given('tags')) f.tags = check.tags(raw.tags, `${at}tags`);
  if (given('entities')) f.entities = check.tags(raw.entities, `${at}entities`);
  for (const name of ['createdAfter', 'createdBefore', 'occurredAfter', 'occurredBefore'] as const) {
    if (given(name)) f[name] = check.timestampMs(raw[name], at + check.snakeCase(name));
  }
  return f;
}

function listOf(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw invalidArgument(field, 'must be a list');
  return value;
}
