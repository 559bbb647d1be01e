// The recall flags shared by `recall` and `batch-recall`, and their translation into options.
import type { Command } from 'commander';
import type { RecallOptions } from '../client.ts';
import * as check from '../../shared/validate.ts';
import { cannotCombine, checkedFlag, confidenceFlag, numberFlag, parseTime, positiveInt, repeatable, usage } from './context.ts';

export function addRecallFlags(cmd: Command): Command {
  return refusedTogether(cmd, '--kg', '--no-kg')
    .option('-k, --top-k <n>', 'how many facts (default 8)')
    .option('--weights <v,k,r[,d[,g]]>', 'signal weights vector,keyword,recency[,decay[,graph]] (0 turns one off; default: the daemon\'s; decay and graph 0)')
    .option('--min-relevance <f>', 'drop results below this fraction of the top score, in [0, 1]')
    .option('--min-score <s>', 'only facts whose decay score is at least this (see engram gc)')
    .option('--window-days <n>', 'only facts whose event time is within the last N days')
    .option('--tag <tag>', 'only facts with this tag, or any of the tags when repeated', repeatable)
    .option('--all-tags <tag>', 'only facts with this tag; repeat it: facts with all of them', repeatable)
    .option('--since <time>', 'only facts that happened at or after this time (ISO 8601)')
    .option('--until <time>', 'only facts that happened before this time (ISO 8601)')
    .option('--min-confidence <label>', 'only facts at least this confident: verified, inferred or unverified')
    .option('--confidence-weight <w>', 'rank by confidence too: final = score x (1 + w x c), w in [0, 0.5]')
    .option('--kg', 'append up to three knowledge-graph neighbours after the facts (default: the daemon\'s --kg)')
    .option('--no-kg', 'no knowledge-graph neighbours, whatever the daemon\'s --kg')
    .option('--recipe <name>', 'rank under a retrieval recipe (see engram recipes list): its candidate counts, graph depth, reranker and confidence settings; the flags above still override');
}


/** A flag and its negation (--kg, --no-kg) given together are refused, as Option.conflicts()
 *  refuses other flags: commander keeps the pair in one value, the last one given winning, so
 *  conflicts() cannot tell them apart (and the run quietly took the last). */
function refusedTogether(cmd: Command, flag: string, negation: string): Command {
  let given: string | undefined;
  for (const name of [flag, negation]) {
    cmd.on(`option:${name.slice(2)}`, () => {
      if (given !== undefined && given !== name) usage(cannotCombine(given, name), given);
      given = name;
    });
  }
  return cmd;
}

/** The signals a --weights list names, in order (the daemon's registry order). */
const WEIGHT_NAMES = check.WEIGHT_LIST_NAMES;

/** "1,1,0.5" → per-signal weights, each checked by the shared rule (finite, in range). Whether
 *  at least one is positive depends on the daemon's defaults for the signals left out, so the
 *  daemon says that (main.ts words it as --weights). */
function weightsFlag(value: string): NonNullable<RecallOptions['weights']> {
  const parts = checkedFlag('--weights', () => {
    try {
      return check.weightList(value);
    } catch (error) {
      throw error instanceof check.WeightListError ? new Error(error.worded('--weights')) : error;
    }
  });
  return Object.fromEntries(parts.map((n, i) => [WEIGHT_NAMES[i], checkedFlag('--weights', () => check.signalWeight(n, `--weights: ${WEIGHT_NAMES[i]}`))]));
}

/** A number flag put through the shared rule for its field (`rule(n, flag)` throws naming it). */
const ruled = (value: string, flag: string, rule: (n: number, field: string) => number): number => {
  const n = numberFlag(value, flag);
  return checkedFlag(flag, () => rule(n, flag));
};

/** Flags → library options. Only set what the user gave, so a plain recall stays a legacy call.
 *  Every value is checked here by the rule the daemon applies to its field, so a bad one is a
 *  usage error naming the flag (exit 2); the top_k maximum is the daemon's (its advertised
 *  limits), so main.ts words that refusal as -k/--top-k instead. */
export function recallOptionsFrom(o: Record<string, string | string[] | boolean | undefined>): RecallOptions {
  const options: RecallOptions = {};
  if (o.topK !== undefined) options.topK = positiveInt('--top-k')(o.topK as string);
  if (o.weights !== undefined) options.weights = weightsFlag(o.weights as string);
  if (o.minRelevance !== undefined) options.minRelevance = ruled(o.minRelevance as string, '--min-relevance', check.minRelevance);
  const filters: NonNullable<RecallOptions['filters']> = {};
  if (o.windowDays !== undefined) {
    const days = positiveInt('--window-days')(o.windowDays as string);
    filters.windowDays = checkedFlag('--window-days', () => check.windowDays(days, '--window-days'));
  }
  if (o.tag !== undefined) filters.tagsAny = o.tag as string[];
  if (o.allTags !== undefined) filters.tagsAll = o.allTags as string[];
  if (o.since !== undefined) filters.occurredAfter = parseTime(o.since as string, '--since');
  if (o.until !== undefined) filters.occurredBefore = parseTime(o.until as string, '--until');
  if (o.minScore !== undefined) filters.minDecayScore = ruled(o.minScore as string, '--min-score', check.minScore);
  if (Object.keys(filters).length > 0) options.filters = filters;
  if (o.minConfidence !== undefined) options.minConfidence = confidenceFlag(o.minConfidence as string, '--min-confidence');
  if (o.confidenceWeight !== undefined) options.confidenceWeight = ruled(o.confidenceWeight as string, '--confidence-weight', check.confidenceWeight);
  if (typeof o.kg === 'boolean') options.kg = o.kg;
  if (o.recipe !== undefined) options.recipe = o.recipe as string;
  return options;
}

