// Promotion: facts worth keeping for good become long-term notes in a markdown (Obsidian) vault —
// one note per fact, as `engram export --format markdown` writes it — and are marked promoted.
// A promoted fact stays in the store and recallable, and gc never collects it. A fact qualifies
// by a high decay score, or by frequent use while young, and only once it is old enough: a
// brand-new fact scores its full strength, which says nothing about its worth yet.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { EngramError, ErrorKind, invalidArgument, noFact } from '../../shared/errors.ts';
import { factNote } from '../../shared/markdown/notes.ts';
import type { PromoteResult, PromotionCandidate } from '../../shared/model.ts';
import * as check from '../../shared/validate.ts';
import { writeFileAtomically } from '../files/atomic-file.ts';
import { isIndexed } from '../index/derive.ts';
import type { Indexer } from '../index/indexer.ts';
import { decayScore, type DecayConfig, type UseState } from '../lifecycle/decay.ts';
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';
import type { WriteOp, WritePipeline } from '../write/pipeline.ts';
import type { FactStaging } from '../write/staging.ts';
import { toFact } from '../../shared/fact-shape.ts';
import type { CallContext } from './context.ts';
import { preview } from './similarity.ts';

export type { PromoteResult, PromotionCandidate } from '../../shared/model.ts';

/** Frequent use counts only within this many days of a fact's creation. */
export const PROMOTE_WINDOW_DAYS = 14;
export const PROMOTION_TARGETS = ['obsidian'] as const;

const DAY_MS = 86_400_000;
/** Why promotion cannot write, said by the refusal and by a dry run alike. */
const NO_VAULT = 'no vault is configured: start the daemon with --vault DIR (or LTM_VAULT_PATH) to promote memories to notes';
const round = (x: number, digits = 4): number => Math.round(x * 10 ** digits) / 10 ** digits;

export interface PromoteInput {
  agentId: unknown;
  factId?: unknown;
  autoDetect?: unknown;
  dryRun?: unknown;
  target?: unknown;
  force?: unknown;
}

/** Where a namespace's notes go inside the vault: a folder per namespace, named safely. Its
 *  name is the namespace URI-encoded, and a leading dot too: "..", "." and ".x" would otherwise
 *  name the vault's parent, the vault itself or a hidden folder the vault's readers skip. */
export const notePath = (vault: string, agentId: string, factId: string): string => join(vault, encodeURIComponent(agentId).replace(/^\./, '%2E'), `${factId}.md`);

export class Promoter {
  constructor(
    private readonly store: MemoryStore,
    private readonly pipeline: WritePipeline,
    private readonly staging: FactStaging,
    private readonly indexer: Indexer,
    private readonly decay: DecayConfig,
    /** The vault directory; undefined: promotion is not configured. */
    private readonly vault: string | undefined,
    /** Told of each note written (unified search indexes it at once). */
    private readonly noteWritten: (path: string) => void = () => {},
  ) {}

  /** An erased fact's note goes too: erasure leaves nothing of the text, in the store or beside
   *  it. Done after the erasure commits, so a refused erasure keeps its note; a note that cannot
   *  be removed is said in the log, for removal by hand. */
  erased(fact: FactRecord, log: (message: string) => void): void {
    if (!this.vault || !fact.promotedAt) return;
    const path = notePath(this.vault, fact.agentId, fact.id);
    try {
      rmSync(path, { force: true });
    } catch (error) {
      log(`could not remove the vault note ${path} of erased fact ${fact.id}: ${(error as Error).message}; remove it by hand`);
    }
    this.noteWritten(path);
  }

  /** Why a fact qualifies now, or undefined. */
  private reason(fact: UseState, now: number): string | undefined {
    const ageDays = (now - fact.createdAt) / DAY_MS;
    if (ageDays < this.decay.promoteMinAgeDays) return undefined;
    const score = decayScore(this.decay, fact, now);
    if (score >= this.decay.promoteThreshold) return `High score (${score.toFixed(2)} >= ${this.decay.promoteThreshold})`;
    if (fact.useCount >= this.decay.promoteUseCount && ageDays <= PROMOTE_WINDOW_DAYS) {
      return `Frequently used (${fact.useCount} uses in ${ageDays.toFixed(1)} days)`;
    }
    return undefined;
  }

  private whyNot(fact: UseState, now: number): string {
    const ageDays = (now - fact.createdAt) / DAY_MS;
    if (ageDays < this.decay.promoteMinAgeDays) return `too new (${ageDays.toFixed(2)} days old; promotion needs ${this.decay.promoteMinAgeDays})`;
    const score = decayScore(this.decay, fact, now);
    return `score ${score.toFixed(2)} < ${this.decay.promoteThreshold} and ${fact.useCount} uses (needs ${this.decay.promoteUseCount} within ${PROMOTE_WINDOW_DAYS} days)`;
  }

  async promote(ctx: CallContext, input: PromoteInput): Promise<PromoteResult> {
    const agentId = check.agentId(input.agentId);
    const factId = input.factId === undefined || input.factId === '' ? undefined : check.factId(input.factId, 'memory_id');
    const autoDetect = input.autoDetect === undefined ? false : check.boolean(input.autoDetect, 'auto_detect');
    const dryRun = input.dryRun === undefined ? false : check.boolean(input.dryRun, 'dry_run');
    const force = input.force === undefined ? false : check.boolean(input.force, 'force');
    const target = input.target === undefined || input.target === '' ? 'obsidian' : String(input.target);
    if (!(PROMOTION_TARGETS as readonly string[]).includes(target)) throw invalidArgument('target', `must be one of ${PROMOTION_TARGETS.join(', ')}, got ${JSON.stringify(target)}`);
    if (!factId && !autoDetect && !dryRun) throw invalidArgument('memory_id', 'name a memory to promote, or set auto_detect (or dry_run to list the candidates)');
    // Worded without the fact's field, whose name differs by door (memory_id, REST's fact_id, the
    // CLI's argument): an error must not name a field the caller's door does not have.
    if (factId && autoDetect) throw invalidArgument('auto_detect', 'not with a named fact: auto_detect promotes every fact that qualifies (name one fact, or set auto_detect and name none)');
    const vault = this.vault;
    if (!vault && !dryRun) throw new EngramError(ErrorKind.FailedPrecondition, NO_VAULT, 'target');

    const now = Date.now();
    // A dry run that names no fact lists the candidates auto_detect would promote: asking what
    // qualifies should not need the flag that promotes them all.
    const candidates = factId ? await this.named(agentId, factId, force, now) : await this.withPreviews(agentId, this.detected(agentId, now));
    const promoted: string[] = [];
    if (!dryRun) {
      // All at once through the pipeline, so their commits share disk syncs.
      const { results: writes } = await this.pipeline.runInOrder(ctx, candidates.map((c) => this.promoteOp(agentId, c.id, vault!)));
      const done = await Promise.allSettled(writes);
      // A store failure is the caller's to see; the promotions committed before it stand.
      const failed = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
      if (failed) throw failed.reason;
      candidates.forEach((c, i) => (done[i] as PromiseFulfilledResult<boolean>).value && promoted.push(c.id));
    }
    // A dry run without a vault still lists the candidates, but says that the real run would be
    // refused, and how to configure a vault: every door shows this message as it is.
    const already = factId && candidates.length === 0 ? `: fact ${factId} is already promoted` : '';
    const message = dryRun
      ? `Would promote ${candidates.length} memor${candidates.length === 1 ? 'y' : 'ies'} to ${target}${already}${vault ? '' : `, but ${NO_VAULT}`}`
      : `Promoted ${promoted.length} memor${promoted.length === 1 ? 'y' : 'ies'} to ${target}${already}`;
    return { dryRun, candidatesFound: candidates.length, promotedCount: promoted.length, promotedIds: promoted, candidates, message };
  }

  /** The named fact as a candidate: refused when it does not qualify (unless forced); none when
   *  it is promoted already (promoting again changes nothing, and the message says why). */
  private async named(agentId: string, factId: string, force: boolean, now: number): Promise<PromotionCandidate[]> {
    const [fact] = await this.store.getFacts([{ agentId, factId }]);
    if (!fact) throw noFact('memory_id', factId, agentId);
    if (!isIndexed(fact)) throw new EngramError(ErrorKind.FailedPrecondition, `fact ${factId} is retired: only live facts are promoted`, 'memory_id');
    if (fact.promotedAt) return [];
    const reason = this.reason(fact, now) ?? (force ? 'Forced' : undefined);
    if (!reason) throw new EngramError(ErrorKind.FailedPrecondition, `fact ${factId} does not meet the promotion criteria: ${this.whyNot(fact, now)} (a forced promotion promotes it anyway: --force on the CLI, force: true on the other doors)`, 'memory_id');
    return [this.candidate(fact, reason, now)];
  }

  /** Every live, not yet promoted fact of the namespace that qualifies now, best score first. */
  private detected(agentId: string, now: number): PromotionCandidate[] {
    const ns = this.indexer.catalog.get(agentId);
    if (!ns) return [];
    const out: PromotionCandidate[] = [];
    for (const doc of ns.docsInOrder()) {
      const info = ns.doc(doc);
      if (info.promoted) continue;
      const reason = this.reason(info, now);
      if (reason) out.push({ id: info.factId, contentPreview: '', reason, score: round(decayScore(this.decay, info, now)), useCount: info.useCount, ageDays: round((now - info.createdAt) / DAY_MS, 1) });
    }
    out.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    return out;
  }

  private candidate(fact: FactRecord, reason: string, now: number): PromotionCandidate {
    return { id: fact.id, contentPreview: preview(fact.text), reason, score: round(decayScore(this.decay, fact, now)), useCount: fact.useCount, ageDays: round((now - fact.createdAt) / DAY_MS, 1) };
  }

  /** Writes the fact's note, then marks it promoted (a record change only). A fact already
   *  promoted is left as it is; one retired or erased meanwhile is skipped. */
  private promoteOp(agentId: string, factId: string, vault: string): WriteOp<boolean> {
    return {
      agentId,
      requestId: '',
      locks: [factId],
      plan: async () => {
        const [before] = await this.store.getFacts([{ agentId, factId }]);
        if (!before || !isIndexed(before) || before.promotedAt) return () => ({ changes: [], result: false });
        const after = { ...before, promotedAt: Date.now() };
        // The note first: a crash before the commit leaves a note without the mark, and
        // promoting again rewrites the same note.
        const path = notePath(vault, agentId, factId);
        writeFileAtomically(path, [Buffer.from(factNote(toFact(after, after.meta)), 'utf8')]);
        this.noteWritten(path);
        const { change, apply } = await this.staging.changed(before, after);
        return () => ({ changes: [change], result: true, apply });
      },
      replay: async () => false,
    };
  }

  /** Detected candidates with their previews (read from the store). */
  private async withPreviews(agentId: string, candidates: PromotionCandidate[]): Promise<PromotionCandidate[]> {
    const facts = await this.store.getFacts(candidates.map((c) => ({ agentId, factId: c.id })));
    return candidates.map((c, i) => ({ ...c, contentPreview: facts[i] ? preview(facts[i]!.text) : '' }));
  }
}
