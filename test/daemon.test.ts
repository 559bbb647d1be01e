// The daemon process: one per data dir, private socket and discovery file, token-guarded TCP.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connect } from '../client/index.ts';
import { ENGRAM_BIN, removeDir, startDaemon, type DaemonProcess } from './fixtures/daemon.ts';

let daemon: DaemonProcess;

beforeAll(async () => {
  daemon = await startDaemon({ args: ['--listen', '0'] });
});

afterAll(async () => {
  await daemon?.stop();
  removeDir(daemon.dataDir);
});

describe('one daemon per data directory', () => {
  test('a second daemon on the same directory exits non-zero naming the directory and the running daemon', () => {
    const second = spawnSync(process.execPath, [ENGRAM_BIN, 'daemon', '--data-dir', daemon.dataDir, '--embedder', 'none'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(second.status).not.toBe(0);
    expect(second.stderr).toContain(daemon.dataDir);
    expect(second.stderr).toContain(`pid ${daemon.child.pid}`);
    // The first daemon is unaffected.
    expect(daemon.child.exitCode).toBeNull();
  });

  test('the unix socket, discovery file and token file are private (0600)', () => {
    for (const name of ['engram.sock', 'daemon.json', 'token']) {
      expect(statSync(join(daemon.dataDir, name)).mode & 0o777, name).toBe(0o600);
    }
  });
});

describe('TCP listener', () => {
  test('binds loopback and is advertised in the discovery file', () => {
    expect(daemon.discovery.tcpAddress).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  test('refuses a call without the bearer token (UNAUTHENTICATED)', async () => {
    await expect(connect({ address: daemon.discovery.tcpAddress!, timeoutMs: 5000 })).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  test('refuses a call with a wrong token (UNAUTHENTICATED)', async () => {
    await expect(connect({ address: daemon.discovery.tcpAddress!, token: 'wrong-token', timeoutMs: 5000 })).rejects.toMatchObject({
      kind: 'unauthenticated',
    });
  });

  test('serves a call with the right token, on the same store as the socket', async () => {
    const viaTcp = await connect({ address: daemon.discovery.tcpAddress!, token: daemon.discovery.token, timeoutMs: 5000 });
    const { fact } = await viaTcp.put('tcp', 'written over TCP');
    viaTcp.close();
    const viaSocket = await daemon.client();
    expect((await viaSocket.get('tcp', fact.id)).text).toBe('written over TCP');
    viaSocket.close();
  });
});
