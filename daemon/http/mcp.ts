// MCP over streamable HTTP inside the daemon (`engram daemon --mcp-http ADDR`): POST /mcp with
// `Authorization: Bearer <the daemon's token>`, loopback unless a host is named.
//
// Stateless: every POST gets a fresh MCP server and transport over one shared backend, answered
// with a JSON body. Nothing session-scoped lives in the daemon, so concurrent requests need no
// locking and a restart loses nothing but in-flight calls. (No server-initiated messages exist
// here, so the GET event stream is not offered: 405.)
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer } from '../../shared/mcp/server.ts';
import type { Memory } from '../memory.ts';
import { MemoryBackend } from './mcp-backend.ts';

export interface McpHttpOptions {
  /** "127.0.0.1:8765", "[::1]:0", or a bare port (= loopback). Port 0 picks a free port. */
  listen: string;
  /** Bearer token every request must carry (the daemon's token). */
  token: string;
  log: (message: string) => void;
}

export interface McpHttpServer {
  /** "host:port" actually bound. */
  address: string;
  close(): Promise<void>;
}

export const MCP_PATH = '/mcp';
/** MCP requests are small JSON; the largest legitimate one is a fact near the text limit. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export async function startMcpHttp(memory: Memory, options: McpHttpOptions): Promise<McpHttpServer> {
  const { host, port } = parseListen(options.listen);
  if (!options.token) throw new Error('MCP over HTTP needs a bearer token');
  const authorized = bearerCheck(options.token);
  const backend = new MemoryBackend(memory);
  const onUnexpectedError = (tool: string, error: unknown) => options.log(`MCP ${tool}: unexpected error: ${(error as Error)?.stack ?? error}`);

  const server = createServer((req, res) => {
    void handle(req, res).catch((error) => {
      options.log(`MCP HTTP: failed to answer ${req.method} ${req.url}: ${(error as Error)?.stack ?? error}`);
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('cache-control', 'no-store');
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== MCP_PATH) return reply(res, 404, { error: `not found; MCP is served at ${MCP_PATH}` });
    // Authenticate before reading the body or touching the protocol.
    if (!authorized(req.headers.authorization)) {
      res.setHeader('www-authenticate', 'Bearer realm="engram"');
      return reply(res, 401, { error: 'missing or wrong bearer token: send "Authorization: Bearer <token>" (the token file in the data directory)' });
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return reply(res, 405, { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this stateless endpoint answers POST only' }, id: null });
    }
    const body = await readJson(req, res);
    if (body === undefined) return;
    const { server: mcp } = createMcpServer(backend, { onUnexpectedError });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const address = `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
  const loopback = /^(127\.|::1$|::ffff:127\.)/.test(bound.address);
  options.log(`MCP over HTTP on http://${address}${MCP_PATH}${loopback ? '' : ' (beyond loopback: every call still needs the bearer token)'}`);

  return {
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // In-flight calls get a moment to answer; then their connections are cut.
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      }),
  };
}

/** "8765" → loopback; "host:port" and "[v6]:port" as given. */
export function parseListen(listen: string): { host: string; port: number } {
  if (/^\d+$/.test(listen)) return { host: '127.0.0.1', port: Number(listen) };
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(listen);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new Error(`--mcp-http: expected [HOST:]PORT (e.g. 127.0.0.1:8765), got "${listen}"`);
  return { host: match[1] ?? match[2]!, port };
}

/** Compares digests, so neither the token's content nor its length leaks through timing. */
function bearerCheck(token: string): (header: string | undefined) => boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const expected = digest(token);
  return (header) => {
    const match = /^bearer\s+(\S+)\s*$/i.exec(header ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  };
}

/** The JSON-RPC body; answers 413/400 itself and returns undefined when it did. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const tooLarge = () => {
    // Answer first, then drop the connection instead of reading the rest of an oversized body.
    res.setHeader('connection', 'close');
    res.once('finish', () => req.destroy());
    reply(res, 413, { jsonrpc: '2.0', error: { code: -32600, message: `request body over ${MAX_BODY_BYTES} bytes` }, id: null });
    return undefined;
  };
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return tooLarge();
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    reply(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not JSON' }, id: null });
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
