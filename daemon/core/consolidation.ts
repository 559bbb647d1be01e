// Consolidation: a namespace's weakest live facts (decay score below the consolidation threshold;
// pinned and promoted facts never) summarised into one `summary` fact that replaces them. Decay
// is a function of each fact's stored use statistics and the time, never compounded into the
// record, so a second run at the same moment finds what the first left and changes nothing.
// The summary is committed first; then each source is retired in its own transaction, under its
// lock, re-checked there: one pinned, used or retired meanwhile stays and is reported beside
// the committed summary. Every step goes through the write pipeline, so a rebuild waits for it.
// Runs also start on their own after every N writes to a namespace, one namespace at a time,
// off the write path.
import { isDeepStrictEqual } from 'node:util';
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import type { ConsolidationCounters, ConsolidationRun as SharedRun } from '../../shared/model.ts';
import * as check from '../../shared/validate.ts';
import type { Limits } from '../../shared/validate.ts';
import { mergedEntityTypes, type EntityNamer } from '../analysis/entities.ts';
import type { Summarizer } from '../consolidate/summarize.ts';
import { isIndexed } from '../index/derive.ts';
import type { Indexer } from '../index/indexer.ts';
import type { DecayConfig } from '../lifecycle/decay.ts';
import { replacementLabel, retired } from '../lifecycle/revise.ts';
import type { Log } from '../log.ts';
import { decodeFact, type FactRecord } from '../store/record.ts';
import type { Change, MemoryStore } from '../store/store.ts';
import { requestReused, type WritePipeline } from '../write/pipeline.ts';
import { Relinker } from '../write/relink.ts';
import type { FactStaging, Staged } from '../write/staging.ts';
import { callContext, DAEMON, type CallContext } from './context.ts';
import { fadedFacts, type FadedFact } from './faded.ts';

export type { ConsolidationCounters } from '../../shared/model.ts';
export type ConsolidationRun = SharedRun<FactRecord>;

export interface ConsolidationConfig {
  /** A run starts on its own after this many writes to a namespace; 0 = never. */
  every: number;
  /** Facts whose decay score is below this are consolidated. */
  below: number;
  /** Facts summarised per run, at most; never below minSources, or no run would ever summarise. */
  maxSources: number;
  /** Fewer faded facts than this: nothing to summarise. */
  minSources: number;
  /** An automatic run of a namespace starts at most once per this many milliseconds; one due
   *  sooner waits for the interval to pass. Finding the faded facts reads every fact of the
   *  namespace, so without this a stream of single writes cost O(namespace size) every `every`
   *  writes (quadratic over an import); facts fade over days, so a minute's wait loses nothing. */
  intervalMs: number;
}

export const DEFAULT_CONSOLIDATION: ConsolidationConfig = { every: 20, below: 0.1, maxSources: 20, minSources: 3, intervalMs: 60_000 };

const COUNTERS_META = 'consolidation';

/** What a run's request record keeps: ids and counts, never the summary's text (erasing the
 *  summary later must leave nothing of it in the store). */
type RecordedRun = Omit<ConsolidationRun, 'summary' | 'text' | 'replayed'> & { summaryId: string };

const recordOf = ({ summary, text: _text, replayed: _replayed, ...run }: ConsolidationRun): RecordedRun => ({ ...run, summaryId: summary?.id ?? '' });

const ZERO: ConsolidationCounters = { runs: 0, summariesWritten: 0, factsRetired: 0, failures: 0, rejectedProposals: 0, lastRunAt: 0, queued: 0 };

/** Whether a source changed since the run chose it (its summary was made from that version, so
 *  retiring a newer one would lose what changed). Only its relations may differ: an earlier
 *  retirement of the same run re-points them. */
function changedSince(chosen: FactRecord, now: FactRecord): boolean {
  const { relations: _a, updatedAt: _b, accessCount: _c, lastAccessedAt: _d, ...was } = chosen;
  const { relations: _e, updatedAt: _f, accessCount: _g, lastAccessedAt: _h, ...is } = now;
  return !isDeepStrictEqual(was, is);
}

export class Consolidator {
  private totals: ConsolidationCounters = { ...ZERO };
  /** Writes to each namespace since its last run. */
  private readonly writes = new Map<string, number>();
  /** Namespaces waiting for an automatic run, in order. */
  private readonly waiting = new Set<string>();
  /** When each namespace's last automatic run started (Date.now()). */
  private readonly lastStarted = new Map<string, number>();
  /** Namespaces whose automatic run is due but waits for the interval, with its timer. */
  private readonly deferred = new Map<string, NodeJS.Timeout>();
  /** The run in progress (automatic runs go one at a time). */
  private running: Promise<void> | null = null;
  /** Runs asked for through a door, per namespace: one at a time each. */
  private readonly inProgress = new Map<string, Promise<unknown>>();
  private closed = false;
  /** Counts of runs that wrote nothing, not yet in the store. */
  private unsaved = false;

  constructor(
    private readonly store: MemoryStore,
    private readonly pipeline: WritePipeline,
    private readonly staging: FactStaging,
    private readonly indexer: Indexer,
    private readonly relinker: Relinker,
    private readonly decay: DecayConfig,
    private readonly config: ConsolidationConfig,
    private readonly summarizer: Summarizer,
    private readonly limits: Limits,
    private readonly log: Log,
    /** A summary's entities: its sources', else (graph on) those its text names, as any write's. */
    private readonly nameEntities: EntityNamer,
  ) {}

  async open(): Promise<void> {
    const stored = await this.store.getMeta(COUNTERS_META);
    if (stored) this.totals = { ...ZERO, ...(stored as Partial<ConsolidationCounters>), queued: 0 };
  }

  counters(): ConsolidationCounters {
    return { ...this.totals, queued: this.waiting.size + this.deferred.size + this.inProgress.size };
  }

  /** A write to a namespace committed: after every N, a run is scheduled (never awaited here). */
  noteWrite(agentId: string): void {
    if (this.config.every === 0 || this.closed) return;
    const n = (this.writes.get(agentId) ?? 0) + 1;
    this.writes.set(agentId, n);
    if (n < this.config.every || this.waiting.has(agentId) || this.deferred.has(agentId)) return;
    const wait = (this.lastStarted.get(agentId) ?? -Infinity) + this.config.intervalMs - Date.now();
    if (wait > 0) {
      const timer = setTimeout(() => {
        this.deferred.delete(agentId);
        if (!this.closed) this.schedule(agentId);
      }, wait);
      timer.unref();
      this.deferred.set(agentId, timer);
      return;
    }
    this.schedule(agentId);
  }

  private schedule(agentId: string): void {
    this.waiting.add(agentId);
    if (!this.running) this.running = this.drainQueue();
  }

  private async drainQueue(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    for (const agentId of this.waiting) {
      this.waiting.delete(agentId);
      this.writes.set(agentId, 0);
      if (this.closed) break;
      this.lastStarted.set(agentId, Date.now());
      try {
        const run = await this.run(callContext(DAEMON), { agentId });
        if (run.summary) this.log.info(`consolidation of "${agentId}": ${run.message}`);
      } catch (error) {
        this.log.warn(`automatic consolidation of "${agentId}" failed: ${(error as Error).message}`);
      }
    }
    this.running = null;
    if (this.waiting.size && !this.closed) this.running = this.drainQueue();
  }

  /** Consolidate: one run over a namespace (a dry run reports and writes nothing). */
  async run(ctx: CallContext, input: { agentId: unknown; dryRun?: unknown }): Promise<ConsolidationRun> {
    const agentId = check.agentId(input.agentId);
    const dryRun = input.dryRun === undefined ? false : check.boolean(input.dryRun, 'dry_run');
    const requestId = check.requestId(ctx.requestId);
    // One run per namespace at a time: a second waits and then finds what the first left (a
    // repeat of the first's request id, its record).
    while (this.inProgress.has(agentId)) await this.inProgress.get(agentId)!.catch(() => undefined);
    const work = this.replayOrRun(ctx, agentId, dryRun, requestId);
    this.inProgress.set(agentId, work);
    try {
      return await work;
    } finally {
      this.inProgress.delete(agentId);
    }
  }

  private async replayOrRun(ctx: CallContext, agentId: string, dryRun: boolean, requestId: string): Promise<ConsolidationRun> {
    if (requestId && !dryRun) {
      const recorded = await this.store.requestResult(agentId, requestId);
      if (recorded) {
        if (recorded.op !== 'consolidate') throw requestReused(requestId, recorded, 'consolidate');
        return this.replayed(agentId, recorded.run as unknown as RecordedRun);
      }
    }
    return this.runNow(ctx, agentId, dryRun, requestId);
  }

  private async runNow(ctx: CallContext, agentId: string, dryRun: boolean, requestId: string): Promise<ConsolidationRun> {
    const now = Date.now();
    const faded = this.faded(agentId, now);
    const chosen = faded.slice(0, this.config.maxSources);
    const stored = await this.store.getFacts(chosen.map((c) => ({ agentId, factId: c.factId })));
    const sources = stored.filter((f): f is FactRecord => f !== undefined && isIndexed(f) && !f.pinned);
    const base: ConsolidationRun = { dryRun, fadedCount: faded.length, sourceIds: sources.map((f) => f.id), retiredIds: [], failures: [], summarizer: this.summarizer.id, rejected: '', text: '', message: '', replayed: false };
    if (sources.length < this.config.minSources) {
      // The count compared is the sources', said as such: a faded fact erased, pinned or not yet
      // indexed since it was found is no source, and "4 faded, fewer than 3" read as a bug.
      const dropped = chosen.length - sources.length;
      const message = `Nothing to consolidate: ${sources.length} faded fact(s) to summarise${dropped ? ` (${dropped} more changed or are not indexed yet)` : ''}, fewer than ${this.config.minSources}`;
      return this.finish(ctx, { ...base, sourceIds: [], message }, dryRun);
    }
    const summary = await this.summarizer.summarize(sources.map((f) => ({ id: f.id, text: f.text })));
    if (summary.rejected !== undefined) {
      return this.finish(ctx, { ...base, rejected: summary.rejected, message: `The summarizer's proposal was refused, nothing was written: ${summary.rejected}` }, dryRun, { rejectedProposals: 1 });
    }
    let text: string;
    try {
      text = check.factText(summary.text, this.limits, 'summary');
    } catch (error) {
      const rejected = `the summary does not fit a fact: ${(error as Error).message}`;
      return this.finish(ctx, { ...base, rejected, message: `The summarizer's proposal was refused, nothing was written: ${rejected}` }, dryRun, { rejectedProposals: 1 });
    }
    if (dryRun) return { ...base, text, message: `Would summarise ${sources.length} faded facts into one` };
    const written = await this.writeSummary(ctx, agentId, sources, text, requestId);
    const result: ConsolidationRun = { ...base, text, summary: written };
    // Each retirement is its own transaction (they take the summary's lock in turn).
    // Once the summary is committed the run finishes whatever the caller does: a caller that went
    // away must not leave a summary beside all of its live sources.
    const daemon = callContext(DAEMON);
    const outcomes = await Promise.allSettled(sources.map((source) => this.retire(daemon, agentId, source, written.id)));
    outcomes.forEach((outcome, i) => {
      const { id } = sources[i]!;
      if (outcome.status === 'fulfilled') return void result.retiredIds.push(id);
      const error = outcome.reason as unknown;
      if (!(error instanceof EngramError) || error.kind === ErrorKind.Internal) throw error;
      result.failures.push({ factId: id, error: error.message });
    });
    result.message = `Summarised ${sources.length} faded facts into ${written.id}; retired ${result.retiredIds.length}${result.failures.length ? `, ${result.failures.length} kept (changed since the run chose them)` : ''}`;
    const finished = await this.finish(ctx, result, false, { failures: result.failures.length });
    if (requestId) await this.store.commit([{ type: 'recordRequest', agentId, requestId, result: { op: 'consolidate', run: recordOf(finished) as unknown as Record<string, unknown> } }]);
    return finished;
  }

  /** A repeat of a recorded run: what it did, with its summary as it is now (gone if deleted). */
  private async replayed(agentId: string, recorded: RecordedRun): Promise<ConsolidationRun> {
    const { summaryId, ...run } = recorded;
    const [summary] = summaryId ? await this.store.getFacts([{ agentId, factId: summaryId }]) : [];
    return { ...run, text: summary?.text ?? '', ...(summary ? { summary } : {}), replayed: true };
  }

  /** Live, unpinned, unpromoted facts scoring below the threshold now, weakest first. */
  private faded(agentId: string, now: number): FadedFact[] {
    return fadedFacts(this.indexer, agentId, this.decay, this.config.below, now);
  }

  /** The summary, committed on its own: the sources' tags and entities, their summed use, the
   *  conservative label (min(inferred, theirs); a model's summary is unverified). */
  private writeSummary(ctx: CallContext, agentId: string, sources: readonly FactRecord[], text: string, requestId: string): Promise<FactRecord> {
    const union = (lists: string[][]) => [...new Set(lists.flat())];
    const entities = this.nameEntities(text, { entities: union(sources.map((f) => f.entities)), entityTypes: mergedEntityTypes(sources) });
    const draft = decodeFact({
      id: '',
      agentId,
      text,
      kind: 'summary',
      confidence: this.summarizer.generative ? 'unverified' : replacementLabel(undefined, sources),
      tags: union(sources.map((f) => f.tags)),
      ...entities,
      strength: Math.max(...sources.map((f) => f.strength)),
      useCount: sources.reduce((n, f) => n + f.useCount, 0),
      lastUsedAt: Math.max(...sources.map((f) => f.lastUsedAt || f.createdAt)),
      replaces: sources.map((f) => f.id),
      source: 'consolidation',
    });
    return this.pipeline.run(ctx, {
      agentId,
      requestId: '',
      locks: [],
      plan: async () => {
        const stamp = await this.staging.created(draft);
        return () => {
          const staged = stamp();
          const counters = this.counted({ runs: 1, summariesWritten: 1 });
          return { changes: [staged.change, counters.change], result: staged.fact, apply: () => (staged.apply(), counters.apply()) };
        };
      },
      replay: async () => {
        throw new EngramError(ErrorKind.Internal, `request ${requestId}: a summary write is never replayed`);
      },
    });
  }

  /** One source retired in favour of the summary, its own transaction: re-checked under its lock
   *  (still live, unpinned, unchanged), its relations moved to the summary, the facts linking to
   *  it re-pointed there. The summary is locked too: it must stay live while a source points at it. */
  private retire(ctx: CallContext, agentId: string, chosen: FactRecord, summaryId: string): Promise<void> {
    return this.pipeline.run(ctx, {
      agentId,
      requestId: '',
      locks: [chosen.id, summaryId, ...this.relinker.linking(agentId, [chosen.id])],
      plan: async (held) => {
        const [source, summary] = await this.store.getFacts([chosen.id, summaryId].map((factId) => ({ agentId, factId })));
        const refuse = (why: string) => new EngramError(ErrorKind.FailedPrecondition, `${chosen.id} ${why}`, 'source_ids');
        if (!source) throw refuse('was deleted meanwhile');
        if (!isIndexed(source)) throw refuse(`was retired meanwhile (superseded by ${source.supersededBy})`);
        if (source.pinned) throw refuse('was pinned meanwhile: a pinned fact is never consolidated');
        if (changedSince(chosen, source)) throw refuse('changed or was used meanwhile');
        if (!summary || !isIndexed(summary)) throw refuse(`was kept: the summary ${summaryId} is no longer live`);
        const linking = await this.relinker.read(agentId, [source.id], held);
        // The summary's own links to the source (taken over from an earlier source) would now
        // point at itself: they go.
        const own = { ...summary, relations: summary.relations.filter((r) => r.targetId !== source.id) };
        return () => {
          const now = Date.now();
          const staged: Staged[] = [
            this.staging.unindexed(source, retired(source, summaryId, now)),
            this.staging.lifecycle(summary, { ...own, relations: Relinker.inherited(own, [source]), updatedAt: now }),
            ...this.relinker.relinked(linking.filter((f) => f.id !== summaryId), [source.id], summaryId, now),
          ];
          const counters = this.counted({ factsRetired: 1 });
          return { changes: [...staged.map((s) => s.change), counters.change], result: undefined, apply: () => (staged.forEach((s) => s.apply()), counters.apply()) };
        };
      },
      replay: async () => undefined,
    });
  }

  /** Counts a run's outcome; a run that wrote nothing still counts (in its own meta write). */
  private async finish(ctx: CallContext, run: ConsolidationRun, dryRun: boolean, add: Partial<ConsolidationCounters> = {}): Promise<ConsolidationRun> {
    if (dryRun) return run;
    const wrote = run.summary !== undefined;
    const counters = this.counted({ ...add, ...(wrote ? {} : { runs: 1 }) });
    // A run someone asked for is answered only once its count is stored, as any write is.
    const asked = ctx.principal !== DAEMON;
    if (wrote || add.failures || asked) {
      await this.store.commit([counters.change]);
      this.unsaved = false;
    } else {
      // An automatic run that wrote nothing (the usual one) costs no disk sync: its count rides
      // with the next commit that stores the totals, or the close.
      this.unsaved = true;
    }
    counters.apply();
    return run;
  }

  /** The totals with `add` counted in, as the meta change that stores them (computed right
   *  before its commit: the run's commits are serial, so the stored totals follow them). */
  private counted(add: Partial<ConsolidationCounters>): { change: Change; apply: () => void } {
    const t = this.totals;
    const next: ConsolidationCounters = {
      ...t,
      runs: t.runs + (add.runs ?? 0),
      summariesWritten: t.summariesWritten + (add.summariesWritten ?? 0),
      factsRetired: t.factsRetired + (add.factsRetired ?? 0),
      failures: t.failures + (add.failures ?? 0),
      rejectedProposals: t.rejectedProposals + (add.rejectedProposals ?? 0),
      lastRunAt: add.runs ? Date.now() : t.lastRunAt,
    };
    const { queued: _queued, ...stored } = next;
    // The totals move once the commit holding them succeeded.
    return { change: { type: 'putMeta', name: COUNTERS_META, value: stored }, apply: () => void (this.totals = next) };
  }

  /** Stops scheduling and waits for the run in progress. */
  async close(): Promise<void> {
    this.closed = true;
    this.waiting.clear();
    for (const timer of this.deferred.values()) clearTimeout(timer);
    this.deferred.clear();
    await this.running;
    await Promise.allSettled([...this.inProgress.values()]);
    if (this.unsaved) await this.store.commit([this.counted({}).change]);
  }
}
