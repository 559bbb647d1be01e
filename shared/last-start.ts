// The settings of a data dir's last start, kept after the daemon stops. The discovery file holds
// them too, but a clean stop removes it: without this file `engram restart`, `engram start` and
// `engram mcp` would bring the daemon back with the defaults after a stop (a LevelDB store in
// place of its PostgreSQL database, no HTTP door), and a daemon started with the default store
// could not tell that the directory's memory is in a database. Written by the daemon once it
// serves, read by the client and by the next daemon; it never holds a secret.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LastStart {
  /** The discovery file's startFlags: the settings as flags (start-record.ts). */
  startFlags: string[];
  /** The discovery file's secretVariables: where the secrets came from, never their values. */
  secretVariables: string[];
  /** The discovery file's secretFlags: the flag each secret variable stands for, if one gave it. */
  secretFlags?: Record<string, string>;
  /** The PostgreSQL store it served, its password masked; absent for the embedded store. */
  postgresStore?: string;
}

export const lastStartPath = (dataDir: string): string => join(dataDir, 'last-start.json');

/** The file of DIR's last start; undefined without one, or with one that cannot be read (a file
 *  that says nothing certain is no reason to refuse a start or to restore settings). */
export function readLastStart(dataDir: string): LastStart | undefined {
  try {
    const value = JSON.parse(readFileSync(lastStartPath(dataDir), 'utf8')) as Partial<LastStart>;
    if (!isStringList(value.startFlags)) return undefined;
    return {
      startFlags: value.startFlags,
      secretVariables: isStringList(value.secretVariables) ? value.secretVariables : [],
      ...(isStringMap(value.secretFlags) ? { secretFlags: value.secretFlags } : {}),
      ...(typeof value.postgresStore === 'string' ? { postgresStore: value.postgresStore } : {}),
    };
  } catch {
    return undefined;
  }
}

const isStringMap = (value: unknown): value is Record<string, string> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((item) => typeof item === 'string');

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');
