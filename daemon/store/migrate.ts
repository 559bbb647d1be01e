// Copies one store into another whole (engram migrate: an embedded store into PostgreSQL):
// meta records, facts with their keyword rows and vectors, checkpoints, request records, record
// tables and access counts, keeping every id and vector key. Each batch commits together with
// the copy's progress, so a copy interrupted at any point resumes after the last batch that
// committed, and nothing is copied twice.
import { isIndexed, termsOf, toStoredTerms } from '../index/derive.ts';
import type { AccessRow, Change, FactKey, Json, MemoryStore, RecordTable, ScannedFact } from './store.ts';
import { compareKeys } from './key-order.ts';
import { readFactVectors } from './fact-vectors.ts';

export const MIGRATION_META = 'migration';
const RECORD_TABLES: readonly RecordTable[] = ['slots', 'slotChanges', 'recipes', 'tokens'];
const PHASES = ['meta', 'facts', 'checkpoints', 'requests', ...RECORD_TABLES.map((t) => `records:${t}`), 'access'] as const;
type Phase = (typeof PHASES)[number];

interface Progress {
  /** The copied store, so a resume never mixes two sources. */
  source: string;
  /** The phase under way, and the key of the last item it committed (phases before it are done). */
  phase: Phase | 'done';
  after: string;
  copied: number;
}

export interface MigrationEvent {
  phase: string;
  done: number;
  total: number;
}

export interface MigrationReport {
  resumed: boolean;
  /** Items copied by this run, by phase; alias records apart from facts, as `aliases`. */
  copied: Record<string, number>;
}

const add = (counts: Record<string, number>, name: string, n: number): void => {
  counts[name] = (counts[name] ?? 0) + n;
};

export class MigrationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationRefused';
  }
}

const keyOfFact = (k: FactKey) => `${k.agentId}\u0000${k.factId}`;

export async function migrateStore(from: MemoryStore, to: MemoryStore, source: string, onProgress: (event: MigrationEvent) => void, batchSize = 500): Promise<MigrationReport> {
  const previous = (await to.getMeta(MIGRATION_META)) as Progress | undefined;
  if (previous && previous.source !== source) throw new MigrationRefused(`the target holds a copy of ${previous.source}${previous.phase === 'done' ? '' : ' (unfinished)'}, not of ${source}: migrate into an empty database`);
  if (!previous && (await to.countFacts()) > 0) throw new MigrationRefused('the target already holds facts: migrate into an empty database');
  const totals = Object.fromEntries((await from.tableStats()).map((t) => [t.name, t.entries]));
  const report: MigrationReport = { resumed: previous !== undefined && previous.after !== '', copied: {} };
  let progress: Progress = previous ?? { source, phase: 'meta', after: '', copied: 0 };
  if (progress.phase === 'done') return { resumed: true, copied: {} };

  const commitBatch = async (phase: Phase, changes: Change[], lastKey: string, items: unknown[]) => {
    progress = { source, phase, after: lastKey, copied: progress.copied + items.length };
    await to.commit([...changes, { type: 'putMeta', name: MIGRATION_META, value: progress as unknown as Json }]);
    // Alias records are rows of the facts table, but not remembered facts (stats leave them out):
    // the report counts them apart, so its facts are the facts engram stats shows.
    const aliases = phase === 'facts' ? (items as ScannedFact[]).filter((s) => s.fact.kind === 'alias').length : 0;
    add(report.copied, phase, items.length - aliases);
    if (aliases > 0) add(report.copied, 'aliases', aliases);
  };

  for (const phase of PHASES.slice(PHASES.indexOf(progress.phase as Phase))) {
    const resumeAfter = progress.phase === phase ? progress.after : '';
    if (progress.phase !== phase) progress = { ...progress, phase, after: '', copied: 0 };
    const total = await totalOf(from, phase, totals);
    let done = phase === progress.phase ? progress.copied : 0;
    onProgress({ phase, done, total });
    for await (const batch of batches(itemsOf(from, phase), batchSize, resumeAfter)) {
      const items = batch.map((b) => b.item);
      // Access counts are not part of a commit (rewriting them on a resume changes nothing).
      if (phase === 'access') await to.writeAccess(items as [FactKey, AccessRow][]);
      const changes = await changesOf(from, phase, items);
      await commitBatch(phase, changes, batch[batch.length - 1]!.key, items);
      done += batch.length;
      onProgress({ phase, done, total });
    }
  }
  await to.commit([{ type: 'putMeta', name: MIGRATION_META, value: { ...progress, phase: 'done', after: '' } as unknown as Json }]);
  return report;
}

/** How many items a phase copies. The store counts its records as one table, so a kind of record
 *  (slots, recipes, tokens: a few each) is counted by reading it; so are meta entries, of which
 *  the store's count includes its own (never copied), and the progress would stop short. */
async function totalOf(from: MemoryStore, phase: Phase, totals: Record<string, number>): Promise<number> {
  if (phase !== 'meta' && !phase.startsWith('records:')) return totals[phase] ?? 0;
  let n = 0;
  for await (const _ of itemsOf(from, phase)) n++;
  return n;
}

type Item = { key: string; item: unknown };

/** Every item of a phase with its sort key (the order the source reads them in). */
async function* itemsOf(from: MemoryStore, phase: Phase): AsyncIterable<Item> {
  if (phase === 'meta') for await (const [name, value] of from.scanMeta()) yield { key: name, item: [name, value] };
  else if (phase === 'facts') for await (const scanned of from.scanFacts({ withTerms: true })) yield { key: keyOfFact({ agentId: scanned.fact.agentId, factId: scanned.fact.id }), item: scanned };
  else if (phase === 'checkpoints') for await (const c of from.scanCheckpoints()) yield { key: `${c.agentId}\u0000${c.id}`, item: c };
  else if (phase === 'requests') for await (const r of from.scanRequests()) yield { key: `${r.agentId}\u0000${r.requestId}`, item: r };
  else if (phase === 'access') for await (const row of from.scanAccess()) yield { key: keyOfFact(row[0]), item: row };
  else for await (const row of from.scanRecords(phase.slice('records:'.length) as RecordTable)) yield { key: row[0], item: row };
}

/** Items in batches, skipping those up to `after` (already copied). */
async function* batches(items: AsyncIterable<Item>, size: number, after: string): AsyncIterable<Item[]> {
  let batch: Item[] = [];
  for await (const item of items) {
    if (after && compareKeys(item.key, after) <= 0) continue;
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function changesOf(from: MemoryStore, phase: Phase, items: unknown[]): Promise<Change[]> {
  switch (phase) {
    case 'meta':
      return (items as [string, Json][]).map(([name, value]) => ({ type: 'putMeta', name, value }));
    case 'facts':
      return factChanges(from, items as ScannedFact[]);
    case 'checkpoints':
      return (items as Extract<Change, { type: 'putCheckpoint' }>['checkpoint'][]).map((checkpoint) => ({ type: 'putCheckpoint', checkpoint }));
    case 'requests':
      return (items as { agentId: string; requestId: string; result: Json }[]).map((r) => ({ type: 'recordRequest', ...r }));
    case 'access':
      return [];
    default:
      return (items as [string, Json][]).map(([key, value]) => ({ type: 'putRecord', table: phase.slice('records:'.length) as RecordTable, key, value }));
  }
}

/** Each fact with its keyword rows and vector, read from the source in one query per namespace. */
async function factChanges(from: MemoryStore, scanned: ScannedFact[]): Promise<Change[]> {
  const vectors = await readFactVectors(from, scanned.map((s) => s.fact));
  return scanned.map(({ fact, terms }): Change => {
    if (!isIndexed(fact)) return { type: 'putFact', fact, derived: null };
    const vector = vectors.of(fact);
    return { type: 'putFact', fact, derived: { terms: terms ?? toStoredTerms(termsOf(fact)), ...(vector ? { vector } : {}) } };
  });
}
