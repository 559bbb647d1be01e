// What following another daemon's commit does to this one's memory: each changed fact's stored
// state (record, keyword terms, and its vector when the index lacks it) read in a few queries
// and handed to the indexer, under the facts' write locks.
import { fromStoredTerms, isIndexed } from '../index/derive.ts';
import type { Indexer } from '../index/indexer.ts';
import type { AccessTracker } from '../lifecycle/access.ts';
import { readFactVectors } from '../store/fact-vectors.ts';
import type { FactRecord } from '../store/record.ts';
import type { FactKey, MemoryStore } from '../store/store.ts';
import type { WritePipeline } from '../write/pipeline.ts';

export async function applyStoredState(parts: { store: MemoryStore; indexer: Indexer; access: AccessTracker; pipeline: WritePipeline }, changed: readonly FactKey[]): Promise<void> {
  const { store, indexer, access, pipeline } = parts;
  const keys = [...new Map(changed.map((k) => [`${k.agentId}\u0000${k.factId}`, k])).values()];
  await pipeline.withFactLocks(keys, async () => {
    const facts = await store.getFacts(keys);
    const terms = await store.getTerms(keys.map((k, i) => (facts[i] && isIndexed(facts[i]!) ? k : { agentId: '', factId: '' })));
    // The vectors the indexes lack.
    const lacking = facts.filter((f): f is FactRecord => f !== undefined && isIndexed(f) && f.vectorKey !== 0 && indexer.namespace(f.agentId)?.docOfVectorKey(f.vectorKey) === undefined);
    const vectors = await readFactVectors(store, lacking);
    keys.forEach((key, i) => {
      const fact = facts[i];
      const stored = terms[i];
      if (!fact) access.forget(key.agentId, key.factId);
      indexer.followed(key, fact, stored ? fromStoredTerms(stored) : undefined, fact ? vectors.of(fact) : undefined);
    });
  });
}
