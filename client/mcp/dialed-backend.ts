// The MCP backend of `engram mcp`, connected on use. With --address nothing may answer there at
// launch (the daemon is started later, elsewhere); exiting then would leave the agent host with
// only "server disconnected" and no reason, so the session opens anyway and every tool call dials
// the daemon again: while it is not there the call fails saying why (the address, what to do),
// and the first call that reaches it keeps that connection. From then on the client library's
// own reconnects apply, as for a daemon that was there from the start.
import type { McpBackend } from '../../shared/mcp/backend.ts';
import type { EngramClient } from '../client.ts';
import { ClientBackend } from './backend.ts';

type Method = (...args: unknown[]) => Promise<unknown>;

export interface DialedBackend {
  /** Every method dials first if no connection was made yet (and fails as the dial does). */
  backend: McpBackend;
  /** Dials now, if no connection was made yet; throws why not. */
  connect(): Promise<void>;
  /** Closes the connection, if one was made. */
  close(): void;
}

export function dialedOnUse(dial: () => Promise<EngramClient>): DialedBackend {
  let client: EngramClient | undefined;
  let dialing: Promise<ClientBackend> | undefined;
  let connected: ClientBackend | undefined;
  const connectedBackend = (): Promise<ClientBackend> => {
    if (connected) return Promise.resolve(connected);
    // Calls made together share one dial; after a failed one, the next call dials afresh (a new
    // channel connects at once, where a failed one waits out its reconnect backoff).
    dialing ??= dial()
      .then((made) => {
        client = made;
        return (connected = new ClientBackend(made));
      })
      .finally(() => (dialing = undefined));
    return dialing;
  };
  // Every McpBackend method returns a promise, so each can wait for the dial: a proxy forwards
  // them all rather than restating the interface's forty-odd methods.
  const backend = new Proxy({} as McpBackend, {
    get(_target, name) {
      const method = typeof name === 'string' ? (ClientBackend.prototype as unknown as Record<string, unknown>)[name] : undefined;
      if (typeof method !== 'function' || name === 'constructor') return undefined;
      return async (...args: unknown[]) => (method as Method).apply(await connectedBackend(), args);
    },
  });
  return { backend, connect: async () => void (await connectedBackend()), close: () => client?.close() };
}
