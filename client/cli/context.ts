// What every command group of the CLI shares: the global options, output helpers, usage errors
// (exit 2) and a client that is always closed.
import { CommanderError, type Command } from 'commander';
import { connect, type EngramClient } from '../client.ts';
import { checkServing, readDiscovery, resolveDataDir } from '../../shared/discovery.ts';
import * as check from '../../shared/validate.ts';
import { invalidArgument } from '../../shared/errors.ts';

export interface GlobalOptions {
  dataDir?: string;
  address?: string;
  token?: string;
  json?: boolean;
  /** Serve the command only once this change is applied (read-your-writes across daemons). */
  minChange?: number;
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

/** A usage error: exit code 2, one line on stderr (or JSON with --json) and a pointer to --help. */
export class UsageError extends CommanderError {
  constructor(
    message: string,
    /** The argument or flag at fault ("--top-k", "agent"). */
    readonly field?: string,
  ) {
    super(2, 'engram.usage', message);
  }
}

export function usage(message: string, field?: string): never {
  throw new UsageError(message, field ?? /^(--[a-z-]+)/.exec(message)?.[1]);
}

/** Two flags a command cannot take together, as every such refusal words it (commander's
 *  Option.conflicts() refusals are worded so too, in main.ts). */
export const cannotCombine = (flag: string, other: string): string => `${flag} and ${other} cannot be combined`;

/** A repeatable single-value option (--tag a --tag b), so a value never swallows the positional
 *  arguments after it the way a variadic option would. */
export const repeatable = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** A flag's value that must be a plain decimal number (its range is the field's rule). */
export function numberFlag(value: string, flag: string): number {
  const n = check.decimal(value);
  if (n === undefined) usage(`${flag} must be a number, got "${value}"`, flag);
  return n;
}

export function positiveInt(name: string) {
  return (value: string): number => {
    const n = check.decimal(value);
    if (n === undefined || !Number.isInteger(n) || n < 1) usage(`${name} must be a positive integer, got "${value}"`);
    return n;
  };
}

/** A flag's value put through the shared rule for its field: a refusal is a usage error (exit 2)
 *  naming the flag, before anything is sent. */
export function checkedFlag<T>(flag: string, rule: () => T): T {
  try {
    return rule();
  } catch (error) {
    return usage((error as Error).message, flag);
  }
}

/** A request id the user gives (write-status's argument, --request-id): the library's rule, and
 *  not empty. Worded for the command line: the library's advice for "" (leave it out and one is
 *  made) fits neither a question about a write nor a resend. */
export function requestIdRule(value: string, name: string): string {
  if (value === '') throw invalidArgument(name, 'must not be empty: a request id names one write (such as the one an "outcome unknown" error printed)');
  return check.requestId(value, name);
}

export const confidenceFlag = (value: string, flag: string): check.ConfidenceLabel => checkedFlag(flag, () => check.confidenceLabel(value, flag));

export const parseTime = (value: string, flag: string): number => checkedFlag(flag, () => check.typedTimeMs(value, flag));

/** Opens a client for one command and always closes it. */
export async function withClient<T>(opts: GlobalOptions, work: (client: EngramClient) => Promise<T>): Promise<T> {
  // The discovery file is read here, once: a person waiting on a command is told at once that a
  // crashed daemon left its files behind, where the library's connect() can only say that
  // nothing answers at the address.
  if (opts.address !== undefined) checkedFlag('--address', () => check.dialAddress(opts.address, '--address'));
  const dataDir = resolveDataDir(opts.dataDir);
  const discovery = opts.address ? undefined : readDiscovery(dataDir);
  if (discovery) await checkServing(dataDir, discovery);
  const client = await connect({
    address: opts.address ?? discovery!.address,
    token: opts.token ?? discovery?.token,
    clientName: 'engram-cli',
    timeoutMs: 10_000,
    ...(opts.minChange ? { minChange: opts.minChange } : {}),
  });
  try {
    return await work(client);
  } finally {
    client.close();
  }
}
