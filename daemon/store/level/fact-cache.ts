// A bounded cache of decoded fact records, so recall reads its few chosen facts from memory
// instead of a LevelDB round trip through the thread pool. Writes update it after they commit.
// A read that missed only fills the cache if no write happened while it was in flight, so a
// slow read can never put back a record older than one a write already cached.
//
// lru-cache evicts in constant time. A Map used as an LRU (delete the first key once full) does
// not: V8 leaves a hole for each deleted entry until the table is rebuilt, and finding the first
// key walks them — 13–18 µs a write once full, 11 % of the daemon's thread building a 1M store.
import { LRUCache } from 'lru-cache';
import type { FactRecord } from '../record.ts';

export class FactCache {
  private readonly entries: LRUCache<string, FactRecord>;
  private writes = 0;

  constructor(capacity = 50_000) {
    this.entries = new LRUCache({ max: capacity });
  }

  get(key: string): FactRecord | undefined {
    return this.entries.get(key);
  }

  /** A token to pass to fillAfterRead, taken before the read starts. */
  readToken(): number {
    return this.writes;
  }

  fillAfterRead(key: string, fact: FactRecord, token: number): void {
    if (token === this.writes) this.entries.set(key, fact);
  }

  written(key: string, fact: FactRecord | undefined): void {
    this.writes++;
    if (fact) this.entries.set(key, fact);
    else this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
