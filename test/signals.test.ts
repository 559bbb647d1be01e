// A stop signal is a clean stop whenever it comes: during start-up, or the moment the discovery
// file says the daemon serves (a supervisor or a test may send SIGTERM right then). Before the
// handlers were installed ahead of start-up, such a SIGTERM killed the process outright and the
// next start found no clean shutdown to trust.
import { spawn } from 'node:child_process';
import { afterAll, expect, test } from 'vitest';
import { ENGRAM_BIN, removeDir, startDaemon, tempDataDir } from './fixtures/daemon.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

test('SIGTERM sent during start-up stops the daemon cleanly once it has started', async () => {
  const dataDir = tempDataDir();
  dirs.push(dataDir);
  const first = await startDaemon({ dataDir });
  const client = await first.client();
  await client.putBatch(Array.from({ length: 200 }, (_, i) => ({ agentId: 'sig', text: `signal note ${i}` })));
  client.close();
  await first.stop();

  for (let round = 0; round < 3; round++) {
    const child = spawn(process.execPath, [ENGRAM_BIN, 'daemon', '--data-dir', dataDir, '--embedder', 'none'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.stderr!.on('data', (chunk) => {
      log += chunk;
      // Mid start-up: the store is open and its indexes loaded, the servers not yet bound.
      if (/loaded \d+ (recallable )?facts/.test(log) && !child.killed) child.kill('SIGTERM');
    });
    const { code, signal } = await exited;
    expect({ code, signal }, log).toEqual({ code: 0, signal: null });
    expect(log).toMatch(/stopped cleanly/);
  }
  // Each stop was clean: the next start trusts the snapshot it left.
  const last = await startDaemon({ dataDir });
  expect(last.log()).toMatch(/from the index snapshot of the last clean shutdown/);
  await last.stop();
}, 60_000);
