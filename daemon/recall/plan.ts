// A recall plan: the validated, resolved options of one recall call. Per-call options override
// the daemon's configured defaults field by field; an unset weight is the default, an explicit 0
// turns the signal off.
import * as check from '../../shared/validate.ts';
import type { Limits } from '../../shared/validate.ts';
import { invalidArgument } from '../../shared/errors.ts';
import type { SignalWeights } from './fusion.ts';
import { buildFilter, type DocFilter, type FilterInput } from './filters.ts';

export type Scope = 'agent' | 'shared' | 'all';

export interface RecallDefaults {
  weights: SignalWeights;
  minRelevance: number;
}

export interface RecallPlan {
  topK: number;
  weights: SignalWeights;
  minRelevance: number;
  filter: DocFilter | null;
}

export interface RecallOptionsInput {
  topK?: unknown;
  weights?: { vector?: unknown; keyword?: unknown; recency?: unknown };
  minRelevance?: unknown;
  filters?: FilterInput;
}

export function defaultPlan(topK: number, defaults: RecallDefaults): RecallPlan {
  return { topK, weights: { ...defaults.weights }, minRelevance: defaults.minRelevance, filter: null };
}

export function planFromOptions(options: RecallOptionsInput | undefined, defaults: RecallDefaults, limits: Limits, now: number): RecallPlan {
  const o = options ?? {};
  const w = o.weights ?? {};
  const weight = (value: unknown, name: keyof SignalWeights) =>
    value === undefined ? defaults.weights[name] : check.signalWeight(value, `options.signal_weights.${name}`);
  const weights = { vector: weight(w.vector, 'vector'), keyword: weight(w.keyword, 'keyword'), recency: weight(w.recency, 'recency') };
  if (weights.vector + weights.keyword + weights.recency === 0) {
    throw invalidArgument('options.signal_weights', 'at least one signal weight must be positive');
  }
  return {
    topK: o.topK === undefined ? check.DEFAULT_TOP_K : check.optionsTopK(o.topK, limits, 'options.top_k'),
    weights,
    minRelevance: o.minRelevance === undefined ? defaults.minRelevance : check.minRelevance(o.minRelevance, 'options.min_relevance'),
    filter: o.filters ? buildFilter(o.filters, now) : null,
  };
}
