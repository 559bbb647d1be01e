// Reindex: after the daemon's embedding model changed, re-embed every recallable fact with the
// new model, then switch the store's embedder of record and rebuild the vector indexes. Until it
// finishes, recall runs keyword + recency only and says so. Safe to interrupt: each fact is
// switched in its own write, and a later run skips the facts already done.
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import { embeddingText, isIndexed } from '../index/derive.ts';
import type { Indexer } from '../index/indexer.ts';
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';
import type { AttachVector } from './reconciler.ts';

export type ReindexEvent =
  | { kind: 'progress'; phase: string; done: number; total: number }
  | { kind: 'report'; embedded: number; alreadyDone: number; embedder: string };

export const EMBEDDER_META = 'embedder';
export const REINDEX_META = 'reindex';

const BATCH = 64;

export interface ReindexDeps {
  store: MemoryStore;
  indexer: Indexer;
  attach: AttachVector;
  /** Runs work with every write held back. */
  exclusive: <T>(work: () => Promise<T>) => Promise<T>;
  /** Saves the vector indexes now. */
  saveVectors: () => Promise<void>;
}

export class Reindexer {
  private running = false;

  constructor(private readonly deps: ReindexDeps) {}

  async *run(): AsyncGenerator<ReindexEvent> {
    const { store, indexer } = this.deps;
    const embedder = indexer.vectors.embedder;
    if (embedder.dimensions === 0) {
      throw new EngramError(ErrorKind.FailedPrecondition, 'the daemon runs with --embedder none: there is nothing to embed. Restart it with the model you want, then reindex.');
    }
    if (this.running) throw new EngramError(ErrorKind.FailedPrecondition, 'a reindex is already running on this daemon');
    this.running = true;
    try {
      await store.commit([{ type: 'putMeta', name: REINDEX_META, value: { target: embedder.id, startedAt: new Date().toISOString() } }]);
      const { todo, alreadyDone } = await this.factsToEmbed();
      let embedded = 0;
      const phase = `embedding with ${embedder.id}`;
      yield { kind: 'progress', phase, done: 0, total: todo.length };
      for (let i = 0; i < todo.length; i += BATCH) {
        embedded += await this.embedBatch(todo.slice(i, i + BATCH));
        yield { kind: 'progress', phase, done: Math.min(i + BATCH, todo.length), total: todo.length };
      }
      yield { kind: 'progress', phase: 'rebuilding vector indexes', done: 0, total: 1 };
      // Facts written while this ran were stored without a vector: the last pass holds writes back.
      embedded += await this.deps.exclusive(async () => {
        let late = 0;
        const { todo: rest } = await this.factsToEmbed();
        for (let i = 0; i < rest.length; i += BATCH) late += await this.embedBatch(rest.slice(i, i + BATCH), true);
        await this.complete();
        return late;
      });
      yield { kind: 'progress', phase: 'rebuilding vector indexes', done: 1, total: 1 };
      yield { kind: 'report', embedded, alreadyDone, embedder: embedder.id };
    } finally {
      this.running = false;
    }
  }

  private async factsToEmbed(): Promise<{ todo: FactRecord[]; alreadyDone: number }> {
    const target = this.deps.indexer.vectors.embedder.id;
    const todo: FactRecord[] = [];
    let alreadyDone = 0;
    for await (const { fact } of this.deps.store.scanFacts()) {
      if (!isIndexed(fact)) continue;
      if (fact.embedder === target) alreadyDone++;
      else todo.push(fact);
    }
    return { todo, alreadyDone };
  }

  private async embedBatch(facts: FactRecord[], withinExclusive = false): Promise<number> {
    const embedder = this.deps.indexer.vectors.embedder;
    const vectors = await embedder.embed(facts.map(embeddingText));
    let done = 0;
    for (let i = 0; i < facts.length; i++) {
      if (await this.deps.attach(facts[i]!.agentId, facts[i]!.id, vectors[i] ?? null, embedder.id, withinExclusive)) done++;
    }
    return done;
  }

  /** Every recallable fact now has the current model's vector (or none): make the model the
   *  store's embedder of record, drop the old vector indexes and build new ones from the store. */
  private async complete(): Promise<void> {
    const { store, indexer } = this.deps;
    const { embedder } = indexer.vectors;
    await store.commit([
      { type: 'putMeta', name: EMBEDDER_META, value: { id: embedder.id, dimensions: embedder.dimensions } },
      { type: 'deleteMeta', name: REINDEX_META },
    ]);
    await indexer.vectors.rebuildAll(store, indexer.catalog);
    await this.deps.saveVectors();
  }
}
