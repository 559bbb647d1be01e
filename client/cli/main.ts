// The `engram` command line (every command except `daemon`, which bin/engram.js routes to the
// daemon). Each command is a client of the daemon found through --data-dir's discovery file.
// Exit codes: 0 success, 1 the operation failed (daemon error, not found, unhealthy), 2 usage,
// 3 (status only) the daemon runs but cannot reach its store.
// The commands live in commands/<group>.ts; this file builds the tree and maps errors to codes.
import { Command, CommanderError, Option } from 'commander';
import { EngramError, ErrorKind } from '../../shared/errors.ts';
import { DaemonNotRunningError, DamagedDiscoveryError } from '../../shared/discovery.ts';
import { DaemonStartError } from '../daemon-control.ts';
import { refusedTokenMessage, UncertainWriteError } from '../errors.ts';
import { uncertainInCliWords } from './uncertain.ts';
import { ENGRAM_VERSION } from '../../shared/version.ts';
import { parseMinChange } from '../../shared/changes.ts';
import * as check from '../../shared/validate.ts';
import { cannotCombine, checkedFlag, requestIdRule, usage, UsageError, type Cli, type GlobalOptions } from './context.ts';
import { registerAdminCommands } from './commands/admin.ts';
import { registerCheckpointCommands } from './commands/checkpoint.ts';
import { registerCompletionCommand } from './commands/completion.ts';
import { registerDecayCommands } from './commands/decay.ts';
import { registerConsolidateCommand } from './commands/consolidate.ts';
import { registerGraphCommands } from './commands/graph.ts';
import { registerSlotCommands } from './commands/slots.ts';
import { registerRecipeCommands } from './commands/recipes.ts';
import { registerTokenCommands } from './commands/tokens.ts';
import { registerContextCommand } from './commands/context.ts';
import { registerExportCommand } from './commands/export.ts';
import { registerImportCommand } from './commands/import.ts';
import { registerLifecycleCommands } from './commands/lifecycle.ts';
import { registerMemoryCommands } from './commands/memory.ts';
import { registerInspectCommand } from './commands/inspect.ts';

const minChangeFlag = (value: string): number => {
  try {
    return parseMinChange(value);
  } catch {
    return usage(`--min-change must be a change number (a whole number ≥ 0), got "${value}"`, '--min-change');
  }
};

export function buildProgram(setExit: (code: number) => void = () => {}): Command {
  const program = new Command('engram')
    .description('Long-term memory for AI agents: a shared daemon with hybrid, explainable recall.')
    .version(ENGRAM_VERSION)
    .addOption(new Option('--data-dir <dir>', 'data directory of the daemon (default: $ENGRAM_HOME, else the nearest .engram/ above the working directory, else the per-user data directory)'))
    .addOption(new Option('--address <target>', 'daemon address instead of the discovery file (unix:/path or host:port)'))
    .addOption(new Option('--token <token>', 'bearer token for a TCP address').env('ENGRAM_TOKEN'))
    .addOption(new Option('--min-change <n>', "serve the command only once the daemon has applied this change number (a write's \"change\" in --json), so it sees that write through any daemon of a shared store").env('ENGRAM_MIN_CHANGE').argParser(minChangeFlag))
    // Every command's help lists the global options too (--data-dir, --token…): they are given
    // after the command as often as before it. Set before the commands are made, which inherit it.
    .configureHelp({ showGlobalOptions: true })
    // Usage errors are reported by reportError, one line each (not commander's text + help).
    .configureOutput({ outputError: () => {} })
    .exitOverride();
  const cli: Cli = { program, globals: (cmd) => cmd.optsWithGlobals() as GlobalOptions, setExit };

  // bin/engram.js runs these two itself when they come first; here they are for --help and
  // completion, and to say so when they do not come first.
  for (const [name, description] of [
    ['daemon', 'run the daemon (engram daemon --help for its flags)'],
    ['mcp', 'serve MCP on stdio for an agent host, as a client of the daemon (engram mcp --help for its flags)'],
    ['migrate', 'copy an embedded store into PostgreSQL: engram migrate --from DIR --to postgres://… (resumable; engram migrate --help)'],
  ] as const) {
    program
      .command(name)
      .description(description)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => usage(`"${name}" must come first: engram ${name} [flags]`));
  }
  registerMemoryCommands(cli);
  registerDecayCommands(cli);
  registerConsolidateCommand(cli);
  registerGraphCommands(cli);
  registerSlotCommands(cli);
  registerRecipeCommands(cli);
  registerContextCommand(cli);
  registerCheckpointCommands(cli);
  registerImportCommand(cli);
  registerExportCommand(cli);
  registerLifecycleCommands(cli);
  registerAdminCommands(cli);
  registerTokenCommands(cli);
  registerInspectCommand(cli);
  registerCompletionCommand(cli);
  // Subcommands (checkpoint save…) report usage errors through the same exit path, and say
  // which command they were about, so the error can point at its --help.
  const override = (cmd: Command): void => {
    cmd.exitOverride((error) => {
      throw Object.assign(error, { command: cmd });
    });
    cmd.configureOutput({ outputError: () => {} });
    cmd.commands.forEach(override);
  };
  override(program);
  // A flag's value is parsed before the action runs: the command being dispatched is the one a
  // refused value's error points at (`engram list --limit 0` → "engram list --help").
  const dispatching = (cmd: Command): void => {
    cmd.hook('preSubcommand', (_parent, sub) => {
      running = sub;
    });
    cmd.commands.forEach(dispatching);
  };
  dispatching(program);
  program.hook('preAction', (_program, action) => {
    running = action;
    checkArguments(action);
  });
  return program;
}

/** The command whose action is running (its usage errors point at its --help). */
let running: Command | undefined;

/** The rules of the arguments checked before anything is sent, by argument name: a refusal is a
 *  usage error naming the argument ("<agent>: must not be empty"), as a missing one is. */
const ARGUMENT_RULES: Readonly<Record<string, (value: string, name: string) => unknown>> = {
  agent: check.agentId,
  'request-id': requestIdRule,
};

function checkArguments(action: Command): void {
  action.registeredArguments.forEach((argument, i) => {
    const rule = ARGUMENT_RULES[argument.name()];
    const value: unknown = action.processedArgs[i];
    if (rule && typeof value === 'string') checkedFlag(argument.name(), () => rule(value, `<${argument.name()}>`));
  });
}

/** The request fields (as the library and the daemon name them) that a command's flag or
 *  argument sets. The CLI checks most flags itself (recall-flags.ts); where the rule is the
 *  daemon's to decide — top_k's maximum is its advertised limit, whether any signal weight is
 *  positive depends on its defaults, whether a slot exists is the store's — a refusal of the field
 *  is worded as the flag's or argument's, a usage error like any other. A field's group is the
 *  place inside it the refusal names: a signal of --weights, a path inside a JSON value ("--meta:
 *  a.b[0]: must be a finite number…"). */
const FIELD_NAMES: readonly { field: RegExp; flag?: string; argument?: string }[] = [
  { field: /^(?:options\.)?top_k$/, flag: '--top-k' },
  { field: /^(?:options\.)?signal_weights(?:\.(\w+))?$/, flag: '--weights' },
  { field: /^(?:options\.)?min_relevance$/, flag: '--min-relevance' },
  { field: /^(?:options\.)?(?:min_confidence|minConfidence)$/, flag: '--min-confidence' },
  { field: /^(?:options\.)?(?:confidence_weight|confidenceWeight)$/, flag: '--confidence-weight' },
  { field: /^(?:options\.)?(?:filters\.)?(?:min_decay_score|min_score)$/, flag: '--min-score' },
  { field: /^(?:options\.)?(?:filters\.)?window_days$/, flag: '--window-days' },
  { field: /^threshold$/, flag: '--threshold' },
  { field: /^duplicate_threshold$/, flag: '--duplicate-threshold' },
  { field: /^max_cluster_size$/, flag: '--max-size' },
  { field: /^vector_top_k$/, flag: '--vector-top-k' },
  { field: /^lexical_top_k$/, flag: '--lexical-top-k' },
  { field: /^graph_depth$/, flag: '--graph-depth' },
  { field: /^token_budget$/, flag: '--token-budget' },
  { field: /^token_budget$/, flag: '--budget' },
  { field: /^(?:options\.)?recipe$/, flag: '--recipe' },
  { field: /^meta(?:_json)?(?:(?:\.|(?=\[))(.+))?$/, flag: '--meta' },
  { field: /^source$/, flag: '--source' },
  { field: /^context$/, flag: '--context' },
  { field: /^context_tags\[\d+\]$/, flag: '--tag' },
  { field: /^state_json(?:(?:\.|(?=\[))(.+))?$/, flag: '--state' },
  { field: /^state_json(?:(?:\.|(?=\[))(.+))?$/, flag: '--state-file' },
  { field: /^entity$/, flag: '--entity' },
  { field: /^confidence$/, flag: '--confidence' },
  { field: /^scope$/, flag: '--scope' },
  { field: /^page_token$/, flag: '--page-token' },
  { field: /^limit$/, flag: '--limit' },
  { field: /^evidence_refs\[\d+\]$/, flag: '--evidence' },
  { field: /^auto_detect$/, flag: '--auto' },
  { field: /^label$/, flag: '--label' },
  { field: /^agent_id$/, flag: '--agent' },
  { field: /^agents(?:\[\d+\])?$/, flag: '--agent' },
  { field: /^text$/, flag: '--text' },
  { field: /^filter\.text$/, flag: '--text' },
  { field: /^(?:options\.)?(?:filters\.)?tags_any\[\d+\]$/, flag: '--tag' },
  { field: /^(?:options\.)?(?:filters\.)?tags_all\[\d+\]$/, flag: '--all-tags' },
  { field: /^tags\[\d+\]$/, flag: '--tag' },
  { field: /^stm_weight$/, flag: '--stm-weight' },
  { field: /^ltm_weight$/, flag: '--ltm-weight' },
  { field: /^entity_type$/, flag: '--type' },
  { field: /^request_id$/, flag: '--request-id' },
  { field: /^project_id$/, flag: '--project' },
  { field: /^slot_names\[\d+\]$/, flag: '--name' },
  { field: /^slot_names\[\d+\]$/, flag: '--slot' },
  { field: /^record_id$/, argument: 'record-id' },
  { field: /^id$/, argument: 'id' },
  { field: /^text$/, argument: 'text' },
  { field: /^query$/, argument: 'query' },
  { field: /^equivalents\[\d+\]$/, argument: 'equivalents' },
  { field: /^target_ids\[\d+\]$/, argument: 'fact-ids' },
  { field: /^agent_id$/, argument: 'agent' },
  { field: /^message$/, argument: 'message' },
  { field: /^(?:fact_id|memory_id)$/, argument: 'fact-id' },
  { field: /^fact_ids\[\d+\]$/, argument: 'fact-ids' },
  { field: /^term$/, argument: 'term' },
  { field: /^from_id$/, argument: 'from-id' },
  { field: /^to_id$/, argument: 'to-id' },
  { field: /^slot_value(?:(?:\.|(?=\[))(.+))?$/, argument: 'value' },
  { field: /^entity$/, argument: 'entity' },
  { field: /^(?:name|slot_name)$/, argument: 'name' },
  { field: /^cluster_id$/, argument: 'cluster-id' },
];

/** A refusal of a field that the user set through a flag or argument of the running command: a
 *  usage error naming it ("-k/--top-k: must be between 1 and 1000, got 1001"), not the request
 *  field. Other refusals (and every other door's wording) stay as the daemon said them. */
function asFlagError(error: EngramError, command: Command | undefined): Report | undefined {
  if (error.kind !== ErrorKind.InvalidArgument || !error.field || !command) return undefined;
  for (const entry of FIELD_NAMES) {
    const match = entry.field.exec(error.field);
    const name = match && (entry.flag ? givenFlag(command, entry.flag) : argumentName(command, entry.argument!));
    if (!match || !name) continue;
    const problem = error.message.startsWith(`${error.field}: `) ? error.message.slice(error.field.length + 2) : error.message;
    return { code: 2, kind: 'usage', message: `${name}: ${match[1] ? `${match[1]}: ` : ''}${problem}`, field: entry.flag ?? entry.argument!, hint: `see "${commandPath(command)} --help"` };
  }
  return undefined;
}

/** "-k/--top-k" when the user gave that flag (or its environment variable) to the command. */
function givenFlag(command: Command, flag: string): string | undefined {
  const option = command.options.find((o) => o.long === flag);
  const source = option && command.getOptionValueSource(option.attributeName());
  if (!option || (source !== 'cli' && source !== 'env')) return undefined;
  return option.short ? `${option.short}/${flag}` : flag;
}

/** "<fact-id>" or "[value]" when the command takes that argument, as its usage line shows it. */
function argumentName(command: Command, name: string): string | undefined {
  const argument = command.registeredArguments.find((a) => a.name() === name);
  if (!argument) return undefined;
  const inner = `${name}${argument.variadic ? '...' : ''}`;
  return argument.required ? `<${inner}>` : `[${inner}]`;
}

const commandPath = (cmd: Command | undefined): string => {
  const names: string[] = [];
  for (let at = cmd; at; at = at.parent ?? undefined) names.unshift(at.name());
  return names.join(' ') || 'engram';
};

/** Runs the CLI and returns the exit code (bin/engram.js sets it). */
export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = buildProgram((code) => (exitCode = code));
  // --json asks for machine-readable output, errors included (decided before parsing, so a
  // usage error of the parse itself is JSON too).
  const json = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length).includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error, json);
  }
}

interface Report {
  code: number;
  kind: string;
  message: string;
  field?: string;
  /** Text mode: shown before the message ("not_found: …") and after it ("(see … --help)"). */
  label?: string;
  hint?: string;
}

function reportError(error: unknown, json: boolean): number {
  const report = describeError(error);
  if (!report) return 0;
  if (report.code === 0) return 0;
  if (json) {
    process.stdout.write(`${JSON.stringify({ error: { kind: report.kind, message: report.message, field: report.field ?? null } }, null, 2)}\n`);
  } else if (report.message) {
    process.stderr.write(`engram: ${report.label ? `${report.label}: ` : ''}${report.message}${report.hint ? ` (${report.hint})` : ''}\n`);
  }
  return report.code;
}

/** What to say about a failure, and the exit code (undefined: nothing failed). */
function describeError(error: unknown): Report | undefined {
  if (error instanceof CommanderError) {
    // Help and version are "errors" to commander but successes to a user; help shown because a
    // command is missing (`engram`, `engram checkpoint`) is a usage error.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return undefined;
    if (error.code === 'commander.help') return { code: error.exitCode === 0 ? 0 : 2, kind: 'usage', message: '' };
    const command = (error as { command?: Command }).command ?? running;
    const said = inCliWords(error);
    const message = error.code === 'commander.unknownCommand' && command ? withSynonym(said, command) : said;
    const field = error instanceof UsageError ? error.field : /'([^' ]+)/.exec(message)?.[1];
    return { code: 2, kind: 'usage', message, ...(field ? { field } : {}), hint: `see "${commandPath(command)} --help"` };
  }
  if (error instanceof DaemonNotRunningError) return { code: 1, kind: 'unavailable', message: error.message };
  if (error instanceof DaemonStartError) return { code: error.exitCode, kind: error.exitCode === 2 ? 'usage' : 'unavailable', message: error.message };
  if (error instanceof DamagedDiscoveryError) return { code: 1, kind: 'failed_precondition', message: error.message };
  if (error instanceof EngramError) {
    const flagError = asFlagError(error, running);
    if (flagError) return flagError;
    if (error.kind === ErrorKind.Unauthenticated) return { code: 1, kind: error.kind, label: error.kind, message: refusedTokenMessage(error.message) };
    if (error instanceof UncertainWriteError) return { code: 1, kind: error.kind, label: error.kind, message: uncertainInCliWords(error) };
    return { code: 1, kind: error.kind, label: error.kind, message: error.message, ...(error.field ? { field: error.field } : {}) };
  }
  if (isFileError(error)) return { code: 1, kind: 'file', message: error.message };
  return { code: 1, kind: 'internal', message: String((error as Error)?.stack ?? error) };
}

/** A commander error's message as the CLI's own usage errors read: naming the flag first
 *  ("--status and --dry-run cannot be combined", not "option '--status' cannot be used…"). */
function inCliWords(error: CommanderError): string {
  const said = error.message.replace(/^error: /, '');
  const conflict = error.code === 'commander.conflictingOption' ? /^option '(--[\w-]+)[^']*' cannot be used with option '(--[\w-]+)[^']*'$/.exec(said) : null;
  return conflict ? cannotCombine(conflict[1]!, conflict[2]!) : said;
}

/** Words a user may type for a command that has another name here. Commander suggests commands
 *  spelt alike ("search" → "start"), which cannot know these. */
const SYNONYMS: Record<string, string> = { search: 'recall', find: 'recall', query: 'recall', lookup: 'recall', add: 'remember', put: 'remember', save: 'remember', store: 'remember', ls: 'list', rm: 'forget', remove: 'forget' };

/** An unknown command's error with the command its word means, in place of commander's guess by
 *  spelling; any other unknown command keeps commander's suggestion. */
function withSynonym(message: string, parent: Command): string {
  const word = /^unknown command '([^']+)'/.exec(message)?.[1];
  const meant = word === undefined ? undefined : parent.commands.find((c) => c.name() === SYNONYMS[word]);
  if (!meant) return message;
  return `unknown command '${word}'\n(Did you mean ${meant.name()}? ${commandPath(meant)} ${meant.usage()})`;
}

/** A file the user named could not be read or written (ENOENT, EACCES…): no stack trace. */
function isFileError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}
