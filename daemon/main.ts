// `engram daemon`: flags → startDaemon(). SIGINT/SIGTERM drain in-flight calls, persist the
// vector index and close the store; a second signal exits at once.
import { parseArgs } from 'node:util';
import { readDiscovery, resolveDataDir } from '../shared/discovery.ts';
import { RELEASE_PROFILES } from '../shared/capabilities.ts';
import { StoreLockedError } from './store/database.ts';
import { startDaemon } from './server.ts';
import { EMBEDDER_NAMES, type EmbedderName } from './embed/index.ts';

const USAGE = `usage: engram daemon [--data-dir DIR] [--listen [HOST:]PORT] [--embedder ${EMBEDDER_NAMES.join('|')}]
                     [--embed-url URL] [--embed-model MODEL]
                     [--compat ${Object.keys(RELEASE_PROFILES).join('|')}] [--default-confidence-weight W]

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

export async function main(argv: string[]): Promise<void> {
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
        compat: { type: 'string' },
        'default-confidence-weight': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const dataDir = resolveDataDir(values['data-dir']);
  const embedder = (values.embedder ?? process.env.ENGRAM_EMBEDDER ?? 'local') as EmbedderName;
  if (!EMBEDDER_NAMES.includes(embedder)) fail(`unknown embedder "${embedder}"; choose one of ${EMBEDDER_NAMES.join(', ')}`);
  // startDaemon passes createEmbedder only the name, and createEmbedder reads its settings from these
  // variables, so a flag reaches it by overriding its variable.
  if (values['embed-url'] !== undefined) process.env.ENGRAM_EMBED_URL = values['embed-url'];
  if (values['embed-model'] !== undefined) process.env.ENGRAM_EMBED_MODEL = values['embed-model'];
  const profile = values.compat ?? 'current';
  if (!RELEASE_PROFILES[profile]) fail(`unknown --compat profile "${profile}"; known: ${Object.keys(RELEASE_PROFILES).join(', ')}`);

  let daemon;
  try {
    daemon = await startDaemon({
      dataDir,
      listen: values.listen ? tcpAddress(values.listen) : undefined,
      embedder,
      profile,
      defaultConfidenceWeight: parseWeight(values['default-confidence-weight'] ?? process.env.ENGRAM_DEFAULT_CONFIDENCE_WEIGHT),
    });
  } catch (error) {
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
    throw error;
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
