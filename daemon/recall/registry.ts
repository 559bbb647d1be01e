// The ranking signals, in fusion order: a fused score sums weight / (k + rank) over them in
// exactly this order, so every receipt reproduces it bit for bit. A new signal is one entry here
// (with its default weight) and its field in the protocol adapters.
import { keywordSignal } from './signals/keyword.ts';
import { recencySignal } from './signals/recency.ts';
import { vectorSignal } from './signals/vector.ts';
import { decaySignal } from './signals/decay.ts';
import { graphSignal } from './signals/graph.ts';
import { confidenceModifier } from './modifiers/confidence.ts';
import type { MatchSignal, ModifierDefinition, OrderSignal } from './signal.ts';

export const SIGNALS = [vectorSignal, keywordSignal, recencySignal, decaySignal, graphSignal] as const satisfies readonly (MatchSignal | OrderSignal)[];

export type SignalName = (typeof SIGNALS)[number]['name'];

/** A weight per signal; 0 turns a signal off. */
export type Weights = Readonly<Record<SignalName, number>>;

/** A rank per signal (1-based; 0 = the signal did not rank the fact). */
export type SignalRanks = Record<SignalName, number>;

export const SIGNAL_NAMES: readonly SignalName[] = SIGNALS.map((s) => s.name);

const ALL: readonly (MatchSignal | OrderSignal)[] = SIGNALS;
const MATCH = ALL.filter((s): s is MatchSignal => s.kind === 'match');
const ORDER = ALL.filter((s): s is OrderSignal => s.kind === 'order');

/** Signals that find what a query matches, in registry order. */
export const matchSignals = (): readonly MatchSignal[] => MATCH;
/** Signals that order facts without a query, in registry order. */
export const orderSignals = (): readonly OrderSignal[] => ORDER;

/** Score modifiers, applied in this order to the fused score. */
export const MODIFIERS: readonly ModifierDefinition[] = [confidenceModifier];
