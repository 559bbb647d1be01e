// What a start says about the settings recorded for its data dir: that it brings them back, or
// which of them the flags it was given leave out. A start that restores them must say so (the
// user did not type them), and one that drops them must too: a dropped --store or --http changes
// where the memory is, or who can reach it, and would otherwise go unnoticed.
import type { RecordedStart } from './daemon-control.ts';

/** "with the settings of its last start: --embedder none --http 127.0.0.1:7777", or undefined
 *  when it had none given (defaults are not recorded). */
export function restoredSettings(start: RecordedStart): string | undefined {
  return start.flags.length > 0 ? `with the settings of its last start: ${shown(start.flags)}` : undefined;
}

/** The recorded settings that `given` (the flags of this start, which replace them all) leaves
 *  out, in words; undefined when it leaves none out. A setting given again with another value is
 *  replaced, not dropped. A secret variable the daemon had is dropped only when it is unset here:
 *  a start passes on its own environment, where the daemon reads it again. */
export function droppedSettings(start: RecordedStart, given: readonly string[], unsetSecrets: readonly string[]): string | undefined {
  const named = new Set(given.filter((arg) => arg.startsWith('--')).map((arg) => arg.split('=')[0]));
  const dropped = settingsOf(start.flags).filter((setting) => !named.has(setting[0]));
  const lost = [...dropped.map(shown), ...unsetSecrets];
  if (lost.length === 0) return undefined;
  return `the flags given replace the settings of the last start, so these are dropped: ${lost.join(', ')} (give them too to keep them)`;
}

/** Flags as settings: each flag with the values after it ("--http", "127.0.0.1:7777"). */
function settingsOf(flags: readonly string[]): string[][] {
  const settings: string[][] = [];
  for (const arg of flags) {
    if (arg.startsWith('--') || settings.length === 0) settings.push([arg]);
    else settings.at(-1)!.push(arg);
  }
  return settings;
}

/** Flags as a line, secrets masked: a password in a URL, the daemon's own token (a flag typed
 *  with one held it, and stderr may go to a shared log). */
const shown = (flags: readonly string[]): string =>
  flags
    .map((arg, i) => (flags[i - 1] === '--token' ? '***' : arg))
    .join(' ')
    .replace(/(:\/\/[^/:@\s]*:)[^@\s]*@/g, '$1***@');
