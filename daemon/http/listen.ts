// Listen addresses: "[host:]port", loopback unless a host is named.
import { isIP } from 'node:net';
import { EngramError, ErrorKind } from '../../shared/errors.ts';

/** "8080" → loopback; "host:port" and "[v6]:port" as given. */
export function parseListen(listen: string, flag = '--http'): { host: string; port: number } {
  if (/^\d+$/.test(listen) && Number(listen) <= 65535) return { host: '127.0.0.1', port: Number(listen) };
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(listen);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) {
    throw new EngramError(ErrorKind.InvalidArgument, `${flag}: expected [HOST:]PORT (e.g. 127.0.0.1:8080), got "${listen}"`, flag.replace(/^--/, ''));
  }
  return { host: match[1] ?? match[2]!, port };
}

/** The address as "host:port" ("7777" → "127.0.0.1:7777"). */
export function normalizeListen(listen: string, flag: string): string {
  const { host, port } = parseListen(listen, flag);
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare.startsWith('::ffff:127.');
}

