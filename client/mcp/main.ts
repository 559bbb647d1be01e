// `engram mcp`: an MCP server on stdio for one agent host (Claude Code, Cursor, …), as a client
// of the shared daemon — several agents are several `engram mcp` processes and one daemon. With
// no daemon serving the data dir it starts one and says so on stderr (stdout is the protocol);
// if that daemon stops later, the next tool call starts it again. With --address it never starts
// one: while none answers there (at launch too) each call says so, and goes on once one does.
import { realpathSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Help } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { resolveDataDir } from '../../shared/discovery.ts';
import { createMcpServer } from '../../shared/mcp/server.ts';
import { isToolName, TOOL_NAMES, type ToolName } from '../../shared/mcp/tools.ts';
import { CORTEX_TOOLS, INPUT_TYPES } from '../../shared/mcp/input-schemas.ts';
import { connect } from '../client.ts';
import { agentAdvice } from './backend.ts';
import { dialedOnUse } from './dialed-backend.ts';
import { liveDiscovery, missingSecrets, missingSecretsMessage, passedOnSecrets, recordedStart, startRecorded, type RecordedStart, type StartedDaemon } from '../daemon-control.ts';
import { restoredSettings } from '../recorded-settings.ts';
import { refusedTokenMessage } from '../errors.ts';
import { EngramError, ErrorKind } from '../../shared/errors.ts';

/** The tools that take the --agent namespace when a call names none: CortexGraph's own, whose
 *  calls need not name one (the analysis tools take no namespace at all). */
const AGENT_OPTIONAL = [...CORTEX_TOOLS].filter((name) => 'agent_id' in INPUT_TYPES[name as keyof typeof INPUT_TYPES].shape);

/** Text in lines of at most `width` (commander's wrapping, as its own help uses), the lines after
 *  the first indented by `indent`. */
const wrapped = (text: string, width: number, indent: number): string => new Help().boxWrap(text, width).replaceAll('\n', `\n${' '.repeat(indent)}`);

const USAGE = `usage: engram mcp [--data-dir DIR | --address TARGET [--token TOKEN]] [--agent ID] [--tools LIST] [--print-config]

Serves Engram's memory tools over MCP on stdin/stdout, through the daemon of DIR
(default: the nearest .engram/ above the working directory, else the per-user
data directory; $ENGRAM_HOME overrides), starting that daemon if none is running,
and again when a call finds it stopped.
  --data-dir DIR     the daemon's data directory
  --address TARGET   a daemon address instead (unix:/path or host:port); never auto-started
                     (if none answers there, each call says so until one does)
  --token TOKEN      bearer token for a TCP address ($ENGRAM_TOKEN)
  --agent ID         the namespace of the tools whose agent_id is optional ($ENGRAM_AGENT,
                     default "default"):
                     ${wrapped(AGENT_OPTIONAL.join(', '), 68, 21)}
  --tools LIST       serve only these tools, comma-separated (memory_add,memory_search):
                     each tool's schemas take room in the agent's context
  --print-config     print the mcpServers entry that runs this installation (for an agent
                     host's configuration) and exit`;

const say = (message: string) => process.stderr.write(`engram mcp: ${message}\n`);

/** What a starting daemon says while a slow start gets ready, on stderr (stdout is the protocol). */
const showProgress = (line: string) => process.stderr.write(`${line}\n`);

/** The started daemon as the stderr lines name it, and how to stop it. */
const startedOne = (daemon: StartedDaemon, dataDir: string) => `pid ${daemon.pid}, log ${daemon.logPath}; engram stop --data-dir ${dataDir} stops it`;

/** What a tool call does when the daemon of DIR cannot be reached: start it again with the
 *  settings it last ran with (an HTTP door, an embedder the user chose), given as flags or as
 *  variables: a crashed daemon's discovery file still records them, a clean stop leaves them in
 *  the file of its last start (and those this session saw are the last resort). Secrets it had
 *  from variables come from this process's environment: with one unset here it is not started (it would serve with other settings, such as another
 *  store). The call then goes on only if it never left (the client never resends a write that may have reached the old daemon).
 *  Two `engram mcp` doing so at once both get the one daemon the store lock lets live. A daemon
 *  that will not start fails the call with why, and what to do. */
function restart(dataDir: string): () => Promise<void> {
  let previous: RecordedStart = recordedStart(dataDir) ?? { flags: [], secretVariables: [] };
  return async () => {
    previous = recordedStart(dataDir) ?? previous;
    const missing = missingSecrets(previous);
    if (missing.length > 0) {
      const why = missingSecretsMessage(dataDir, previous, missing);
      say(`the daemon serving ${dataDir} has stopped and was not started again: ${why}`);
      throw new EngramError(ErrorKind.Unavailable, `the Engram daemon for ${dataDir} is not running and was not started again: ${why}; set them where engram mcp runs (the agent host's configuration), or start the daemon yourself where they are set`);
    }
    const passedOn = passedOnSecrets(previous);
    if (passedOn) say(passedOn);
    let daemon;
    try {
      daemon = await startRecorded(dataDir, previous, showProgress);
    } catch (error) {
      throw new EngramError(ErrorKind.Unavailable, `the Engram daemon for ${dataDir} is not running and could not be started: ${(error as Error).message}; start it with engram start --data-dir ${dataDir}`);
    }
    const restored = restoredSettings(previous);
    if (daemon.started) say(`the daemon serving ${dataDir} had stopped; started a new one (${startedOne(daemon, dataDir)})${restored ? ` ${restored}` : ''}`);
  };
}

/** At launch, with no daemon serving DIR: starts it with the settings of its last start (a stop
 *  keeps them), so an agent's writes go to the store the directory's daemon served (its
 *  PostgreSQL database, not a new local store), or with the defaults in a new directory. With a
 *  secret it had from a variable unset here, none is started: it would serve with other settings. */
async function startAtLaunch(dataDir: string): Promise<void> {
  const previous = liveDiscovery(dataDir) ? undefined : recordedStart(dataDir);
  const missing = previous ? missingSecrets(previous) : [];
  if (missing.length > 0) {
    throw new Error(`no daemon is serving ${dataDir}, and none was started: ${missingSecretsMessage(dataDir, previous!, missing)}; set them where engram mcp runs (the agent host's configuration), or start the daemon yourself where they are set`);
  }
  const passedOn = previous && passedOnSecrets(previous);
  if (passedOn) say(passedOn);
  const daemon = await startRecorded(dataDir, previous ?? { flags: [], secretVariables: [] }, showProgress);
  const restored = previous && restoredSettings(previous);
  if (daemon.started) say(`no daemon was serving ${dataDir}; started one (${startedOne(daemon, dataDir)})${restored ? ` ${restored}` : ''}`);
}

/** With --address, engram mcp never starts a daemon: a call that cannot reach it says so. */
function neverStarted(address: string): (error: EngramError) => Promise<void> {
  return async (error) => {
    throw new EngramError(ErrorKind.Unavailable, `${error.message} engram mcp --address ${address} never starts a daemon: start it where it runs (engram start), or correct --address.`);
  };
}

/** A --tools list ("memory_add,memory_search") as tool names; an unknown one is named in the error. */
function parseToolList(text: string): ToolName[] {
  const names = text.split(',').map((n) => n.trim()).filter(Boolean);
  const unknown = names.filter((n) => !isToolName(n));
  if (names.length === 0) throw new Error('--tools must name at least one tool');
  if (unknown.length) throw new Error(`--tools: no tool named ${unknown.join(', ')} (the tools: ${TOOL_NAMES.join(', ')})`);
  return names as ToolName[];
}

/** The agent host entry that runs this very installation (absolute paths, so it works from any
 *  directory), with the flags given beside --print-config. */
function hostConfig(flags: string[]) {
  return { mcpServers: { engram: { command: process.execPath, args: [realpathSync(process.argv[1]!), 'mcp', ...flags] } } };
}

/** A line that is not JSON, or not a JSON-RPC message, gets the error JSON-RPC prescribes
 *  (-32700 / -32600, id null) instead of silence: the host learns its request was not read. The
 *  SDK's transport only reports such a line to onerror, which the protocol layer set. */
function answerUnreadableLines(transport: StdioServerTransport): void {
  const reported = transport.onerror;
  transport.onerror = (error) => {
    reported?.(error);
    const notJson = error instanceof SyntaxError;
    if (!notJson && error.name !== 'ZodError') return;
    const message = notJson ? `Parse error: ${error.message}` : 'Invalid Request: not a JSON-RPC 2.0 message';
    void transport.send({ jsonrpc: '2.0', id: null, error: { code: notJson ? ErrorCode.ParseError : ErrorCode.InvalidRequest, message } } as unknown as JSONRPCMessage);
  };
}

export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string' },
        address: { type: 'string' },
        token: { type: 'string' },
        agent: { type: 'string' },
        tools: { type: 'string' },
        'print-config': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    say(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    // Not serving, so stdout is free: help goes where `| less` reads it, as every command's does.
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }

  const defaultAgentId = values.agent ?? process.env.ENGRAM_AGENT;
  if (defaultAgentId !== undefined && defaultAgentId.trim() === '') {
    say(`--agent must name a namespace, got ${JSON.stringify(defaultAgentId)}\n${USAGE}`);
    return 2;
  }
  let tools;
  try {
    tools = values.tools === undefined ? undefined : parseToolList(values.tools);
  } catch (error) {
    say(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  // Checked before printing, so a host is never handed a config whose server refuses to start.
  if (values['print-config']) {
    process.stdout.write(`${JSON.stringify(hostConfig(argv.filter((a) => a !== '--print-config')), null, 2)}\n`);
    return 0;
  }
  const dataDir = resolveDataDir(values['data-dir']);
  const { address } = values;
  // A call that finds the daemon gone (stopped, crashed) is answered at once: here it starts
  // again, as at launch; with --address, which never starts one, the call says what to do.
  const onUnreachable = address ? neverStarted(address) : restart(dataDir);
  const daemon = dialedOnUse(() => connect({ dataDir, address, token: values.token ?? process.env.ENGRAM_TOKEN, clientName: 'engram-mcp', onUnreachable }));
  try {
    if (!address) await startAtLaunch(dataDir);
    await daemon.connect();
  } catch (error) {
    // With --address the daemon may be started later, elsewhere: the session opens anyway (an
    // agent host shows a server that exits now only as "disconnected") and each call says why
    // it fails until the daemon is there. Anything else (a refused token, a daemon that would not
    // start) needs the user, and ends it here.
    const notThereYet = address && error instanceof EngramError && error.kind === ErrorKind.Unavailable;
    if (notThereYet) {
      say(`${error.message.replace(/\.$/, '')}; the tools are served, and each call fails saying so until it is reachable`);
    } else {
      // A refused token means the daemon was reached: the token is what to fix.
      const refused = error instanceof EngramError && error.kind === ErrorKind.Unauthenticated;
      say(refused ? refusedTokenMessage(error.message) : `cannot reach the daemon: ${(error as Error).message}`);
      return 1;
    }
  }

  const { server, settled } = createMcpServer(daemon.backend, {
    forAgent: agentAdvice,
    ...(defaultAgentId ? { defaultAgentId } : {}),
    ...(tools ? { tools } : {}),
    onUnexpectedError: (tool, error) => say(`unexpected error in ${tool}: ${(error as Error)?.stack ?? error}`),
  });
  // The session ends when the host closes our stdin. Calls it sent before that still get their
  // answers (a host may write requests and close at once); then the daemon connection goes.
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  const transport = new StdioServerTransport();
  await server.connect(transport);
  answerUnreadableLines(transport);
  await ended;
  await settled();
  await new Promise((resolve) => setImmediate(resolve));
  await server.close();
  daemon.close();
  return 0;
}
