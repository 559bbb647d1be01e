// A recall plan: the validated, resolved options of one recall call. Per-call options override
// the daemon's configured defaults field by field; an unset weight is the default, an explicit 0
// turns the signal off.
import * as check from '../../shared/validate.ts';
import type { Limits } from '../../shared/validate.ts';
import { invalidArgument } from '../../shared/errors.ts';
import { buildFilter, type DocFilter, type FilterInput } from './filters.ts';
import { confidenceValue, type ConfidenceLabel } from '../lifecycle/confidence.ts';
import { MODIFIERS, SIGNAL_NAMES, type SignalName, type Weights } from './registry.ts';
import type { ActiveModifier, SignalContext } from './signal.ts';
import type { DecayConfig } from '../lifecycle/decay.ts';
import type { AppliedRecipe, Recipe } from '../../shared/model.ts';
import { RERANK_STAGE } from './rerank.ts';

export type Scope = 'agent' | 'shared' | 'all';

export interface RecallDefaults {
  weights: Weights;
  /** What the decay signal and the min_decay_score filter score by. */
  decay: DecayConfig;
  minRelevance: number;
  /** The configured default confidence weight (product default 0). */
  confidenceWeight: number;
  /** Knowledge-graph neighbour hints after the ranked facts (--kg). */
  kg?: boolean;
}

/** Confidence options in effect; null on legacy calls (which rank with weight 0 and report nothing). */
export interface ConfidencePlan {
  minConfidence: ConfidenceLabel | null;
  weight: number;
}

export interface RecallPlan extends SignalContext {
  topK: number;
  weights: Weights;
  minRelevance: number;
  filter: DocFilter | null;
  confidence: ConfidencePlan | null;
  /** The score modifiers this plan runs, in registry order. */
  modifiers: ActiveModifier[];
  /** Append knowledge-graph neighbour hints (never to an explained recall). */
  kg: boolean;
  /** Candidate list sizes a recipe set per match signal (absent: a function of top_k). */
  candidates: Partial<Record<SignalName, number>>;
  /** How many relation hops the graph signal follows from the facts naming the query's entities. */
  graphHops: number;
  /** Run the reranking second stage over the fused candidates. */
  rerank: boolean;
  /** Attach the supporting records to each result. */
  evidence: boolean;
  /** The recipe the call named, as resolved. */
  recipe: AppliedRecipe | null;
}

export interface RecallOptionsInput {
  topK?: unknown;
  weights?: Partial<Record<SignalName, unknown>>;
  minRelevance?: unknown;
  filters?: FilterInput;
  minConfidence?: unknown;
  confidenceWeight?: unknown;
  /** Knowledge-graph hints; absent: the daemon's --kg. */
  kg?: unknown;
  /** A retrieval recipe's name (the core resolves it before planning). */
  recipe?: unknown;
}

/** The confidence weight a recipe's prefer_verified gives when the call sets none (at least the
 *  daemon's default): verified facts ×1.25, unverified ×0.75. */
export const PREFER_VERIFIED_WEIGHT = 0.25;
/** The graph signal's weight under a recipe with graph_depth > 0 when the daemon weights it 0:
 *  the best multi-hop recall@20 of the weights measured on the dev split (0.1, 0.2, 0.5). */
export const RECIPE_GRAPH_WEIGHT = 0.2;

/** What the defaults become under a recipe; every option the call sets still wins. */
function recipeDefaults(defaults: RecallDefaults, recipe: Recipe | undefined): RecallDefaults {
  if (!recipe) return defaults;
  const graph = recipe.graphDepth === 0 ? 0 : defaults.weights.graph > 0 ? defaults.weights.graph : RECIPE_GRAPH_WEIGHT;
  return {
    ...defaults,
    weights: { ...defaults.weights, graph },
    confidenceWeight: recipe.preferVerified ? Math.max(defaults.confidenceWeight, PREFER_VERIFIED_WEIGHT) : defaults.confidenceWeight,
    kg: recipe.graphDepth > 0,
  };
}

function applied(recipe: Recipe): AppliedRecipe {
  const { id, name, version, vectorTopK, lexicalTopK, graphDepth, reranker, tokenBudget, preferVerified, verifiedOnly, includeEvidence } = recipe;
  return { id, name, version, vectorTopK, lexicalTopK, graphDepth, reranker, tokenBudget, preferVerified, verifiedOnly, includeEvidence, rerankerStage: reranker ? RERANK_STAGE : '' };
}

const NO_RECIPE = { candidates: {}, graphHops: 1, rerank: false, evidence: false, recipe: null } as const;

function withModifiers(plan: Omit<RecallPlan, 'modifiers'>): RecallPlan {
  return { ...plan, modifiers: MODIFIERS.flatMap((m) => m.activate(plan) ?? []) };
}

export function defaultPlan(topK: number, defaults: RecallDefaults, now: number): RecallPlan {
  return withModifiers({ topK, weights: { ...defaults.weights }, minRelevance: defaults.minRelevance, filter: null, confidence: null, now, decay: defaults.decay, kg: defaults.kg ?? false, ...NO_RECIPE });
}

/** `recipe`: the resolved recipe the options name; its settings sit between the call's options
 *  and the daemon's defaults. */
export function planFromOptions(options: RecallOptionsInput | undefined, daemonDefaults: RecallDefaults, limits: Limits, now: number, recipe?: Recipe): RecallPlan {
  const o = options ?? {};
  const defaults = recipeDefaults(daemonDefaults, recipe);
  const given = o.weights ?? {};
  const weights = Object.fromEntries(
    SIGNAL_NAMES.map((name) => [name, given[name] === undefined ? defaults.weights[name] : check.signalWeight(given[name], `options.signal_weights.${name}`)]),
  ) as Record<SignalName, number>;
  if (SIGNAL_NAMES.every((name) => weights[name] === 0)) {
    throw invalidArgument('options.signal_weights', 'at least one signal weight must be positive');
  }
  // No confidence field at all = a request from before confidence-recall-v1: it keeps zero
  // confidence preference and reports no confidence metadata, whatever this daemon's default.
  // (Current clients always send the resolved weight explicitly.)
  // A recipe always sets confidence options (each prefers verified facts).
  const confidence: ConfidencePlan | null =
    o.minConfidence === undefined && o.confidenceWeight === undefined && !recipe
      ? null
      : {
          minConfidence: o.minConfidence === undefined ? (recipe?.verifiedOnly ? 'verified' : null) : check.confidenceLabel(o.minConfidence, 'options.min_confidence'),
          weight: o.confidenceWeight === undefined ? defaults.confidenceWeight : check.confidenceWeight(o.confidenceWeight, 'options.confidence_weight'),
        };
  return withModifiers({
    topK: o.topK === undefined ? check.DEFAULT_TOP_K : check.optionsTopK(o.topK, limits, 'options.top_k'),
    weights,
    minRelevance: o.minRelevance === undefined ? defaults.minRelevance : check.minRelevance(o.minRelevance, 'options.min_relevance'),
    filter: allOf(o.filters ? buildFilter(o.filters, now, defaults.decay) : null, confidenceFilter(confidence?.minConfidence ?? null)),
    confidence,
    now,
    decay: defaults.decay,
    kg: o.kg === undefined ? (defaults.kg ?? false) : check.boolean(o.kg, 'options.kg'),
    ...(recipe
      ? { candidates: { keyword: recipe.lexicalTopK, vector: recipe.vectorTopK }, graphHops: Math.max(1, recipe.graphDepth), rerank: recipe.reranker, evidence: recipe.includeEvidence, recipe: applied(recipe) }
      : NO_RECIPE),
  });
}

/** min_confidence filters before anything is ranked (document frequencies included). */
function confidenceFilter(min: ConfidenceLabel | null): DocFilter | null {
  if (min === null) return null;
  const threshold = confidenceValue(min);
  return (doc) => confidenceValue(doc.confidence) >= threshold;
}

function allOf(a: DocFilter | null, b: DocFilter | null): DocFilter | null {
  if (!a) return b;
  if (!b) return a;
  return (doc) => a(doc) && b(doc);
}
