// The flags of a bench script: --help prints its usage, and a flag it does not know, a flag
// without its value or a number that is not one is one line naming the flag (exit 2), not a
// stack trace.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Exits 2 with one line about `script`'s arguments. */
export function badArgument(script: string, message: string): never {
  process.stderr.write(`${script}: ${message} (see --help)\n`);
  process.exit(2);
}

/** Parses the command line of `script` ("bench:import"); `usage` is what --help prints. */
export function benchArgs<O extends Options>(script: string, usage: string, options: O) {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`usage: npm run ${script} -- ${usage}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ args, options });
  } catch (error) {
    return badArgument(script, (error as Error).message.split('\n')[0]!);
  }
}

/** A whole number of at least 1 given to `flag`. */
export function positiveInt(script: string, flag: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < 1) badArgument(script, `--${flag} must be a whole number of 1 or more, got ${JSON.stringify(value)}`);
  return n;
}

/** The embedders a bench daemon runs with: the offline default, and none (keyword and recency only). */
export const BENCH_EMBEDDERS = ['local', 'none'] as const;
export type BenchEmbedder = (typeof BENCH_EMBEDDERS)[number];

/** An embedder given to `flag`, one of BENCH_EMBEDDERS. */
export function embedderArg(script: string, flag: string, value: string): BenchEmbedder {
  if (!(BENCH_EMBEDDERS as readonly string[]).includes(value)) badArgument(script, `--${flag} takes ${BENCH_EMBEDDERS.join(' or ')}, got ${JSON.stringify(value)}`);
  return value as BenchEmbedder;
}
