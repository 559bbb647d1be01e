// Unified search: the store's facts (short-term memory) and the vault's notes (long-term) ranked
// together. Each source ranks its own (recall for facts, BM25 over the notes), its scores are
// scaled so its best is 1, then weighted (stm_weight 1.0, ltm_weight 0.7 by default) and merged.
// A promoted fact and its note count once: the fact stays, its note goes.
import type { UnifiedHit, UnifiedResult } from '../../shared/model.ts';
import * as check from '../../shared/validate.ts';
import type { Limits } from '../../shared/validate.ts';
import type { FactRecord } from '../store/record.ts';
import type { VaultIndex } from '../vault/vault-index.ts';

export type { UnifiedHit, UnifiedResult } from '../../shared/model.ts';

export const UNIFIED_DEFAULTS = { limit: 10, stmWeight: 1.0, ltmWeight: 0.7 } as const;

export interface UnifiedInput {
  agentId: unknown;
  query: unknown;
  tags?: unknown;
  limit?: unknown;
  stmWeight?: unknown;
  ltmWeight?: unknown;
  windowDays?: unknown;
  minScore?: unknown;
}

export interface CheckedUnified {
  agentId: string;
  query: string;
  tags: string[];
  limit: number;
  stmWeight: number;
  ltmWeight: number;
  windowDays?: number;
  minScore?: number;
}

export function checkUnified(input: UnifiedInput, limits: Limits): CheckedUnified {
  const out: CheckedUnified = {
    agentId: check.agentId(input.agentId),
    query: check.query(input.query ?? '', limits),
    tags: input.tags === undefined ? [] : check.tags(input.tags),
    limit: input.limit === undefined ? UNIFIED_DEFAULTS.limit : check.count(input.limit, 'limit', limits.maxTopK),
    stmWeight: input.stmWeight === undefined ? UNIFIED_DEFAULTS.stmWeight : check.signalWeight(input.stmWeight, 'stm_weight'),
    ltmWeight: input.ltmWeight === undefined ? UNIFIED_DEFAULTS.ltmWeight : check.signalWeight(input.ltmWeight, 'ltm_weight'),
  };
  if (input.windowDays !== undefined) out.windowDays = check.windowDays(input.windowDays);
  if (input.minScore !== undefined) out.minScore = check.minScore(input.minScore);
  return out;
}

/** `facts`: the store's matched facts in recall order with their final scores. */
export function mergeUnified(q: CheckedUnified, facts: { fact: FactRecord; score: number }[], vault: VaultIndex | undefined): UnifiedResult {
  const stmTop = facts[0]?.score || 1;
  const stm: UnifiedHit[] = facts.map(({ fact, score }) => ({ source: 'stm', id: fact.id, content: fact.text, title: '', path: '', score: (score / stmTop) * q.stmWeight }));
  const seen = new Set(facts.map((f) => f.fact.id));
  // The window and the decay floor are about facts' use; notes have none, so they apply to STM only.
  const notes = q.query && vault ? vault.search(q.query, q.agentId, q.limit * 2) : [];
  const kept = notes.filter((h) => !seen.has(h.note.factId) && (q.tags.length === 0 || h.note.tags.some((t) => q.tags.includes(t))));
  const ltmTop = kept[0]?.score || 1;
  const ltm: UnifiedHit[] = kept.map((h) => ({ source: 'ltm', id: h.note.factId || h.note.path, content: h.note.body, title: h.note.title, path: h.note.path, score: (h.score / ltmTop) * q.ltmWeight }));
  const hits = [...stm, ...ltm]
    .sort((a, b) => b.score - a.score || (a.source === b.source ? 0 : a.source === 'stm' ? -1 : 1) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, q.limit);
  return { hits, stmCount: hits.filter((h) => h.source === 'stm').length, ltmCount: hits.filter((h) => h.source === 'ltm').length, vault: vault !== undefined };
}
