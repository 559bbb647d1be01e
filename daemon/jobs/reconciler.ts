// The embedding reconciler: facts stored while the embedder failed (or before it existed) get
// their vectors in the background, a batch at a time, each through the write pipeline. A
// provider that is still down costs one failed batch per interval, logged once until it recovers.
import { embeddingText } from '../index/derive.ts';
import type { Indexer } from '../index/indexer.ts';
import type { MemoryStore } from '../store/store.ts';
import type { Log } from '../log.ts';

const BATCH = 64;

/** Gives a live fact its vector; false when the fact changed meanwhile. `withinExclusive`: the
 *  caller holds the write barrier. */
export type AttachVector = (agentId: string, factId: string, vector: Float32Array | null, embedder: string, withinExclusive?: boolean) => Promise<boolean>;

export class EmbeddingReconciler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private failing = false;

  constructor(
    private readonly indexer: Indexer,
    private readonly store: MemoryStore,
    private readonly attach: AttachVector,
    private readonly log: Log,
    private readonly intervalMs = 5_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Embeds up to one batch of pending facts; returns how many got their vector. */
  runOnce(): Promise<number> {
    this.running ??= this.embedBatch().finally(() => (this.running = null));
    return this.running;
  }

  private async embedBatch(): Promise<number> {
    const { pending, vectors } = this.indexer;
    if (vectors.off || pending.size === 0) return 0;
    const batch = pending.take(BATCH);
    const facts = await this.store.getFacts(batch.map((p) => ({ agentId: p.agentId, factId: p.id })));
    const live = facts.filter((f, i) => {
      if (f && vectors.isPending(f)) return true;
      pending.delete(batch[i]!); // retired, deleted or embedded meanwhile
      return false;
    });
    if (live.length === 0) return 0;
    let embedded: (Float32Array | null)[];
    try {
      embedded = await vectors.embedder.embed(live.map((f) => embeddingText(f!)));
    } catch (error) {
      if (!this.failing) this.log.warn(`reconciler: embedding ${live.length} pending facts failed, will retry: ${(error as Error).message}`);
      this.failing = true;
      return 0;
    }
    this.failing = false;
    let done = 0;
    for (let i = 0; i < live.length; i++) {
      const fact = live[i]!;
      if (await this.attach(fact.agentId, fact.id, embedded[i] ?? null, vectors.embedder.id)) done++;
      else pending.delete(fact);
    }
    return done;
  }
}
