// Read models for a person auditing a namespace: how its facts accumulated over time, where a
// fact came from and what replaced it, and how its decay score falls. Each is read from the
// store (the source of truth) and computed by the same decay function the lifecycle uses.
import { decayScore, lastUse, type DecayConfig } from '../lifecycle/decay.ts';
import type { FactRecord } from '../store/record.ts';
import { SUPERSEDED_BY_AGENT } from '../store/record.ts';
import { mayCollect } from './collect.ts';
import type { FactKey, MemoryStore } from '../store/store.ts';

const DAY_MS = 86_400_000;

export interface TimelineDay {
  /** UTC midnight of the day, ms. */
  day: number;
  created: number;
  /** Of those, how many are retired now. */
  retired: number;
}

/** Facts created per UTC day, oldest day first (days without facts are left out). */
export async function factTimeline(store: MemoryStore, agentId: string): Promise<TimelineDay[]> {
  const days = new Map<number, TimelineDay>();
  for await (const { fact } of store.scanFacts({ agentId })) {
    const day = Math.floor(fact.createdAt / DAY_MS) * DAY_MS;
    const entry = days.get(day) ?? { day, created: 0, retired: 0 };
    entry.created++;
    if (fact.supersededBy) entry.retired++;
    days.set(day, entry);
  }
  return [...days.values()].sort((a, b) => a.day - b.day);
}

export interface Lineage {
  /** What this fact replaced or summarises, and what those replaced, nearest first. */
  sources: FactRecord[];
  /** What replaced this fact, then what replaced that, up to the current version. */
  successors: FactRecord[];
  /** Ids named in the lineage that are no longer stored (erased). */
  missing: string[];
}

/** How far a lineage is followed each way: a chain longer than this is cut, not walked forever. */
const MAX_LINEAGE = 50;

export async function factLineage(store: MemoryStore, fact: FactRecord): Promise<Lineage> {
  const key = (factId: string): FactKey => ({ agentId: fact.agentId, factId });
  const seen = new Set([fact.id]);
  const lineage: Lineage = { sources: [], successors: [], missing: [] };
  let frontier = fact.replaces;
  while (frontier.length && lineage.sources.length < MAX_LINEAGE) {
    const ids = [...new Set(frontier)].filter((id) => !seen.has(id)).slice(0, MAX_LINEAGE - lineage.sources.length);
    ids.forEach((id) => seen.add(id));
    const found = await store.getFacts(ids.map(key));
    frontier = [];
    found.forEach((f, i) => {
      if (!f) return void lineage.missing.push(ids[i]!);
      lineage.sources.push(f);
      frontier.push(...f.replaces);
    });
  }
  for (let next = fact.supersededBy; next && next !== SUPERSEDED_BY_AGENT && !seen.has(next) && lineage.successors.length < MAX_LINEAGE; ) {
    seen.add(next);
    const [successor] = await store.getFacts([key(next)]);
    if (!successor) {
      lineage.missing.push(next);
      break;
    }
    lineage.successors.push(successor);
    next = successor.supersededBy;
  }
  return lineage;
}

export interface DecayCurve {
  model: string;
  now: number;
  score: number;
  forgetThreshold: number;
  promoteThreshold: number;
  /** When the score falls below the forget threshold if nothing uses the fact again;
   *  undefined: not within ten years, or never collected (mayCollect: pinned, promoted, retired). */
  forgetsAt?: number;
  /** The score from the last use on, if nothing uses the fact again: at least 30 days ahead,
   *  and past the forget time (up to a year) so the fall is in the picture. */
  points: { at: number; score: number }[];
}

const CURVE_POINTS = 60;
const HORIZON_DAYS = 3650;

export function decayCurve(config: DecayConfig, fact: FactRecord, now: number): DecayCurve {
  const state = { useCount: fact.useCount, lastUsedAt: fact.lastUsedAt ?? 0, createdAt: fact.createdAt, strength: fact.strength };
  const at = (ms: number) => decayScore(config, state, ms);
  const from = lastUse(state);
  const forgetsAt = mayCollect(fact) ? crossing(at, from, config.forgetThreshold) : undefined;
  const ahead = Math.max(now, from) + 30 * DAY_MS;
  const to = forgetsAt === undefined ? ahead : Math.max(ahead, Math.min(from + (forgetsAt - from) * 1.2, from + 365 * DAY_MS));
  const points = Array.from({ length: CURVE_POINTS + 1 }, (_, i) => {
    const t = Math.round(from + ((to - from) * i) / CURVE_POINTS);
    return { at: t, score: at(t) };
  });
  return {
    model: config.model,
    now,
    score: at(now),
    forgetThreshold: config.forgetThreshold,
    promoteThreshold: config.promoteThreshold,
    ...(forgetsAt !== undefined ? { forgetsAt } : {}),
    points,
  };
}

/** The first time (to the second) the falling score is below `threshold`, within the horizon. */
function crossing(score: (ms: number) => number, from: number, threshold: number): number | undefined {
  if (score(from) < threshold) return from;
  let low = from;
  let high = from + DAY_MS;
  while (score(high) >= threshold) {
    if (high - from > HORIZON_DAYS * DAY_MS) return undefined;
    low = high;
    high = from + (high - from) * 2;
  }
  while (high - low > 1000) {
    const mid = Math.floor((low + high) / 2);
    if (score(mid) < threshold) high = mid;
    else low = mid;
  }
  return high;
}
