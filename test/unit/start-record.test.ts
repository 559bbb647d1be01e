// The record of how the daemon was started (daemon/start-record.ts), which the discovery file
// holds for `engram restart` and `engram mcp`: parsed back, its flags alone give the daemon the
// settings it had from flags and variables; a secret, from a variable or a flag, is named by its
// variable, never recorded.
import { describe, expect, test } from 'vitest';
import { parseDaemonArgs } from '../../daemon/config.ts';
import { SECRET_LEFT_OUT } from '../../daemon/secret-settings.ts';

const quiet = { writeOut: () => {}, writeErr: () => {} };
const SETTING_VARIABLE = /^(ENGRAM_|LTM_VAULT_PATH$)/;

/** Those of this process's variables that set the daemon, removed (returned to be restored). */
function clearSettings(): Record<string, string | undefined> {
  const taken = Object.fromEntries(Object.keys(process.env).filter((name) => SETTING_VARIABLE.test(name)).map((name) => [name, process.env[name]]));
  for (const name of Object.keys(taken)) delete process.env[name];
  return taken;
}

/** Parses `argv` with exactly `env` as the daemon's variables; this process's are restored. */
function parseWith(argv: string[], env: Record<string, string> = {}) {
  const before = clearSettings();
  Object.assign(process.env, env);
  try {
    return parseDaemonArgs(argv, quiet);
  } finally {
    clearSettings();
    Object.assign(process.env, before);
  }
}

/** The settings without what every start gives itself or that holds the record. */
const settingsOf = ({ dataDir: _d, logFile: _l, startFlags: _f, secretVariables: _s, secretFlags: _sf, args: _a, ...rest }: ReturnType<typeof parseDaemonArgs>) => rest;

describe('the start record', () => {
  test('settings from variables and flags are recorded as flags that give the same settings; defaults are not recorded', () => {
    const first = parseWith(['--data-dir', '/d', '--kg', '--signal-weights', '1,0.5,0.25', '--decay-lambda', '1e-7', '--vault', 'notes'], {
      ENGRAM_COMPAT: 'v0.2',
      ENGRAM_LISTEN: '7777',
      ENGRAM_EMBEDDER: 'none',
      ENGRAM_AUTO_REINFORCE: 'no',
    });
    expect(first.startFlags).toEqual(expect.arrayContaining(['--compat', 'v0.2', '--listen', '127.0.0.1:7777', '--embedder', 'none', '--kg']));
    expect(first.startFlags).not.toContain('--reconcile-ms');
    expect(first.startFlags).not.toContain('--data-dir');
    const vault = first.startFlags[first.startFlags.indexOf('--vault') + 1]!;
    expect(vault).toBe(first.vault);
    expect(vault).toMatch(/^\//);
    expect(first.secretVariables).toEqual([]);

    const again = parseWith(['--data-dir', '/d', ...first.startFlags]);
    expect(settingsOf(again)).toEqual(settingsOf(first));
  });

  test('--no-auth is recorded; a secret from a variable is named and never recorded', () => {
    const fromEnv = parseWith(['--http', '0', '--no-auth'], {
      ENGRAM_TOKEN: 'daemon-secret-token',
      ENGRAM_STORE: 'postgres://engram:pw-secret@db.internal/engram',
      ENGRAM_EXTRACT_URL: 'https://user:pw-secret@chat.internal',
      ENGRAM_EXTRACTOR: 'openai',
      ENGRAM_EMBED_URL: 'http://127.0.0.1:11434',
    });
    expect(fromEnv.startFlags).toContain('--no-auth');
    expect(fromEnv.startFlags).toEqual(expect.arrayContaining(['--embed-url', 'http://127.0.0.1:11434', '--extractor', 'openai']));
    expect(JSON.stringify(fromEnv.startFlags)).not.toMatch(/secret/);
    expect(fromEnv.secretVariables.sort()).toEqual(['ENGRAM_EXTRACT_URL', 'ENGRAM_STORE', 'ENGRAM_TOKEN', 'OPENAI_API_KEY']);

    const noPassword = parseWith([], { ENGRAM_STORE: 'postgres://engram@db.internal/engram' });
    expect(noPassword.startFlags).toEqual(['--store', 'postgres://engram@db.internal/engram']);
    expect(noPassword.secretVariables).toEqual([]);

  });

  test('a secret given as a flag is in no record: its variable is named with the flag, and the arguments keep the flag without the value', () => {
    const argv = ['--data-dir', '/d', '--token', 'typed-secret-token', '--store=postgres://engram:pw-secret@db.internal/engram', '--embedder', 'ollama', '--embed-model', 'm', '--embed-url', 'http://u:pw-secret@embed.internal', '--extract-url', 'http://127.0.0.1:11434'];
    const typed = parseWith(argv);
    expect(JSON.stringify([typed.startFlags, typed.args, typed.secretVariables, typed.secretFlags])).not.toMatch(/secret-token|pw-secret/);
    expect(typed.startFlags).toEqual(['--embedder', 'ollama', '--embed-model', 'm', '--extract-url', 'http://127.0.0.1:11434']);
    expect(typed.secretVariables.sort()).toEqual(['ENGRAM_EMBED_URL', 'ENGRAM_STORE', 'ENGRAM_TOKEN']);
    expect(typed.secretFlags).toEqual({ ENGRAM_TOKEN: '--token', ENGRAM_STORE: '--store', ENGRAM_EMBED_URL: '--embed-url' });
    // The token flag goes whole (a stand-in would be an older restarter's token); the others stand
    // with a value the daemon refuses as a store or a server.
    expect(typed.args).toEqual(['--data-dir', '/d', '--store', SECRET_LEFT_OUT, '--embedder', 'ollama', '--embed-model', 'm', '--embed-url', SECRET_LEFT_OUT, '--extract-url', 'http://127.0.0.1:11434']);
    expect(() => parseWith(['--store', SECRET_LEFT_OUT])).toThrow(/--store must be/);

    // A restart gives the recorded flags and the variables: the daemon has the settings it had.
    const again = parseWith(['--data-dir', '/d', ...typed.startFlags], {
      ENGRAM_TOKEN: 'typed-secret-token',
      ENGRAM_STORE: 'postgres://engram:pw-secret@db.internal/engram',
      ENGRAM_EMBED_URL: 'http://u:pw-secret@embed.internal',
    });
    expect(settingsOf(again)).toEqual(settingsOf(typed));
    expect(again.secretFlags).toEqual({});
  });
});
