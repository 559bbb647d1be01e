// Key layouts of the sublevels. Namespace (agent id) first, then a NUL separator (agent ids may
// not contain NUL), so every namespace is one contiguous key range and iterators can use gt/lt.
const SEP = '\u0000';
const AFTER_SEP = '\u0001';

export const factKey = (agentId: string, factId: string): string => agentId + SEP + factId;

export function splitFactKey(key: string): { agentId: string; factId: string } {
  const at = key.lastIndexOf(SEP);
  return { agentId: key.slice(0, at), factId: key.slice(at + 1) };
}

/** The [gt, lt) range that holds exactly one namespace's keys. */
export const namespaceRange = (agentId: string) => ({ gt: agentId + SEP, lt: agentId + AFTER_SEP });

/** Vector keys are hex-padded so lexical order is numeric order within a namespace. */
export const vectorEntryKey = (agentId: string, vectorKey: number): string =>
  agentId + SEP + vectorKey.toString(16).padStart(12, '0');

export function splitVectorEntryKey(key: string): { agentId: string; vectorKey: number } {
  const at = key.lastIndexOf(SEP);
  return { agentId: key.slice(0, at), vectorKey: parseInt(key.slice(at + 1), 16) };
}

export const requestKey = (agentId: string, requestId: string): string => agentId + SEP + requestId;

/** A record's key: its table, then its own key (records of one table are one key range). */
export const recordKey = (table: string, key: string): string => table + SEP + key;

/** Change numbers are hex-padded so the change log reads in commit order. */
const seqHex = (seq: number): string => seq.toString(16).padStart(12, '0');

export const changeEntryKey = (seq: number, agentId: string, factId: string): string => seqHex(seq) + SEP + agentId + SEP + factId;

/** The first change-log key after every change up to `seq`. */
export const changesAfter = (seq: number): string => seqHex(seq + 1);

export function splitChangeEntryKey(key: string): { seq: number; agentId: string; factId: string } {
  const first = key.indexOf(SEP);
  const last = key.lastIndexOf(SEP);
  return { seq: parseInt(key.slice(0, first), 16), agentId: key.slice(first + 1, last), factId: key.slice(last + 1) };
}
