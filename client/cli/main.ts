// The `engram` command line (every command except `daemon`, which bin/engram.js routes to the
// daemon). Each command is a client of the daemon found through --data-dir's discovery file.
// Exit codes: 0 success, 1 the operation failed (daemon error, not found, unhealthy), 2 usage.
// The commands live in commands/<group>.ts; this file builds the tree and maps errors to codes.
import { Command, CommanderError, Option } from 'commander';
import { EngramError } from '../../shared/errors.ts';
import { DaemonNotRunningError } from '../../shared/discovery.ts';
import { ENGRAM_VERSION } from '../../shared/version.ts';
import { usage, type Cli, type GlobalOptions } from './context.ts';
import { registerAdminCommands } from './commands/admin.ts';
import { registerCheckpointCommands } from './commands/checkpoint.ts';
import { registerCompletionCommand } from './commands/completion.ts';
import { registerExportCommand } from './commands/export.ts';
import { registerImportCommand } from './commands/import.ts';
import { registerLifecycleCommands } from './commands/lifecycle.ts';
import { registerMemoryCommands } from './commands/memory.ts';

export function buildProgram(setExit: (code: number) => void = () => {}): Command {
  const program = new Command('engram')
    .description('Long-term memory for AI agents: a shared daemon with hybrid, explainable recall.')
    .version(ENGRAM_VERSION)
    .addOption(new Option('--data-dir <dir>', 'data directory of the daemon (default: $ENGRAM_HOME, else the nearest .engram/ above the working directory, else the per-user data directory)'))
    .addOption(new Option('--address <target>', 'daemon address instead of the discovery file (unix:/path or host:port)'))
    .addOption(new Option('--token <token>', 'bearer token for a TCP address').env('ENGRAM_TOKEN'))
    .showHelpAfterError()
    .exitOverride();
  const cli: Cli = { program, globals: (cmd) => cmd.optsWithGlobals() as GlobalOptions, setExit };

  // bin/engram.js runs these two itself when they come first; here they are for --help and
  // completion, and to say so when they do not come first.
  for (const [name, description] of [
    ['daemon', 'run the daemon (engram daemon --help for its flags)'],
    ['mcp', 'serve MCP on stdio for an agent host, as a client of the daemon (engram mcp --help for its flags)'],
  ] as const) {
    program
      .command(name)
      .description(description)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => usage(`"${name}" must come first: engram ${name} [flags]`));
  }
  registerMemoryCommands(cli);
  registerCheckpointCommands(cli);
  registerImportCommand(cli);
  registerExportCommand(cli);
  registerLifecycleCommands(cli);
  registerAdminCommands(cli);
  registerCompletionCommand(cli);
  // Subcommands (checkpoint save…) report usage errors through the same exit path.
  const override = (cmd: Command): void => {
    cmd.exitOverride();
    cmd.commands.forEach(override);
  };
  override(program);
  return program;
}

/** Runs the CLI and returns the exit code (bin/engram.js sets it). */
export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = buildProgram((code) => (exitCode = code));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // Help and version are "errors" to commander but successes to a user; help shown because a
    // command is missing (`engram`, `engram checkpoint`) is a usage error.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    if (error.code === 'commander.help') return error.exitCode === 0 ? 0 : 2;
    if (error.code === 'engram.usage') process.stderr.write(`engram: ${error.message}\n`);
    return 2;
  }
  if (error instanceof DaemonNotRunningError) {
    process.stderr.write(`engram: ${error.message}\n`);
    return 1;
  }
  if (error instanceof EngramError) {
    process.stderr.write(`engram: ${error.kind}: ${error.message}\n`);
    return 1;
  }
  if (isFileError(error)) {
    process.stderr.write(`engram: ${error.message}\n`);
    return 1;
  }
  process.stderr.write(`engram: ${(error as Error)?.stack ?? error}\n`);
  return 1;
}

/** A file the user named could not be read or written (ENOENT, EACCES…): no stack trace. */
function isFileError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}
