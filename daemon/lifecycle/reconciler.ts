// The embedding reconciler: facts stored while the embedder failed (or before it existed) get
// their vectors in the background, a batch at a time. A provider that is still down costs one
// failed batch per interval, logged once until it recovers.
import type { Memory } from '../memory.ts';
import { embeddingText } from '../index/derive.ts';

const BATCH = 64;

export class EmbeddingReconciler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private failing = false;

  constructor(
    private readonly memory: Memory,
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
    const { memory } = this;
    if (memory.vectorsOff || memory.pending.size === 0) return 0;
    const batch = memory.pending.take(BATCH);
    const facts = await memory.store.getMany(batch.map((p) => ({ agentId: p.agentId, factId: p.id })));
    const live = facts.filter((f, i) => {
      if (f && memory.isPending(f)) return true;
      memory.pending.delete(batch[i]!); // retired, deleted or embedded meanwhile
      return false;
    });
    if (live.length === 0) return 0;
    let vectors: (Float32Array | null)[];
    try {
      vectors = await memory.embedder.embed(live.map((f) => embeddingText(f!)));
    } catch (error) {
      if (!this.failing) memory.options.log(`reconciler: embedding ${live.length} pending facts failed, will retry: ${(error as Error).message}`);
      this.failing = true;
      return 0;
    }
    this.failing = false;
    let done = 0;
    for (let i = 0; i < live.length; i++) {
      const fact = live[i]!;
      if (await memory.attachVector(fact.agentId, fact.id, vectors[i] ?? null)) done++;
      else memory.pending.delete(fact);
    }
    return done;
  }
}
