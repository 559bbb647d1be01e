// Garbage collection: the facts of a namespace whose decay score fell below the forget threshold,
// lowest first, are retired (archive: kept and listed with the reason, no longer recalled) or
// erased (as Delete erases: nothing of their text stays). Pinned and promoted facts are never
// collected.
// A dry run (the default) only reports what a real run would collect now.
import * as check from '../../shared/validate.ts';
import { isIndexed } from '../index/derive.ts';
import type { Indexer } from '../index/indexer.ts';
import { decayScore, type DecayConfig } from '../lifecycle/decay.ts';
import { SUPERSEDED_BY_AGENT, type FactRecord } from '../store/record.ts';
import type { Change, MemoryStore } from '../store/store.ts';
import { requestReused, type WritePipeline } from '../write/pipeline.ts';
import type { FactStaging } from '../write/staging.ts';
import type { Relinker } from '../write/relink.ts';
import type { CallContext } from './context.ts';
import { fadedFacts, type FadedFact } from './faded.ts';
import type { GcResult } from '../../shared/model.ts';

/** Whether garbage collection may ever take a fact, however faded: a live, recallable one,
 *  neither pinned nor promoted. */
export const mayCollect = (fact: FactRecord): boolean => isIndexed(fact) && !fact.pinned && !fact.promotedAt;
export type { GcResult } from '../../shared/model.ts';

export interface GcInput {
  agentId: unknown;
  dryRun?: unknown;
  archiveInstead?: unknown;
  limit?: unknown;
}

type Candidate = FadedFact;

const round = (x: number): number => Math.round(x * 1e4) / 1e4;

export class Collector {
  constructor(
    private readonly store: MemoryStore,
    private readonly pipeline: WritePipeline,
    private readonly staging: FactStaging,
    private readonly indexer: Indexer,
    private readonly decay: DecayConfig,
    private readonly relinker: Relinker,
  ) {}

  async collect(ctx: CallContext, input: GcInput): Promise<GcResult> {
    const agentId = check.agentId(input.agentId);
    const dryRun = input.dryRun === undefined ? true : check.boolean(input.dryRun, 'dry_run');
    const archive = input.archiveInstead === undefined ? false : check.boolean(input.archiveInstead, 'archive_instead');
    const limit = input.limit === undefined ? check.MAX_GC_LIMIT : check.count(input.limit, 'limit', check.MAX_GC_LIMIT);
    const requestId = check.requestId(ctx.requestId);
    if (dryRun) return this.result(this.candidates(agentId, Date.now(), limit), { dryRun, archive, replayed: false });
    const locked = this.candidates(agentId, Date.now(), limit).map((c) => c.factId);
    return this.pipeline.run<GcResult>(ctx, {
      agentId,
      requestId,
      request: { op: 'gc', archive, limit },
      // The facts linking to a collected one lose that link in the same commit.
      locks: [...locked, ...this.relinker.linking(agentId, locked)],
      plan: async (held) => {
        // Under the locks, each candidate is read again: one used or pinned meanwhile stays, and
        // only locked facts are touched (one that faded since waits for the next collection).
        const now = Date.now();
        const lockedIds = new Set(locked);
        const listed = this.candidates(agentId, now, limit).filter((c) => lockedIds.has(c.factId));
        const facts = await this.store.getFacts(listed.map((c) => ({ agentId, factId: c.factId })));
        const kept: Candidate[] = [];
        const staged: { changes: Change[]; apply: () => void }[] = [];
        for (const fact of facts) {
          if (!fact || !this.collectable(fact, now)) continue;
          const score = decayScore(this.decay, fact, now);
          kept.push({ factId: fact.id, score });
          staged.push(archive ? this.archived(fact, score, now) : await this.staging.erasure(fact));
        }
        const keptIds = kept.map((c) => c.factId);
        const unlinked = this.relinker.relinked(await this.relinker.read(agentId, keptIds, held), keptIds, undefined, now);
        staged.push({ changes: unlinked.map((s) => s.change), apply: () => unlinked.forEach((s) => s.apply()) });
        const result = this.result(kept, { dryRun, archive, replayed: false });
        return () => ({ changes: staged.flatMap((s) => s.changes), result, record: { op: 'gc', ...result }, apply: () => staged.forEach((s) => s.apply()) });
      },
      replay: async (recorded) => {
        if (recorded.op !== 'gc') throw requestReused(requestId, recorded, 'gc');
        const { op: _op, ...result } = recorded as unknown as GcResult & { op: string };
        return { ...result, replayed: true };
      },
    });
  }

  /** Live, unpinned facts of the namespace scoring below the forget threshold now, lowest first. */
  private candidates(agentId: string, now: number, limit: number): Candidate[] {
    return fadedFacts(this.indexer, agentId, this.decay, this.decay.forgetThreshold, now).slice(0, limit);
  }

  private collectable(fact: FactRecord, now: number): boolean {
    return mayCollect(fact) && decayScore(this.decay, fact, now) < this.decay.forgetThreshold;
  }

  private archived(fact: FactRecord, score: number, now: number) {
    const reason = `gc: score ${round(score)} below the forget threshold ${this.decay.forgetThreshold}`;
    const { change, apply } = this.staging.unindexed(fact, { ...fact, supersededBy: SUPERSEDED_BY_AGENT, retiredReason: reason, updatedAt: now, relations: [] });
    return { changes: [change], apply };
  }

  private result(collected: Candidate[], how: { dryRun: boolean; archive: boolean; replayed: boolean }): GcResult {
    const n = collected.length;
    const threshold = this.decay.forgetThreshold;
    const verb = how.archive ? (how.dryRun ? 'Would archive' : 'Archived') : how.dryRun ? 'Would remove' : 'Removed';
    return {
      dryRun: how.dryRun,
      removedCount: how.archive ? 0 : n,
      archivedCount: how.archive ? n : 0,
      freedScoreSum: round(collected.reduce((sum, c) => sum + c.score, 0)),
      factIds: collected.map((c) => c.factId),
      scores: collected.map((c) => c.score),
      totalAffected: n,
      threshold,
      message: `${verb} ${n} low-scoring memor${n === 1 ? 'y' : 'ies'} (threshold: ${threshold})`,
      replayed: how.replayed,
    };
  }
}
