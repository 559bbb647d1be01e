// Clusters and duplicates of a namespace's live facts, and consolidating a cluster into one fact.
// Similarity is the cosine of the facts' vectors when every fact has one, else the Jaccard of
// their keyword terms — the payload says which. Clustering is deterministic (facts in id order,
// each joining the first cluster whose seed it is similar enough to), and a cluster's id is
// derived from its sorted member ids, so an id from one call names the same cluster in the next.
// The daemon remembers which members (at which version) each listed id stood for; consolidating
// checks they are all still live and unchanged, else the id is stale. After a restart an id is
// found again by clustering with the call's parameters.
import { createHash } from 'node:crypto';
import { EngramError, ErrorKind, fieldNotFound, invalidArgument } from '../../shared/errors.ts';
import type { ClusterReport, ConsolidateResult, FactCluster } from '../../shared/model.ts';
import * as check from '../../shared/validate.ts';
import { mergedEntityTypes } from '../analysis/entities.ts';
import { isIndexed, termsOf } from '../index/derive.ts';
import { replacementLabel } from '../lifecycle/revise.ts';
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';
import type { CallContext } from './context.ts';
import { cosine, jaccard, preview } from './similarity.ts';
import { joinSentences, sentenceKey, sentencesOf } from '../consolidate/sentences.ts';
import type { Carried, ReviseInput, ReviseResult } from './writes.ts';

export type { ClusterReport, ConsolidateResult, FactCluster } from '../../shared/model.ts';

export const CLUSTER_DEFAULTS = { threshold: 0.83, maxClusterSize: 12, duplicateThreshold: 0.88 } as const;
/** Clustering compares every pair: namespaces larger than this are refused with advice. */
export const MAX_CLUSTER_FACTS = 5000;

export interface ClusterInput {
  agentId: unknown;
  strategy?: unknown;
  threshold?: unknown;
  maxClusterSize?: unknown;
  findDuplicates?: unknown;
  duplicateThreshold?: unknown;
}

interface Member {
  fact: FactRecord;
  vector?: Float32Array;
  terms: Set<string>;
}


export const clusterIdOf = (memberIds: readonly string[]): string => `cluster-${createHash('sha256').update([...memberIds].sort().join(',')).digest('hex').slice(0, 16)}`;

/** Listed clusters remembered for consolidation (the oldest are forgotten first). */
const KNOWN_CLUSTERS = 10_000;

interface KnownCluster {
  agentId: string;
  members: { id: string; updatedAt: number }[];
}

export class Clusters {
  private readonly known = new Map<string, KnownCluster>();

  constructor(
    private readonly store: MemoryStore,
    private readonly revise: (ctx: CallContext, input: ReviseInput, carried: Carried) => Promise<ReviseResult>,
    private readonly limits: check.Limits,
  ) {}

  /** The live facts of a namespace with what similarity needs, in id order. */
  private async members(agentId: string): Promise<{ members: Member[]; mode: 'vector' | 'tokens' }> {
    const facts: FactRecord[] = [];
    for await (const { fact } of this.store.scanFacts({ agentId })) {
      if (!isIndexed(fact)) continue;
      facts.push(fact);
      if (facts.length > MAX_CLUSTER_FACTS) {
        throw new EngramError(ErrorKind.FailedPrecondition, `namespace "${agentId}" has more than ${MAX_CLUSTER_FACTS} live facts: clustering compares every pair; run gc first, or cluster a smaller namespace`, 'agent_id');
      }
    }
    const vectors = await this.store.getVectors(agentId, facts.map((f) => f.vectorKey));
    const mode = facts.length > 0 && facts.every((f, i) => f.vectorKey && vectors[i]) ? 'vector' : 'tokens';
    return { mode, members: facts.map((fact, i) => ({ fact, ...(mode === 'vector' ? { vector: vectors[i]! } : {}), terms: new Set(termsOf(fact).tf.keys()) })) };
  }

  private similarity(a: Member, b: Member): number {
    return a.vector && b.vector ? cosine(a.vector, b.vector) : jaccard(a.terms, b.terms);
  }

  async cluster(_ctx: CallContext, input: ClusterInput): Promise<ClusterReport> {
    const agentId = check.agentId(input.agentId);
    if (input.strategy !== undefined && input.strategy !== 'similarity') throw invalidArgument('strategy', `must be "similarity", got ${JSON.stringify(input.strategy)}`);
    const threshold = input.threshold === undefined ? CLUSTER_DEFAULTS.threshold : check.similarityThreshold(input.threshold, 'threshold');
    const maxSize = input.maxClusterSize === undefined ? CLUSTER_DEFAULTS.maxClusterSize : check.count(input.maxClusterSize, 'max_cluster_size', check.MAX_CLUSTER_SIZE);
    const findDuplicates = input.findDuplicates === undefined ? false : check.boolean(input.findDuplicates, 'find_duplicates');
    const duplicateThreshold = input.duplicateThreshold === undefined ? CLUSTER_DEFAULTS.duplicateThreshold : check.similarityThreshold(input.duplicateThreshold, 'duplicate_threshold');
    const { members, mode } = await this.members(agentId);

    if (findDuplicates) {
      const duplicates: ClusterReport['duplicates'] = [];
      for (let i = 0; i < members.length; i++) {
        for (let j = i + 1; j < members.length; j++) {
          const similarity = this.similarity(members[i]!, members[j]!);
          if (similarity >= duplicateThreshold) {
            const [a, b] = [members[i]!.fact, members[j]!.fact];
            duplicates.push({ id1: a.id, id2: b.id, content1Preview: preview(a.text), content2Preview: preview(b.text), similarity });
          }
        }
      }
      duplicates.sort((x, y) => y.similarity - x.similarity || (x.id1 + x.id2 < y.id1 + y.id2 ? -1 : 1));
      return { mode: 'duplicate_detection', similarity: mode, threshold: duplicateThreshold, clusters: [], duplicates, message: `Found ${duplicates.length} potential duplicate pair${duplicates.length === 1 ? '' : 's'}` };
    }

    // Leader clustering in id order: each fact joins the first open cluster whose seed it matches.
    const groups: Member[][] = [];
    for (const m of members) {
      const home = groups.find((g) => g.length < maxSize && this.similarity(g[0]!, m) >= threshold);
      if (home) home.push(m);
      else groups.push([m]);
    }
    const listed = groups.filter((g) => g.length > 1);
    for (const g of listed) this.remember(agentId, g);
    const clusters = listed.map((g) => this.describe(g));
    return { mode: 'clustering', similarity: mode, threshold, clusters, duplicates: [], message: `Found ${clusters.length} cluster${clusters.length === 1 ? '' : 's'} using similarity strategy` };
  }

  private remember(agentId: string, group: Member[]): void {
    const id = clusterIdOf(group.map((m) => m.fact.id));
    this.known.delete(id);
    this.known.set(id, { agentId, members: group.map((m) => ({ id: m.fact.id, updatedAt: m.fact.updatedAt })) });
    if (this.known.size > KNOWN_CLUSTERS) this.known.delete(this.known.keys().next().value!);
  }

  private describe(group: Member[]): FactCluster {
    let sum = 0;
    let pairs = 0;
    for (let i = 0; i < group.length; i++) for (let j = i + 1; j < group.length; j++, pairs++) sum += this.similarity(group[i]!, group[j]!);
    const cohesion = pairs ? sum / pairs : 1;
    const ids = group.map((m) => m.fact.id);
    return {
      id: clusterIdOf(ids),
      size: group.length,
      cohesion,
      suggestedAction: cohesion >= 0.9 ? 'auto-merge' : cohesion >= 0.75 ? 'llm-review' : 'keep-separate',
      memoryIds: ids,
      contentPreviews: group.map((m) => preview(m.fact.text)),
    };
  }

  /** consolidate_memories: the cluster's members merged into one fact that replaces them
   *  (lineage: each member's superseded_by is the merged fact). A cluster id that no longer names
   *  a current cluster (a member changed, retired, or a new fact joined) is refused. */
  async consolidate(ctx: CallContext, input: ClusterInput & { clusterId: unknown; mode?: unknown }): Promise<ConsolidateResult> {
    const agentId = check.agentId(input.agentId);
    if (typeof input.clusterId !== 'string' || !/^cluster-[0-9a-f]{16}$/.test(input.clusterId)) throw invalidArgument('cluster_id', 'must be a cluster id as the cluster list gives it ("cluster-" and 16 hex digits)');
    const mode = input.mode === undefined ? 'dry_run' : input.mode;
    if (mode !== 'dry_run' && mode !== 'apply') throw invalidArgument('mode', `must be "dry_run" or "apply", got ${JSON.stringify(mode)}`);
    const stale = () =>
      new EngramError(ErrorKind.FailedPrecondition, `cluster ${input.clusterId} no longer exists in "${agentId}" (its members changed since it was listed): list the clusters again for current ids`, 'cluster_id');
    // An id this daemon never listed (another namespace's, a typo, one listed before a restart)
    // is not called stale: nothing says it ever named these facts.
    const unknown = () => fieldNotFound('cluster_id', `no current cluster ${input.clusterId} in "${agentId}": list the clusters again for the current ids`);
    let known = this.known.get(input.clusterId);
    if (!known || known.agentId !== agentId) {
      await this.cluster(ctx, { ...input, findDuplicates: false }); // remembers what it lists
      known = this.known.get(input.clusterId);
      if (!known || known.agentId !== agentId) throw unknown();
    }
    const memberIds = known.members.map((m) => m.id);
    const stored = await this.store.getFacts(memberIds.map((factId) => ({ agentId, factId })));
    if (stored.some((f, i) => !f || !isIndexed(f) || f.updatedAt !== known!.members[i]!.updatedAt)) throw stale();
    const facts = stored as FactRecord[];
    const cluster = { id: input.clusterId, memoryIds: memberIds };
    const merged = mergeFacts(facts);
    // Refused alike by the preview and the apply: a preview must not promise what apply refuses.
    const bytes = Buffer.byteLength(merged.text, 'utf8');
    if (bytes > this.limits.maxTextBytes) {
      throw new EngramError(ErrorKind.FailedPrecondition, `cluster ${cluster.id}: its merged text would be ${bytes} bytes, over the ${this.limits.maxTextBytes}-byte limit of a fact; revise fewer of its members together instead`, 'cluster_id');
    }
    // A pinned member's pin goes to the fact that now holds its words (as its tags do); the
    // member itself is retired, and a retired fact is never injected.
    const pinned = facts.some((f) => f.pinned);
    const done = pinned ? ' (pinned, as a member was)' : '';
    if (mode === 'dry_run') return { mode, clusterId: cluster.id, merged, retiredIds: [], factId: '', message: `Would merge ${facts.length} memories into one${done}` };
    const lastUsedAt = Math.max(...facts.map((f) => f.lastUsedAt || f.createdAt));
    const res = await this.revise(ctx, { agentId, targetIds: cluster.memoryIds, text: merged.text, tags: merged.tags, entities: merged.entities, strength: merged.strength }, { useCount: merged.useCount, lastUsedAt, entityTypes: mergedEntityTypes(facts), ...carriedPin(facts, Date.now()) });
    return { mode, clusterId: cluster.id, merged, retiredIds: res.retiredIds, factId: res.replacement.id, message: `Merged ${facts.length} memories into ${res.replacement.id}${done}` };
  }
}

/** The pin a merged fact carries: pinned when a member was, with a pin time, since pinned facts
 *  are ordered by it. The earliest pin time of its pinned members, not the merge's: merging is not
 *  pinning, so the fact stays where its words have been pinned since, and does not jump ahead of
 *  facts pinned after them; the earliest, because that is when any of them was first pinned.
 *  `now` serves only members pinned before pin times were kept (0). */
function carriedPin(facts: readonly FactRecord[], now: number): { pinned?: true; pinnedAt?: number } {
  const times = facts.filter((f) => f.pinned).map((f) => f.pinnedAt || now);
  return times.length ? { pinned: true, pinnedAt: Math.min(...times) } : {};
}

/** How members merge: their distinct sentences in member (id) order as the text; tags and
 *  entities united; use counts summed and the last use the latest (the merged fact was used
 *  whenever any member was); strength the greatest; the confidence the least of the members'. */
export function mergeFacts(facts: readonly FactRecord[]): ConsolidateResult['merged'] {
  const sentences: string[] = [];
  const seen = new Set<string>();
  for (const f of facts) {
    for (const sentence of sentencesOf(f.text)) {
      const key = sentenceKey(sentence);
      if (!seen.has(key)) {
        seen.add(key);
        sentences.push(sentence);
      }
    }
  }
  const union = (lists: string[][]) => [...new Set(lists.flat())];
  // As any revision labels its replacement: min(inferred, the members' effective confidence).
  const confidence = replacementLabel(undefined, facts);
  return {
    text: joinSentences(sentences),
    tags: union(facts.map((f) => f.tags)),
    entities: union(facts.map((f) => f.entities)),
    useCount: facts.reduce((sum, f) => sum + f.useCount, 0),
    strength: Math.max(...facts.map((f) => f.strength)),
    confidence,
  };
}
