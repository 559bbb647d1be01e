// Reinforcement: an agent says it used a fact (touch), or which facts it used in a conversation
// (observe). Each is a durable write through the pipeline that changes the facts' use statistics
// only — never their text, indexes or updated_at — so a fact that keeps being used keeps its
// score up, and one used in an unrelated conversation gains strength (it generalises).
import { EngramError, ErrorKind, noFact } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import { isIndexed } from '../index/derive.ts';
import type { AccessTracker } from '../lifecycle/access.ts';
import { decayScore, type DecayConfig } from '../lifecycle/decay.ts';
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';
import { requestReused, type WritePipeline } from '../write/pipeline.ts';
import type { FactStaging } from '../write/staging.ts';
import type { CallContext } from './context.ts';
import { jaccard } from './similarity.ts';
import type { ObservedFact, ObserveUsageResult } from '../../shared/model.ts';
export type { ObservedFact } from '../../shared/model.ts';

/** How much a boost or a cross-domain use adds to a fact's strength, and its ceiling. */
export const STRENGTH_STEP = 0.1;
export const MAX_STRENGTH = 2;
/** A use is cross-domain when the Jaccard similarity of the fact's tags and the conversation's
 *  is below this (the facts' own tags say where they belong; a fact that serves elsewhere too
 *  is worth more). No context tags: nothing to compare, never cross-domain. */
export const CROSS_DOMAIN_JACCARD = 0.3;

export interface TouchResult {
  fact: FactRecord;
  oldScore: number;
  newScore: number;
  replayed: boolean;
}

export type ObserveResult = ObserveUsageResult;

export const AUTO_REINFORCE_OFF = 'auto_reinforce is disabled in config';

/** Strengths stay on a 1e-6 grid, so ten boosts of 0.1 reach exactly 2. */
const raised = (strength: number): number => Math.min(MAX_STRENGTH, Math.round((strength + STRENGTH_STEP) * 1e6) / 1e6);

/** Tags compare without case. */
const tagSet = (tags: readonly string[]): Set<string> => new Set(tags.map((t) => t.toLowerCase()));

/** One use of a fact at `now`. */
const used = (fact: FactRecord, now: number, strength = fact.strength): FactRecord => ({ ...fact, useCount: fact.useCount + 1, lastUsedAt: now, strength });

export class Usage {
  constructor(
    private readonly store: MemoryStore,
    private readonly pipeline: WritePipeline,
    private readonly staging: FactStaging,
    private readonly access: AccessTracker,
    private readonly decay: DecayConfig,
  ) {}

  /** touch_memory: use_count + 1, last_used = now, and with `boostStrength` strength + 0.1. */
  touch(ctx: CallContext, input: { agentId: unknown; factId: unknown; boostStrength?: unknown }): Promise<TouchResult> {
    const agentId = check.agentId(input.agentId);
    const factId = check.factId(input.factId);
    const boost = input.boostStrength === undefined ? false : check.boolean(input.boostStrength, 'boost_strength');
    const requestId = check.requestId(ctx.requestId);
    return this.pipeline.run<TouchResult>(ctx, {
      agentId,
      requestId,
      request: { op: 'touch', factId, boost },
      locks: [factId],
      plan: async () => {
        const [before] = await this.store.getFacts([{ agentId, factId }]);
        if (!before) throw noFact('fact_id', factId, agentId);
        if (!isIndexed(before)) throw new EngramError(ErrorKind.FailedPrecondition, `fact ${factId} is ${before.kind !== 'alias' ? 'retired' : `an ${before.kind} record`}: only live facts are used`, 'fact_id');
        const now = Date.now();
        const oldScore = decayScore(this.decay, before, now);
        const { fact, change, apply } = await this.staging.changed(before, used(before, now, boost ? raised(before.strength) : before.strength));
        const newScore = decayScore(this.decay, fact, now);
        return () => ({ changes: [change], result: { fact: this.access.overlay(fact), oldScore, newScore, replayed: false }, record: { op: 'touch', factId, oldScore, newScore }, apply });
      },
      replay: async (recorded) => {
        if (recorded.op !== 'touch') throw requestReused(requestId, recorded, 'touch');
        const [fact] = await this.store.getFacts([{ agentId, factId: String(recorded.factId) }]);
        if (!fact) throw new EngramError(ErrorKind.FailedPrecondition, `request_id ${requestId} touched fact ${String(recorded.factId)}, which has since been deleted`, 'request_id');
        return { fact: this.access.overlay(fact), oldScore: Number(recorded.oldScore), newScore: Number(recorded.newScore), replayed: true };
      },
    });
  }

  /** observe_memory_usage: every named fact that is live gets one use and one review; a
   *  cross-domain use also raises its strength. Unknown and retired ids are reported in their
   *  slot. One commit for all of them. */
  async observe(ctx: CallContext, input: { agentId: unknown; factIds: unknown; contextTags?: unknown }): Promise<ObserveResult> {
    const agentId = check.agentId(input.agentId);
    // A fact named twice in one observation was used once.
    const factIds = [...new Set(check.factIds(input.factIds, 'fact_ids', check.MAX_OBSERVED_FACTS))];
    const contextTags = input.contextTags === undefined ? [] : check.tags(input.contextTags, 'context_tags');
    const requestId = check.requestId(ctx.requestId);
    if (!this.decay.autoReinforce) return { reinforced: false, reason: AUTO_REINFORCE_OFF, results: [], count: 0, crossDomainCount: 0, replayed: false };
    return this.pipeline.run<ObserveResult>(ctx, {
      agentId,
      requestId,
      request: { op: 'observe', factIds, contextTags },
      locks: [...new Set(factIds)],
      plan: async () => {
        const now = Date.now();
        const current = new Map<string, FactRecord | undefined>();
        const stored = await this.store.getFacts(factIds.map((factId) => ({ agentId, factId })));
        factIds.forEach((id, i) => current.set(id, stored[i]));
        const results: ObservedFact[] = [];
        const changed = new Map<string, FactRecord>();
        for (const factId of factIds) {
          const before = changed.get(factId) ?? current.get(factId);
          if (!before || before.kind === 'alias') {
            results.push({ factId, status: 'not_found', crossDomain: false, useCount: 0, reviewCount: 0, strength: 0 });
            continue;
          }
          if (!isIndexed(before)) {
            results.push({ factId, status: 'retired', crossDomain: false, useCount: before.useCount, reviewCount: before.reviewCount, strength: before.strength });
            continue;
          }
          const crossDomain = contextTags.length > 0 && jaccard(tagSet(before.tags), tagSet(contextTags)) < CROSS_DOMAIN_JACCARD;
          const after: FactRecord = {
            ...used(before, now, crossDomain ? raised(before.strength) : before.strength),
            reviewCount: before.reviewCount + 1,
            crossDomainCount: before.crossDomainCount + (crossDomain ? 1 : 0),
          };
          changed.set(factId, after);
          results.push({ factId, status: 'reinforced', crossDomain, useCount: after.useCount, reviewCount: after.reviewCount, strength: after.strength });
        }
        const staged = await Promise.all([...changed].map(([id, after]) => this.staging.changed(current.get(id)!, after)));
        const reinforced = results.filter((r) => r.status === 'reinforced');
        const result: ObserveResult = {
          reinforced: true,
          reason: '',
          results,
          count: reinforced.length,
          crossDomainCount: reinforced.filter((r) => r.crossDomain).length,
          replayed: false,
        };
        return () => ({ changes: staged.map((s) => s.change), result, record: { op: 'observe', ...result }, apply: () => staged.forEach((s) => s.apply()) });
      },
      replay: async (recorded) => {
        if (recorded.op !== 'observe') throw requestReused(requestId, recorded, 'observe');
        const { op: _op, ...result } = recorded as unknown as ObserveResult & { op: string };
        return { ...result, replayed: true };
      },
    });
  }
}
