// The 'ollama' and 'openai' embedders against in-process HTTP servers that speak each wire format,
// so the real adapter code (fetch, batching, retries, validation) runs without a real service.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createEmbedder, type EmbedderConfig } from '../../daemon/embed/index.ts';

const KEY_ENV = 'ENGRAM_TEST_EMBED_KEY';
const KEY = 'sk-test-0123456789abcdef';
const DIMS = 8;

interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: { model?: unknown; input?: unknown; dimensions?: unknown };
}

/** What the server does with the next request; anything not scripted gets 'ok'. */
type Behaviour = 'ok' | 'reverse' | 'destroy' | 'hang' | { status: number; body?: unknown } | { raw: string };

interface FakeServer {
  url: string;
  requests: Recorded[];
  script: Behaviour[];
}

/** Deterministic, text-dependent and deliberately not unit length, so normalisation is visible. */
function fakeVector(text: string, dims: number): number[] {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return Array.from({ length: dims }, (_, j) => ((h >>> j) % 13) - 6 + 0.5 * (j + 1));
}

function expected(text: string, dims = DIMS): number[] {
  const v = fakeVector(text, dims);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function expectVectorsFor(vectors: (Float32Array | null)[], texts: string[], dims = DIMS): void {
  expect(vectors).toHaveLength(texts.length);
  vectors.forEach((vector, i) => {
    expect(vector).toBeInstanceOf(Float32Array);
    expect(Math.hypot(...vector!)).toBeCloseTo(1, 5);
    const want = expected(texts[i], dims);
    expect(Math.max(...vector!.map((x, j) => Math.abs(x - want[j])))).toBeLessThan(1e-6);
  });
}

const servers: Server[] = [];

/** A server on 127.0.0.1:0; `respond` builds the success body for a well-formed request. */
async function startServer(route: string, respond: (req: Recorded, behaviour: Behaviour) => unknown, auth?: string): Promise<FakeServer> {
  const fake: FakeServer = { url: '', requests: [], script: [] };
  const server = createServer((req, res) => {
    // A bug in this handler answers 500 with the reason, instead of leaving the client to time out.
    const fail = (error: unknown) => res.headersSent || send(res, 500, JSON.stringify({ error: `fake server: ${error}` }));
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      try {
        handle();
      } catch (error) {
        fail(error);
      }
    });
    const handle = () => {
      const recorded: Recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: {} };
      try {
        recorded.body = JSON.parse(raw);
      } catch {
        /* recorded as {}; answered 400 below */
      }
      fake.requests.push(recorded);
      const behaviour = fake.script.shift() ?? 'ok';
      if (behaviour === 'destroy') return req.socket.destroy();
      if (behaviour === 'hang') return;
      if (typeof behaviour === 'object' && 'raw' in behaviour) return send(res, 200, behaviour.raw);
      if (typeof behaviour === 'object') return send(res, behaviour.status, JSON.stringify(behaviour.body ?? {}));
      // Refuse what the real servers refuse, so a malformed request cannot pass by accident.
      if (req.method !== 'POST' || req.url !== route) return send(res, 404, '404 page not found');
      if (auth !== undefined && req.headers.authorization !== `Bearer ${auth}`) {
        return send(res, 401, JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }));
      }
      const { model, input } = recorded.body;
      if (typeof model !== 'string' || !Array.isArray(input) || !input.every((t) => typeof t === 'string')) {
        return send(res, 400, JSON.stringify({ error: 'invalid request body' }));
      }
      send(res, 200, JSON.stringify(respond(recorded, behaviour)));
    };
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
}

/** Ollama's POST /api/embed. */
function ollamaServer(dims = DIMS): Promise<FakeServer> {
  return startServer('/api/embed', ({ body }) => ({
    model: body.model,
    embeddings: (body.input as string[]).map((t) => fakeVector(t, dims)),
    total_duration: 1000,
    load_duration: 10,
    prompt_eval_count: (body.input as string[]).length,
  }));
}

/** OpenAI's POST /v1/embeddings; honours `dimensions` like text-embedding-3-* do. */
function openaiServer(options: { ignoreDimensions?: boolean } = {}): Promise<FakeServer> {
  return startServer(
    '/v1/embeddings',
    ({ body }, behaviour) => {
      const dims = typeof body.dimensions === 'number' && !options.ignoreDimensions ? body.dimensions : DIMS;
      const data = (body.input as string[]).map((t, index) => ({ object: 'embedding', index, embedding: fakeVector(t, dims) }));
      if (behaviour === 'reverse') data.reverse();
      return { object: 'list', data, model: body.model, usage: { prompt_tokens: data.length, total_tokens: data.length } };
    },
    KEY,
  );
}

/** A port nothing listens on: bind one, then let it go. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections(); // also ends the requests a 'hang' left open
    await new Promise((resolve) => server.close(resolve));
  }
});

beforeAll(() => {
  process.env[KEY_ENV] = KEY;
});
afterAll(() => {
  delete process.env[KEY_ENV];
});

describe('ollama embedder', () => {
  const ollama = (url: string, config: EmbedderConfig = {}) => createEmbedder('ollama', { url, model: 'nomic-embed-text', ...config });

  test('probes once at creation over the real wire format, and learns the dimension', async () => {
    const server = await ollamaServer(12);
    const embedder = await ollama(server.url);
    expect(embedder.id).toBe('ollama:nomic-embed-text');
    expect(embedder.dimensions).toBe(12);
    expect(server.requests).toHaveLength(1);
    const [probe] = server.requests;
    expect(probe.method).toBe('POST');
    expect(probe.path).toBe('/api/embed');
    expect(probe.headers['content-type']).toBe('application/json');
    expect(probe.body).toEqual({ model: 'nomic-embed-text', input: ['dimension probe'] });
  });

  test('splits 150 texts into batches of 64 and returns unit vectors in input order', async () => {
    const server = await ollamaServer();
    const embedder = await ollama(server.url, { batchSize: 64 });
    const texts = Array.from({ length: 150 }, (_, i) => `fact number ${i}`);
    const vectors = await embedder.embed(texts);
    const batches = server.requests.slice(1).map((r) => r.body.input as string[]);
    expect(batches.map((b) => b.length)).toEqual([64, 64, 22]);
    expect(batches.flat()).toEqual(texts);
    expectVectorsFor(vectors, texts);
  });

  test('an all-zero vector becomes null; blank texts get null without a request', async () => {
    const server = await ollamaServer();
    const embedder = await ollama(server.url);
    server.script.push({ raw: JSON.stringify({ model: 'm', embeddings: [fakeVector('a', DIMS), new Array(DIMS).fill(0)] }) });
    const vectors = await embedder.embed(['a', '', 'zero', '   ']);
    expect(server.requests[1].body.input).toEqual(['a', 'zero']);
    expectVectorsFor([vectors[0]], ['a']);
    expect(vectors.slice(1)).toEqual([null, null, null]);
    expect(await embedder.embed([])).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  test('requires a model, naming the variable and the flag', async () => {
    await expect(createEmbedder('ollama', { url: 'http://127.0.0.1:9' })).rejects.toThrow(/ENGRAM_EMBED_MODEL.*--embed-model/);
  });

  test('connection refused: one retry, then an error that says to start Ollama', async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const error = await ollama(url).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^ollama embedder: POST http:\/\/127\.0\.0\.1:\d+\/api\/embed failed: connection refused \(after 2 attempts\)/);
    expect((error as Error).message).toContain('ollama serve');
  });

  test('a missing model (404) is not retried and says to pull it', async () => {
    const server = await ollamaServer();
    server.script.push({ status: 404, body: { error: 'model "nomic-embed-text" not found, try pulling it first' } });
    await expect(ollama(server.url)).rejects.toThrow(/HTTP 404: model "nomic-embed-text" not found.*ollama pull nomic-embed-text/);
    expect(server.requests).toHaveLength(1);
  });

  test.each([
    ['a wrong count', { raw: JSON.stringify({ embeddings: [[1, 2]] }) }, /expected 2 vectors, got 1/],
    ['a non-finite number', { raw: '{"embeddings": [[1, 2], [1e999, 2]]}' }, /vector 1 contains a non-finite/],
    ['inconsistent dimensions', { raw: JSON.stringify({ embeddings: [[1, 2], [1, 2, 3]] }) }, /vector 1 has 3 dimensions, expected 2/],
    ['a dimension other than the probe found', { raw: JSON.stringify({ embeddings: [[1, 2, 3], [1, 2, 3]] }) }, /vector 0 has 3 dimensions, expected 2/],
    ['no embeddings field', { raw: JSON.stringify({ error: 'x' }) }, /no "embeddings" array/],
    ['a body that is not JSON', { raw: '<html>' }, /not JSON/],
  ])('rejects a response with %s', async (_, behaviour, message) => {
    const server = await ollamaServer(2);
    const embedder = await ollama(server.url);
    server.script.push(behaviour);
    await expect(embedder.embed(['x', 'y'])).rejects.toThrow(message);
    expect(server.requests).toHaveLength(2); // an invalid answer is not retried
  });
});

describe('openai embedder', () => {
  const openai = (url: string, config: EmbedderConfig = {}) => createEmbedder('openai', { url, apiKeyEnv: KEY_ENV, ...config });

  test('sends the bearer key and the default model to /v1/embeddings', async () => {
    const server = await openaiServer();
    const embedder = await openai(server.url);
    expect(embedder.id).toBe('openai:text-embedding-3-small');
    expect(embedder.dimensions).toBe(DIMS);
    const [probe] = server.requests;
    expect(probe.method).toBe('POST');
    expect(probe.path).toBe('/v1/embeddings');
    expect(probe.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(probe.headers['content-type']).toBe('application/json');
    expect(probe.body).toEqual({ model: 'text-embedding-3-small', input: ['dimension probe'] });
    expectVectorsFor(await embedder.embed(['hello', 'world']), ['hello', 'world']);
  });

  test('a base URL that already ends in /v1 is not doubled', async () => {
    const server = await openaiServer();
    await openai(`${server.url}/v1/`, { model: 'bge-small' });
    expect(server.requests.map((r) => [r.path, r.body.model])).toEqual([['/v1/embeddings', 'bge-small']]);
  });

  test('requested dimensions go in the body and the id, and are checked', async () => {
    const server = await openaiServer();
    const embedder = await openai(server.url, { dimensions: 16 });
    expect(server.requests[0].body.dimensions).toBe(16);
    expect(embedder.id).toBe('openai:text-embedding-3-small@16');
    expect(embedder.dimensions).toBe(16);
    expectVectorsFor(await embedder.embed(['short']), ['short'], 16);

    const ignoring = await openaiServer({ ignoreDimensions: true });
    await expect(openai(ignoring.url, { dimensions: 16 })).rejects.toThrow(/vector 0 has 8 dimensions, expected 16/);
  });

  test('orders vectors by index, not by array position', async () => {
    const server = await openaiServer();
    const embedder = await openai(server.url);
    server.script.push('reverse');
    const texts = ['first', 'second', 'third'];
    expectVectorsFor(await embedder.embed(texts), texts);
  });

  test('rejects repeated or out-of-range indices', async () => {
    const server = await openaiServer();
    const embedder = await openai(server.url);
    const item = (index: number) => ({ object: 'embedding', index, embedding: [1, 2, 3, 4, 5, 6, 7, 8] });
    server.script.push({ raw: JSON.stringify({ data: [item(0), item(0)] }) });
    await expect(embedder.embed(['a', 'b'])).rejects.toThrow(/repeated index 0/);
    server.script.push({ raw: JSON.stringify({ data: [item(0), item(2)] }) });
    await expect(embedder.embed(['a', 'b'])).rejects.toThrow(/bad or repeated index 2/);
  });

  test.each([503, 429])('retries once after a %i, then succeeds', async (status) => {
    const server = await openaiServer();
    const embedder = await openai(server.url);
    server.script.push({ status, body: { error: { message: 'overloaded' } } });
    expectVectorsFor(await embedder.embed(['again']), ['again']);
    expect(server.requests.slice(1).map((r) => r.body.input)).toEqual([['again'], ['again']]);
  });

  test('a 5xx twice in a row fails after exactly two attempts', async () => {
    const server = await openaiServer();
    const embedder = await openai(server.url);
    server.script.push({ status: 502 }, { status: 503, body: { error: { message: 'upstream down' } } });
    await expect(embedder.embed(['x'])).rejects.toThrow(/HTTP 503: upstream down \(after 2 attempts\)/);
    expect(server.requests).toHaveLength(3);
  });

  test('a 400 is not retried and the error carries the status and the server message', async () => {
    const server = await openaiServer();
    const embedder = await openai(server.url);
    server.script.push({ status: 400, body: { error: { message: "'$.input' is invalid", type: 'invalid_request_error' } } });
    await expect(embedder.embed(['x'])).rejects.toThrow(/HTTP 400: '\$\.input' is invalid$/);
    expect(server.requests).toHaveLength(2);
  });

  test('a rejected key (401) says which variable to check and never echoes the key', async () => {
    const server = await openaiServer();
    server.script.push({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } });
    const error = (await openai(server.url).catch((e: Error) => e)) as Error;
    expect(error.message).toMatch(new RegExp(`HTTP 401: Incorrect API key provided: \\[redacted\\] — check ${KEY_ENV}`));
    expect(error.message).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  test('a connection the server drops is retried once, then reported', async () => {
    const server = await openaiServer();
    const embedder = await openai(server.url);
    server.script.push('destroy', 'destroy');
    const error = (await embedder.embed(['x']).catch((e: Error) => e)) as Error;
    expect(error.message).toMatch(/^openai embedder: POST http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings failed: .* \(after 2 attempts\) — check the base URL/);
    expect(server.requests).toHaveLength(3);
  });

  test('a server that never answers times out per request, is retried once, then reported', async () => {
    const server = await openaiServer();
    const embedder = await openai(server.url, { timeoutMs: 200 });
    server.script.push('hang', 'hang');
    const started = Date.now();
    await expect(embedder.embed(['x'])).rejects.toThrow(/no response within 200 ms \(after 2 attempts\)/);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.requests).toHaveLength(3);
  });

  test('a timeout followed by an answer succeeds', async () => {
    const server = await openaiServer();
    const embedder = await openai(server.url, { timeoutMs: 200 });
    server.script.push('hang');
    expectVectorsFor(await embedder.embed(['late']), ['late']);
    expect(server.requests).toHaveLength(3);
  });

  test('a missing API key fails before any request, naming the variable', async () => {
    const server = await openaiServer();
    const unset = 'ENGRAM_TEST_EMBED_KEY_UNSET';
    delete process.env[unset];
    await expect(openai(server.url, { apiKeyEnv: unset })).rejects.toThrow(new RegExp(`${unset} is not set.*ENGRAM_EMBED_API_KEY_ENV`));
    expect(server.requests).toHaveLength(0);
  });
});
