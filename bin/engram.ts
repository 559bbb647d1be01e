#!/usr/bin/env node
// The `engram` command. `engram daemon ...` runs the daemon; `engram mcp` (the stdio MCP server)
// and every other command are clients of the daemon. This file only dispatches, and loads only
// the side it needs, so client/ and daemon/ stay independent and a CLI call never loads the
// daemon's code.

import { getSystemErrorMap } from 'node:util';

// `engram list x | head` closes the pipe early: that is the reader's choice, not an error. Any
// other failed write of the output (a full disk, > /dev/full) fails the command in one line, for
// every command at once: it is not a bug of the command, so no stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  process.stderr.write(`engram: cannot write to standard output: ${systemErrorText(error)}\n`);
  process.exit(1);
});

/** "no space left on device (ENOSPC)": the system's words for an error, without Node's call. */
function systemErrorText(error: NodeJS.ErrnoException): string {
  const words = error.errno === undefined ? undefined : getSystemErrorMap().get(error.errno)?.[1];
  return words && error.code ? `${words} (${error.code})` : error.message;
}
const argv = process.argv.slice(2);
const [command, ...rest] = argv;

/** The command word, after any global options (`engram --data-dir D doctor --repair`). */
function commandWord(args: string[]): string | undefined {
  const takesValue = new Set(['--data-dir', '--address', '--token']);
  for (let i = 0; i < args.length; i++) {
    if (takesValue.has(args[i]!)) i++;
    else if (!args[i]!.startsWith('-')) return args[i];
  }
  return undefined;
}
if (command === 'daemon') {
  const { main } = await import('../daemon/main.ts');
  await main(rest);
} else if (commandWord(argv) === 'doctor' && argv.includes('--repair')) {
  // Offline repair of the store itself: daemon-side code, run with no daemon.
  const { main } = await import('../daemon/repair.ts');
  process.exitCode = await main(argv);
} else if (commandWord(argv) === 'migrate') {
  // Copies a store into PostgreSQL: daemon-side code, run with the source daemon stopped.
  const { main } = await import('../daemon/migrate.ts');
  process.exitCode = await main(argv);
} else if (command === 'mcp') {
  const { main } = await import('../client/mcp/main.ts');
  process.exitCode = await main(rest);
} else {
  const { main } = await import('../client/cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
}
