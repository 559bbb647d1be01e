// The core every front door calls (gRPC today; REST and MCP later): it validates input, writes
// facts durably, keeps the in-memory indexes in step and runs recall. Nothing here knows about
// a wire format.
import { mkdirSync } from 'node:fs';
import type { Embedder } from './embed/provider.ts';
import { Catalog } from './index/catalog.ts';
import { docOf, embeddingText, isIndexed, termsOf, toStoredPostings } from './index/derive.ts';
import { loadAlias, loadCatalog, loadVectorIndexes, restoreSnapshot, toFloat32, vectorIndexBase, type Restored, type VectorSpace } from './index/load.ts';
import { saveSnapshot, sealSnapshot, takeSnapshot, type SnapshotId } from './index/snapshot.ts';
import type { NamespaceIndex } from './index/namespace.ts';
import { terms as queryTerms, TOKENIZER_ID } from './index/tokenizer.ts';
import { VectorIndex } from './index/vectors.ts';
import { AccessTracker } from './lifecycle/access.ts';
import { PendingSet } from './lifecycle/pending.ts';
import { checkLabel } from './lifecycle/confidence.ts';
import { EmbeddingReconciler } from './lifecycle/reconciler.ts';
import { search, type PreparedQuery, type RetrievalMetadata, type SearchOutcome, type SearchRequest } from './recall/recall.ts';
import { defaultPlan, planFromOptions, type RecallDefaults, type RecallOptionsInput, type Scope } from './recall/plan.ts';
import { mergeBatch } from './recall/batch.ts';
import { storeFingerprint, type Tables } from './store/database.ts';
import { FactStore } from './store/fact-store.ts';
import { namespaceRange, vectorEntryKey } from './store/keys.ts';
import type { FactKindName, FactRecord } from './store/record.ts';
import { aliasText, type AliasMeta } from './index/aliases.ts';
import { EngramError, ErrorKind, invalidArgument, notFound } from '../shared/errors.ts';
import * as check from '../shared/validate.ts';
import { SHARED_AGENT_ID, type Limits } from '../shared/validate.ts';
import { dataPaths } from '../shared/discovery.ts';
import { planReplacement, type FactPatch } from './lifecycle/update.ts';
import { computeStats, type Stats } from './store/stats.ts';

export interface MemoryOptions {
  dataDir: string;
  embedder: Embedder;
  limits: Limits;
  recallDefaults: RecallDefaults;
  /** Checkpoints kept per agent (default 20). */
  checkpointKeep?: number;
  /** How often pending embeddings are retried (default 5 s). */
  reconcileIntervalMs?: number;
  log: (message: string) => void;
}

export interface WriteInput {
  requestId?: unknown;
  agentId: unknown;
  text: unknown;
  occurredAt?: unknown;
  tags?: unknown;
  entities?: unknown;
  source?: unknown;
  context?: unknown;
  meta?: unknown;
  confidence?: unknown;
}

export interface PutResult {
  fact: FactRecord;
  /** The request id had been committed before: this is the original fact, nothing was written. */
  replayed: boolean;
}

const ACCESS_FLUSH_MS = 1000;
const VECTOR_SAVE_MS = 60_000;
const EMBEDDER_META_KEY = 'embedder';
const TOKENIZER_META_KEY = 'tokenizer';

export class Memory {
  readonly catalog = new Catalog();
  readonly access = new AccessTracker();
  /** Recallable facts waiting for a vector from the current model. */
  readonly pending = new PendingSet();
  readonly reconciler: EmbeddingReconciler;
  private readonly inflightRequests = new Map<string, Promise<PutResult>>();
  /** Vector keys handed to writes that have not reached the index yet. Commits can finish out of
   *  order, so a saved vector index covers only the keys below the smallest of these. A write
   *  that fails leaves its key here: later saves then cover less (start-up reads a little more),
   *  never too much. */
  private readonly openVectorKeys = new Set<number>();
  private vectorsDirty = false;
  private timers: NodeJS.Timeout[] = [];
  /** Why the vector signal is off for this store, or null when it is on. */
  vectorsOff: string | null = null;

  private constructor(
    readonly options: MemoryOptions,
    readonly tables: Tables,
    readonly store: FactStore,
  ) {
    this.reconciler = new EmbeddingReconciler(this, options.reconcileIntervalMs);
  }

  /** `tables` must be open (the caller opens them first: that is where a second daemon is refused). */
  static async open(options: MemoryOptions, tables: Tables): Promise<Memory> {
    mkdirSync(dataPaths(options.dataDir).vectors, { recursive: true });
    const { restored, why } = Memory.restore(options, tables);
    const memory = new Memory(options, tables, await FactStore.open(tables, restored?.requestIds));
    await memory.load(restored, why);
    memory.startBackgroundWork();
    return memory;
  }

  /** The in-memory state of the clean shutdown's snapshot, if it is current and sound; else why not. */
  private static restore(options: MemoryOptions, tables: Tables): { restored: Restored | null; why: string } {
    const { snapshot, reason } = takeSnapshot(options.dataDir, tables.fingerprint);
    if (!snapshot) return { restored: null, why: reason };
    if (snapshot.tokenizer !== TOKENIZER_ID || snapshot.embedder !== options.embedder.id) {
      return { restored: null, why: 'it was made with another tokenizer or embedder' };
    }
    try {
      return { restored: restoreSnapshot(snapshot), why: '' };
    } catch (error) {
      return { restored: null, why: `it could not be restored (${(error as Error).message})` };
    }
  }

  get embedder(): Embedder {
    return this.options.embedder;
  }

  private get limits(): Limits {
    return this.options.limits;
  }

  /** Builds the in-memory indexes: from the snapshot of a clean shutdown when there is one
   *  (`why` says why not otherwise), else from every fact in LevelDB. */
  private async load(restored: Restored | null, why: string): Promise<void> {
    const started = Date.now();
    this.vectorsOff = await this.checkEmbedderOfRecord();
    const tokenizerCurrent = await this.checkTokenizerOfRecord();
    if (restored) {
      for (const ns of restored.namespaces) this.catalog.restore(ns);
      const space = this.vectorSpace(true);
      if (space) await loadVectorIndexes(this.tables, this.catalog, space);
      for (const fact of restored.pending) this.pending.add(fact);
      const indexed = restored.namespaces.reduce((n, ns) => n + ns.size, 0);
      this.options.log(`loaded ${indexed} recallable facts from the index snapshot of the last clean shutdown in ${Date.now() - started} ms`);
    } else {
      const loaded = await loadCatalog(this.tables, this.catalog, this.vectorSpace(true), tokenizerCurrent);
      this.store.skipVectorKeysUpTo(loaded.nextVectorKey - 1);
      for (const fact of loaded.unembedded) if (this.isPending(fact)) this.pending.add(fact);
      this.options.log(
        `loaded ${loaded.facts} facts (${loaded.indexed} recallable) in ${Date.now() - started} ms` +
          (loaded.missingPostings ? `; ${loaded.missingPostings} facts lacked postings (run engram doctor --rebuild)` : '') +
          ` (index snapshot not used: ${why})`,
      );
    }
    await this.access.load(this.tables);
    if (this.vectorsOff) this.options.log(`vector signal off: ${this.vectorsOff}`);
    const interrupted = (await this.tables.meta.get('reindex')) as { target?: string } | undefined;
    if (interrupted) this.options.log(`a reindex to ${interrupted.target} was interrupted: run engram reindex to finish it`);
  }

  /** Where and how this store's vectors are indexed; null when the vector signal is off. */
  vectorSpace(useSaved: boolean): VectorSpace | null {
    if (this.vectorsOff) return null;
    const dir = dataPaths(this.options.dataDir).vectors;
    return { embedder: this.embedder.id, dimensions: this.embedder.dimensions, dir, useSaved };
  }

  private reindexing = false;

  /** Only one reindex at a time; returns the release function. */
  claimReindex(): () => void {
    if (this.reindexing) throw new EngramError(ErrorKind.FailedPrecondition, 'a reindex is already running on this daemon');
    this.reindexing = true;
    return () => (this.reindexing = false);
  }

  /** Every recallable fact now has the current model's vector (or none): make the model the
   *  store's embedder of record, drop the old vector indexes and build new ones from LevelDB. */
  async completeReindex(): Promise<void> {
    await this.tables.meta.put(EMBEDDER_META_KEY, { id: this.embedder.id, dimensions: this.embedder.dimensions });
    await this.tables.meta.del('reindex');
    for (const ns of this.catalog.all()) ns.vectors = null;
    this.vectorsOff = null;
    await loadVectorIndexes(this.tables, this.catalog, this.vectorSpace(false)!);
    this.vectorsDirty = true;
    this.saveVectorsIfDirty();
  }

  markVectorsDirty(): void {
    this.vectorsDirty = true;
  }

  /** The stored keyword rows depend on the tokenizer: a store written by another version is
   *  indexed from its texts until `engram doctor --rebuild` rewrites the rows. */
  private async checkTokenizerOfRecord(): Promise<boolean> {
    const recorded = (await this.tables.meta.get(TOKENIZER_META_KEY)) as { id: string } | undefined;
    if (recorded?.id === TOKENIZER_ID) return true;
    const empty = (await this.tables.facts.keys({ limit: 1 }).all()).length === 0;
    if (!recorded && empty) {
      await this.recordTokenizer();
      return true;
    }
    this.options.log(`the keyword index was written by tokenizer ${recorded?.id ?? '(unrecorded)'}, this daemon runs ${TOKENIZER_ID}: indexing from the texts; run engram doctor --rebuild to rewrite it`);
    return false;
  }

  /** Called once the stored keyword rows match this tokenizer (a new store, or after a rebuild). */
  async recordTokenizer(): Promise<void> {
    await this.tables.meta.put(TOKENIZER_META_KEY, { id: TOKENIZER_ID });
  }

  /** The store records the model its vectors come from and never mixes two models' vectors. */
  private async checkEmbedderOfRecord(): Promise<string | null> {
    if (this.embedder.dimensions === 0) return 'embedder none';
    const recorded = (await this.tables.meta.get(EMBEDDER_META_KEY)) as { id: string; dimensions: number } | undefined;
    if (!recorded) {
      await this.tables.meta.put(EMBEDDER_META_KEY, { id: this.embedder.id, dimensions: this.embedder.dimensions });
      return null;
    }
    if (recorded.id === this.embedder.id && recorded.dimensions === this.embedder.dimensions) return null;
    return `the store's vectors come from ${recorded.id} (${recorded.dimensions}-d) but the daemon runs ${this.embedder.id}; run engram reindex`;
  }

  private startBackgroundWork(): void {
    this.reconciler.start();
    this.timers.push(setInterval(() => void this.flushAccess(), ACCESS_FLUSH_MS).unref());
    this.timers.push(setInterval(() => this.saveVectorsIfDirty(), VECTOR_SAVE_MS).unref());
  }

  private async flushAccess(): Promise<void> {
    try {
      await this.access.flush(this.tables);
    } catch (error) {
      this.options.log(`access bookkeeping write failed (will not retry these counts): ${(error as Error).message}`);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Writes

  /** Put, and PutWithOptions when `confidence` is given (an explicit label, checked exactly). */
  async put(input: WriteInput): Promise<PutResult> {
    const agentId = check.agentId(input.agentId);
    const fields = this.checkWriteFields(input);
    if (input.confidence !== undefined) fields.confidence = checkLabel(input.confidence, 'options.confidence');
    const requestId = check.requestId(input.requestId ?? '');
    return this.once(agentId, requestId, () => this.insert(agentId, fields, requestId));
  }

  /** Stores "term = equivalents" as an alias record of the namespace. */
  async alias(input: { requestId?: unknown; agentId: unknown; term: unknown; equivalents: unknown }): Promise<PutResult> {
    const agentId = check.agentId(input.agentId);
    const term = check.factText(input.term, this.limits, 'term');
    if (queryTerms(term).length === 0) throw invalidArgument('term', 'has no searchable word (only stopwords or punctuation)');
    const equivalents = check.tags(input.equivalents, 'equivalents');
    if (equivalents.length === 0) throw invalidArgument('equivalents', 'must name at least one equivalent');
    const requestId = check.requestId(input.requestId ?? '');
    const meta: AliasMeta = { alias_term: term, alias_equivalents: equivalents };
    const fields: CheckedFields = { text: aliasText(term, equivalents), tags: [], entities: [], source: '', context: '', meta: JSON.stringify(meta) };
    return this.once(agentId, requestId, () => this.insert(agentId, fields, requestId, 'alias'));
  }

  /** A repeated request id returns the original write; concurrent repeats join the first. */
  async once(agentId: string, requestId: string, write: () => Promise<PutResult>): Promise<PutResult> {
    if (!requestId) return write();
    const key = `${agentId}\u0000${requestId}`;
    const inflight = this.inflightRequests.get(key);
    if (inflight) return { ...(await inflight), replayed: true };
    const work = this.replayOrWrite(agentId, requestId, write).finally(() => this.inflightRequests.delete(key));
    this.inflightRequests.set(key, work);
    return work;
  }

  private async replayOrWrite(agentId: string, requestId: string, write: () => Promise<PutResult>): Promise<PutResult> {
    const earlierId = await this.store.requestedFactId(agentId, requestId);
    if (earlierId === undefined) return write();
    const earlier = await this.store.get(agentId, earlierId);
    if (!earlier) {
      throw new EngramError(ErrorKind.FailedPrecondition, `request_id ${requestId} was committed as fact ${earlierId}, which has since been deleted`, 'request_id');
    }
    return { fact: this.access.overlay(earlier), replayed: true };
  }

  /** Validates the record fields of a write (text, tags, times…). */
  checkWriteFields(input: WriteInput): CheckedFields {
    const fields: CheckedFields = {
      text: check.factText(input.text, this.limits),
      tags: input.tags === undefined ? [] : check.tags(input.tags),
      entities: input.entities === undefined ? [] : check.tags(input.entities, 'entities'),
      source: input.source === undefined ? '' : check.source(input.source),
      context: input.context === undefined || input.context === '' ? '' : check.factText(input.context, this.limits, 'context'),
      meta: input.meta === undefined ? '' : check.metaJson(input.meta, this.limits),
    };
    if (input.occurredAt !== undefined) fields.occurredAt = check.timestampMs(input.occurredAt, 'occurred_at_ms');
    return fields;
  }

  /** Writes a new fact durably and indexes it. */
  async insert(agentId: string, fields: CheckedFields, requestId: string, kind: FactKindName = 'fact'): Promise<PutResult> {
    const recallable = kind === 'fact';
    const embedded = recallable ? await this.embedForWrite(embeddingText(fields)) : NOT_EMBEDDED;
    const vector = embedded.vector;
    const { id, time } = this.store.ids.next(Date.now());
    const fact: FactRecord = {
      id,
      agentId,
      createdAt: time,
      updatedAt: time,
      accessCount: 0,
      lastAccessedAt: 0,
      confidence: '',
      pinned: false,
      pinnedAt: 0,
      supersededBy: '',
      kind,
      strength: 1,
      embedder: embedded.embedder,
      vectorKey: vector ? this.takeVectorKey() : 0,
      ...fields,
    };
    if (!recallable) {
      await this.store.insert(fact, undefined, requestId);
      if (kind === 'alias') loadAlias(this.catalog, fact);
      return { fact, replayed: false };
    }
    const terms = termsOf(fact);
    await this.store.insert(fact, { postings: toStoredPostings(terms), vector: vector ?? undefined }, requestId);
    this.indexFact(fact, terms, vector);
    if (this.isPending(fact)) this.pending.add(fact);
    return { fact, replayed: false };
  }

  /** Embeds a text for a write. A failing provider never fails the write: the fact is stored
   *  keyword-only with embedder "" (pending) and the reconciler embeds it later. */
  private async embedForWrite(text: string): Promise<Embedded> {
    if (this.vectorsOff) return NOT_EMBEDDED;
    try {
      const [vector] = await this.embedder.embed([text]);
      // The embedder is recorded even when the text had no known word: it ran, nothing is pending.
      return { vector: vector ?? null, embedder: this.embedder.id };
    } catch (error) {
      this.options.log(`embedding failed, fact stored keyword-only and queued for the reconciler: ${(error as Error).message}`);
      return NOT_EMBEDDED;
    }
  }

  /** A recallable fact without a vector from the current model (vectors on). */
  isPending(fact: FactRecord): boolean {
    return !this.vectorsOff && isIndexed(fact) && fact.embedder !== this.embedder.id;
  }

  /** Gives a live fact its vector from the current embedder (reconciler, reindex). False when the
   *  fact changed meanwhile (retired, deleted, or already embedded). */
  async attachVector(agentId: string, factId: string, vector: Float32Array | null): Promise<boolean> {
    return this.store.withLock(agentId, factId, async () => {
      const before = await this.store.get(agentId, factId);
      if (!before || !isIndexed(before) || before.embedder === this.embedder.id) return false;
      const after: FactRecord = { ...before, embedder: this.embedder.id, vectorKey: vector ? this.takeVectorKey() : 0 };
      const terms = termsOf(after);
      await this.store.replace(before, after, { postings: toStoredPostings(terms), vector: vector ?? undefined });
      this.indexFact(after, terms, this.vectorsOff ? null : vector);
      this.pending.delete(after);
      return true;
    });
  }

  private takeVectorKey(): number {
    const key = this.store.takeVectorKey();
    this.openVectorKeys.add(key);
    return key;
  }

  /** Every vector key up to this one is settled: in its namespace's index, or never written. */
  private settledVectorKey(): number {
    let lowest = this.store.issuedVectorKey + 1;
    for (const key of this.openVectorKeys) lowest = Math.min(lowest, key);
    return lowest - 1;
  }

  private indexFact(fact: FactRecord, terms: ReturnType<typeof termsOf>, vector: Float32Array | null): void {
    this.openVectorKeys.delete(fact.vectorKey);
    const ns = this.catalog.ensure(fact.agentId);
    ns.replace(docOf(fact), terms);
    if (vector && fact.vectorKey) {
      ns.vectors ??= new VectorIndex(this.embedder.dimensions);
      ns.vectors.add(fact.vectorKey, vector);
      this.vectorsDirty = true;
    }
  }

  async get(agentIdInput: unknown, factIdInput: unknown): Promise<FactRecord> {
    const agentId = check.agentId(agentIdInput);
    const factId = check.factId(factIdInput);
    const fact = await this.store.get(agentId, factId);
    if (!fact) throw notFound(`no fact ${factId} in namespace "${agentId}"`);
    return this.access.overlay(fact);
  }

  async delete(agentIdInput: unknown, factIdInput: unknown, requestIdInput: unknown = ''): Promise<FactRecord> {
    const agentId = check.agentId(agentIdInput);
    const factId = check.factId(factIdInput);
    check.requestId(requestIdInput);
    return this.store.withLock(agentId, factId, async () => {
      const fact = await this.store.get(agentId, factId);
      if (!fact) throw notFound(`no fact ${factId} in namespace "${agentId}"`);
      await this.store.remove(fact);
      this.catalog.get(agentId)?.remove(factId);
      this.access.forget(agentId, factId);
      this.vectorsDirty = true;
      return fact;
    });
  }

  /** Legacy UpdateFact: the caller sends back a whole fact it read and changed. */
  async updateFact(agentIdInput: unknown, patch: FactPatch, requestIdInput: unknown = ''): Promise<FactRecord> {
    const agentId = check.agentId(agentIdInput);
    const factId = check.factId(patch.id, 'fact.id');
    check.requestId(requestIdInput);
    return this.store.withLock(agentId, factId, async () => {
      const before = await this.store.get(agentId, factId);
      if (!before) throw notFound(`no fact ${factId} in namespace "${agentId}"`);
      const after = planReplacement(before, patch, this.limits, Date.now());
      await this.replace(before, after);
      return this.access.overlay(after);
    });
  }

  /** Replaces a stored fact (read under its lock by the caller) and keeps every index in step. */
  async replace(before: FactRecord, after: FactRecord): Promise<void> {
    const ns = this.catalog.ensure(after.agentId);
    if (!isIndexed(after)) {
      after.vectorKey = 0; // its vector row goes with its index rows: vectorKey ≠ 0 ⇔ a stored vector
      await this.store.replace(before, after, undefined);
      ns.remove(after.id);
      this.vectorsDirty = true;
      return;
    }
    if (isIndexed(before) && sameIndexInputs(before, after)) {
      // A lifecycle change (pin, confidence, tags, meta…): the keyword, recency and vector rows
      // stay as they are, only the record and its in-memory row change.
      await this.store.replaceRecord(after);
      ns.updateDoc(docOf(after));
      return;
    }
    const terms = termsOf(after);
    const vector = await this.vectorFor(before, after);
    await this.store.replace(before, after, { postings: toStoredPostings(terms), vector: vector ?? undefined });
    this.indexFact(after, terms, vector);
  }

  /** A changed text gets a new vector under a new key; an unchanged one keeps its stored vector. */
  private async vectorFor(before: FactRecord, after: FactRecord): Promise<Float32Array | null> {
    if (embeddingText(after) === embeddingText(before) && before.vectorKey) {
      const bytes = await this.tables.vectors.get(vectorEntryKey(before.agentId, before.vectorKey));
      return bytes ? toFloat32(bytes) : null;
    }
    const { vector, embedder } = await this.embedForWrite(embeddingText(after));
    after.vectorKey = vector ? this.takeVectorKey() : 0;
    after.embedder = embedder;
    if (this.isPending(after)) this.pending.add(after);
    return vector;
  }

  // ------------------------------------------------------------------------------------------
  // Reads

  /** The legacy recall RPCs: default options, one scope, optionally explained. Weak-match
   *  feedback costs a vocabulary scan, so it is computed only for callers that return it. */
  async recall(
    agentIdInput: unknown,
    queryInput: unknown,
    topKInput: unknown,
    how: { scope?: Scope; explain?: boolean; feedback?: boolean } = {},
  ): Promise<SearchOutcome> {
    const scope = how.scope ?? 'agent';
    const agentId = scope === 'shared' ? SHARED_AGENT_ID : check.agentId(agentIdInput);
    const query = check.query(queryInput, this.limits);
    const plan = defaultPlan(check.topK(topKInput, this.limits), this.options.recallDefaults);
    return this.searchAndCount({ agentId, query: await this.prepareQuery(query), scope, plan, explain: how.explain ?? false, feedback: how.feedback ?? false });
  }

  /** RecallWithOptions: per-call weights, relevance floor and filters. */
  async recallWithOptions(input: { agentId: unknown; query: unknown; scope: Scope; explain: boolean; options?: RecallOptionsInput }): Promise<SearchOutcome> {
    const agentId = input.scope === 'shared' ? SHARED_AGENT_ID : check.agentId(input.agentId);
    const query = check.query(input.query, this.limits);
    const plan = planFromOptions(input.options, this.options.recallDefaults, this.limits, Date.now());
    return this.searchAndCount({ agentId, query: await this.prepareQuery(query), scope: input.scope, plan, explain: input.explain, feedback: true });
  }

  /** Several queries under one policy, concurrently; a bad query fails only its own slot. */
  async batchRecall(input: { agentId: unknown; queries: unknown; scope: Scope; options?: RecallOptionsInput }): Promise<BatchOutcome> {
    const agentId = input.scope === 'shared' ? SHARED_AGENT_ID : check.agentId(input.agentId);
    const queries = check.queries(input.queries, this.limits);
    const plan = planFromOptions(input.options, this.options.recallDefaults, this.limits, Date.now());
    const results = await Promise.all(
      queries.map(async (q, i) => {
        try {
          const query = check.query(q, this.limits, `queries[${i}]`);
          const outcome = await this.searchAndCount({ agentId, query: await this.prepareQuery(query), scope: input.scope, plan, explain: false, feedback: false });
          return { query, facts: outcome.facts, retrieval: outcome.retrieval };
        } catch (error) {
          if (!(error instanceof EngramError)) throw error;
          return { query: typeof q === 'string' ? q : '', facts: [], error: error.message };
        }
      }),
    );
    return { results, merged: mergeBatch(results.map((r) => r.facts)), retrieval: results.find((r) => r.retrieval)?.retrieval };
  }

  private async searchAndCount(req: SearchRequest): Promise<SearchOutcome> {
    const outcome = await search(this, req);
    this.access.record(outcome.facts, Date.now());
    return outcome;
  }

  /** One tokenisation and one embedding per query, reused by every namespace it searches. */
  private async prepareQuery(query: string): Promise<PreparedQuery> {
    const terms = queryTerms(query);
    if (this.vectorsOff || query.trim() === '') return { text: query, terms, vector: null };
    try {
      return { text: query, terms, vector: (await this.embedder.embed([query]))[0] ?? null };
    } catch (error) {
      // A provider outage degrades recall to keyword + recency; it never fails it.
      return { text: query, terms, vector: null, vectorNote: `off for this query (embedding failed: ${(error as Error).message})` };
    }
  }

  /** Stored vectors by key, for exact vector search over a filtered set. */
  readonly readVectors = async (agentId: string, keys: number[]): Promise<(Float32Array | undefined)[]> => {
    const rows = await this.tables.vectors.getMany(keys.map((key) => vectorEntryKey(agentId, key)));
    return rows.map((bytes) => (bytes ? toFloat32(bytes) : undefined));
  };

  namespace(agentId: string): NamespaceIndex | undefined {
    return this.catalog.get(agentId);
  }

  async list(agentIdInput: unknown, pageSizeInput: unknown, pageTokenInput: unknown): Promise<{ facts: FactRecord[]; nextPageToken: string }> {
    const agentId = check.agentId(agentIdInput);
    const pageSize = check.pageSize(pageSizeInput);
    const token = pageTokenInput === undefined || pageTokenInput === '' ? '' : check.factId(pageTokenInput, 'page_token');
    const rows = await this.store.list(agentId, token, pageSize + 1);
    const facts = rows.slice(0, pageSize).map((f) => this.access.overlay(f));
    return { facts, nextPageToken: rows.length > pageSize ? facts[facts.length - 1]!.id : '' };
  }

  /** Every namespace with at least one fact (live or retired), sorted. One seek per namespace:
   *  after reading a namespace's first key, the iterator jumps past the whole namespace. */
  async listAgents(): Promise<string[]> {
    const agents: string[] = [];
    const iterator = this.tables.facts.keys();
    try {
      for (let key = await iterator.next(); key !== undefined; key = await iterator.next()) {
        const agentId = key.slice(0, key.lastIndexOf('\u0000'));
        agents.push(agentId);
        iterator.seek(namespaceRange(agentId).lt);
      }
    } finally {
      await iterator.close();
    }
    return agents;
  }

  async stats(agentIdInput: unknown): Promise<Stats> {
    const agentId = agentIdInput === undefined ? undefined : check.agentId(agentIdInput);
    return computeStats(this, agentId);
  }

  // ------------------------------------------------------------------------------------------
  // Shutdown

  /** After the last write: the next start restores the indexes instead of rebuilding them. A
   *  failure only costs that next start a full rebuild. */
  private saveSnapshot(): SnapshotId | null {
    const started = Date.now();
    try {
      const id = saveSnapshot(this.options.dataDir, {
        tokenizer: TOKENIZER_ID,
        embedder: this.embedder.id,
        pending: this.pending.all(),
        requestIds: this.store.requestIds.words,
        namespaces: [...this.catalog.all()].map((ns) => ns.toState()),
      });
      this.options.log(`saved the index snapshot in ${Date.now() - started} ms`);
      return id;
    } catch (error) {
      this.options.log(`could not save the index snapshot (the next start rebuilds from the store): ${(error as Error).message}`);
      return null;
    }
  }

  saveVectorsIfDirty(): void {
    if (!this.vectorsDirty || this.vectorsOff) return;
    this.vectorsDirty = false;
    const dir = dataPaths(this.options.dataDir).vectors;
    const coveredKey = this.settledVectorKey();
    for (const ns of this.catalog.all()) {
      if (!ns.vectors) continue;
      ns.vectors.save(vectorIndexBase(dir, ns.agentId), {
        agentId: ns.agentId,
        embedder: this.embedder.id,
        dimensions: this.embedder.dimensions,
        coveredKey,
      });
    }
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.reconciler.stop();
    await this.flushAccess();
    await this.store.drain();
    this.saveVectorsIfDirty();
    const snapshot = this.saveSnapshot();
    await this.tables.db.close();
    if (snapshot) sealSnapshot(this.options.dataDir, snapshot, storeFingerprint(this.tables.db.location));
    await this.embedder.close?.();
  }
}

interface Embedded {
  vector: Float32Array | null;
  /** What to record as the fact's embedder: the model id, or "" when it is still pending. */
  embedder: string;
}

const NOT_EMBEDDED: Embedded = { vector: null, embedder: '' };

/** Whether two versions of a fact index the same way: same keyword input, event time and
 *  embedding input (see index/derive.ts). */
function sameIndexInputs(a: FactRecord, b: FactRecord): boolean {
  return a.text === b.text && a.context === b.context && a.occurredAt === b.occurredAt && embeddingText(a) === embeddingText(b);
}

export interface CheckedFields {
  text: string;
  /** Set only by writes with options; absent keeps the legacy empty label. */
  confidence?: string;
  occurredAt?: number;
  tags: string[];
  entities: string[];
  source: string;
  context: string;
  meta: string;
}

export interface BatchOutcome {
  results: { query: string; facts: FactRecord[]; error?: string }[];
  merged: FactRecord[];
  retrieval?: RetrievalMetadata;
}

