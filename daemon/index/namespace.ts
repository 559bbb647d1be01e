// Everything recall needs about one namespace, in memory: a small row per live fact (the doc)
// plus the three signal indexes. Retired and deleted facts are removed here, so every doc in a
// namespace index is a live fact. Rebuilt from LevelDB at start-up; never the source of truth.
import { KeywordIndex, type KeywordState } from './keyword.ts';
import { RecencyOrder } from './recency.ts';
import { VectorIndex } from './vectors.ts';
import { AliasTable, type Rule } from './aliases.ts';
import { FactGraph } from './graph.ts';

export interface Doc {
  factId: string;
  createdAt: number;
  /** The time recency ranks by. */
  recencyTime: number;
  /** recencyTime is the writer's event time (occurred_at), not the write time: facts with the
   *  same event time are equally recent, while write times are refined by id (write order). */
  eventTime: boolean;
  /** Identity of the text, for dedup without reading facts. */
  textKey: string;
  /** Identity of what the fact says (index/derive.ts contentKeyOf), for write-time dedup. */
  contentKey: string;
  confidence: string;
  kind: string;
  tags: readonly string[];
  vectorKey: number;
  /** What decay scores (lifecycle/decay.ts), and what garbage collection leaves alone. */
  useCount: number;
  lastUsedAt: number;
  strength: number;
  pinned: boolean;
  /** Promoted to a long-term note (gc leaves it, auto-detection skips it). */
  promoted: boolean;
  /** What the graph reads: the entities the fact names and its typed links to other facts. */
  entities: readonly string[];
  relations: readonly { type: string; targetId: string }[];
}

/** What a doc without tags, entities or relations holds, however the doc was made (a write, a
 *  rebuild, a snapshot): one array for all of them, so a million docs are three million fewer
 *  objects for every garbage collection to mark. A doc's lists are read-only (replaced, never
 *  changed in place), which is what lets them share it. */
export const NO_ITEMS: readonly never[] = Object.freeze([]);

/** A namespace's in-memory indexes as plain data (the vector index is saved on its own). */
export interface NamespaceState {
  agentId: string;
  /** By doc number; undefined where a fact was removed (doc numbers are never reused). */
  docs: (Doc | undefined)[];
  keyword: KeywordState;
  recency: { times: Float64Array; docs: Int32Array };
  aliases: Rule[];
}

export class NamespaceIndex {
  vectors: VectorIndex | null = null;
  /** Entities and relations of the live facts. */
  readonly graph = new FactGraph();
  private readonly docByFactId = new Map<string, number>();
  private readonly docByVectorKey = new Map<number, number>();
  /** contentKey → the live doc that says it. A key that several live docs say (stored with
   *  allow_duplicate) moves to `docsSharingContent`: a Set for every fact would cost a million-fact
   *  store ~100 MB and a second of start-up for the rare duplicate. */
  private readonly docByContent = new Map<string, number>();
  private readonly docsSharingContent = new Map<string, Set<number>>();

  constructor(
    readonly agentId: string,
    readonly keyword = new KeywordIndex(),
    readonly recency = new RecencyOrder(),
    /** Query expansions of this namespace (alias records live here, not in the signal indexes). */
    readonly aliases = new AliasTable(),
    private readonly docs: (Doc | undefined)[] = [],
  ) {
    docs.forEach((info, doc) => {
      if (!info) return;
      this.docByFactId.set(info.factId, doc);
      if (info.vectorKey) this.docByVectorKey.set(info.vectorKey, doc);
      this.indexContent(info.contentKey, doc);
      this.graph.add(doc, info);
    });
  }

  toState(): NamespaceState {
    const { agentId, docs } = this;
    return { agentId, docs, keyword: this.keyword.toState(), recency: this.recency.toState(), aliases: this.aliases.toState() };
  }

  static fromState(state: NamespaceState): NamespaceIndex {
    const { agentId, keyword, recency, aliases, docs } = state;
    return new NamespaceIndex(agentId, KeywordIndex.fromState(keyword), RecencyOrder.fromState(recency), AliasTable.fromState(aliases), docs);
  }

  get size(): number {
    return this.docByFactId.size;
  }

  doc(doc: number): Doc {
    return this.docs[doc]!;
  }

  /** The total order's tie-break between two live docs: created_at, then id. Doc numbers follow
   *  it only while facts reach the index in id order, which facts followed from other daemons
   *  sharing a store need not do; signals break ties with this, so every daemon ranks alike. */
  idOrder(a: number, b: number): number {
    const x = this.docs[a]!;
    const y = this.docs[b]!;
    return x.createdAt - y.createdAt || (x.factId < y.factId ? -1 : x.factId > y.factId ? 1 : 0);
  }

  docOf(factId: string): number | undefined {
    return this.docByFactId.get(factId);
  }

  docOfVectorKey(key: number): number | undefined {
    return this.docByVectorKey.get(key);
  }

  /** The fact id of a live fact that says this (the oldest, if several do). */
  factSaying(contentKey: string): string | undefined {
    const one = this.docByContent.get(contentKey);
    if (one !== undefined) return this.docs[one]!.factId;
    const shared = this.docsSharingContent.get(contentKey);
    return shared ? this.docs[Math.min(...shared)]!.factId : undefined;
  }

  private indexContent(contentKey: string, doc: number): void {
    const shared = this.docsSharingContent.get(contentKey);
    if (shared) {
      shared.add(doc);
      return;
    }
    const one = this.docByContent.get(contentKey);
    if (one === undefined || one === doc) {
      this.docByContent.set(contentKey, doc);
      return;
    }
    this.docByContent.delete(contentKey);
    this.docsSharingContent.set(contentKey, new Set([one, doc]));
  }

  private unindexContent(contentKey: string, doc: number): void {
    const shared = this.docsSharingContent.get(contentKey);
    if (!shared) {
      if (this.docByContent.get(contentKey) === doc) this.docByContent.delete(contentKey);
      return;
    }
    shared.delete(doc);
    if (shared.size > 1) return;
    this.docsSharingContent.delete(contentKey);
    for (const last of shared) this.docByContent.set(contentKey, last);
  }

  /** Appends a new fact. Facts arrive in id order (ids are monotonic), so doc order is id order,
   *  which is the tie-break order (created_at, then id) every signal needs. */
  add(info: Doc, terms: { tf: Map<string, number>; length: number }): number {
    const doc = this.docs.length;
    this.index(doc, info, terms);
    return doc;
  }

  /** Re-indexes a changed live fact under its existing doc number, keeping doc order = id order.
   *  A vector under an unchanged vector key stays in the vector index. */
  replace(info: Doc, terms: { tf: Map<string, number>; length: number }): void {
    const doc = this.docByFactId.get(info.factId);
    if (doc === undefined) {
      this.add(info, terms);
      return;
    }
    this.unindex(doc, info.vectorKey);
    this.index(doc, info, terms);
  }

  /** Puts a fact's row at `doc` (a new one at the end, or the one it replaces) in every structure. */
  private index(doc: number, info: Doc, terms: { tf: Map<string, number>; length: number }): void {
    this.docs[doc] = info;
    this.docByFactId.set(info.factId, doc);
    if (info.vectorKey) this.docByVectorKey.set(info.vectorKey, doc);
    this.indexContent(info.contentKey, doc);
    this.graph.add(doc, info);
    this.keyword.add(doc, terms.tf, terms.length);
    this.recency.add(doc, info.recencyTime);
  }

  /** Replaces a live fact's row when nothing its signals index changed (same terms, time, vector). */
  updateDoc(info: Doc): void {
    const doc = this.docByFactId.get(info.factId);
    if (doc === undefined) return;
    this.unindexContent(this.docs[doc]!.contentKey, doc);
    this.graph.remove(doc, this.docs[doc]!);
    this.docs[doc] = info;
    this.indexContent(info.contentKey, doc);
    this.graph.add(doc, info);
  }

  /** Removes a fact from every in-memory structure (signal indexes, aliases). */
  remove(factId: string): Doc | undefined {
    this.aliases.remove(factId);
    const doc = this.docByFactId.get(factId);
    if (doc === undefined) return undefined;
    const info = this.unindex(doc);
    this.docByFactId.delete(factId);
    return info;
  }

  private unindex(doc: number, keptVectorKey = 0): Doc {
    const info = this.docs[doc]!;
    this.docs[doc] = undefined;
    this.unindexContent(info.contentKey, doc);
    this.graph.remove(doc, info);
    this.keyword.remove(doc);
    this.recency.remove(doc, info.recencyTime);
    if (info.vectorKey && info.vectorKey !== keptVectorKey) {
      this.docByVectorKey.delete(info.vectorKey);
      this.vectors?.remove(info.vectorKey);
    }
    return info;
  }

  /** Live docs in doc order, which is id order. */
  *docsInOrder(): Generator<number> {
    for (let doc = 0; doc < this.docs.length; doc++) if (this.docs[doc]) yield doc;
  }
}
