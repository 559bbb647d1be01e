// Which facts a memory_reflect `target` names. Agents mostly know a fact by what it says (search
// results are texts, as in GrayMatter, whose update/forget match the exact old text), and
// sometimes by id (explain receipts carry provenance.fact_id). So a target that is a fact id
// existing in the namespace names that fact; anything else names every live fact whose text is
// exactly the target. Both backends resolve through this one function so the rule cannot drift.
import { EngramError, ErrorKind } from '../errors.ts';
import * as check from '../validate.ts';

/** The fields resolution reads; both the client's Fact and the daemon's FactRecord have them. */
export interface FactRef {
  id: string;
  text: string;
  kind: string;
  /** "" or undefined while live. */
  supersededBy?: string;
}

export interface FactLookup<T extends FactRef> {
  /** The fact with this id, or undefined when the namespace has none. */
  get(factId: string): Promise<T | undefined>;
  /** Every fact of the namespace (live or retired), any order. */
  scan(): AsyncIterable<T>;
}

/** `field`: the argument that named the fact, said when it names none. */
export async function resolveTargets<T extends FactRef>(target: string, lookup: FactLookup<T>, field = 'target'): Promise<T[]> {
  if (looksLikeFactId(target)) {
    const byId = await lookup.get(target);
    if (byId) return [byId];
  }
  // A linear scan of the namespace: reflect is a rare, agent-paced call and exact text has no index.
  const matches: T[] = [];
  for await (const fact of lookup.scan()) {
    if (fact.kind !== 'alias' && !fact.supersededBy && fact.text === target) matches.push(fact);
  }
  if (matches.length === 0) throw new EngramError(ErrorKind.NotFound, `${field} fact not found: no live fact has id or exact text ${JSON.stringify(target)}`, field);
  return matches;
}

function looksLikeFactId(value: string): boolean {
  try {
    check.factId(value);
    return true;
  } catch {
    return false;
  }
}

/** The one fact a target names (a relation joins exactly two facts): several is an error. */
export async function resolveOne<T extends FactRef>(target: string, lookup: FactLookup<T>, field: string): Promise<T> {
  const found = await resolveTargets(target, lookup, field);
  if (found.length > 1) throw new EngramError(ErrorKind.InvalidArgument, `${field}: ${found.length} live facts have the text ${JSON.stringify(target)}; name one by its fact_id`, field);
  return found[0]!;
}

/** The id of the one fact a target names. A fact id is taken as it is, unread: the daemon checks
 *  that it names a live fact, and a token that may write but not read (relations are a write)
 *  can then relate facts it knows by id. Only a text is looked up, which needs read. */
export async function resolveId<T extends FactRef>(target: string, lookup: FactLookup<T>, field: string): Promise<string> {
  return looksLikeFactId(target) ? target : (await resolveOne(target, lookup, field)).id;
}
