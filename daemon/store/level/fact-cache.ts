// A bounded cache of decoded fact records, so recall reads its few chosen facts from memory
// instead of a LevelDB round trip through the thread pool. Writes update it after they commit.
// A read that missed only fills the cache if no write happened while it was in flight, so a
// slow read can never put back a record older than one a write already cached.
import type { FactRecord } from '../record.ts';

export class FactCache {
  private readonly entries = new Map<string, FactRecord>();
  private writes = 0;

  constructor(private readonly capacity = 50_000) {}

  get(key: string): FactRecord | undefined {
    const fact = this.entries.get(key);
    if (fact) {
      // Map order is insertion order: re-inserting marks the entry most recently used.
      this.entries.delete(key);
      this.entries.set(key, fact);
    }
    return fact;
  }

  /** A token to pass to fillAfterRead, taken before the read starts. */
  readToken(): number {
    return this.writes;
  }

  fillAfterRead(key: string, fact: FactRecord, token: number): void {
    if (token === this.writes) this.set(key, fact);
  }

  written(key: string, fact: FactRecord | undefined): void {
    this.writes++;
    if (fact) this.set(key, fact);
    else this.entries.delete(key);
  }

  private set(key: string, fact: FactRecord): void {
    this.entries.delete(key);
    this.entries.set(key, fact);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
