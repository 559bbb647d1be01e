// A daemon that goes away (killed, or stopped) under a live client: every call fails at once with
// UNAVAILABLE naming the address, instead of waiting out its connect timeout (10 s) or deadline;
// the same client reconnects and renegotiates once a daemon serves again.
import { describe, expect, test } from 'vitest';
import { connect, EngramError, ErrorKind, UnreachableError } from '../client/index.ts';
import { useDaemonPool } from './fixtures/daemon.ts';

const pool = useDaemonPool();

/** Well under the 10 s a call used to wait for a daemon that is gone (the CLI's and the library's
 *  connect timeout), and generous beside the milliseconds it takes now: a bound on behaviour. */
const PROMPT_MS = 5000;

/** How long `work` takes to reject, and with what. */
async function rejection(work: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const from = Date.now();
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call succeeded').toBeDefined();
  return { error, ms: Date.now() - from };
}

function expectUnreachable(error: unknown, address: string): void {
  expect(error).toBeInstanceOf(UnreachableError);
  expect((error as EngramError).kind).toBe(ErrorKind.Unavailable);
  expect((error as Error).message).toContain(`cannot reach the Engram daemon at ${address}`);
}

describe('the library, when the daemon goes away', () => {
  test('a call on a client whose daemon was killed fails at once naming the address; the client reconnects when a daemon serves again', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client();
    try {
      await client.put('gone', 'the kettle is on the left shelf');
      const before = client.daemon.instanceId;
      await daemon.kill9();

      const { error, ms } = await rejection(client.recall('gone', 'kettle'));
      expect(ms).toBeLessThan(PROMPT_MS);
      expectUnreachable(error, daemon.discovery.address);
      // Asked again, still at once: the channel's failed attempt is the answer, not a wait.
      expect((await rejection(client.recall('gone', 'kettle'))).ms).toBeLessThan(PROMPT_MS);

      // Started again on the same store and address: the same client finds it, renegotiates, and reads.
      await pool.start({ dataDir: daemon.dataDir });
      const result = await client.recall('gone', 'kettle');
      expect(result.facts.map((f) => f.text)).toContain('the kettle is on the left shelf');
      expect(client.daemon.instanceId).not.toBe(before);
    } finally {
      client.close();
    }
  });

  test('connect() to a stopped daemon fails at once naming the address, not after its connect timeout', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const { address, token } = daemon.discovery;
    await daemon.stop();
    const { error, ms } = await rejection(connect({ address, token }));
    expect(ms).toBeLessThan(PROMPT_MS);
    expectUnreachable(error, address);
  });
});
