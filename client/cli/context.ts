// What every command group of the CLI shares: the global options, output helpers, usage errors
// (exit 2) and a client that is always closed.
import { CommanderError, type Command } from 'commander';
import { connect, type EngramClient } from '../client.ts';
import { resolveDataDir } from '../../shared/discovery.ts';

export interface GlobalOptions {
  dataDir?: string;
  address?: string;
  token?: string;
  json?: boolean;
}

/** Handed to each command group's register function. */
export interface Cli {
  program: Command;
  /** The command's options merged with the global ones. */
  globals(cmd: Command): GlobalOptions;
  /** The exit code once the command returns (the operation ran but failed in part). */
  setExit(code: number): void;
}

export const out = (text: string): void => {
  process.stdout.write(`${text}\n`);
};
export const printJson = (value: unknown): void => out(JSON.stringify(value, null, 2));

/** A usage error: exit code 2, the message on stderr. */
export function usage(message: string): never {
  throw new CommanderError(2, 'engram.usage', message);
}

export function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) usage(`${name} must be a positive integer, got "${value}"`);
    return n;
  };
}

export function parseTime(value: string, flag: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) usage(`${flag} must be a date/time like 2024-05-08T13:56:00Z, got "${value}"`);
  return ms;
}

/** Opens a client for one command and always closes it. */
export async function withClient<T>(opts: GlobalOptions, work: (client: EngramClient) => Promise<T>): Promise<T> {
  const client = await connect({
    dataDir: resolveDataDir(opts.dataDir),
    address: opts.address,
    token: opts.token,
    clientName: 'engram-cli',
    timeoutMs: 10_000,
  });
  try {
    return await work(client);
  } finally {
    client.close();
  }
}
