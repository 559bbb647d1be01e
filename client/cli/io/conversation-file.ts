// A chat export for `engram import --format conversation`:
//   {"sessions": [{"occurred_at": "2023-05-08T13:56:00Z", "turns": [{"speaker", "text", "id"?}]}]}
// occurred_at is ISO 8601, epoch ms or a LoCoMo date ("1:56 pm on 8 May, 2023"). Other keys are
// ignored (exports carry more than this) and named, so a misspelt key ("ocurred_at") is seen
// rather than silently dropped. The whole file is checked before anything is written:
// a turn's request id depends on its position, so skipping a bad turn would shift the ids of the
// turns after it and a corrected re-run would store them twice.
import type { ConversationSession } from '../../import/conversation.ts';
import { parseEventTime } from './times.ts';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

/** Whether the first line alone is JSON, as in a JSONL file of facts given the wrong format. */
function firstLineIsJson(text: string): boolean {
  try {
    JSON.parse(text.split('\n', 1)[0]!);
    return text.trim().includes('\n');
  } catch {
    return false;
  }
}

const KNOWN = { file: ['sessions'], session: ['occurred_at', 'turns'], turn: ['speaker', 'text', 'id'] } as const;

/** The keys of `o` the format does not use, each as "where.key" (once per distinct key). */
function noteIgnored(o: Record<string, unknown>, known: readonly string[], where: string, into: Set<string>): void {
  for (const key of Object.keys(o)) if (!known.includes(key)) into.add(`${where}${JSON.stringify(key)}`);
}

export interface ConversationFile {
  sessions: ConversationSession[];
  /** What is wrong, each naming where it is; any problem means nothing is imported. */
  problems: string[];
  /** Keys the format does not use, by where they are ("a session's \"ocurred_at\""). */
  ignored: string[];
}

/** The sessions, or the list of problems (each naming where it is). */
export function parseConversationFile(text: string): ConversationFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { sessions: [], ignored: [], problems: [`not JSON: ${(error as Error).message}${firstLineIsJson(text) ? ' (a JSONL file of facts? import it without --format conversation)' : ''}`] };
  }
  if (!isObject(raw) || !Array.isArray(raw.sessions)) return { sessions: [], ignored: [], problems: ['must be an object with a "sessions" list'] };
  const problems: string[] = [];
  const sessions: ConversationSession[] = [];
  const ignored = new Set<string>();
  noteIgnored(raw, KNOWN.file, 'the file\'s ', ignored);
  raw.sessions.forEach((s: unknown, i: number) => {
    const at = `sessions[${i}]`;
    if (!isObject(s) || !Array.isArray(s.turns)) {
      problems.push(`${at}: must be an object with a "turns" list`);
      return;
    }
    noteIgnored(s, KNOWN.session, 'a session\'s ', ignored);
    let occurredAt: number | undefined;
    try {
      occurredAt = parseEventTime(s.occurred_at, `${at}.occurred_at`, { locomo: true });
    } catch (error) {
      problems.push((error as Error).message);
    }
    const turns = s.turns.map((t: unknown, j: number) => {
      const where = `${at}.turns[${j}]`;
      if (!isObject(t)) {
        problems.push(`${where}: must be an object {speaker, text, id?}`);
        return { speaker: '', text: '' };
      }
      noteIgnored(t, KNOWN.turn, 'a turn\'s ', ignored);
      if (!nonEmpty(t.speaker)) problems.push(`${where}.speaker: must be a non-empty string`);
      if (!nonEmpty(t.text)) problems.push(`${where}.text: must be a non-empty string`);
      if (t.id !== undefined && t.id !== null && typeof t.id !== 'string' && typeof t.id !== 'number') problems.push(`${where}.id: must be a string or a number`);
      const id = t.id === undefined || t.id === null ? undefined : String(t.id);
      return { speaker: String(t.speaker), text: String(t.text), ...(id !== undefined ? { id } : {}) };
    });
    sessions.push({ ...(occurredAt !== undefined ? { occurredAt } : {}), turns });
  });
  return { sessions, problems, ignored: [...ignored] };
}
