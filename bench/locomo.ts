// The LoCoMo list format (snap-research/locomo), parsed for the retrieval benchmark: sessions of
// turns with their dates, and the questions of categories 1–4 with normalised evidence ids.
// See ../shared/data/README.md (beside the repository) for the format and the evidence-id rules.
import { readFileSync } from 'node:fs';

export const CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

export interface LocomoTurn {
  diaId: string;
  speaker: string;
  /** The turn's text, with " [image: caption]" when the speaker shared an image. */
  text: string;
}

export interface LocomoSession {
  number: number;
  /** Epoch ms (UTC) of the session's date, when it has one. */
  occurredAt?: number;
  turns: LocomoTurn[];
}

export interface LocomoQuestion {
  question: string;
  category: number;
  /** Normalised dia ids that name a turn of this conversation; never empty. */
  evidence: string[];
}

export interface LocomoSample {
  id: string;
  sessions: LocomoSession[];
  /** Questions of categories 1–4 with at least one valid evidence id. */
  questions: LocomoQuestion[];
}

interface RawTurn { speaker: string; dia_id: string; text: string; blip_caption?: string }
interface RawQa { question: string; evidence?: string[]; category: number }
interface RawSample { sample_id: string; conversation: Record<string, unknown>; qa: RawQa[] }

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → epoch ms, read as UTC. */
export function parseSessionDate(value: string): number {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(value.trim());
  const month = m ? MONTHS.indexOf(m[5]!.toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`unrecognised LoCoMo date "${value}"`);
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

/** "D8:6; D9:17" → ["D8:6", "D9:17"]; "D:11:26" → "D11:26"; "D30:05" → "D30:5"; junk → dropped. */
export function normaliseEvidence(raw: readonly string[]): string[] {
  const ids: string[] = [];
  for (const part of raw.flatMap((e) => e.split(/[;\s]+/))) {
    const m = /^D:?(\d+):(\d+)$/.exec(part);
    if (m) ids.push(`D${Number(m[1])}:${Number(m[2])}`);
  }
  return [...new Set(ids)];
}

function parseSessions(conversation: Record<string, unknown>): LocomoSession[] {
  const sessions: LocomoSession[] = [];
  for (const [key, value] of Object.entries(conversation)) {
    const m = /^session_(\d+)$/.exec(key);
    if (!m || !Array.isArray(value)) continue;
    const date = conversation[`${key}_date_time`];
    const turns = (value as RawTurn[]).map((t) => ({
      diaId: normaliseEvidence([t.dia_id])[0] ?? t.dia_id,
      speaker: t.speaker,
      text: t.blip_caption ? `${t.text} [image: ${t.blip_caption}]` : t.text,
    }));
    sessions.push({ number: Number(m[1]), occurredAt: typeof date === 'string' ? parseSessionDate(date) : undefined, turns });
  }
  return sessions.sort((a, b) => a.number - b.number);
}

export function parseSample(raw: RawSample): LocomoSample {
  const sessions = parseSessions(raw.conversation);
  const turnIds = new Set(sessions.flatMap((s) => s.turns.map((t) => t.diaId)));
  const questions: LocomoQuestion[] = [];
  for (const qa of raw.qa) {
    if (!(qa.category in CATEGORIES)) continue;
    const evidence = normaliseEvidence(qa.evidence ?? []).filter((id) => turnIds.has(id));
    if (evidence.length > 0) questions.push({ question: qa.question, category: qa.category, evidence });
  }
  return { id: raw.sample_id, sessions, questions };
}

export function loadLocomo(file: string): LocomoSample[] {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as RawSample[];
  return raw.map(parseSample);
}
