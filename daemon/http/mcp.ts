// MCP over streamable HTTP on the daemon's HTTP server: POST /mcp. Stateless: every POST gets a
// fresh MCP server and transport, answered with a JSON body, and every tool call a backend bound
// to the caller the server authenticated (handed over as the SDK's auth info). Nothing
// session-scoped lives in the daemon, so concurrent requests need no locking and a restart loses
// nothing but in-flight calls. No server-initiated messages exist here, so the GET event stream
// is not offered (405).
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { IncomingMessage } from 'node:http';
import { createMcpServer } from '../../shared/mcp/server.ts';
import type { CallContext, Principal } from '../core/context.ts';
import type { Engram } from '../core/engram.ts';
import type { Log } from '../log.ts';
import { bodyText } from './body.ts';
import { CoreBackend } from './mcp-backend.ts';

export const MCP_PATH = '/mcp';

const rpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers });

export function mcpHandler(core: Engram, log: Log, defaultAgentId?: string) {
  const onUnexpectedError = (tool: string, error: unknown) => log.error(`MCP ${tool}: unexpected error: ${(error as Error)?.stack ?? error}`);
  /** `request`: the web request; `incoming`: the same request as Node received it (its body is
   *  read from there, under the server's limit). */
  return async (request: Request, incoming: IncomingMessage, ctx: CallContext): Promise<Response> => {
    if (request.method !== 'POST') return rpcError(405, -32000, 'Method not allowed: this stateless endpoint answers POST only', { allow: 'POST' });
    let body: unknown;
    try {
      body = JSON.parse(await bodyText(incoming));
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      return rpcError(400, -32700, 'Parse error: the body is not JSON');
    }
    // JSON-RPC answers an empty batch with one Invalid Request error (the SDK accepts it, 202).
    if (Array.isArray(body) && body.length === 0) return rpcError(400, -32600, 'Invalid Request: an empty batch');
    const backendFor = (auth: AuthInfo | undefined) => new CoreBackend(core, { ...ctx, principal: (auth?.extra?.principal as Principal | undefined) ?? ctx.principal });
    const { server } = createMcpServer(backendFor, { onUnexpectedError, ...(defaultAgentId ? { defaultAgentId } : {}) });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const authInfo: AuthInfo = { token: '', clientId: ctx.principal.id, scopes: [], extra: { principal: ctx.principal } };
      return await transport.handleRequest(request, { parsedBody: body, authInfo });
    } finally {
      void transport.close();
      void server.close();
    }
  };
}
