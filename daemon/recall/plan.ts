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
}

function withModifiers(plan: Omit<RecallPlan, 'modifiers'>): RecallPlan {
  return { ...plan, modifiers: MODIFIERS.flatMap((m) => m.activate(plan) ?? []) };
}

export function defaultPlan(topK: number, defaults: RecallDefaults, now: number): RecallPlan {
  return withModifiers({ topK, weights: { ...defaults.weights }, minRelevance: defaults.minRelevance, filter: null, confidence: null, now, decay: defaults.decay, kg: defaults.kg ?? false });
}

export function planFromOptions(options: RecallOptionsInput | undefined, defaults: RecallDefaults, limits: Limits, now: number): RecallPlan {
  const o = options ?? {};
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
  const confidence: ConfidencePlan | null =
    o.minConfidence === undefined && o.confidenceWeight === undefined
      ? null
      : {
          minConfidence: o.minConfidence === undefined ? null : check.confidenceLabel(o.minConfidence, 'options.min_confidence'),
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
