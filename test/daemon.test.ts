// The daemon process: one per data dir, private socket and discovery file, token-guarded TCP.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { connect } from '../client/index.ts';
import { createServiceClient } from '../shared/grpc/bridge.ts';
import { HandshakeService } from '../shared/gen/engram/v1/handshake_pb.ts';
import { expectStatus } from './fixtures/errors.ts';
import { ENGRAM_BIN, removeDir, startDaemon, tempDataDir, type DaemonProcess } from './fixtures/daemon.ts';

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

describe('start-up', () => {
  test('a start that fails (a busy port) leaves the last clean stop\'s snapshot usable: the next start restores it', async () => {
    const dataDir = tempDataDir();
    const busy = createServer();
    try {
      const first = await startDaemon({ dataDir });
      const c = await first.client();
      await c.put('snap', 'kept across a failed start');
      c.close();
      expect(await first.stop()).toBe(0);
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
      const port = (busy.address() as AddressInfo).port;
      const failed = spawnSync(process.execPath, [ENGRAM_BIN, 'daemon', '--data-dir', dataDir, '--embedder', 'none', '--http', `127.0.0.1:${port}`], { encoding: 'utf8', timeout: 60_000 });
      expect(failed.status).toBe(1);
      expect(failed.stderr).toMatch(/cannot serve HTTP on 127\.0\.0\.1:\d+: EADDRINUSE/);
      const again = await startDaemon({ dataDir });
      expect(again.log()).toContain('loaded 1 recallable facts from the index snapshot');
      const d = await again.client();
      expect((await d.recall('snap', 'failed start')).facts.map((f) => f.text)).toEqual(['kept across a failed start']);
      d.close();
      await again.stop();
    } finally {
      busy.close();
      removeDir(dataDir);
    }
  });
});

describe('settings', () => {
  test('a bad value in a flag or its ENGRAM_* variable stops start-up (exit 2) with a message naming the setting', () => {
    for (const [args, env, named] of [
      [['--reconcile-ms', 'soon'], {}, '--reconcile-ms'],
      [[], { ENGRAM_RECONCILE_MS: 'abc' }, 'ENGRAM_RECONCILE_MS'],
      [[], { ENGRAM_CHECKPOINT_KEEP: '0' }, 'ENGRAM_CHECKPOINT_KEEP'],
      [['--http', 'localhost'], {}, '--http'],
      [['--embedder', 'bert'], {}, '--embedder'],
    ] as const) {
      const run = spawnSync(process.execPath, [ENGRAM_BIN, 'daemon', '--data-dir', daemon.dataDir, '--embedder', 'none', ...args], {
        encoding: 'utf8',
        env: { ...process.env, ...env },
        timeout: 30_000,
      });
      expect({ named, status: run.status }).toEqual({ named, status: 2 });
      expect(run.stderr).toContain(named);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  test('--help lists every flag with its variable and default', () => {
    const run = spawnSync(process.execPath, [ENGRAM_BIN, 'daemon', '--help'], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(0);
    const help = run.stdout.replace(/\s+/g, ' ');
    for (const text of ['--data-dir', 'ENGRAM_HOME', '--embedder', 'ENGRAM_EMBEDDER', 'default: "local"', '--reconcile-ms', 'default: 5000, env: ENGRAM_RECONCILE_MS', 'ENGRAM_CACHE_DIR']) {
      expect(help).toContain(text);
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

  test('takes the scheme name in any case and refuses a token that differs only in length or case', async () => {
    const raw = new grpc.Client(daemon.discovery.tcpAddress!, grpc.credentials.createInsecure());
    const health = createServiceClient(HandshakeService, raw);
    const call = (authorization: string) => {
      const metadata = new grpc.Metadata();
      metadata.set('authorization', authorization);
      return health.hello({}, { metadata, timeoutMs: 5000 });
    };
    const { token } = daemon.discovery;
    try {
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) expect((await call(`${scheme} ${token}`)).protocol).toBe('engram.v1');
      for (const wrong of [`Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, `Bearer ${token.toUpperCase()}`, `Basic ${token}`, token]) {
        await expectStatus(call(wrong), grpc.status.UNAUTHENTICATED);
      }
    } finally {
      raw.close();
    }
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
