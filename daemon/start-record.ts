// What the discovery file records of how the daemon was started, so `engram restart` and
// `engram mcp` start it again the same way from any shell and any directory. Every setting given
// by flag or by variable is recorded as a flag: the variable is not set in the restarter's shell,
// and a flag there beats whatever variable is. Paths are recorded absolute: a relative one meant
// the directory of the first start. Settings left at their default are not recorded, so a daemon
// restarted after an upgrade takes the new release's defaults.
// A secret is never written to a file (the discovery file is read by every client of the
// directory and outlives the daemon), whether the daemon took it from a variable or from a flag:
// the variable is named instead (for a flag, the flag's own variable, which gives the daemon the
// same setting), and a restart passes on the restarter's own. The daemon's arguments, recorded as
// given for older restarters, have a secret flag's value left out (secret-settings.ts).
import { resolve } from 'node:path';
import type { Command, Option } from 'commander';
import { OPENAI_DEFAULT_KEY_ENV } from './embed/openai.ts';
import { SIGNAL_NAMES, type Weights } from './recall/registry.ts';
import { isSecret, withoutSecrets } from './secret-settings.ts';

export interface StartRecord {
  /** The flags that start the daemon again with the settings it has (without --data-dir and
   *  --log-file, which every start sets itself). */
  startFlags: string[];
  /** The variables holding secrets the daemon has, from its environment or (secretFlags) from
   *  its flags, which a restart must be given by the restarter's. */
  secretVariables: string[];
  /** Those of secretVariables whose secret the daemon was given by a flag: the variable, and the
   *  flag it stands for. */
  secretFlags: Record<string, string>;
  /** The daemon's arguments as given, with no secret in them. */
  args: string[];
}

/** Set by each start itself (the data dir and log file), or starting nothing (--check). */
const NOT_RECORDED = new Set(['dataDir', 'logFile', 'check']);
/** Settings whose value is a path, recorded as the daemon resolved it (against its directory). */
const PATHS = new Set(['vault']);

/** The record of a daemon parsed by `command` from `argv` (its flags and the environment taken). */
export function startRecord(command: Command, argv: readonly string[]): StartRecord {
  const startFlags: string[] = [];
  const secretVariables: string[] = [];
  const secretFlags: Record<string, string> = {};
  for (const option of command.options) {
    const key = option.attributeName();
    const source = command.getOptionValueSource(key);
    if (NOT_RECORDED.has(key) || (source !== 'cli' && source !== 'env')) continue;
    const value: unknown = command.getOptionValue(key);
    if (!isSecret(key, value)) startFlags.push(...asFlag(option, value));
    else if (option.envVar) {
      // Every secret setting has a variable: a restart takes the secret from it, however the
      // daemon was given it.
      secretVariables.push(option.envVar);
      if (source === 'cli') secretFlags[option.envVar] = option.long!;
    }
  }
  return { startFlags, secretVariables: [...new Set([...secretVariables, ...apiKeyVariables(command.opts())])], secretFlags, args: withoutSecrets(command, argv) };
}

/** The variables the OpenAI components read their key from: never a setting, always the
 *  environment's, so a restarted daemon has one only if the restarter has it. */
function apiKeyVariables(opts: Record<string, unknown>): string[] {
  const names: string[] = [];
  if (opts.embedder === 'openai') names.push((opts.embedApiKeyEnv as string | undefined) || OPENAI_DEFAULT_KEY_ENV);
  if (opts.extractor === 'openai' || opts.summarizer === 'openai') names.push((opts.extractApiKeyEnv as string | undefined) || OPENAI_DEFAULT_KEY_ENV);
  return names;
}

/** The flag (and its value, as the daemon's parser takes it back) that gives `value`. */
function asFlag(option: Option, value: unknown): string[] {
  const flag = option.long!;
  if (option.negate) return value === false ? [flag] : [];
  if (option.isBoolean()) return value === true ? [flag] : [];
  if (value === undefined || value === '') return [];
  return [flag, valueText(option.attributeName(), value)];
}

function valueText(key: string, value: unknown): string {
  if (PATHS.has(key)) return resolve(value as string);
  // --signal-weights was parsed into a weight per signal: written back as the list it came from.
  if (typeof value === 'object' && value !== null) return SIGNAL_NAMES.map((name) => (value as Weights)[name]).join(',');
  return String(value);
}
