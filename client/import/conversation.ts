// Imports a chat history: every turn becomes one fact, "speaker: text", dated by its session and
// indexed with its neighbouring turns as context (searchable by keyword, not returned as text).
// Request ids are derived from the turn, so re-running an interrupted import adds no duplicates:
// the daemon answers a repeated request id with the fact it wrote the first time.
import { digestOf } from '../../shared/digest.ts';
import * as check from '../../shared/validate.ts';
import type { EngramClient } from '../client.ts';
import type { KeysOf } from '../options.ts';
import { writeAll } from './write-all.ts';

export interface ConversationTurn {
  speaker: string;
  text: string;
  id?: string;
}

export interface ConversationSession {
  occurredAt?: number;
  turns: ConversationTurn[];
}

export interface ImportProgress {
  done: number;
  total: number;
}

export interface ImportOptions {
  /** Single writes in flight against a daemon without batch writes (default 16); see writeAll. */
  concurrency?: number;
  onProgress?: (p: ImportProgress) => void;
  /** The facts' source (default "conversation"). */
  source?: string;
  /** Aborted: stop after the writes in flight (a re-run resumes); see writeAll. */
  signal?: AbortSignal;
}
const IMPORT_KEYS = { concurrency: true, onProgress: true, source: true, signal: true } as const satisfies KeysOf<ImportOptions>;

interface PendingFact {
  text: string;
  context: string;
  occurredAt?: number;
  metaJson?: string;
  requestId: string;
}

const line = (turn: ConversationTurn): string => `${turn.speaker}: ${turn.text}`;

/** How many turns before and after a turn make up its context. A reply ("Yes, last May!") means
 *  little alone; two turns either side recover what it answers (LoCoMo recall@10: ±1 turn 0.635,
 *  ±2 turns 0.647, ±3 turns 0.644; npm run bench:quality). */
const CONTEXT_TURNS = 2;

function neighbourTurns(turns: readonly ConversationTurn[], at: number): ConversationTurn[] {
  const out: ConversationTurn[] = [];
  for (let i = at - CONTEXT_TURNS; i <= at + CONTEXT_TURNS; i++) {
    if (i !== at && turns[i] !== undefined) out.push(turns[i]!);
  }
  return out;
}

/** A stable, UUID-shaped id for one turn of one session of one agent. */
function turnRequestId(agentId: string, session: number, turn: number, text: string): string {
  const h = digestOf('sha256', JSON.stringify([agentId, session, turn, text]), 'hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function toFacts(agentId: string, sessions: ConversationSession[]): PendingFact[] {
  const facts: PendingFact[] = [];
  sessions.forEach((session, s) => {
    session.turns.forEach((turn, t) => {
      const neighbours = neighbourTurns(session.turns, t);
      const text = line(turn);
      facts.push({
        text,
        context: neighbours.map(line).join('\n'),
        occurredAt: session.occurredAt,
        metaJson: turn.id === undefined ? undefined : JSON.stringify({ turn_id: turn.id }),
        requestId: turnRequestId(agentId, s, t, text),
      });
    });
  });
  return facts;
}

/** Writes every turn as a fact; resolves with the fact ids in input order (sessions, then turns)
 *  and how many of them were already stored by an earlier run (the daemon replayed them). */
export async function importConversation(
  client: EngramClient,
  agentId: string,
  sessions: ConversationSession[],
  options: ImportOptions = {},
): Promise<{ factIds: string[]; replayed: number }> {
  check.knownOptions(options, IMPORT_KEYS);
  const source = options.source ?? 'conversation';
  // A conversation is reproduced turn by turn: two identical turns are two facts.
  const items = toFacts(agentId, sessions).map((fact) => ({ ...fact, agentId, source, allowDuplicate: true }));
  // A failure reaches the caller as it is (UncertainWriteError, the daemon gone); a re-run resumes.
  const results = await writeAll(client, items, {
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    onProgress: (done, total) => options.onProgress?.({ done, total }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // The turns were checked before sending, so an item refused now is a real failure.
  const refused = results.find((r) => r.error);
  if (refused?.error) throw refused.error;
  return { factIds: results.map((r) => r.factId!), replayed: results.filter((r) => !r.error && r.replayed).length };
}
