// A daemon that goes away (killed, or stopped) under a live client: every call fails at once with
// UNAVAILABLE naming the address, instead of waiting out its connect timeout (10 s) or deadline;
// the same client reconnects and renegotiates once a daemon serves again; and `engram import`
// stops within seconds saying what was acknowledged, that the lines in flight were not resent,
// and to re-run it, which then stores every line exactly once.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { connect, EngramError, ErrorKind, UnreachableError } from '../client/index.ts';
import { engramEnv, type CliRun } from './fixtures/cli.ts';
import { ENGRAM_BIN, useDaemonPool, waitFor } from './fixtures/daemon.ts';

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

/** Starts `engram --data-dir <dataDir> <args>`: its output so far, and its end. */
function startEngram(dataDir: string, cwd: string, args: string[]): { output: CliRun; done: Promise<CliRun & { endedAt: number }>; pause(): void; resume(): void } {
  const child = spawn(process.execPath, [ENGRAM_BIN, '--data-dir', dataDir, ...args], { cwd, env: engramEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const output: CliRun = { code: null, stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (output.stdout += d));
  child.stderr.on('data', (d) => (output.stderr += d));
  const done = new Promise<CliRun & { endedAt: number }>((resolve) => child.once('close', (code) => resolve({ ...output, code, endedAt: Date.now() })));
  return { output, done, pause: () => child.kill('SIGSTOP'), resume: () => child.kill('SIGCONT') };
}

/** Resolves once the progress says some lines are written: the import is under way. */
const someWritten = (output: CliRun) => waitFor(async () => (/import: \d+% \([1-9]\d*\//.test(output.stderr) ? true : undefined), 60_000, () => output.stderr);

/** A JSONL file of `count` distinct facts, big enough that importing it takes several seconds. */
function bigFile(dir: string, count: number): { path: string; texts: string[] } {
  const texts = Array.from({ length: count }, (_, i) => `imported fact ${i} about topic ${i % 97}`);
  const path = join(dir, 'big.jsonl');
  writeFileSync(path, texts.map((text) => JSON.stringify({ text })).join('\n') + '\n');
  return { path, texts };
}

describe('engram import, when the daemon goes away', () => {
  const LINES = 50_000;

  test('killed mid-import: the import stops within seconds saying what was acknowledged and to re-run; the re-run stores every line once', { timeout: 180_000 }, async () => {
    const dir = pool.newDir();
    const { path, texts } = bigFile(dir, LINES);
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const importing = startEngram(daemon.dataDir, dir, ['import', 'gone-import', path]);
    await someWritten(importing.output);
    await daemon.kill9();
    const killedAt = Date.now();
    const stopped = await importing.done;
    expect(stopped.endedAt - killedAt, stopped.stderr).toBeLessThan(PROMPT_MS);
    expect(stopped.code).toBe(1);

    const line = Number(/engram: import stopped at line (\d+): /.exec(stopped.stderr)?.[1]);
    expect(line, stopped.stderr).toBeGreaterThan(1);
    const acknowledged = line - 1;
    expect(stopped.stdout).toBe(`${acknowledged} imported, 0 already present\n`);
    expect(stopped.stderr).toContain(`engram: ${acknowledged} lines acknowledged as stored; `);
    // The batch in flight (if the kill met one) is uncertain, and said to be; it was not resent.
    expect(stopped.stderr).toMatch(/the \d+ lines? in flight may or may not have been stored, and were not sent again|no write was in flight/);
    expect(stopped.stderr).toMatch(/re-run the same command to resume: each line's request id makes the re-run store nothing twice/);
    expect(stopped.stderr).toMatch(/engram start/);
    // Said once, in the import's words: not the library's advice to resend a batch by hand.
    expect(stopped.stderr).not.toMatch(/resend the same items/);

    const restarted = await pool.start({ dataDir: daemon.dataDir });
    const resumed = await startEngram(daemon.dataDir, dir, ['import', 'gone-import', path]).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    const [, imported, present] = /^(\d+) imported, (\d+) already present\n$/.exec(resumed.stdout) ?? [];
    expect(Number(imported) + Number(present)).toBe(LINES);
    expect(Number(present)).toBeGreaterThanOrEqual(acknowledged); // plus the batch in flight, if it landed

    const client = await restarted.client();
    const stored: string[] = [];
    for await (const fact of client.listAll('gone-import')) stored.push(fact.text);
    client.close();
    expect(stored.length).toBe(LINES); // nothing twice
    expect(new Set(stored)).toEqual(new Set(texts)); // nothing lost
  });

  test('stopped between two batches (SIGTERM, as engram stop): the import stops within seconds, not after the 10 s connect timeout', async () => {
    const dir = pool.newDir();
    const { path } = bigFile(dir, LINES);
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const importing = startEngram(daemon.dataDir, dir, ['import', 'stopped-import', path]);
    await someWritten(importing.output);
    // Paused while the daemon stops: a stop answers the batch it took, so the resumed import reads
    // that answer and finds the daemon gone only at its next batch, with nothing in flight.
    importing.pause();
    await daemon.stop();
    importing.resume();
    const resumedAt = Date.now();
    const stopped = await importing.done;
    expect(stopped.endedAt - resumedAt, stopped.stderr).toBeLessThan(PROMPT_MS);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/engram: import stopped at line \d+: /);
    expect(stopped.stderr).toMatch(/engram: \d+ lines acknowledged as stored; /);
    expect(stopped.stderr).toMatch(/re-run the same command to resume/);
  });
});
