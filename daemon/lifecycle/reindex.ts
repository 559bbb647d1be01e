// Reindex: after the daemon's embedding model changed, re-embed every recallable fact with the
// new model, then switch the store's embedder of record and rebuild the vector indexes. Until it
// finishes, recall runs keyword + recency only and says so. Safe to interrupt: each fact is
// switched in its own transaction, and a later run skips the facts already done.
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import { isIndexed } from '../index/derive.ts';
import type { Memory } from '../memory.ts';
import { embeddingText } from '../index/derive.ts';
import { decodeFact, type FactRecord } from '../store/record.ts';

export type ReindexEvent =
  | { kind: 'progress'; phase: string; done: number; total: number }
  | { kind: 'report'; embedded: number; alreadyDone: number; embedder: string };

const BATCH = 64;

export async function* reindex(memory: Memory): AsyncGenerator<ReindexEvent> {
  const target = memory.embedder.id;
  if (memory.embedder.dimensions === 0) {
    throw new EngramError(ErrorKind.FailedPrecondition, 'the daemon runs with --embedder none: there is nothing to embed. Restart it with the model you want, then reindex.');
  }
  const release = memory.claimReindex();
  try {
    await memory.tables.meta.put('reindex', { target, startedAt: new Date().toISOString() });
    const { todo, alreadyDone } = await factsToEmbed(memory, target);
    let embedded = 0;
    yield { kind: 'progress', phase: `embedding with ${target}`, done: 0, total: todo.length };
    for (let i = 0; i < todo.length; i += BATCH) {
      embedded += await embedBatch(memory, todo.slice(i, i + BATCH));
      yield { kind: 'progress', phase: `embedding with ${target}`, done: Math.min(i + BATCH, todo.length), total: todo.length };
    }
    // Facts written while this ran were stored without a vector: one more pass catches them.
    const { todo: late } = await factsToEmbed(memory, target);
    for (let i = 0; i < late.length; i += BATCH) embedded += await embedBatch(memory, late.slice(i, i + BATCH));
    yield { kind: 'progress', phase: 'rebuilding vector indexes', done: 0, total: 1 };
    await memory.completeReindex();
    yield { kind: 'progress', phase: 'rebuilding vector indexes', done: 1, total: 1 };
    yield { kind: 'report', embedded, alreadyDone, embedder: target };
  } finally {
    release();
  }
}

async function factsToEmbed(memory: Memory, target: string): Promise<{ todo: FactRecord[]; alreadyDone: number }> {
  const todo: FactRecord[] = [];
  let alreadyDone = 0;
  for await (const raw of memory.tables.facts.values()) {
    const fact = decodeFact(raw);
    if (!isIndexed(fact)) continue;
    if (fact.embedder === target) alreadyDone++;
    else todo.push(fact);
  }
  return { todo, alreadyDone };
}

async function embedBatch(memory: Memory, facts: FactRecord[]): Promise<number> {
  const vectors = await memory.embedder.embed(facts.map(embeddingText));
  let done = 0;
  for (let i = 0; i < facts.length; i++) {
    if (await memory.attachVector(facts[i]!.agentId, facts[i]!.id, vectors[i] ?? null)) done++;
  }
  return done;
}
