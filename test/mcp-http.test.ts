// MCP over streamable HTTP inside the daemon (`engram daemon --mcp-http ADDR`) with the SDK's own
// Client: the whole wire contract, plus what HTTP adds — the bearer token (missing or wrong →
// 401 before any MCP processing), the one endpoint path, and loopback by default.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { removeDir, startDaemon, type DaemonProcess } from './fixtures/daemon.ts';
import { openHttp } from './fixtures/mcp.ts';
import { describeMcpContract } from './fixtures/mcp-contract.ts';

/** A daemon serving MCP over HTTP on a free loopback port; its address is in the discovery file. */
async function startMcpDaemon(): Promise<DaemonProcess & { mcpAddress: string }> {
  const daemon = await startDaemon({ args: ['--mcp-http', '127.0.0.1:0'] });
  const mcpAddress = daemon.discovery.mcpHttpAddress;
  if (!mcpAddress) throw new Error(`the discovery file has no mcpHttpAddress:\n${JSON.stringify(daemon.discovery)}`);
  return Object.assign(daemon, { mcpAddress });
}

describeMcpContract('streamable HTTP (engram daemon --mcp-http)', async () => {
  const daemon = await startMcpDaemon();
  const session = await openHttp(daemon.mcpAddress, daemon.discovery.token);
  return { session, daemon };
});

describe('MCP over HTTP: transport rules', () => {
  let daemon: Awaited<ReturnType<typeof startMcpDaemon>>;
  beforeAll(async () => {
    daemon = await startMcpDaemon();
  });
  afterAll(async () => {
    await daemon?.stop();
    if (daemon) removeDir(daemon.dataDir);
  });

  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const post = (headers: Record<string, string>, body: string = JSON.stringify(initialize), path = '/mcp') =>
    fetch(`http://${daemon.mcpAddress}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });

  test('listens on loopback and advertises its address in the discovery file', () => {
    expect(daemon.mcpAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(Number(daemon.mcpAddress.split(':')[1])).toBeGreaterThan(0);
  });

  test('a missing or wrong bearer token is 401, before any MCP processing', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong-token' }, { authorization: daemon.discovery.token }, { authorization: `Basic ${daemon.discovery.token}` }]) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.text()).not.toContain('protocolVersion');
    }
    await expect(openHttp(daemon.mcpAddress, 'not-the-token')).rejects.toThrow();
  });

  test('with the token, a raw initialize is answered with the server instructions', async () => {
    const res = await post({ authorization: `Bearer ${daemon.discovery.token}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { result: { serverInfo: { name: string }; instructions: string } };
    expect(body.result.serverInfo.name).toBe('engram');
    expect(body.result.instructions).toMatch(/WHEN TO ADD/);
  });

  test('only /mcp exists; GET is not offered on this stateless endpoint', async () => {
    const auth = { authorization: `Bearer ${daemon.discovery.token}` };
    expect((await post(auth, undefined, '/other')).status).toBe(404);
    const get = await fetch(`http://${daemon.mcpAddress}/mcp`, { headers: { ...auth, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect((await post(auth, '{not json')).status).toBe(400);
    // An empty batch is one Invalid Request error (it was a silent 202).
    const empty = await post(auth, '[]');
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: an empty batch' } });
  });

  test('sessions are independent: two clients at once see each other\'s committed writes', async () => {
    const [a, b] = await Promise.all([openHttp(daemon.mcpAddress, daemon.discovery.token), openHttp(daemon.mcpAddress, daemon.discovery.token)]);
    await a.ok('memory_add', { agent_id: 'http-shared', text: 'Written by the first HTTP client' });
    expect((await b.ok('memory_search', { agent_id: 'http-shared', query: 'first HTTP client' })).facts).toEqual(['Written by the first HTTP client']);
    await Promise.all([a.close(), b.close()]);
  });
});
