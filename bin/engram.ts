#!/usr/bin/env node
// The `engram` command. `engram daemon ...` runs the daemon; `engram mcp` (the stdio MCP server)
// and every other command are clients of the daemon. This file only dispatches, and loads only
// the side it needs, so client/ and daemon/ stay independent and a CLI call never loads the
// daemon's code.

// `engram list x | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
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
