// Which of the daemon's settings hold secrets, and its arguments with them left out. The daemon's
// own token opens everything; a URL with a password (or a credential in its query) opens a database
// or server. Neither goes into the discovery file, however it was given (start-record.ts).
import type { Command, Option } from 'commander';
import { isCredentialParam } from './store/postgres-url.ts';

/** Settings whose value is a URL, secret when it carries a password. */
const URLS = new Set(['store', 'embedUrl', 'extractUrl']);

/** What stands in the recorded arguments for a secret flag's value. A restarter older than the
 *  start record starts the daemon from those arguments: the daemon refuses this value as a store,
 *  and as a server's URL, so it never comes back on another store or server unsaid. */
export const SECRET_LEFT_OUT = '<secret: not recorded>';

export function isSecret(key: string, value: unknown): boolean {
  if (key === 'token') return value !== '';
  return URLS.has(key) && typeof value === 'string' && carriesCredentials(value);
}

/** user:password@ or a credential-like query parameter (postgres://h/db?password=…). */
export function carriesCredentials(url: string): boolean {
  try {
    const u = new URL(url);
    return u.password !== '' || [...u.searchParams.keys()].some(isCredentialParam);
  } catch {
    return true; // not a URL that can be looked into: treated as secret rather than risk writing one
  }
}

/** `argv` (the daemon's arguments, as `command` parses them) with each secret flag's value left
 *  out, in both forms (`--store URL`, `--store=URL`). */
export function withoutSecrets(command: Command, argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const inline = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const option = takingValue(command, inline > 0 ? arg.slice(0, inline) : arg);
    const value = inline > 0 ? arg.slice(inline + 1) : argv[i + 1];
    if (!option || value === undefined || !isSecret(option.attributeName(), value)) {
      out.push(arg);
      continue;
    }
    if (inline < 0) i++;
    out.push(...leftOut(option));
  }
  return out;
}

/** The option named `flag` (`--store`), if it takes a value. */
function takingValue(command: Command, flag: string): Option | undefined {
  return command.options.find((option) => option.long === flag && (option.required || option.optional));
}

/** What a secret flag becomes. The token flag goes whole: an older restarter would take any value
 *  standing there for the daemon's token, which opens its listeners to whoever knows the value;
 *  without the flag the daemon uses the data directory's token file. */
function leftOut(option: Option): string[] {
  return option.attributeName() === 'token' ? [] : [option.long!, SECRET_LEFT_OUT];
}
