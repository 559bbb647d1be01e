// Start-up and shutdown of the in-memory indexes. Start-up restores them from the snapshot of a
// clean shutdown when it is current and sound, else rebuilds them from the store; shutdown saves
// the vector indexes and a new snapshot, and seals it with the store's closing token.
import type { Indexer } from '../index/indexer.ts';
import { saveSnapshot, sealSnapshot, takeSnapshot, type Snapshot, type SnapshotId } from '../index/snapshot.ts';
import { TOKENIZER_ID } from '../index/tokenizer.ts';
import { EMBEDDER_META, REINDEX_META } from '../jobs/reindex.ts';
import { TOKENIZER_META } from '../jobs/doctor.ts';
import { isShared, type MemoryStore } from '../store/store.ts';

import type { Log } from '../log.ts';

/** Builds the indexes: from the snapshot when it describes exactly this store (or, for a shared
 *  store, this store as it was at some change still in the log), else from every fact in the
 *  store (saying why). Resolves with the change number the indexes cover. */
export async function loadIndexes(store: MemoryStore, indexer: Indexer, dataDir: string, log: Log): Promise<number> {
  const started = Date.now();
  // A scan sees at least every commit up to here.
  let covered = store.lastSeq;
  const { vectors } = indexer;
  // The saved vector graphs are read on the graph thread while this one restores the rest.
  vectors.preload();
  const { snapshot, why } = usableSnapshot(store, dataDir, vectors.embedder.id);
  vectors.setOff(await embedderOfRecordProblem(store, indexer));
  const tokenizerCurrent = await tokenizerOfRecordIsCurrent(store, log);
  let restored = false;
  if (snapshot) {
    try {
      indexer.restore(snapshot);
      restored = true;
    } catch (error) {
      log.warn(`the index snapshot could not be restored (${(error as Error).message}); rebuilding from the store`);
    }
  }
  if (restored) {
    covered = snapshot!.seq;
    await vectors.load(store, indexer.catalog, true);
    const indexed = [...indexer.catalog.all()].reduce((n, ns) => n + ns.size, 0);
    log.info(`loaded ${indexed} recallable facts from the index snapshot of the last clean shutdown in ${Date.now() - started} ms`);
  } else {
    const loaded = await indexer.rebuild(store, tokenizerCurrent, loadProgress(log, started, tokenizerCurrent));
    await vectors.load(store, indexer.catalog, true);
    log.info(
      `loaded ${loaded.facts} facts (${loaded.indexed} recallable) in ${Date.now() - started} ms` +
        (loaded.missingTerms ? `; ${loaded.missingTerms} facts lacked postings (run engram doctor --rebuild)` : '') +
        (snapshot ? '' : ` (index snapshot not used: ${why})`),
    );
  }
  if (vectors.off) log.warn(`vector signal off: ${vectors.off}`);
  const interrupted = (await store.getMeta(REINDEX_META)) as { target?: string } | undefined;
  if (interrupted) log.warn(`a reindex to ${interrupted.target} was interrupted: run engram reindex to finish it`);
  return covered;
}

/** How often a long start-up says it is still indexing: a quiet daemon for minutes (a million
 *  facts indexed from their texts after an upgrade) looks hung. */
const PROGRESS_INTERVAL_MS = 5_000;

function loadProgress(log: Log, started: number, storedTerms: boolean): (factsRead: number) => void {
  let said = started;
  return (factsRead) => {
    const now = Date.now();
    if (now - said < PROGRESS_INTERVAL_MS) return;
    said = now;
    log.info(`indexing the store${storedTerms ? '' : ' from its texts'}: ${factsRead} facts read in ${((now - started) / 1000).toFixed(0)} s; the daemon serves once it is done`);
  };
}

function usableSnapshot(store: MemoryStore, dataDir: string, embedder: string): { snapshot: Snapshot | null; why: string } {
  const shared = isShared(store) ? store : null;
  const { snapshot, reason } = takeSnapshot(dataDir, shared ? (sealed) => shared.ownsToken(sealed) : store.openedToken);
  if (!snapshot) return { snapshot: null, why: reason };
  if (snapshot.tokenizer !== TOKENIZER_ID || snapshot.embedder !== embedder) return { snapshot: null, why: 'it was made with another tokenizer or embedder' };
  if (shared && snapshot.seq < store.changesKeptAfter) return { snapshot: null, why: `it covers change ${snapshot.seq}, and the store's change log starts after ${store.changesKeptAfter}` };
  if (!shared && snapshot.seq !== store.lastSeq) return { snapshot: null, why: `it covers change ${snapshot.seq}, the store is at ${store.lastSeq}` };
  return { snapshot, why: '' };
}

/** The store records the model its vectors come from and never mixes two models' vectors:
 *  why the vector signal must stay off, or null. */
async function embedderOfRecordProblem(store: MemoryStore, indexer: Indexer): Promise<string | null> {
  const { embedder } = indexer.vectors;
  if (embedder.dimensions === 0) return 'embedder none';
  const recorded = (await store.getMeta(EMBEDDER_META)) as { id: string; dimensions: number } | undefined;
  if (!recorded) {
    await store.commit([{ type: 'putMeta', name: EMBEDDER_META, value: { id: embedder.id, dimensions: embedder.dimensions } }]);
    return null;
  }
  if (recorded.id === embedder.id && recorded.dimensions === embedder.dimensions) return null;
  return `the store's vectors come from ${recorded.id} (${recorded.dimensions}-d) but the daemon runs ${embedder.id}; run engram reindex`;
}

/** The stored keyword rows depend on the tokenizer: a store written by another version is
 *  indexed from its texts until `engram doctor --rebuild` rewrites the rows. */
async function tokenizerOfRecordIsCurrent(store: MemoryStore, log: Log): Promise<boolean> {
  const recorded = (await store.getMeta(TOKENIZER_META)) as { id: string } | undefined;
  if (recorded?.id === TOKENIZER_ID) return true;
  if (!recorded && (await store.namespaces()).length === 0) {
    await store.commit([{ type: 'putMeta', name: TOKENIZER_META, value: { id: TOKENIZER_ID } }]);
    return true;
  }
  log.warn(`the keyword index was written by tokenizer ${recorded?.id ?? '(unrecorded)'}, this daemon runs ${TOKENIZER_ID}: indexing from the texts; run engram doctor --rebuild to rewrite it`);
  return false;
}

/** After the last write: the next start restores the indexes instead of rebuilding them. A
 *  failure only costs that next start a full rebuild. */
export function saveIndexSnapshot(seq: number, indexer: Indexer, dataDir: string, log: Log): SnapshotId | null {
  const started = Date.now();
  try {
    const id = saveSnapshot(dataDir, {
      tokenizer: TOKENIZER_ID,
      embedder: indexer.vectors.embedder.id,
      seq,
      pending: indexer.pending.all(),
      namespaces: [...indexer.catalog.all()].map((ns) => ns.toState()),
    });
    log.info(`saved the index snapshot in ${Date.now() - started} ms`);
    return id;
  } catch (error) {
    log.warn(`could not save the index snapshot (the next start rebuilds from the store): ${(error as Error).message}`);
    return null;
  }
}

export { sealSnapshot };
