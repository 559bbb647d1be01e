// A full disk: the data directory on a small tmpfs of the test's own. A write that finds no
// space is a clear RESOURCE_EXHAUSTED and writes nothing; reads go on; once the file system
// grows, writes are accepted again without a restart; nothing acknowledged is lost. Mounting
// needs root (CI runs as root); elsewhere the test is skipped and says why.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startDaemon, type DaemonProcess } from './fixtures/daemon.ts';

function canMount(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'engram-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const mounted: string[] = [];
const daemons: DaemonProcess[] = [];
afterEach(async () => {
  for (const d of daemons.splice(0)) await d.kill9();
  for (const dir of mounted.splice(0)) {
    execFileSync('umount', [dir], { stdio: 'pipe' });
    rmSync(dir, { recursive: true, force: true });
  }
});

describe.skipIf(!canMount())('a full disk', () => {
  test('writes are refused clearly while it is full, reads go on, and writes resume once it grows', async () => {
    const mountPoint = mkdtempSync(join(tmpdir(), 'engram-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m,mode=700', 'tmpfs', mountPoint], { stdio: 'pipe' });
    mounted.push(mountPoint);
    const dataDir = join(mountPoint, 'engram');
    mkdirSync(dataDir, { mode: 0o700 });
    const daemon = await startDaemon({ dataDir, args: ['--http', '127.0.0.1:0'] });
    daemons.push(daemon);
    const client = await daemon.client({ timeoutMs: 30_000 });

    const acked: string[] = [];
    let refusal: unknown;
    for (let i = 0; i < 2000 && !refusal; i++) {
      const text = `fact ${i} ${randomBytes(18_000).toString('base64').replace(/(.{12})/g, '$1 ')}`.slice(0, 24_000);
      try {
        acked.push((await client.put('disk', text)).fact.id);
      } catch (error) {
        refusal = error;
      }
    }
    expect(refusal).toMatchObject({ kind: 'resource_exhausted', message: expect.stringContaining('is full: nothing was written') });
    expect(acked.length).toBeGreaterThan(100);
    await expect(client.put('disk', 'one more while full')).rejects.toMatchObject({ kind: 'resource_exhausted' });
    const rest = await fetch(`http://${daemon.discovery.httpAddress}/v1/facts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.discovery.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: 'disk', text: `one more over REST ${randomBytes(9000).toString('base64')}` }),
    });
    expect(rest.status).toBe(507);
    expect((await client.recall('disk', 'fact', { topK: 3 })).facts).toHaveLength(3);

    execFileSync('mount', ['-o', 'remount,size=256m', mountPoint], { stdio: 'pipe' });
    const after = (await client.put('disk', 'written once the disk grew')).fact;
    const stored = new Set<string>();
    for await (const fact of client.listAll('disk', 200)) stored.add(fact.id);
    expect([...acked, after.id].every((id) => stored.has(id))).toBe(true);
    expect(stored.size).toBe(acked.length + 1);
    client.close();
    expect(await daemon.stop()).toBe(0);
  });
});
