/**
 * What the remote providers ('ollama', 'openai') share: one JSON POST with a timeout and a single
 * retry, batching, response validation, L2 normalisation and the dimension probe. Each provider
 * only says how to build its request body and where the vectors sit in its response.
 */
import type { SignalWeights } from '../../shared/model.ts';
import { SENTENCE_MODEL_WEIGHTS, type Embedder } from './provider.ts';

export const DEFAULT_BATCH_SIZE = 64;
export const DEFAULT_TIMEOUT_MS = 30_000;
/** A short pause before the one retry, so a restarting server or a momentary overload can recover. */
const RETRY_DELAY_MS = 200;
const PROBE_TEXT = 'dimension probe';

/** Settings for `createEmbedder`; the remote providers read them, 'local' and 'none' ignore them. */
export interface EmbedderConfig {
  /** Server base URL (ollama: http://127.0.0.1:11434, openai: https://api.openai.com). */
  url?: string;
  model?: string;
  /** openai: the NAME of the environment variable holding the API key (default OPENAI_API_KEY). */
  apiKeyEnv?: string;
  /** Ask the model for vectors of this size (models that support shortening); part of the id. */
  dimensions?: number;
  /** At most this many texts per request (default 64). */
  batchSize?: number;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
}

/** 'ollama:nomic-embed-text', or 'openai:text-embedding-3-large@256' when a size was requested. */
export function remoteId(provider: string, model: string, dimensions: number | undefined): string {
  return `${provider}:${model}${dimensions === undefined ? '' : `@${dimensions}`}`;
}

/** A remote embedding call failed; the message names the provider, the URL and what to do. */
export class RemoteEmbedError extends Error {
  constructor(
    message: string,
    /** HTTP status, or undefined for transport errors and invalid responses. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RemoteEmbedError';
  }
}

/** How one provider talks to its server. */
export interface RemoteProvider {
  /** 'ollama' or 'openai', for messages. */
  name: string;
  /** The full endpoint URL. */
  url: string;
  headers: Record<string, string>;
  body(texts: string[]): unknown;
  /** The vectors in input order, not yet checked; throw (any Error) if the response has the wrong shape. */
  vectors(response: unknown, count: number): unknown[];
  /** Advice for a failure: an HTTP status, or 'transport' (refused, reset, timed out). */
  hint(problem: number | 'transport'): string;
  /** Strings never to echo back in an error message (the API key). */
  secrets?: string[];
}

export interface RemoteEmbedderOptions {
  id: string;
  /** Requested explicitly: the probe must return exactly this many. Otherwise the probe decides. */
  dimensions?: number;
  /** See Embedder.matchSimilarity. */
  matchSimilarity: number;
  /** See Embedder.defaultWeights (default: the sentence-model weights). */
  defaultWeights?: Readonly<SignalWeights>;
  batchSize?: number;
  timeoutMs?: number;
}

/**
 * Builds the embedder and probes it once, so `dimensions` is known before the store opens
 * (a remote model's size is only learned by asking it) and a misconfiguration fails at start-up.
 */
export async function createRemoteEmbedder(provider: RemoteProvider, options: RemoteEmbedderOptions): Promise<Embedder> {
  const batchSize = positiveInteger(options.batchSize ?? DEFAULT_BATCH_SIZE, 'batchSize', provider.name);
  const timeoutMs = positiveInteger(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs', provider.name);
  if (options.dimensions !== undefined) positiveInteger(options.dimensions, 'dimensions', provider.name);
  let dimensions = options.dimensions;

  const embedBatch = async (texts: string[]): Promise<(Float32Array | null)[]> => {
    const response = await postJson(provider, provider.body(texts), timeoutMs);
    let raw: unknown[];
    try {
      raw = provider.vectors(response, texts.length);
    } catch (error) {
      throw invalid(provider, (error as Error).message);
    }
    if (raw.length !== texts.length) throw invalid(provider, `expected ${texts.length} vectors, got ${raw.length}`);
    return raw.map((vector, i) => {
      const checked = checkVector(provider, vector, i, dimensions);
      dimensions ??= checked.length;
      return normalise(checked);
    });
  };

  const embed = async (texts: readonly string[]): Promise<(Float32Array | null)[]> => {
    const result: (Float32Array | null)[] = texts.map(() => null);
    // Blank texts carry no meaning, and OpenAI rejects an empty input with a 400 that would fail
    // the whole batch, so they get null without a request.
    const wanted = texts.flatMap((text, i) => (text.trim() === '' ? [] : [i]));
    for (let start = 0; start < wanted.length; start += batchSize) {
      const indices = wanted.slice(start, start + batchSize);
      const vectors = await embedBatch(indices.map((i) => texts[i]));
      indices.forEach((index, k) => (result[index] = vectors[k]));
    }
    return result;
  };

  const [probe] = await embed([PROBE_TEXT]);
  if (!probe) throw invalid(provider, 'the dimension probe returned an all-zero vector');
  return { id: options.id, dimensions: probe.length, matchSimilarity: options.matchSimilarity, defaultWeights: options.defaultWeights ?? SENTENCE_MODEL_WEIGHTS, embed };
}

type Attempt = { json: unknown } | { transportError: unknown } | { status: number; detail: string };

/** POST with a per-attempt timeout; one retry on a transport error, a 5xx or a 429, never on another 4xx. */
async function postJson(provider: RemoteProvider, body: unknown, timeoutMs: number): Promise<unknown> {
  const payload = JSON.stringify(body);
  let outcome = await attempt(provider, payload, timeoutMs);
  const retryable = 'transportError' in outcome || ('status' in outcome && (outcome.status >= 500 || outcome.status === 429));
  if (retryable) {
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    outcome = await attempt(provider, payload, timeoutMs);
  }
  if ('json' in outcome) return outcome.json;
  const attempts = retryable ? ' (after 2 attempts)' : '';
  if ('transportError' in outcome) throw failure(provider, `${transportReason(outcome.transportError, timeoutMs)}${attempts}`, 'transport');
  throw failure(provider, `HTTP ${outcome.status}${outcome.detail ? `: ${outcome.detail}` : ''}${attempts}`, outcome.status);
}

async function attempt(provider: RemoteProvider, payload: string, timeoutMs: number): Promise<Attempt> {
  let text: string;
  try {
    // The signal covers reading the body too, so a server that stalls mid-response also times out.
    const response = await fetch(provider.url, { method: 'POST', headers: provider.headers, body: payload, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return { status: response.status, detail: await errorDetail(response, provider.secrets ?? []) };
    text = await response.text();
  } catch (error) {
    return { transportError: error };
  }
  try {
    return { json: JSON.parse(text) };
  } catch (error) {
    // A server that answers 200 with something else is misconfigured; asking again will not help.
    throw invalid(provider, `the response is not JSON: ${(error as Error).message}`);
  }
}

function failure(provider: RemoteProvider, what: string, problem: number | 'transport'): RemoteEmbedError {
  const hint = provider.hint(problem);
  const message = `${provider.name} embedder: POST ${provider.url} failed: ${what}${hint ? ` — ${hint}` : ''}`;
  return new RemoteEmbedError(message, typeof problem === 'number' ? problem : undefined);
}

function invalid(provider: RemoteProvider, what: string): RemoteEmbedError {
  return new RemoteEmbedError(`${provider.name} embedder: invalid response from POST ${provider.url}: ${what}`);
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** fetch reports every network failure as "fetch failed"; the useful part is the cause's code. */
function transportReason(error: unknown, timeoutMs: number): string {
  if (isTimeout(error)) return `no response within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused';
  if (cause?.code) return `${cause.message ?? 'network error'} (${cause.code})`;
  return (cause?.message ?? (error as Error).message) || 'network error';
}

/** The server's own explanation: Ollama sends {error: "..."}, OpenAI {error: {message: "..."}}. */
async function errorDetail(response: Response, secrets: string[]): Promise<string> {
  let text = '';
  try {
    text = await response.text();
  } catch {
    return '';
  }
  let detail = text;
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof error === 'string') detail = error;
    else if (error && typeof (error as { message?: unknown }).message === 'string') detail = (error as { message: string }).message;
  } catch {
    /* not JSON: keep the text */
  }
  for (const secret of secrets) if (secret) detail = detail.replaceAll(secret, '[redacted]');
  detail = detail.trim();
  return detail.length > 300 ? `${detail.slice(0, 300)}…` : detail;
}

function checkVector(provider: RemoteProvider, vector: unknown, i: number, dimensions: number | undefined): number[] {
  if (!Array.isArray(vector) || vector.length === 0) throw invalid(provider, `vector ${i} is not a non-empty array of numbers`);
  if (!vector.every((x) => typeof x === 'number' && Number.isFinite(x))) throw invalid(provider, `vector ${i} contains a non-finite or non-numeric value`);
  if (dimensions !== undefined && vector.length !== dimensions) {
    // On the probe this means the server ignored a requested `dimensions`; later, that the model changed.
    throw invalid(provider, `vector ${i} has ${vector.length} dimensions, expected ${dimensions}`);
  }
  return vector as number[];
}

/** Cosine needs unit vectors, and providers differ in whether they normalise; a zero vector has no direction. */
function normalise(vector: number[]): Float32Array | null {
  const norm = Math.hypot(...vector); // hypot, unlike a sum of squares, cannot overflow
  if (norm === 0) return null;
  return Float32Array.from(vector, (x) => x / norm);
}

function positiveInteger(value: number, name: string, provider: string): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${provider} embedder: ${name} must be a positive integer, got ${value}`);
  return value;
}

/** "http://host:1234/" → "http://host:1234", rejecting what fetch could never reach. */
export function baseUrl(value: string, provider: string, setting: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${provider} embedder: ${JSON.stringify(value)} is not a URL; set ${setting}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${provider} embedder: ${value} must be an http(s) URL; set ${setting}`);
  return value.replace(/\/+$/, '');
}
