// What a call needs from the daemon, decided from the last handshake BEFORE anything is sent:
// which RPC carries it, which capability that takes, and the resolved confidence weight.
import { Capability } from '../shared/capabilities.ts';
import type { DaemonInfo } from './connection.ts';
import { CapabilityError } from './errors.ts';
import type { RecallOptions } from './options.ts';

/** Fails before anything is sent when the daemon lacks what a call needs. */
export function requireCapability(daemon: DaemonInfo, capability: string, what: string): void {
  if (!daemon.capabilities.includes(capability)) throw new CapabilityError(capability, what, daemon.profile);
}

/** Per-call weight, else the dial option, else the daemon's advertised default, else 0. */
export function resolveConfidenceWeight(perCall: number | undefined, dial: number | undefined, daemon: DaemonInfo): number {
  return perCall ?? dial ?? daemon.defaultConfidenceWeight ?? 0;
}

/** The same, except that a call naming a recipe sends no weight of its own unless one was given:
 *  the recipe's prefer_verified decides on the daemon. */
export function callConfidenceWeight(options: { confidenceWeight?: number; recipe?: string }, dial: number | undefined, daemon: DaemonInfo): number | undefined {
  if (options.recipe !== undefined && options.confidenceWeight === undefined && dial === undefined) return undefined;
  return resolveConfidenceWeight(options.confidenceWeight, dial, daemon);
}

export type RecallRoute =
  /** The historical RPCs: top_k only, and confidence weight 0. */
  | { kind: 'legacy' }
  | { kind: 'options'; message: ReturnType<typeof recallOptionsMessage> };

/** A call with no new options and a resolved weight of 0 is effectively legacy and works on any
 *  daemon; anything else needs RecallWithOptions and, for confidence, confidence-recall-v1. */
/** `weight` undefined: none resolved here (a recipe call leaves it to the recipe). */
export function routeRecall(daemon: DaemonInfo, options: RecallOptions, weight: number | undefined, needsOptionsRpc = false): RecallRoute {
  const confidence = options.minConfidence !== undefined || (weight ?? 0) > 0;
  const other = options.weights !== undefined || options.minRelevance !== undefined || options.filters !== undefined || options.kg !== undefined || options.recipe !== undefined;
  const advice = options.advice === true && daemon.capabilities.includes(Capability.RecallOptions);
  if (!confidence && !other && !needsOptionsRpc && !advice) return { kind: 'legacy' };
  requireCapability(daemon, Capability.RecallOptions, 'recall with weights, min_relevance or filters');
  if (confidence) requireCapability(daemon, Capability.ConfidenceRecall, 'recall with min_confidence or a confidence weight');
  if (options.kg !== undefined) requireCapability(daemon, Capability.KnowledgeGraph, 'recall with knowledge-graph hints (kg)');
  if (options.recipe !== undefined) requireCapability(daemon, Capability.RecipeRecall, 'recall under a retrieval recipe');
  if ((options.weights?.graph ?? 0) > 0) requireCapability(daemon, Capability.KnowledgeGraph, 'recall with the graph signal');
  if ((options.weights?.decay ?? 0) > 0 || options.filters?.minDecayScore !== undefined) {
    requireCapability(daemon, Capability.Decay, 'recall with the decay signal or min_decay_score');
  }
  // The resolved weight is sent explicitly to every daemon that understands it.
  const sendsWeight = daemon.capabilities.includes(Capability.ConfidenceRecall);
  return { kind: 'options', message: recallOptionsMessage(options, sendsWeight ? weight : undefined) };
}

/** Created and occurred time bounds (ms) as the protocol's filters carry them: unset stays unset. */
export function timeBoundsMessage(f: { createdAfter?: number; createdBefore?: number; occurredAfter?: number; occurredBefore?: number }) {
  const ms = (t: number | undefined) => (t === undefined ? undefined : BigInt(t));
  return { createdAfterMs: ms(f.createdAfter), createdBeforeMs: ms(f.createdBefore), occurredAfterMs: ms(f.occurredAfter), occurredBeforeMs: ms(f.occurredBefore) };
}

export function recallOptionsMessage(o: RecallOptions, confidenceWeight: number | undefined) {
  const f = o.filters;
  return {
    topK: o.topK,
    signalWeights: o.weights ? { vector: o.weights.vector, keyword: o.weights.keyword, recency: o.weights.recency, decay: o.weights.decay, graph: o.weights.graph } : undefined,
    minRelevance: o.minRelevance,
    filters: f && {
      windowDays: f.windowDays,
      tagsAny: f.tagsAny ?? [],
      tagsAll: f.tagsAll ?? [],
      ...timeBoundsMessage(f),
      minDecayScore: f.minDecayScore,
    },
    minConfidence: o.minConfidence,
    confidenceWeight,
    kg: o.kg,
    recipe: o.recipe,
  };
}
