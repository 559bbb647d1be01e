// Key layouts of the sublevels. Namespace (agent id) first, then a NUL separator (agent ids may
// not contain NUL), so every namespace is one contiguous key range and iterators can use gt/lt.
const SEP = '\u0000';
const AFTER_SEP = '\u0001';

export const factKey = (agentId: string, factId: string): string => agentId + SEP + factId;


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

/** Times are offset so pre-1970 event times still sort correctly as fixed-width hex. */
const TIME_OFFSET = 62135596800000;
export const recencyEntryKey = (agentId: string, time: number, factId: string): string =>
  agentId + SEP + (time + TIME_OFFSET).toString(16).padStart(12, '0') + SEP + factId;
