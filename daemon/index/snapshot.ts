// The index snapshot: what start-up would otherwise rebuild by reading every fact in the store —
// each namespace's docs, keyword index, recency order and aliases, plus the pending-embedding
// queue — saved at a clean shutdown, so a million-fact store restarts in seconds instead of a
// minute.
//
// When it is trusted: after the store is closed, a seal file records the snapshot's random token
// and checksum and the store's change token (which changes with any write, by any program). The
// next start uses the snapshot only if the store opens with exactly that token and the change
// number the snapshot covers, and removes the seal before writing anything, so it is never trusted
// twice. A crash, a foreign write or anything unexpected in the file means a full rebuild from the
// store, which stays the source of truth.
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { writeFileAtomically } from '../files/atomic-file.ts';
import { join } from 'node:path';
import { NO_ITEMS, type Doc, type NamespaceState } from './namespace.ts';
import { SectionReader, SectionWriter } from './sections.ts';

const FORMAT = 8;

export const snapshotPath = (dataDir: string): string => join(dataDir, 'index.snapshot');
export const snapshotSealPath = (dataDir: string): string => join(dataDir, 'index.snapshot.seal');

export interface PendingKey {
  agentId: string;
  id: string;
}

export interface Snapshot {
  /** The tokenizer the keyword index was built with; another one means a rebuild. */
  tokenizer: string;
  /** The embedder the daemon ran with: which facts are pending depends on it. */
  embedder: string;
  /** The store's change number the indexes cover. */
  seq: number;
  pending: PendingKey[];
  namespaces: NamespaceState[];
}

interface Header {
  format: number;
  token: string;
  tokenizer: string;
  embedder: string;
  seq: number;
  pending: PendingKey[];
  namespaces: number;
}

/** What ties a seal to one snapshot file. */
export interface SnapshotId {
  token: string;
  sha256: string;
}

/** Writes the snapshot file (not yet trusted: see sealSnapshot). */
export function saveSnapshot(dataDir: string, snapshot: Snapshot): SnapshotId {
  const token = randomUUID();
  const out = new SectionWriter();
  const { tokenizer, embedder, seq, pending } = snapshot;
  const header: Header = { format: FORMAT, token, tokenizer, embedder, seq, pending, namespaces: snapshot.namespaces.length };
  out.json(header);
  for (const ns of snapshot.namespaces) writeNamespace(out, ns);
  const sha256 = out.writeFile(snapshotPath(dataDir));
  return { token, sha256 };
}

/** After the store is closed: the snapshot describes the store whose change token is `storeToken`. */
export function sealSnapshot(dataDir: string, id: SnapshotId, storeToken: string): void {
  writeFileAtomically(snapshotSealPath(dataDir), [Buffer.from(JSON.stringify({ ...id, storeToken }))]);
}

/**
 * The snapshot, if the store opened with the sealed change token (`storeToken`, or a test of it
 * for a shared store, whose snapshot may be behind and is caught up); null otherwise, with the
 * reason. The seal is removed either way.
 */
export function takeSnapshot(dataDir: string, storeToken: string | ((sealed: string) => boolean)): { snapshot: Snapshot | null; reason: string } {
  let seal: Partial<SnapshotId> & { storeToken?: string } | null;
  try {
    seal = JSON.parse(readFileSync(snapshotSealPath(dataDir), 'utf8')) as typeof seal;
  } catch {
    return { snapshot: null, reason: 'no clean shutdown recorded' };
  }
  rmSync(snapshotSealPath(dataDir), { force: true });
  const sealed = seal?.storeToken ?? '';
  if (!seal || (typeof storeToken === 'string' ? !storeToken || sealed !== storeToken : !storeToken(sealed))) return { snapshot: null, reason: 'the store was written after the snapshot was saved' };
  try {
    const input = new SectionReader(snapshotPath(dataDir), String(seal.sha256));
    const header = input.json<Header>();
    if (header.format !== FORMAT) return { snapshot: null, reason: `snapshot format ${header.format} is not ${FORMAT}` };
    if (header.token !== seal.token) return { snapshot: null, reason: 'the snapshot file is not the one that was sealed' };
    if (!Array.isArray(header.pending) || !Number.isInteger(header.namespaces) || !Number.isInteger(header.seq)) throw new Error('bad header');
    const namespaces = Array.from({ length: header.namespaces }, () => readNamespace(input));
    const { tokenizer, embedder, seq, pending } = header;
    return { snapshot: { tokenizer, embedder, seq, pending, namespaces }, reason: '' };
  } catch (error) {
    return { snapshot: null, reason: `the snapshot file is unreadable (${(error as Error).message})` };
  }
}

// ---------------------------------------------------------------------------------------------
// One namespace: its docs by column, then its keyword index, recency order and aliases.

interface DocStrings {
  factIds: (string | null)[];
  textKeys: string[];
  contentKeys: string[];
  confidences: string[];
  kinds: string[];
  /** Only the docs that have tags: [doc, tags]. */
  tags: [number, readonly string[]][];
  /** Only the docs that name entities: [doc, entities]. */
  entities: [number, readonly string[]][];
  /** Only the docs with relations: [doc, [type, target id][]]. */
  relations: [number, [string, string][]][];
}

function writeNamespace(out: SectionWriter, ns: NamespaceState): void {
  const { docs } = ns;
  const strings: DocStrings = { factIds: [], textKeys: [], contentKeys: [], confidences: [], kinds: [], tags: [], entities: [], relations: [] };
  const times = new Float64Array(docs.length * 4); // createdAt, recencyTime, vectorKey, eventTime per doc
  const use = new Float64Array(docs.length * 5); // useCount, lastUsedAt, strength, pinned, promoted per doc
  docs.forEach((doc, i) => {
    strings.factIds.push(doc?.factId ?? null);
    strings.textKeys.push(doc?.textKey ?? '');
    strings.contentKeys.push(doc?.contentKey ?? '');
    strings.confidences.push(doc?.confidence ?? '');
    strings.kinds.push(doc?.kind ?? '');
    if (doc?.tags.length) strings.tags.push([i, doc.tags]);
    if (doc?.entities.length) strings.entities.push([i, doc.entities]);
    if (doc?.relations.length) strings.relations.push([i, doc.relations.map((r) => [r.type, r.targetId])]);
    times.set([doc?.createdAt ?? 0, doc?.recencyTime ?? 0, doc?.vectorKey ?? 0, doc?.eventTime ? 1 : 0], i * 4);
    use.set([doc?.useCount ?? 0, doc?.lastUsedAt ?? 0, doc?.strength ?? 0, doc?.pinned ? 1 : 0, doc?.promoted ? 1 : 0], i * 5);
  });
  out.json({ agentId: ns.agentId, ...strings, aliases: ns.aliases, termNames: ns.keyword.termNames });
  out.float64(times);
  out.float64(use);
  const { keyword, recency } = ns;
  for (const array of [keyword.offsets, keyword.docs, keyword.tfs, keyword.lens]) out.int32(array);
  for (const array of [keyword.forward.docs, keyword.forward.lengths, keyword.forward.starts, keyword.forward.arena]) out.int32(array);
  out.json({ totalLength: keyword.totalLength, arenaDead: keyword.forward.arenaDead });
  out.float64(recency.times);
  out.int32(recency.docs);
}

function readNamespace(input: SectionReader): NamespaceState {
  const head = input.json<DocStrings & Pick<NamespaceState, 'agentId' | 'aliases'> & { termNames: (string | null)[] }>();
  const times = input.float64();
  const use = input.float64();
  const tags = new Map(head.tags);
  const entities = new Map(head.entities);
  const relations = new Map(head.relations);
  const docs = head.factIds.map((factId, i): Doc | undefined =>
    factId === null
      ? undefined
      : {
          factId,
          createdAt: times[i * 4]!,
          recencyTime: times[i * 4 + 1]!,
          eventTime: times[i * 4 + 3] === 1,
          textKey: head.textKeys[i]!,
          contentKey: head.contentKeys[i]!,
          confidence: head.confidences[i]!,
          kind: head.kinds[i]!,
          tags: tags.get(i) ?? NO_ITEMS,
          entities: entities.get(i) ?? NO_ITEMS,
          relations: relations.get(i)?.map(([type, targetId]) => ({ type, targetId })) ?? NO_ITEMS,
          vectorKey: times[i * 4 + 2]!,
          useCount: use[i * 5]!,
          lastUsedAt: use[i * 5 + 1]!,
          strength: use[i * 5 + 2]!,
          pinned: use[i * 5 + 3] === 1,
          promoted: use[i * 5 + 4] === 1,
        },
  );
  const [offsets, postingDocs, tfs, lens, forwardDocs, lengths, starts, arena] = Array.from({ length: 8 }, () => input.int32());
  const totals = input.json<{ totalLength: number; arenaDead: number }>();
  const recency = { times: input.float64(), docs: input.int32() };
  return {
    agentId: head.agentId,
    docs,
    aliases: head.aliases,
    recency,
    keyword: {
      termNames: head.termNames,
      offsets: offsets!,
      docs: postingDocs!,
      tfs: tfs!,
      lens: lens!,
      forward: { docs: forwardDocs!, lengths: lengths!, starts: starts!, arena: arena!, arenaDead: totals.arenaDead },
      totalLength: totals.totalLength,
    },
  };
}
