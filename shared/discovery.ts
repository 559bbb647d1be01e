// Where a daemon lives and how a client finds it. The daemon writes the discovery file
// (mode 0600) once it serves; clients read it. Both sides derive every path from the data dir.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const DEFAULT_DATA_DIR = '.engram';

/** --data-dir, else ENGRAM_HOME, else ./.engram (resolved against the working directory). */
export function resolveDataDir(explicit?: string): string {
  return resolve(explicit ?? process.env.ENGRAM_HOME ?? DEFAULT_DATA_DIR);
}

export const dataPaths = (dataDir: string) => ({
  store: join(dataDir, 'store'),
  vectors: join(dataDir, 'vectors'),
  socket: join(dataDir, 'engram.sock'),
  discovery: join(dataDir, 'daemon.json'),
  token: join(dataDir, 'token'),
});

export interface Discovery {
  /** gRPC target, e.g. "unix:/home/me/.engram/engram.sock". */
  address: string;
  /** Loopback TCP address ("127.0.0.1:7777") if the daemon also listens on TCP. */
  tcpAddress?: string;
  /** "127.0.0.1:43210" if the daemon also serves MCP over streamable HTTP (path /mcp, bearer token). */
  mcpHttpAddress?: string;
  /** "127.0.0.1:43210" if the daemon also serves the REST API (--http; bearer token unless --no-auth). */
  httpAddress?: string;
  /** Bearer token required on TCP. */
  token: string;
  pid: number;
  instanceId: string;
  version: string;
  startedAt: string;
}

export class DaemonNotRunningError extends Error {
  constructor(dataDir: string, reason: string) {
    super(`no Engram daemon is serving ${dataDir} (${reason}). Start one with: engram daemon --data-dir ${dataDir}`);
    this.name = 'DaemonNotRunningError';
  }
}

export function readDiscovery(dataDir: string): Discovery {
  const path = dataPaths(dataDir).discovery;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new DaemonNotRunningError(dataDir, `${path} does not exist`);
  }
  return JSON.parse(text) as Discovery;
}
