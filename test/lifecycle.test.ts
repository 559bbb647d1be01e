// The daemon's lifecycle commands, run as a user runs them: engram start (detached), start again
// (a no-op), restart (with the flags it had), logs, stop.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ENGRAM_BIN, removeDir, tempDataDir } from './fixtures/daemon.ts';

const dataDir = tempDataDir('engram-lifecycle-');
const env: NodeJS.ProcessEnv = { ...process.env, ENGRAM_EMBEDDER: 'none' };
delete env.ENGRAM_HOME;

const engram = (...args: string[]) => spawnSync(process.execPath, [ENGRAM_BIN, '--data-dir', dataDir, ...args], { env, encoding: 'utf8', timeout: 120_000 });
const json = (...args: string[]) => {
  const run = engram(...args, '--json');
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};

afterAll(() => {
  engram('stop');
  removeDir(dataDir);
});

describe('engram start, restart, logs, stop', () => {
  test('start runs the daemon in the background with the given flags; a second start leaves it alone', () => {
    const started = json('start', '--default-confidence-weight', '0.3');
    expect(started).toMatchObject({ data_dir: dataDir, started: true, log: `${dataDir}/daemon.log` });
    expect(json('status')).toMatchObject({ pid: started.pid, daemon: { default_confidence_weight: 0.3 } });
    expect(json('start')).toMatchObject({ started: false, pid: started.pid });
  });

  test('restart stops it and starts it again with the flags it had', () => {
    const before = json('status').pid;
    const restarted = json('restart');
    expect(restarted.stopped_pid).toBe(before);
    expect(restarted.pid).not.toBe(before);
    expect(json('status')).toMatchObject({ pid: restarted.pid, daemon: { default_confidence_weight: 0.3 } });
  });

  test('logs prints the log readably (and raw with --json); stop waits for a clean exit', () => {
    const logs = engram('logs', '-n', '50');
    expect(logs.status).toBe(0);
    expect(logs.stdout).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] INFO: serving /m);
    const raw = engram('logs', '--json', '-n', '1').stdout.trim();
    expect(JSON.parse(raw)).toMatchObject({ level: 30, msg: expect.stringContaining('serving') });
    const stopped = json('stop');
    expect(stopped.stopped).toBe(true);
    expect(engram('logs', '-n', '3').stdout).toMatch(/INFO: stopped cleanly/);
    expect(json('stop')).toMatchObject({ stopped: false });
  });

  test('start passes --token on to the daemon, as a flag after start (a team gives its daemons one token); restart keeps it', async () => {
    const token = 'one-token-for-the-team';
    expect(json('start', '--token', token, '--http', '127.0.0.1:0').started).toBe(true);
    const discovery = () => JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as { token: string; httpAddress: string };
    const agents = async () => (await fetch(`http://${discovery().httpAddress}/v1/agents`, { headers: { authorization: `Bearer ${token}` } })).status;
    expect(discovery().token).toBe(token);
    expect(await agents()).toBe(200);
    json('restart');
    expect(discovery().token).toBe(token);
    expect(await agents()).toBe(200);
    expect(json('stop').stopped).toBe(true);
  });
});
