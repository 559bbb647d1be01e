// The recall flags shared by `recall` and `batch-recall`, and their translation into options.
import type { Command } from 'commander';
import type { RecallOptions } from '../client.ts';
import { parseTime, positiveInt, repeatable, usage } from './context.ts';

export function addRecallFlags(cmd: Command): Command {
  return cmd
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


function number(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) usage(`${flag} must be a number, got "${value}"`);
  return n;
}


/** Flags → library options. Only set what the user gave, so a plain recall stays a legacy call. */
export function recallOptionsFrom(o: Record<string, string | string[] | boolean | undefined>): RecallOptions {
  const options: RecallOptions = {};
  if (o.topK !== undefined) options.topK = positiveInt('--top-k')(o.topK as string);
  if (o.weights !== undefined) {
    const parts = (o.weights as string).split(',').map((p) => number(p.trim(), '--weights'));
    if (parts.length < 3 || parts.length > 5) usage(`--weights takes three to five numbers vector,keyword,recency[,decay[,graph]], got "${o.weights}"`);
    options.weights = { vector: parts[0], keyword: parts[1], recency: parts[2], ...(parts.length >= 4 ? { decay: parts[3] } : {}), ...(parts.length === 5 ? { graph: parts[4] } : {}) };
  }
  if (o.minRelevance !== undefined) options.minRelevance = number(o.minRelevance as string, '--min-relevance');
  const filters: NonNullable<RecallOptions['filters']> = {};
  if (o.windowDays !== undefined) filters.windowDays = positiveInt('--window-days')(o.windowDays as string);
  if (o.tag !== undefined) filters.tagsAny = o.tag as string[];
  if (o.allTags !== undefined) filters.tagsAll = o.allTags as string[];
  if (o.since !== undefined) filters.occurredAfter = parseTime(o.since as string, '--since');
  if (o.until !== undefined) filters.occurredBefore = parseTime(o.until as string, '--until');
  if (o.minScore !== undefined) filters.minDecayScore = number(o.minScore as string, '--min-score');
  if (Object.keys(filters).length > 0) options.filters = filters;
  if (o.minConfidence !== undefined) options.minConfidence = o.minConfidence as RecallOptions['minConfidence'];
  if (o.confidenceWeight !== undefined) options.confidenceWeight = number(o.confidenceWeight as string, '--confidence-weight');
  if (typeof o.kg === 'boolean') options.kg = o.kg;
  if (o.recipe !== undefined) options.recipe = o.recipe as string;
  return options;
}

