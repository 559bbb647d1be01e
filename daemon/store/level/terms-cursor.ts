// Walks the postings table alongside the facts table. Both are keyed by fact key and read in key
// order, so a merge join finds each fact's row with one sequential read instead of a point lookup
// per fact (at a million facts, seconds of start-up).
import type { StoredTerms } from '../store.ts';
import { compareKeys } from '../key-order.ts';
import type { Table } from './tables.ts';

export class TermsCursor {
  private readonly iterator;
  private buffer: [string, StoredTerms][] = [];
  private at = 0;
  private done = false;

  constructor(table: Table<StoredTerms>, range: { gt?: string; lt?: string }) {
    // Read-ahead passes through sublevels; abstract-level's types omit it.
    this.iterator = table.iterator({ ...range, highWaterMarkBytes: 4 * 1024 * 1024 } as typeof range);
  }

  /** The row for `key`, or undefined if the table has none. Keys must be asked in key order. */
  async take(key: string): Promise<StoredTerms | undefined> {
    for (;;) {
      if (this.at === this.buffer.length) {
        if (this.done) return undefined;
        this.buffer = await this.iterator.nextv(1000);
        this.at = 0;
        if (this.buffer.length === 0) this.done = true;
        continue;
      }
      const [rowKey, row] = this.buffer[this.at]!;
      const order = compareKeys(rowKey, key);
      if (order > 0) return undefined;
      this.at++;
      if (order === 0) return row;
      // order < 0: a row whose fact is gone or not indexed; doctor reports those.
    }
  }

  close(): Promise<void> {
    return this.iterator.close();
  }
}
