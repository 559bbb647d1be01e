// What a start says of the settings recorded for its data dir (client/recorded-settings.ts), and
// how the last start names its PostgreSQL store (daemon/last-start.ts): a setting is a flag with
// its values; one given again is replaced, not dropped; a password is never shown.
import { describe, expect, test } from 'vitest';
import { droppedSettings, restoredSettings } from '../../client/recorded-settings.ts';
import { redacted } from '../../daemon/store/postgres-url.ts';

const recorded = { flags: ['--embedder', 'none', '--http', '127.0.0.1:8080', '--no-auth', '--store', 'postgres://u:secret@db/engram'], secretVariables: [] };

describe('recorded settings in words', () => {
  test('a start without flags names what it restores, the password masked; none recorded, nothing to say', () => {
    expect(restoredSettings(recorded)).toBe('with the settings of its last start: --embedder none --http 127.0.0.1:8080 --no-auth --store postgres://u:***@db/engram');
    expect(restoredSettings({ flags: [], secretVariables: ['ENGRAM_STORE'] })).toBeUndefined();
    expect(restoredSettings({ flags: ['--token', 'the-daemons-own', '--listen', '127.0.0.1:7777'], secretVariables: [] })).toBe('with the settings of its last start: --token *** --listen 127.0.0.1:7777');
  });

  test('flags given name the settings they leave out, whether given as --flag value or --flag=value', () => {
    expect(droppedSettings(recorded, ['--embedder=local', '--store', 'level'], [])).toBe(
      'the flags given replace the settings of the last start, so these are dropped: --http 127.0.0.1:8080, --no-auth (give them too to keep them)',
    );
    expect(droppedSettings(recorded, ['--embedder', 'none', '--http', '8080', '--no-auth', '--store', 'level'], [])).toBeUndefined();
  });

  test('a secret variable unset here is dropped with the settings', () => {
    expect(droppedSettings({ flags: [], secretVariables: ['ENGRAM_STORE'] }, ['--http', '8080'], ['ENGRAM_STORE'])).toContain('dropped: ENGRAM_STORE (');
  });

  test('the store of the last start is named without its password, in the user part or a parameter', () => {
    expect(redacted('postgres://u:secret@db/engram')).toBe('postgres://u:***@db/engram');
    expect(redacted('postgres://u@db/engram?password=secret&host=%2Ftmp')).not.toContain('secret');
    expect(redacted('postgres://u@db/engram?host=%2Ftmp')).toBe('postgres://u@db/engram?host=%2Ftmp');
  });
});
