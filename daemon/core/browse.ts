// Browsing a namespace: its facts page by page, oldest or newest first, narrowed by a filter on
// what a person looks for (words, confidence, pinned, retired, tags, entities, time ranges).
// A call reads at most SCAN_BUDGET facts: a filter that matches little in a large namespace
// answers promptly with what it found so far and a token to go on from, never a scan of it all.
import { invalidArgument } from '../../shared/errors.ts';
import { checkFactFilter as checkFilter, type FactFilter } from '../../shared/fact-filter.ts';
import * as check from '../../shared/validate.ts';
import { hasUnspaced, words as wordsOf } from '../index/tokenizer.ts';
import { effectiveLabel } from '../lifecycle/confidence.ts';
import type { FactRecord } from '../store/record.ts';
import type { ListOrder } from '../store/store.ts';

export type { ListOrder } from '../store/store.ts';
export type { FactFilter } from '../../shared/fact-filter.ts';

/** Facts one call may read before it answers with a partial page. */
export const SCAN_BUDGET = 20_000;
/** Facts read from the store at a time. */
const CHUNK = 500;
export interface BrowseInput {
  filter?: Record<string, unknown>;
  order?: unknown;
  pageSize?: unknown;
  pageToken?: unknown;
}

export interface BrowsePlan {
  filter: FactFilter;
  order: ListOrder;
  pageSize: number;
  after: string;
}

/** Checks a browse request field by field; the error names the field. */
export function checkBrowse(input: BrowseInput): BrowsePlan {
  const order = input.order === undefined || input.order === '' ? 'oldest' : input.order;
  if (order !== 'oldest' && order !== 'newest') throw invalidArgument('order', `must be "oldest" or "newest", got ${JSON.stringify(input.order)}`);
  const after = input.pageToken === undefined || input.pageToken === '' ? '' : check.pageToken(input.pageToken);
  return { filter: checkFilter(input.filter ?? {}), order, pageSize: check.pageSize(input.pageSize), after };
}

/** Whether a fact passes every condition the filter names. */
export function matchesFilter(fact: FactRecord, f: FactFilter, words = filterWords(f)): boolean {
  if (f.pinned !== undefined && fact.pinned !== f.pinned) return false;
  if (f.retired !== undefined && (fact.supersededBy !== '') !== f.retired) return false;
  if (f.confidence && !f.confidence.includes(effectiveLabel(fact.confidence))) return false;
  if (f.createdAfter !== undefined && fact.createdAt < f.createdAfter) return false;
  if (f.createdBefore !== undefined && fact.createdAt >= f.createdBefore) return false;
  if (f.occurredAfter !== undefined && !(fact.occurredAt !== undefined && fact.occurredAt >= f.occurredAfter)) return false;
  if (f.occurredBefore !== undefined && !(fact.occurredAt !== undefined && fact.occurredAt < f.occurredBefore)) return false;
  if (f.tags && !includesAll(fact.tags, f.tags)) return false;
  if (f.entities && !includesAll(fact.entities, f.entities)) return false;
  return words.length === 0 || holdsWords(`${fact.text}\n${fact.context}`, words);
}

/** The filter's words, split as the keyword index splits text ("node.js" is "node" and "js"). */
const filterWords = (f: FactFilter): string[] => wordsOf(f.text ?? '');

/** Whether `text` holds every one of `wanted` as a whole word: "tea" is not found in "steam".
 *  A plain substring test first rejects most facts without tokenizing them. */
function holdsWords(text: string, wanted: readonly string[]): boolean {
  const lower = text.normalize('NFKC').toLowerCase();
  if (!wanted.every((w) => lower.includes(w))) return false;
  const have = new Set(wordsOf(text));
  // A word of a script written without spaces is split by a dictionary, which may cut the fact's
  // text elsewhere than the filter's: such a word only has to occur in the text.
  return wanted.every((w) => have.has(w) || hasUnspaced(w));
}

function includesAll(have: readonly string[], wanted: readonly string[]): boolean {
  const lower = new Set(have.map((t) => t.toLowerCase()));
  return wanted.every((w) => lower.has(w.toLowerCase()));
}

export interface BrowsePage {
  facts: FactRecord[];
  /** Where the next call goes on from; "" once the namespace is read to its end. */
  nextPageToken: string;
  /** Facts read to make this page (at most SCAN_BUDGET plus one chunk). */
  scanned: number;
}

/** One page: reads the namespace in order from the token until the page is full, the namespace
 *  ends, or the scan budget is spent. */
export async function browse(list: (after: string, limit: number, order: ListOrder) => Promise<FactRecord[]>, plan: BrowsePlan): Promise<BrowsePage> {
  const words = filterWords(plan.filter);
  const facts: FactRecord[] = [];
  let after = plan.after;
  let scanned = 0;
  for (;;) {
    const rows = await list(after, CHUNK, plan.order);
    for (const fact of rows) {
      scanned++;
      after = fact.id;
      if (matchesFilter(fact, plan.filter, words)) facts.push(fact);
      if (facts.length === plan.pageSize) return { facts, nextPageToken: after, scanned };
    }
    if (rows.length < CHUNK) return { facts, nextPageToken: '', scanned };
    if (scanned >= SCAN_BUDGET) return { facts, nextPageToken: after, scanned };
  }
}
