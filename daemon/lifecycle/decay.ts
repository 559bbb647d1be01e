// Decay: how much a fact is worth keeping now. score = use_count^β · f(now − last_used) · strength,
// where f is the configured forgetting curve. A fact's creation counts as its first use, so a new
// fact scores its strength (1.0 by default) and fades from there unless it is used again.
// Every model is computed as itself (not approximated by an exponential), from one setting each.

export const DECAY_MODELS = ['power_law', 'exponential', 'two_component'] as const;
export type DecayModel = (typeof DECAY_MODELS)[number];

export interface DecayConfig {
  model: DecayModel;
  /** power_law: f = (1 + t/t0)^−α, t0 chosen so that f(half-life) = ½. */
  powerLawHalfLifeDays: number;
  powerLawAlpha: number;
  /** exponential: f = e^(−λt), λ per second (2.673e-6 = a 3-day half-life). */
  lambda: number;
  /** two_component: f = w·½^(t/h_fast) + (1 − w)·½^(t/h_slow): a quick early drop, a long tail. */
  fastHalfLifeDays: number;
  slowHalfLifeDays: number;
  fastWeight: number;
  /** The use-count exponent: each use counts, with diminishing returns. */
  beta: number;
  /** Below this score garbage collection retires or deletes a fact. */
  forgetThreshold: number;
  /** At or above this score (or with promoteUseCount uses in 14 days) a fact may be promoted. */
  promoteThreshold: number;
  promoteUseCount: number;
  /** A fact younger than this never qualifies for promotion (a new fact scores its full strength). */
  promoteMinAgeDays: number;
  /** Whether observed use reinforces facts (observe_memory_usage). */
  autoReinforce: boolean;
}

export const DEFAULT_DECAY: Readonly<DecayConfig> = {
  model: 'power_law',
  powerLawHalfLifeDays: 3,
  powerLawAlpha: 1.1,
  lambda: 2.673e-6,
  fastHalfLifeDays: 0.5,
  slowHalfLifeDays: 7,
  fastWeight: 0.7,
  beta: 0.6,
  forgetThreshold: 0.05,
  promoteThreshold: 0.65,
  promoteUseCount: 5,
  promoteMinAgeDays: 1,
  autoReinforce: true,
};

const DAY_S = 86_400;

/** The forgetting curve: f(0) = 1, falling towards 0; `seconds` since the last use. */
export function decayFactor(config: DecayConfig, seconds: number): number {
  const t = Math.max(0, seconds);
  switch (config.model) {
    case 'exponential':
      return Math.exp(-config.lambda * t);
    case 'power_law': {
      const alpha = config.powerLawAlpha;
      const t0 = (config.powerLawHalfLifeDays * DAY_S) / (2 ** (1 / alpha) - 1);
      return (1 + t / t0) ** -alpha;
    }
    case 'two_component': {
      const half = (days: number) => 0.5 ** (t / (days * DAY_S));
      return config.fastWeight * half(config.fastHalfLifeDays) + (1 - config.fastWeight) * half(config.slowHalfLifeDays);
    }
  }
}

/** What decay reads of a fact. */
export interface UseState {
  useCount: number;
  /** 0: not used since its creation. */
  lastUsedAt: number;
  createdAt: number;
  strength: number;
}

/** When a fact was last used: its creation until something uses it. */
export const lastUse = (fact: Pick<UseState, 'lastUsedAt' | 'createdAt'>): number => fact.lastUsedAt || fact.createdAt;

export function decayScore(config: DecayConfig, fact: UseState, now: number): number {
  const uses = Math.max(1, fact.useCount);
  return uses ** config.beta * decayFactor(config, (now - lastUse(fact)) / 1000) * fact.strength;
}
