// Every setting of the daemon, declared once: its flag, its ENGRAM_* variable, its default, and
// the check that turns the text into a value (a bad value stops start-up with a message naming
// the flag). `engram daemon --help` prints this table; the README's daemon section mirrors it.
import { Command, InvalidArgumentError, Option } from 'commander';
import { RELEASE_PROFILES } from '../shared/capabilities.ts';
import { resolveDataDir } from '../shared/discovery.ts';
import * as check from '../shared/validate.ts';
import { EMBEDDER_NAMES, type EmbedderName } from './embed/index.ts';
import { SIGNAL_NAMES, type Weights } from './recall/registry.ts';
import { DEFAULT_CHECKPOINT_KEEP } from './lifecycle/checkpoints.ts';
import { normalizeListen } from './http/listen.ts';
import type { DaemonOptions } from './server.ts';
import { LOG_LEVELS, type LogLevel } from './log.ts';

/** "7777" → "127.0.0.1:7777": listeners bind loopback unless a host is named. */
const address = (flag: string) => (value: string): string => {
  try {
    return normalizeListen(value, flag);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

const confidenceWeight = (value: string): number => {
  const weight = Number(value);
  if (value.trim() === '' || !Number.isFinite(weight) || weight < 0 || weight > check.MAX_CONFIDENCE_WEIGHT) {
    throw new InvalidArgumentError(`--default-confidence-weight must be a finite number in [0, ${check.MAX_CONFIDENCE_WEIGHT}], got "${value}"`);
  }
  return weight;
};

/** "1,1,0.5" → a weight per signal, in registry order. */
const signalWeights = (value: string): Weights => {
  const parts = value.split(',').map((p) => Number(p.trim()));
  if (parts.length !== SIGNAL_NAMES.length) throw new InvalidArgumentError(`--signal-weights takes ${SIGNAL_NAMES.length} numbers ${SIGNAL_NAMES.join(',')}, got "${value}"`);
  try {
    const weights = Object.fromEntries(SIGNAL_NAMES.map((name, i) => [name, check.signalWeight(parts[i], name)])) as Weights;
    if (SIGNAL_NAMES.every((name) => weights[name] === 0)) throw new Error('at least one weight must be positive');
    return weights;
  } catch (error) {
    throw new InvalidArgumentError(`--signal-weights: ${(error as Error).message}`);
  }
};

const minRelevance = (value: string): number => {
  try {
    return check.minRelevance(Number(value), '--min-relevance');
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

const positiveInt = (flag: string) => (value: string): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} must be a positive integer, got "${value}"`);
  return n;
};

/** The settings as commander parsed them (camelCased flag names). */
interface ParsedOptions {
  dataDir?: string;
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
  token?: string;
  auth: boolean;
  reconcileMs: number;
  checkpointKeep: number;
  logLevel: LogLevel;
  logFile?: string;
}

/** The daemon's options, and how it logs. */
export type DaemonSettings = Omit<DaemonOptions, 'log'> & { logLevel: LogLevel; logFile?: string };

/** The `engram daemon` command: every flag with its variable and default. */
export function daemonCommand(): Command {
  const option = (flags: string, description: string, env?: string) => {
    const o = new Option(flags, description);
    return env ? o.env(env) : o;
  };
  return new Command('engram daemon')
    .description('Serves one Engram store to every agent process on this machine.')
    .addOption(option('--data-dir <dir>', 'the store (default: the nearest .engram/ above the working directory, else the per-user data directory)', 'ENGRAM_HOME'))
    .addOption(option('--listen <[host:]port>', 'also listen on TCP (loopback by default; every call needs the bearer token)', 'ENGRAM_LISTEN').argParser(address('--listen')))
    .addOption(
      option('--embedder <name>', 'local: offline word vectors; ollama: an Ollama server; openai: an OpenAI-compatible /v1/embeddings; none: keyword + recency only', 'ENGRAM_EMBEDDER')
        .choices(EMBEDDER_NAMES)
        .default('local'),
    )
    .addOption(option('--embed-url <url>', 'ollama/openai server (default http://127.0.0.1:11434 / https://api.openai.com)', 'ENGRAM_EMBED_URL'))
    .addOption(option('--embed-model <model>', 'ollama/openai model (openai default text-embedding-3-small; ollama: e.g. nomic-embed-text)', 'ENGRAM_EMBED_MODEL'))
    .addOption(option('--embed-api-key-env <name>', 'the variable holding the openai key (default OPENAI_API_KEY)', 'ENGRAM_EMBED_API_KEY_ENV'))
    .addOption(option('--signal-weights <v,k,r>', 'default recall weights vector,keyword,recency (default: the embedder\'s own, shown by engram status)', 'ENGRAM_SIGNAL_WEIGHTS').argParser(signalWeights))
    .addOption(option('--min-relevance <f>', 'default relevance floor in [0, 1] (0: none)', 'ENGRAM_MIN_RELEVANCE').argParser(minRelevance).default(0))
    .addOption(option('--compat <profile>', 'serve exactly an older release profile', 'ENGRAM_COMPAT').choices(Object.keys(RELEASE_PROFILES)).default('current'))
    .addOption(option('--default-confidence-weight <w>', `advertised default confidence weight in [0, ${check.MAX_CONFIDENCE_WEIGHT}] (default: not advertised, 0)`, 'ENGRAM_DEFAULT_CONFIDENCE_WEIGHT').argParser(confidenceWeight))
    .addOption(option('--http <[host:]port>', 'also serve HTTP: the REST API and MCP at /mcp (loopback by default; bearer token unless --no-auth)', 'ENGRAM_HTTP').argParser(address('--http')))
    .addOption(option('--mcp-http <[host:]port>', 'also serve MCP alone over streamable HTTP at /mcp (loopback by default; bearer token)', 'ENGRAM_MCP_HTTP').argParser(address('--mcp-http')))
    .addOption(option('--token <token>', "bearer token for --listen, --http and --mcp-http instead of the data dir's token file", 'ENGRAM_TOKEN'))
    .addOption(option('--no-auth', 'serve --http without a token (loopback addresses only)'))
    .addOption(option('--reconcile-ms <ms>', 'how often facts waiting for a vector are retried', 'ENGRAM_RECONCILE_MS').argParser(positiveInt('--reconcile-ms')).default(5000))
    .addOption(option('--checkpoint-keep <n>', 'checkpoints kept per agent', 'ENGRAM_CHECKPOINT_KEEP').argParser(positiveInt('--checkpoint-keep')).default(DEFAULT_CHECKPOINT_KEEP))
    .addOption(option('--log-level <level>', 'the least severe level logged', 'ENGRAM_LOG_LEVEL').choices(LOG_LEVELS).default('info'))
    .addOption(option('--log-file <path>', 'append JSON log lines to this file instead of stderr (engram start: DIR/daemon.log)', 'ENGRAM_LOG_FILE'))
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
    token: parsed.token || undefined,
    noAuth: !parsed.auth,
    logLevel: parsed.logLevel,
    ...(parsed.logFile ? { logFile: parsed.logFile } : {}),
  };
}

/** Parses `engram daemon` arguments (and the environment) into the daemon's options; throws
 *  commander's error for a usage problem or a request for help. */
export function parseDaemonArgs(argv: string[], output: { writeOut: (s: string) => void; writeErr: (s: string) => void }): DaemonSettings {
  const command = daemonCommand().configureOutput({ ...output, outputError: () => {} });
  command.parse(argv, { from: 'user' });
  return optionsFrom(command.opts<ParsedOptions>());
}
