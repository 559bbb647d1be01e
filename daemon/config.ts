// Every setting of the daemon, declared once: its flag, its ENGRAM_* variable, its default, and
// the check that turns the text into a value (a bad value stops start-up with a message naming
// the flag). `engram daemon --help` prints this table; the README's daemon section mirrors it.
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { isAgentToken } from '../shared/agent-token.ts';
import { RELEASE_PROFILES } from '../shared/capabilities.ts';
import { resolveDataDir } from '../shared/discovery.ts';
import * as check from '../shared/validate.ts';
import { EMBEDDER_NAMES, type EmbedderName } from './embed/index.ts';
import { SIGNAL_NAMES, type Weights } from './recall/registry.ts';
import { DEFAULT_CHECKPOINT_KEEP } from './lifecycle/checkpoints.ts';
import { checkAuthOptions } from './http/auth.ts';
import { normalizeListen, parseListen } from './http/listen.ts';
import type { DaemonOptions } from './server.ts';
import { isPostgresUrl } from './store/postgres-url.ts';
import { LOG_LEVELS, type LogLevel } from './log.ts';
import { EXTRACTOR_NAMES, type ExtractorName } from './extract/index.ts';
import { DECAY_MODELS, DEFAULT_DECAY, type DecayConfig, type DecayModel } from './lifecycle/decay.ts';
import { DEFAULT_CONSOLIDATION } from './core/consolidation.ts';
import { SUMMARIZER_NAMES, type SummarizerName } from './consolidate/summarize.ts';
import { startRecord, type StartRecord } from './start-record.ts';
import { refusedDefaultStore } from './store-guard.ts';

/** "7777" → "127.0.0.1:7777": listeners bind loopback unless a host is named. */
const address = (flag: string) => (value: string): string => {
  try {
    return normalizeListen(value, flag);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

const confidenceWeight = (value: string): number => {
  const weight = check.decimal(value);
  if (weight === undefined || weight < 0 || weight > check.MAX_CONFIDENCE_WEIGHT) {
    throw new InvalidArgumentError(`--default-confidence-weight must be a finite number in [0, ${check.MAX_CONFIDENCE_WEIGHT}], got "${value}"`);
  }
  return weight;
};

/** "1,1,0.5" → a weight per signal, in registry order; signals after the first three (decay)
 *  may be left out and are then 0, so settings written before they existed keep working. */
const signalWeights = (value: string): Weights => {
  try {
    const parts = check.weightList(value);
    const weights = Object.fromEntries(SIGNAL_NAMES.map((name, i) => [name, check.signalWeight(parts[i] ?? 0, `--signal-weights: ${name}`)])) as Weights;
    if (SIGNAL_NAMES.every((name) => weights[name] === 0)) throw new Error('--signal-weights: at least one weight must be positive');
    return weights;
  } catch (error) {
    throw new InvalidArgumentError(error instanceof check.WeightListError ? error.worded('--signal-weights') : (error as Error).message);
  }
};

const minRelevance = (value: string): number => {
  const n = check.decimal(value);
  if (n === undefined) throw new InvalidArgumentError(`--min-relevance must be a number, got "${value}"`);
  try {
    return check.minRelevance(n, '--min-relevance');
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

/** A whole number in [min, max]. */
const countIn = (flag: string, min: number, max: number) => (value: string): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${flag} must be a whole number in [${min}, ${max}], got "${value}"`);
  return n;
};

const positiveInt = (flag: string) => (value: string): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} must be a positive integer, got "${value}"`);
  return n;
};

/** A finite number in [min, max] (a positive one when min is 0 and `positive`). */
const numberIn = (flag: string, min: number, max: number, positive = false) => (value: string): number => {
  const n = check.decimal(value);
  if (n === undefined || n < min || n > max || (positive && n <= 0)) {
    throw new InvalidArgumentError(`${flag} must be a ${positive ? 'positive ' : ''}number in [${min}, ${max}], got "${value}"`);
  }
  return n;
};

const booleanText = (flag: string) => (value: string): boolean => {
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new InvalidArgumentError(`${flag} must be true or false, got "${value}"`);
};

/** "level", or a PostgreSQL connection URL. */
const storeLocation = (value: string): string => {
  const v = value.trim();
  if (v === 'level' || isPostgresUrl(v)) return v;
  throw new InvalidArgumentError(`--store must be "level" or a postgres:// URL, got "${value}"`);
};

/** A namespace id, refused as the flag's usage error (not a stack trace at start-up); empty is
 *  "not given", so an ENGRAM_AGENT set to nothing keeps the default namespace. */
const mcpAgent = (value: string): string => {
  if (value === '') return value;
  try {
    return check.agentId(value, '--mcp-agent');
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

/** The settings as commander parsed them (camelCased flag names). */
interface ParsedOptions {
  dataDir?: string;
  store: string;
  listen?: string;
  embedder: EmbedderName;
  embedUrl?: string;
  embedModel?: string;
  embedApiKeyEnv?: string;
  signalWeights?: Weights;
  minRelevance: number;
  compat: string;
  defaultConfidenceWeight?: number;
  http?: string;
  mcpHttp?: string;
  mcpAgent?: string;
  token?: string;
  auth: boolean;
  reconcileMs: number;
  checkpointKeep: number;
  logLevel: LogLevel;
  logFile?: string;
  check?: boolean;
  decayModel: DecayModel;
  plHalflifeDays: number;
  plAlpha: number;
  decayLambda: number;
  tcFastHalflifeDays: number;
  tcSlowHalflifeDays: number;
  tcFastWeight: number;
  decayBeta: number;
  forgetThreshold: number;
  promoteThreshold: number;
  promoteUseCount: number;
  promoteMinAgeDays: number;
  autoReinforce: boolean;
  vault?: string;
  extractor: ExtractorName;
  extractUrl?: string;
  extractModel?: string;
  extractApiKeyEnv?: string;
  kg: boolean;
  consolidateEvery: number;
  consolidateBelow: number;
  consolidateMaxSources: number;
  consolidateInterval: number;
  summarizer: SummarizerName;
}

/** The daemon's options, and how it logs. */
export type DaemonSettings = Omit<DaemonOptions, 'log'> & { logLevel: LogLevel; logFile?: string; checkOnly?: boolean };

/** The `engram daemon` command: every flag with its variable and default. */
export function daemonCommand(): Command {
  const option = (flags: string, description: string, env?: string) => {
    const o = new Option(flags, description);
    return env ? o.env(env) : o;
  };
  return new Command('engram daemon')
    .description('Serves one Engram store to every agent process on this machine.')
    .addOption(option('--data-dir <dir>', 'the store (default: the nearest .engram/ above the working directory, else the per-user data directory)', 'ENGRAM_HOME'))
    .addOption(option('--store <where>', 'level: the embedded LevelDB store in the data dir; postgres://user@host/db: a PostgreSQL database several daemons share (the data dir then keeps only this daemon\'s socket, token and index snapshots)', 'ENGRAM_STORE').argParser(storeLocation).default('level'))
    .addOption(option('--listen <[host:]port>', 'also listen on TCP (loopback by default; every call needs the bearer token)', 'ENGRAM_LISTEN').argParser(address('--listen')))
    .addOption(
      option('--embedder <name>', 'local: offline word vectors; ollama: an Ollama server; openai: an OpenAI-compatible /v1/embeddings; none: keyword + recency only', 'ENGRAM_EMBEDDER')
        .choices(EMBEDDER_NAMES)
        .default('local'),
    )
    .addOption(option('--embed-url <url>', 'ollama/openai server (default http://127.0.0.1:11434 / https://api.openai.com)', 'ENGRAM_EMBED_URL'))
    .addOption(option('--embed-model <model>', 'ollama/openai model (openai default text-embedding-3-small; ollama: e.g. nomic-embed-text)', 'ENGRAM_EMBED_MODEL'))
    .addOption(option('--embed-api-key-env <name>', 'the variable holding the openai key (default OPENAI_API_KEY)', 'ENGRAM_EMBED_API_KEY_ENV'))
    .addOption(option('--signal-weights <v,k,r[,d[,g]]>', 'default recall weights vector,keyword,recency[,decay[,graph]] (decay and graph 0 unless given; default: the embedder\'s own, shown by engram status)', 'ENGRAM_SIGNAL_WEIGHTS').argParser(signalWeights))
    .addOption(option('--min-relevance <f>', 'default relevance floor in [0, 1] (0: none)', 'ENGRAM_MIN_RELEVANCE').argParser(minRelevance).default(0))
    .addOption(option('--compat <profile>', 'serve exactly an older release profile', 'ENGRAM_COMPAT').choices(Object.keys(RELEASE_PROFILES)).default('current'))
    .addOption(option('--default-confidence-weight <w>', `advertised default confidence weight in [0, ${check.MAX_CONFIDENCE_WEIGHT}] (default: not advertised, 0)`, 'ENGRAM_DEFAULT_CONFIDENCE_WEIGHT').argParser(confidenceWeight))
    .addOption(option('--http <[host:]port>', 'also serve HTTP: the REST API and MCP at /mcp (loopback by default; bearer token unless --no-auth)', 'ENGRAM_HTTP').argParser(address('--http')))
    .addOption(option('--mcp-http <[host:]port>', 'also serve MCP alone over streamable HTTP at /mcp (loopback by default; bearer token)', 'ENGRAM_MCP_HTTP').argParser(address('--mcp-http')))
    .addOption(option('--mcp-agent <id>', 'the namespace of the MCP tools whose agent_id is optional (save_memory, search_memory, touch_memory, observe_memory_usage, gc; default "default")', 'ENGRAM_AGENT').argParser(mcpAgent))
    .addOption(option('--token <token>', "bearer token for --listen, --http and --mcp-http instead of the data dir's token file", 'ENGRAM_TOKEN'))
    .addOption(option('--no-auth', 'serve --http without a token (loopback addresses only; --mcp-http and --listen still ask for one)'))
    .addOption(option('--reconcile-ms <ms>', 'how often facts waiting for a vector are retried', 'ENGRAM_RECONCILE_MS').argParser(positiveInt('--reconcile-ms')).default(5000))
    .addOption(option('--checkpoint-keep <n>', 'checkpoints kept per agent', 'ENGRAM_CHECKPOINT_KEEP').argParser(positiveInt('--checkpoint-keep')).default(DEFAULT_CHECKPOINT_KEEP))
    .addOption(option('--decay-model <model>', 'how an unused fact fades (decay score = use_count^beta x f(time since last use) x strength)', 'ENGRAM_DECAY_MODEL').choices(DECAY_MODELS).default(DEFAULT_DECAY.model))
    .addOption(option('--pl-halflife-days <days>', 'power_law: days until f = 0.5', 'ENGRAM_PL_HALFLIFE_DAYS').argParser(numberIn('--pl-halflife-days', 0, 36500, true)).default(DEFAULT_DECAY.powerLawHalfLifeDays))
    .addOption(option('--pl-alpha <a>', 'power_law: the exponent of f = (1 + t/t0)^-a', 'ENGRAM_PL_ALPHA').argParser(numberIn('--pl-alpha', 0, 10, true)).default(DEFAULT_DECAY.powerLawAlpha))
    .addOption(option('--decay-lambda <per-second>', 'exponential: f = e^(-lambda t), t in seconds (2.673e-6 = 3-day half-life)', 'ENGRAM_DECAY_LAMBDA').argParser(numberIn('--decay-lambda', 0, 100, true)).default(DEFAULT_DECAY.lambda))
    .addOption(option('--tc-fast-halflife-days <days>', 'two_component: half-life of the fast part', 'ENGRAM_TC_FAST_HALFLIFE_DAYS').argParser(numberIn('--tc-fast-halflife-days', 0, 36500, true)).default(DEFAULT_DECAY.fastHalfLifeDays))
    .addOption(option('--tc-slow-halflife-days <days>', 'two_component: half-life of the slow part', 'ENGRAM_TC_SLOW_HALFLIFE_DAYS').argParser(numberIn('--tc-slow-halflife-days', 0, 36500, true)).default(DEFAULT_DECAY.slowHalfLifeDays))
    .addOption(option('--tc-fast-weight <w>', 'two_component: weight of the fast part, in [0, 1]', 'ENGRAM_TC_FAST_WEIGHT').argParser(numberIn('--tc-fast-weight', 0, 1)).default(DEFAULT_DECAY.fastWeight))
    .addOption(option('--decay-beta <b>', 'the use-count exponent of the decay score', 'ENGRAM_DECAY_BETA').argParser(numberIn('--decay-beta', 0, 10)).default(DEFAULT_DECAY.beta))
    .addOption(option('--forget-threshold <s>', 'gc retires or deletes facts scoring below this', 'ENGRAM_FORGET_THRESHOLD').argParser(numberIn('--forget-threshold', 0, 100)).default(DEFAULT_DECAY.forgetThreshold))
    .addOption(option('--promote-threshold <s>', 'facts scoring at least this may be promoted', 'ENGRAM_PROMOTE_THRESHOLD').argParser(numberIn('--promote-threshold', 0, 100)).default(DEFAULT_DECAY.promoteThreshold))
    .addOption(option('--promote-use-count <n>', 'or facts used this often within 14 days', 'ENGRAM_PROMOTE_USE_COUNT').argParser(positiveInt('--promote-use-count')).default(DEFAULT_DECAY.promoteUseCount))
    .addOption(option('--promote-min-age-days <days>', 'facts younger than this are never promoted', 'ENGRAM_PROMOTE_MIN_AGE_DAYS').argParser(numberIn('--promote-min-age-days', 0, 36500)).default(DEFAULT_DECAY.promoteMinAgeDays))
    .addOption(option('--vault <dir>', 'the markdown (Obsidian) vault that promote_memory writes long-term notes to (default: none, promotion off)', 'LTM_VAULT_PATH'))
    .addOption(option('--extractor <name>', 'what proposes facts from messages (extract): rules (offline), ollama (/api/chat) or openai (an OpenAI-compatible /v1/chat/completions)', 'ENGRAM_EXTRACTOR').choices(EXTRACTOR_NAMES).default('rules'))
    .addOption(option('--extract-url <url>', 'the ollama / openai chat server (default http://127.0.0.1:11434 / https://api.openai.com)', 'ENGRAM_EXTRACT_URL'))
    .addOption(option('--extract-model <model>', 'the chat model (ollama: e.g. llama3.2; openai default gpt-4o-mini)', 'ENGRAM_EXTRACT_MODEL'))
    .addOption(option('--extract-api-key-env <name>', 'the variable holding the openai key (default OPENAI_API_KEY)', 'ENGRAM_EXTRACT_API_KEY_ENV'))
    .addOption(option('--kg', 'knowledge graph: entities are extracted from facts written without any, and recall appends up to three neighbour hints after the ranked facts', 'ENGRAM_KG').default(false))
    .addOption(option('--consolidate-every <n>', 'consolidate a namespace on its own after every n writes to it (0: only when asked)', 'ENGRAM_CONSOLIDATE_EVERY').argParser(countIn('--consolidate-every', 0, 1_000_000)).default(DEFAULT_CONSOLIDATION.every))
    .addOption(option('--consolidate-below <s>', 'consolidation summarises live facts whose decay score is below this', 'ENGRAM_CONSOLIDATE_BELOW').argParser(numberIn('--consolidate-below', 0, 100)).default(DEFAULT_CONSOLIDATION.below))
    .addOption(option('--consolidate-max-sources <n>', `facts summarised per consolidation run, at most (at least ${DEFAULT_CONSOLIDATION.minSources}: a run summarises no fewer)`, 'ENGRAM_CONSOLIDATE_MAX_SOURCES').argParser(countIn('--consolidate-max-sources', DEFAULT_CONSOLIDATION.minSources, 1000)).default(DEFAULT_CONSOLIDATION.maxSources))
    .addOption(option('--consolidate-interval <seconds>', 'an automatic consolidation of a namespace starts at most once per this many seconds (one due sooner waits)', 'ENGRAM_CONSOLIDATE_INTERVAL').argParser(numberIn('--consolidate-interval', 0, 86_400)).default(DEFAULT_CONSOLIDATION.intervalMs / 1000))
    .addOption(option('--summarizer <name>', 'what writes consolidation summaries: extractive (offline, deterministic), ollama or openai (the chat server of --extract-url / --extract-model)', 'ENGRAM_SUMMARIZER').choices(SUMMARIZER_NAMES).default('extractive'))
    .addOption(option('--auto-reinforce <bool>', 'whether observed use (observe_memory_usage) reinforces facts', 'ENGRAM_AUTO_REINFORCE').argParser(booleanText('--auto-reinforce')).default(DEFAULT_DECAY.autoReinforce))
    .addOption(option('--log-level <level>', 'the least severe level logged', 'ENGRAM_LOG_LEVEL').choices(LOG_LEVELS).default('info'))
    .addOption(option('--log-file <path>', 'append JSON log lines to this file instead of stderr (engram start: DIR/daemon.log)', 'ENGRAM_LOG_FILE'))
    .addOption(option('--check', 'check the flags and variables and exit, starting nothing: 0 when the daemon would take them, 2 and the reason when it refuses one (engram start and restart ask this before they stop or leave a daemon serving)'))
    .addHelpText(
      'after',
      '\nAlso read: ENGRAM_CACHE_DIR (where the local embedder keeps its converted word vectors; default the per-user cache directory, ~/.cache/engram on Linux), OPENAI_API_KEY.',
    )
    .helpOption('-h, --help')
    .allowExcessArguments(false)
    .exitOverride();
}

export function optionsFrom(parsed: ParsedOptions): DaemonSettings {
  return {
    dataDir: resolveDataDir(parsed.dataDir),
    store: parsed.store,
    listen: parsed.listen,
    embedder: parsed.embedder,
    embedderConfig: { url: parsed.embedUrl || undefined, model: parsed.embedModel || undefined, apiKeyEnv: parsed.embedApiKeyEnv || undefined },
    profile: parsed.compat,
    defaultConfidenceWeight: parsed.defaultConfidenceWeight,
    recallDefaults: { weights: parsed.signalWeights, minRelevance: parsed.minRelevance },
    reconcileIntervalMs: parsed.reconcileMs,
    checkpointKeep: parsed.checkpointKeep,
    http: parsed.http,
    mcpHttp: parsed.mcpHttp,
    ...(parsed.vault ? { vault: resolve(parsed.vault) } : {}),
    extractor: parsed.extractor,
    extractorConfig: { url: parsed.extractUrl || undefined, model: parsed.extractModel || undefined, apiKeyEnv: parsed.extractApiKeyEnv || undefined },
    kg: parsed.kg,
    consolidation: { ...DEFAULT_CONSOLIDATION, every: parsed.consolidateEvery, below: parsed.consolidateBelow, maxSources: parsed.consolidateMaxSources, intervalMs: parsed.consolidateInterval * 1000 },
    summarizer: parsed.summarizer,
    ...(parsed.mcpAgent ? { mcpAgent: parsed.mcpAgent } : {}),
    token: parsed.token || undefined,
    noAuth: !parsed.auth,
    decay: {
      model: parsed.decayModel,
      powerLawHalfLifeDays: parsed.plHalflifeDays,
      powerLawAlpha: parsed.plAlpha,
      lambda: parsed.decayLambda,
      fastHalfLifeDays: parsed.tcFastHalflifeDays,
      slowHalfLifeDays: parsed.tcSlowHalflifeDays,
      fastWeight: parsed.tcFastWeight,
      beta: parsed.decayBeta,
      forgetThreshold: parsed.forgetThreshold,
      promoteThreshold: parsed.promoteThreshold,
      promoteUseCount: parsed.promoteUseCount,
      promoteMinAgeDays: parsed.promoteMinAgeDays,
      autoReinforce: parsed.autoReinforce,
    } satisfies DecayConfig,
    logLevel: parsed.logLevel,
    ...(parsed.logFile ? { logFile: parsed.logFile } : {}),
    ...(parsed.check ? { checkOnly: true } : {}),
  };
}

/** Parses `engram daemon` arguments (and the environment) into the daemon's options, with the
 *  record of them a restart starts it again from; throws commander's error for a usage problem
 *  or a request for help. */
export function parseDaemonArgs(argv: string[], output: { writeOut: (s: string) => void; writeErr: (s: string) => void }): DaemonSettings & StartRecord {
  const command = daemonCommand().configureOutput({ ...output, outputError: () => {} });
  command.parse(argv, { from: 'user' });
  const parsed = command.opts<ParsedOptions>();
  const refused = refusedCombination(parsed) ?? refusedToken(parsed, command.getOptionValueSource('token'));
  if (refused) command.error(refused, { exitCode: 2, code: 'engram.refusedFlags' });
  const options = optionsFrom(parsed);
  // Checked here, so --check (and so engram restart, before it stops anything) refuses it too.
  const storeRefused = refusedDefaultStore(options.dataDir, command.getOptionValueSource('store'));
  if (storeRefused) command.error(storeRefused, { exitCode: 2, code: REFUSED_STORE });
  return { ...options, ...startRecord(command, argv) };
}

/** The code of a default store refused in a directory whose memory is in PostgreSQL: its message
 *  says what to do, and nothing else is to be said about flags. */
export const REFUSED_STORE = 'engram.refusedStore';

/** The daemon's own token opens everything, so it is never an agent's, which opens only its
 *  grant: ENGRAM_TOKEN is also the agents' variable, and a daemon started where it holds an agent
 *  token would hand that agent every namespace and token. (The token is not echoed: the message
 *  may go to the log.) */
function refusedToken(parsed: ParsedOptions, source: string | undefined): string | undefined {
  // Typed empty, --token "$UNSET" is a mistake: the daemon would quietly serve its token file's
  // token instead. (An empty ENGRAM_TOKEN is no token, as any empty variable is no setting.)
  if (parsed.token === '' && source === 'cli') return '--token is empty: give the daemon\'s token, or leave --token out to use the token file in its data directory';
  if (!parsed.token || !isAgentToken(parsed.token)) return undefined;
  const given = source === 'env' ? 'ENGRAM_TOKEN holds' : '--token is';
  return `${given} an agent token (from engram token create), and the daemon's own token opens everything: start the daemon without it (ENGRAM_TOKEN is the agents' variable; the daemon then uses the token file in its data directory), or give --token a token of its own`;
}

/** Flags each fine alone that the daemon cannot serve together: refused with the flags' usage
 *  errors, so --check (and engram start) refuse them before a store is made or opened. */
function refusedCombination(parsed: ParsedOptions): string | undefined {
  if (parsed.auth) return undefined;
  // --no-auth opens --http alone: --mcp-http and --listen always ask for the bearer token, so
  // without --http it would be taken and do nothing, and callers would meet a 401 they were told
  // they would not.
  if (!parsed.http) {
    return `--no-auth applies only to --http, which is not given (--mcp-http and --listen always ask for the bearer token): to serve MCP without a token use --http 127.0.0.1:PORT --no-auth (MCP is at its /mcp), or drop --no-auth and send the token in the data directory's token file`;
  }
  // The HTTP server's own rule, asked before anything is made (it would refuse only at start).
  try {
    checkAuthOptions(parseListen(parsed.http).host, { noAuth: true });
    return undefined;
  } catch (error) {
    return `${(error as Error).message} of --http ${parsed.http}: drop --no-auth (callers then send the bearer token), or serve --http on loopback`;
  }
}
