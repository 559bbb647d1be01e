// Where recall time goes, summed since the daemon started. /metrics shows it, so an operator can
// see whether a slow recall is the query's embedding, the signals, fusion or reading the facts,
// and `npm run bench` prints it beside its latency figures (the rest of a call's time is the
// protocol's: transport, serialisation, the client's decoding).
import type { SignalName } from './registry.ts';

/** One recall's stages, in the order they run. `signals` and `fuse` are per namespace ranked (a
 *  recall of scope all ranks two at once, so theirs can add up to more than the call's time). */
export const RECALL_STAGES = ['embed', 'expand', 'signals', 'fuse', 'read', 'finish'] as const;
export type RecallStage = (typeof RECALL_STAGES)[number];

export interface RecallTimesSnapshot {
  /** Queries ranked (each query of a batch counts). */
  recalls: number;
  /** Seconds spent in each stage, in total. */
  stages: Record<RecallStage, number>;
  /** Seconds each match signal took to rank, in total: the vector signal's includes waiting for
   *  the graph thread, so it shows what that hop costs beside the keyword signal's scoring. */
  signals: Partial<Record<SignalName, number>>;
}

export class RecallTimes {
  private recalls = 0;
  private readonly stages = Object.fromEntries(RECALL_STAGES.map((stage) => [stage, 0])) as Record<RecallStage, number>;
  private readonly signals: Partial<Record<SignalName, number>> = {};

  recalled(): void {
    this.recalls++;
  }

  addStage(stage: RecallStage, seconds: number): void {
    this.stages[stage] += seconds;
  }

  addSignal(signal: SignalName, seconds: number): void {
    this.signals[signal] = (this.signals[signal] ?? 0) + seconds;
  }

  snapshot(): RecallTimesSnapshot {
    return { recalls: this.recalls, stages: { ...this.stages }, signals: { ...this.signals } };
  }
}

/** Seconds since `start` (a performance.now() reading). */
export const secondsSince = (start: number): number => (performance.now() - start) / 1000;

/** Times the stages of one recall as they follow one another: each lap ends one stage. */
export class StageClock {
  private last = performance.now();

  constructor(private readonly times: RecallTimes) {}

  lap(stage: RecallStage): void {
    const now = performance.now();
    this.times.addStage(stage, (now - this.last) / 1000);
    this.last = now;
  }

  /** Starts the next stage here without counting the time since the last lap (a stage that
   *  timed itself, like the ranking of each namespace). */
  skip(): void {
    this.last = performance.now();
  }
}
