// The ranks of the facts the match signals found, one row per fact and one column per signal
// (registry order), in one typed array. Recall fuses every found fact but returns only top_k of
// them: rows cost no object or map per fact, and a full result is made only for the rows read.
import type { NamespaceIndex } from '../index/namespace.ts';
import { fuse } from './fusion.ts';
import { SIGNAL_NAMES, type SignalName, type SignalRanks, type Weights } from './registry.ts';
import type { RankMap } from './signal.ts';

const COLUMNS = SIGNAL_NAMES.length;
const COLUMN = new Map(SIGNAL_NAMES.map((name, i) => [name, i]));

export class RankTable {
  /** Found docs, row by row. */
  readonly docs: number[] = [];
  private readonly rowOf = new Map<number, number>();
  private ranks: Int32Array;
  private readonly weights: Float64Array;

  /** `matchRanks`: what each match signal ranked, in registry order. */
  constructor(matchRanks: ReadonlyMap<SignalName, RankMap>, weights: Weights) {
    let capacity = 0;
    for (const ranks of matchRanks.values()) capacity += ranks.size;
    this.ranks = new Int32Array(capacity * COLUMNS);
    this.weights = Float64Array.from(SIGNAL_NAMES, (name) => weights[name]);
    for (const [name, ranks] of matchRanks) this.fill(name, ranks, true);
  }

  has(doc: number): boolean {
    return this.rowOf.has(doc);
  }

  get size(): number {
    return this.docs.length;
  }

  /** Sets a signal's ranks of the docs given; `add` makes a row for a doc not yet found. */
  fill(name: SignalName, ranks: RankMap, add = false): void {
    const column = COLUMN.get(name)!;
    for (const [doc, rank] of ranks) {
      let row = this.rowOf.get(doc);
      if (row === undefined) {
        if (!add) continue;
        row = this.docs.length;
        this.rowOf.set(doc, row);
        this.docs.push(doc);
      }
      this.ranks[row * COLUMNS + column] = rank;
    }
  }

  /** The row's fused score: fusion's one sum, so receipts reproduce it. */
  fused(row: number): number {
    const at = row * COLUMNS;
    return fuse((c) => this.ranks[at + c]!, (c) => this.weights[c]!);
  }

  /** The row's ranks by signal name (0 = not ranked), as results and receipts carry them. */
  signalRanks(row: number): SignalRanks {
    const ranks = {} as SignalRanks;
    const at = row * COLUMNS;
    SIGNAL_NAMES.forEach((name, c) => (ranks[name] = this.ranks[at + c]!));
    return ranks;
  }

  /** The `size` rows best by their fused score (ties by created_at, then id, so every daemon of
   *  a store picks the same ones), as docs; every doc when there are no more than that. */
  best(ns: NamespaceIndex, size: number): number[] {
    if (this.docs.length <= size) return this.docs;
    const scores = new Float64Array(this.docs.length);
    const rows = Array.from(this.docs, (_, row) => ((scores[row] = this.fused(row)), row));
    rows.sort((a, b) => scores[b]! - scores[a]! || ns.idOrder(this.docs[a]!, this.docs[b]!));
    return rows.slice(0, size).map((row) => this.docs[row]!);
  }
}
