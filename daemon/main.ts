// `engram daemon`: flags → startDaemon(). SIGINT/SIGTERM drain in-flight calls, persist the
// vector index and close the store; a second signal exits at once.
import { parseArgs } from 'node:util';
import { readDiscovery, resolveDataDir } from '../shared/discovery.ts';
import { RELEASE_PROFILES } from '../shared/capabilities.ts';
import { EngramError } from '../shared/errors.ts';
import * as check from '../shared/validate.ts';
import { StoreLockedError } from './store/database.ts';
import { startDaemon, type DaemonOptions } from './server.ts';
import { EMBEDDER_NAMES, embedderConfigFromEnv, type EmbedderName } from './embed/index.ts';
import { DEFAULT_WEIGHTS, type SignalWeights } from './recall/fusion.ts';

const USAGE = `usage: engram daemon [--data-dir DIR] [--listen [HOST:]PORT] [--embedder ${EMBEDDER_NAMES.join('|')}]
                     [--embed-url URL] [--embed-model MODEL] [--signal-weights v,k,r] [--min-relevance F]
                     [--compat ${Object.keys(RELEASE_PROFILES).join('|')}] [--default-confidence-weight W]
                     [--http [HOST:]PORT] [--mcp-http [HOST:]PORT] [--token TOKEN] [--no-auth]

Serves one Engram store to every agent process on this machine.
  --data-dir DIR    the store (default ./.engram, or $ENGRAM_HOME)
  --listen ADDR     also listen on TCP (loopback by default; every call needs the bearer token)
  --embedder NAME   $ENGRAM_EMBEDDER; one of
                      local   offline word vectors (default)
                      ollama  an Ollama server's /api/embed; needs --embed-model (e.g. nomic-embed-text)
                      openai  an OpenAI-compatible /v1/embeddings; key from $OPENAI_API_KEY, or from the
                              variable named by $ENGRAM_EMBED_API_KEY_ENV
                      none    no vectors: keyword + recency only
  --embed-url URL   ollama/openai server (default http://127.0.0.1:11434 / https://api.openai.com); $ENGRAM_EMBED_URL
  --embed-model M   ollama/openai model (openai default text-embedding-3-small); $ENGRAM_EMBED_MODEL
  --signal-weights  default recall weights vector,keyword,recency (default 1,1,0.5); $ENGRAM_SIGNAL_WEIGHTS
  --min-relevance F default relevance floor in [0, 1] (default 0: none); $ENGRAM_MIN_RELEVANCE
  --http ADDR       also serve the REST API (loopback by default; bearer token unless --no-auth)
  --mcp-http ADDR   also serve MCP over streamable HTTP at /mcp (loopback by default; bearer token)
  --token TOKEN     bearer token for --listen and --http instead of the data dir's token file; $ENGRAM_TOKEN
  --no-auth         serve --http without a token (loopback addresses only)
  --compat PROFILE  serve exactly an older release profile
  --default-confidence-weight W   advertised default in [0, 0.5]; $ENGRAM_DEFAULT_CONFIDENCE_WEIGHT`;

function fail(message: string): never {
  process.stderr.write(`engram daemon: ${message}\n`);
  process.exit(2);
}

/** "7777" → "127.0.0.1:7777": TCP binds loopback unless a host is named. */
function tcpAddress(value: string): string {
  return /^\d+$/.test(value) ? `127.0.0.1:${value}` : value;
}

function parseWeight(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const weight = Number(value);
  if (!Number.isFinite(weight) || weight < 0 || weight > 0.5) fail(`--default-confidence-weight must be a finite number in [0, 0.5], got "${value}"`);
  return weight;
}

/** "1,1,0.5" → { vector: 1, keyword: 1, recency: 0.5 }. */
function parseSignalWeights(value: string | undefined): SignalWeights {
  if (value === undefined) return { ...DEFAULT_WEIGHTS };
  const parts = value.split(',').map((p) => Number(p.trim()));
  if (parts.length !== 3) fail(`--signal-weights takes three numbers vector,keyword,recency, got "${value}"`);
  try {
    const [vector, keyword, recency] = parts.map((w, i) => check.signalWeight(w, ['vector', 'keyword', 'recency'][i]!));
    if (vector! + keyword! + recency! === 0) fail('--signal-weights: at least one weight must be positive');
    return { vector: vector!, keyword: keyword!, recency: recency! };
  } catch (error) {
    fail(`--signal-weights: ${(error as Error).message}`);
  }
}

function parseMinRelevance(value: string | undefined): number {
  if (value === undefined) return 0;
  try {
    return check.minRelevance(Number(value), '--min-relevance');
  } catch (error) {
    fail((error as Error).message);
  }
}

function optionsFromArgs(argv: string[]): DaemonOptions | null {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string' },
        listen: { type: 'string' },
        embedder: { type: 'string' },
        'embed-url': { type: 'string' },
        'embed-model': { type: 'string' },
        'signal-weights': { type: 'string' },
        'min-relevance': { type: 'string' },
        compat: { type: 'string' },
        http: { type: 'string' },
        'mcp-http': { type: 'string' },
        token: { type: 'string' },
        'no-auth': { type: 'boolean' },
        'default-confidence-weight': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return null;
  }
  const env = process.env;
  const embedder = (values.embedder ?? env.ENGRAM_EMBEDDER ?? 'local') as EmbedderName;
  if (!EMBEDDER_NAMES.includes(embedder)) fail(`unknown embedder "${embedder}"; choose one of ${EMBEDDER_NAMES.join(', ')}`);
  const profile = values.compat ?? 'current';
  if (!RELEASE_PROFILES[profile]) fail(`unknown --compat profile "${profile}"; known: ${Object.keys(RELEASE_PROFILES).join(', ')}`);
  const fromEnv = embedderConfigFromEnv(env);
  return {
    dataDir: resolveDataDir(values['data-dir']),
    listen: values.listen ? tcpAddress(values.listen) : undefined,
    embedder,
    embedderConfig: { ...fromEnv, url: values['embed-url'] ?? fromEnv.url, model: values['embed-model'] ?? fromEnv.model },
    profile,
    defaultConfidenceWeight: parseWeight(values['default-confidence-weight'] ?? env.ENGRAM_DEFAULT_CONFIDENCE_WEIGHT),
    recallDefaults: {
      weights: parseSignalWeights(values['signal-weights'] ?? env.ENGRAM_SIGNAL_WEIGHTS),
      minRelevance: parseMinRelevance(values['min-relevance'] ?? env.ENGRAM_MIN_RELEVANCE),
    },
    reconcileIntervalMs: env.ENGRAM_RECONCILE_MS ? Number(env.ENGRAM_RECONCILE_MS) : undefined,
    http: values.http ? tcpAddress(values.http) : undefined,
    mcpHttp: values['mcp-http'] ? tcpAddress(values['mcp-http']) : undefined,
    token: values.token ?? (env.ENGRAM_TOKEN || undefined),
    noAuth: values['no-auth'] ?? false,
  };
}

/** A start-up failure a user can act on gets one line, not a stack trace. */
function explainStartFailure(error: unknown, dataDir: string): never {
  if (error instanceof StoreLockedError) {
    let holder = '';
    try {
      const running = readDiscovery(dataDir);
      holder = ` (running daemon: pid ${running.pid}, ${running.address})`;
    } catch {
      /* the other daemon may still be starting */
    }
    process.stderr.write(`engram daemon: ${dataDir} is already served by another Engram daemon${holder}.\n${error.message}\n`);
    process.exit(1);
  }
  const code = (error as { code?: string })?.code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    process.stderr.write(`engram daemon: cannot listen: ${(error as Error).message}. Choose another address or stop what uses it.\n`);
    process.exit(1);
  }
  if (error instanceof EngramError) {
    process.stderr.write(`engram daemon: cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  throw error;
}

export async function main(argv: string[]): Promise<void> {
  const options = optionsFromArgs(argv);
  if (!options) return;
  let daemon;
  try {
    daemon = await startDaemon(options);
  } catch (error) {
    explainStartFailure(error, options.dataDir);
  }

  let signals = 0;
  const stop = (signal: string) => {
    if (++signals > 1) {
      process.stderr.write(`engram: second ${signal}, exiting now\n`);
      process.exit(130);
    }
    process.stderr.write(`engram: ${signal}: draining calls and closing the store (send again to exit at once)\n`);
    daemon.close().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`engram: shutdown failed: ${(error as Error).stack}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
