// Recency order of one namespace: docs sorted by (time, doc) ascending, so the newest is last.
// Appends (the common case: a new fact is the newest) are O(1); readers walk it newest first.

export class RecencyOrder {
  private times: number[] = [];
  private docs: number[] = [];

  /** The order as two parallel arrays (a snapshot). */
  toState(): { times: Float64Array; docs: Int32Array } {
    return { times: Float64Array.from(this.times), docs: Int32Array.from(this.docs) };
  }

  static fromState(state: { times: Float64Array; docs: Int32Array }): RecencyOrder {
    if (state.times.length !== state.docs.length) throw new Error('recency state: times and docs differ in length');
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

  /** Whether `doc` is in the order at `time`. */
  contains(doc: number, time: number): boolean {
    const at = this.lowerBound(time, doc);
    return this.docs[at] === doc && this.times[at] === time;
  }

  remove(doc: number, time: number): void {
    const at = this.lowerBound(time, doc);
    if (this.docs[at] !== doc) return;
    this.times.splice(at, 1);
    this.docs.splice(at, 1);
  }

  /**
   * Docs newest first, in runs that share one recency rank. At one time, the docs for which
   * `sharesTime` holds (facts with the same event time: equally recent) form one run, oldest doc
   * first as the tie-break wants; every other doc (a write time, refined by id) is a run of its
   * own, newest first: by `newerFirst` among docs of one time (doc order is id order only as
   * long as facts reach the index in id order). Recall orders a shared run itself.
   */
  *newestRuns(sharesTime: (doc: number) => boolean, newerFirst: (a: number, b: number) => number = (a, b) => b - a): Generator<number[]> {
    for (let i = this.docs.length - 1; i >= 0; ) {
      let start = i;
      while (start > 0 && this.times[start - 1] === this.times[i]) start--;
      const shared: number[] = [];
      for (let j = start; j <= i; j++) if (sharesTime(this.docs[j]!)) shared.push(this.docs[j]!);
      if (shared.length > 0) yield shared;
      const own: number[] = [];
      for (let j = i; j >= start; j--) if (!sharesTime(this.docs[j]!)) own.push(this.docs[j]!);
      if (own.length > 1) own.sort(newerFirst);
      for (const doc of own) yield [doc];
      i = start - 1;
    }
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
