// Context assembly: one call that gives an agent what to inject — the slots that apply, its
// pinned facts, then what recall finds for the query — packed to a token budget counted with a
// real tokenizer, saying what was cut and why. The retrieval is a recipe's: a mode names a
// built-in as shipped (with the mode's own budget), a recipe name its latest saved version.
import { invalidArgument } from '../../shared/errors.ts';
import type { ContextAssembly, ContextItem, Evidence, Recipe } from '../../shared/model.ts';
import { MAX_TOKEN_BUDGET } from '../../shared/recipe-rules.ts';
import * as check from '../../shared/validate.ts';
import type { Limits } from '../../shared/validate.ts';
import { HEADINGS, pinnedLine, recalledLine, slotLine } from '../context/lines.ts';
import { pack, type PackItem, type Section } from '../context/pack.ts';
import { TOKENIZER, tokenCounter } from '../context/tokens.ts';
import type { Indexer } from '../index/indexer.ts';
import type { RecallEngine } from '../recall/engine.ts';
import { planFromOptions, type RecallDefaults } from '../recall/plan.ts';
import type { FactRecord } from '../store/record.ts';
import type { MemoryStore } from '../store/store.ts';
import type { CallContext } from './context.ts';
import { Recipes } from './recipes.ts';
import type { Slots } from './slots.ts';

/** The seed's budgets of the four context modes, in tokens. */
export const MODE_BUDGETS = { cheap: 1800, balanced: 3500, deep: 8000, forensic: 14000 } as const;
export type ContextMode = keyof typeof MODE_BUDGETS;
const MODES = Object.keys(MODE_BUDGETS) as ContextMode[];

export interface ContextInput {
  agentId: unknown;
  query?: unknown;
  mode?: unknown;
  recipe?: unknown;
  tokenBudget?: unknown;
  projectId?: unknown;
  slotNames?: unknown;
  topK?: unknown;
}

export interface AssemblerParts {
  store: MemoryStore;
  indexer: Indexer;
  slots: Slots;
  recipes: Recipes;
  recall: RecallEngine;
  limits: Limits;
  recallDefaults: RecallDefaults;
}

/** How many facts recall offers the packer by default: about one per hundred tokens of budget. */
export const defaultContextTopK = (budget: number, limits: Limits): number => Math.min(limits.maxTopK, Math.max(8, Math.floor(budget / 100)));

export class Assembler {
  constructor(private readonly parts: AssemblerParts) {}

  async assemble(ctx: CallContext, input: ContextInput): Promise<ContextAssembly<FactRecord>> {
    const { limits } = this.parts;
    const agentId = check.agentId(input.agentId);
    const query = input.query === undefined ? '' : check.query(input.query, limits);
    const { mode, recipe } = await this.retrieval(input);
    const tokenBudget = input.tokenBudget === undefined ? (mode ? MODE_BUDGETS[mode] : recipe.tokenBudget) : check.count(input.tokenBudget, 'token_budget', MAX_TOKEN_BUDGET);
    const topK = input.topK === undefined ? defaultContextTopK(tokenBudget, limits) : check.topK(input.topK, limits, 'top_k');

    const slots = await this.parts.slots.context(ctx, { projectId: input.projectId, slotNames: input.slotNames });
    const pinned = await this.pinned(agentId);
    const plan = planFromOptions({ topK }, this.parts.recallDefaults, limits, Date.now(), recipe);
    const recalled = query.trim() === '' ? undefined : await this.parts.recall.search({ agentId, query, scope: 'agent', plan, explain: true, feedback: false, countAccess: false });
    const slotEvidence = recipe.includeEvidence ? await this.slotEvidence(agentId, slots.map((s) => s.evidenceRefs)) : slots.map(() => []);

    const pinnedIds = new Set(pinned.map((f) => f.id));
    const items = new Map<string, ContextItem<FactRecord>>();
    const entry = (item: ContextItem<FactRecord>): PackItem => {
      items.set(`${item.kind}\u0000${item.id}`, item);
      return { kind: item.kind, id: item.id, text: item.text };
    };
    // Only facts the query matched: filler that merely fills top_k has no place in a context.
    const recalledItems = (recalled?.facts ?? []).flatMap((fact, i) => {
      if (pinnedIds.has(fact.id) || !recalled!.matches[i]!.matched) return [];
      const evidence = recalled!.matches[i]!.evidence ?? [];
      const receipt = recalled!.receipts![i]!;
      return [entry({ kind: 'recalled', id: fact.id, text: recalledLine(fact, receipt.weight, evidence), tokens: 0, fact, receipt, ...(evidence.length ? { evidence } : {}) })];
    });
    const sections: Section[] = [
      { kind: 'slot', heading: HEADINGS.slot, items: slots.map((slot, i) => entry({ kind: 'slot', id: slot.id, text: slotLine(slot, slotEvidence[i]), tokens: 0, confidence: slot.confidence, slot, ...(slotEvidence[i]!.length ? { evidence: slotEvidence[i] } : {}) })) },
      { kind: 'pinned', heading: HEADINGS.pinned, items: pinned.map((fact) => entry({ kind: 'pinned', id: fact.id, text: pinnedLine(fact), tokens: 0, fact })) },
      { kind: 'recalled', heading: HEADINGS.recalled, items: recalledItems },
    ];
    const packed = pack(sections, tokenBudget, await tokenCounter());
    // A use is counted for what goes into the block, not for what the budget cut.
    this.parts.recall.recordAccess(packed.kept.filter((k) => k.kind === 'recalled').map((k) => items.get(`recalled\u0000${k.id}`)!.fact!));
    return {
      block: packed.block,
      tokens: packed.tokens,
      tokenBudget,
      tokenizer: TOKENIZER,
      mode: mode ?? '',
      recipe: plan.recipe!,
      items: packed.kept.map((k) => ({ ...items.get(`${k.kind}\u0000${k.id}`)!, tokens: k.tokens })),
      cut: packed.cut,
      retrieval: recalled?.retrieval ?? { ...emptyRetrieval(), recipe: plan.recipe! },
    };
  }

  /** A mode (default balanced) or a recipe, not both. */
  private async retrieval(input: ContextInput): Promise<{ mode?: ContextMode; recipe: Recipe }> {
    if (input.mode !== undefined && input.recipe !== undefined) throw invalidArgument('recipe', 'give a mode or a recipe, not both (a recipe carries its own token_budget)');
    if (input.recipe !== undefined) return { recipe: await this.parts.recipes.resolve(input.recipe, 'recipe') };
    const mode = input.mode ?? 'balanced';
    if (typeof mode !== 'string' || !MODES.includes(mode as ContextMode)) throw invalidArgument('mode', `must be one of ${MODES.join(', ')}`);
    return { mode: mode as ContextMode, recipe: Recipes.builtin(mode)! };
  }

  /** The namespace's live pinned facts, most recently pinned first. */
  private async pinned(agentId: string): Promise<FactRecord[]> {
    const ns = this.parts.indexer.namespace(agentId);
    if (!ns) return [];
    const keys: { agentId: string; factId: string }[] = [];
    for (const doc of ns.docsInOrder()) if (ns.doc(doc).pinned) keys.push({ agentId, factId: ns.doc(doc).factId });
    const facts = (await this.parts.store.getFacts(keys)).filter((f): f is FactRecord => f !== undefined && f.supersededBy === '');
    return facts.sort((a, b) => b.pinnedAt - a.pinnedAt || a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  /** A slot's evidence references, each with the fact it names in the namespace or the shared
   *  one, if any. */
  private async slotEvidence(agentId: string, refs: string[][]): Promise<Evidence[][]> {
    const ids = [...new Set(refs.flat().filter((ref) => check.isFactId(ref)))];
    const own = await this.parts.store.getFacts(ids.map((factId) => ({ agentId, factId })));
    const shared = await this.parts.store.getFacts(ids.map((factId) => ({ agentId: check.SHARED_AGENT_ID, factId })));
    const byId = new Map(ids.map((id, i) => [id, own[i] ?? shared[i]]));
    return refs.map((list) =>
      list.map((ref) => {
        const fact = byId.get(ref);
        return { kind: 'evidence_ref', ref, text: fact?.text ?? '', retired: fact ? fact.supersededBy !== '' : false };
      }),
    );
  }
}

function emptyRetrieval(): ContextAssembly['retrieval'] {
  return { weights: { vector: 0, keyword: 0, recency: 0, decay: 0, graph: 0 }, signals: [], eligibleCount: 0, keywordCandidates: 0, vectorCandidates: 0, vectorSearched: 0, embedder: '', rrfK: 0, notes: ['no query: slots and pinned facts only'], minRelevance: 0, filtered: false, expandedTerms: [], policy: '', kg: '' };
}
