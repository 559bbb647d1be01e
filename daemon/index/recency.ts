// Recency order of one namespace: docs sorted by (time, doc) ascending, so the newest is last.
// Appends (the common case: a new fact is the newest) are O(1); a rank is a binary search.

export class RecencyOrder {
  private times: number[] = [];
  private docs: number[] = [];

  /** The order as two parallel arrays (a snapshot). */
  toState(): { times: Float64Array; docs: Int32Array } {
    return { times: Float64Array.from(this.times), docs: Int32Array.from(this.docs) };
  }

  static fromState(state: { times: Float64Array; docs: Int32Array }): RecencyOrder {
    const order = new RecencyOrder();
    order.times = Array.from(state.times);
    order.docs = Array.from(state.docs);
    return order;
  }

  get size(): number {
    return this.docs.length;
  }

  add(doc: number, time: number): void {
    const at = this.lowerBound(time, doc);
    this.times.splice(at, 0, time);
    this.docs.splice(at, 0, doc);
  }

  remove(doc: number, time: number): void {
    const at = this.lowerBound(time, doc);
    if (this.docs[at] !== doc) return;
    this.times.splice(at, 1);
    this.docs.splice(at, 1);
  }

  /** 1-based newest-first rank, or 0 if the doc is not in the order. */
  rankOf(doc: number, time: number): number {
    const at = this.lowerBound(time, doc);
    return this.docs[at] === doc ? this.docs.length - at : 0;
  }

  /** Docs newest first, starting at newest-first position `skip`. */
  *newest(skip = 0): Generator<number> {
    for (let i = this.docs.length - 1 - skip; i >= 0; i--) yield this.docs[i]!;
  }

  /** First index whose (time, doc) is >= the given pair. */
  private lowerBound(time: number, doc: number): number {
    // Fast path: appending the newest.
    const n = this.docs.length;
    if (n === 0 || this.times[n - 1]! < time || (this.times[n - 1] === time && this.docs[n - 1]! < doc)) return n;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.times[mid]!;
      if (t < time || (t === time && this.docs[mid]! < doc)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
