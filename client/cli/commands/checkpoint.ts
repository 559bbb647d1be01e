// `engram checkpoint save|resume|list`: an agent's working state (a JSON object), saved and
// resumed through the daemon's CheckpointService. The --json shapes are MCP's checkpoint payloads.
import { Option, type Command } from 'commander';
import { noCheckpoint } from '../../../shared/errors.ts';
import type { Checkpoint } from '../../types.ts';
import { out, printJson, usage, withClient, type Cli } from '../context.ts';
import { checkpointJson, checkpointSavedJson } from '../json.ts';
import { readNamedText } from '../io/read-file.ts';
import { parseJsonObject } from '../../../shared/validate.ts';
import { counted } from '../../../shared/counted.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** The state flags → a JSON object (a usage error when it is not one, or not given: a save
 *  with no state is more likely a forgotten flag than a wish to save {}). */
function readState(o: { state?: string; stateFile?: string }): Record<string, unknown> {
  if (o.state !== undefined && o.stateFile !== undefined) usage('give --state or --state-file, not both', '--state');
  if (o.state === undefined && o.stateFile === undefined) usage("--state is required: a JSON object, \"-\" for stdin, or --state-file FILE (--state '{}' saves an empty state)", '--state');
  // An empty --state is the empty state, as an empty state is on every other door (MCP's "",
  // REST's omitted state, the library's checkpointSave(agent, "")). An empty file or stdin is
  // not: that is more likely a producer that failed than a wish to save {}.
  if (o.state === '') return {};
  let text = o.state;
  let from = '--state';
  if (o.stateFile !== undefined || o.state === '-') {
    const file = o.stateFile ?? '-';
    from = o.stateFile !== undefined ? `--state-file ${file}` : '--state - (stdin)';
    // Not a usage error: the flag is fine, the file is not readable (exit 1).
    text = readNamedText(file, 'nothing was saved', from, '--state');
  }
  const parsed = parseJsonObject(text!);
  if ('syntax' in parsed) usage(`${from} must be a JSON object: ${parsed.syntax}`, '--state');
  if ('got' in parsed) usage(`${from} must be a JSON object, got ${parsed.got}`, '--state');
  return parsed.object;
}

function printCheckpoint(c: Checkpoint): void {
  const messages = c.messageCount !== undefined ? `, ${c.messageCount} messages` : '';
  out(`checkpoint ${c.id} of "${c.agentId}", saved ${iso(c.createdAt)}${messages}`);
  out(JSON.stringify(c.state, null, 2));
}

export function registerCheckpointCommands({ program, globals }: Cli): void {
  const group = program
    .command('checkpoint')
    .description("save and resume an agent's working state (a JSON object)");

  group
    .command('save')
    .description('save a checkpoint (the daemon keeps the newest ones per agent)')
    .argument('<agent>', 'agent id (namespace)')
    .option('--state <json>', 'the state, a JSON object ("-" reads it from stdin; "" saves an empty state)')
    .option('--state-file <file>', 'read the state from a file ("-" for stdin)')
    .option('--json', 'print JSON')
    .action(async (agent: string, o, cmd: Command) => {
      const opts = globals(cmd);
      const state = readState(o);
      const saved = await withClient(opts, (c) => c.checkpointSave(agent, state));
      if (opts.json) printJson(checkpointSavedJson(saved));
      else out(`saved checkpoint ${saved.id} for "${saved.agentId}"`);
    });

  group
    .command('resume')
    .description("print the agent's latest checkpoint")
    .argument('<agent>', 'agent id (namespace)')
    .addOption(new Option('--on-missing <mode>', 'no checkpoint: "error" (exit 1) or "empty" ({"found": false})').choices(['error', 'empty']).default('error'))
    .option('--json', 'print JSON')
    .action(async (agent: string, o, cmd: Command) => {
      const opts = globals(cmd);
      const latest = await withClient(opts, (c) => c.checkpointResume(agent));
      if (!latest) {
        if (o.onMissing === 'error') throw noCheckpoint(agent);
        if (opts.json) printJson({ found: false, agent_id: agent });
        else out(`no checkpoint for agent "${agent}"`);
        return;
      }
      if (opts.json) printJson(checkpointJson(latest));
      else printCheckpoint(latest);
    });

  group
    .command('list')
    .description("the agent's checkpoints, newest first")
    .argument('<agent>', 'agent id (namespace)')
    .option('--json', 'print JSON')
    .action(async (agent: string, _o, cmd: Command) => {
      const opts = globals(cmd);
      const checkpoints = await withClient(opts, (c) => c.checkpointList(agent));
      if (opts.json) {
        printJson({ agent_id: agent, count: checkpoints.length, checkpoints: checkpoints.map(checkpointJson) });
        return;
      }
      if (checkpoints.length === 0) out(`no checkpoint for agent "${agent}"`);
      for (const c of checkpoints) {
        const keys = Object.keys(c.state).length;
        out(`${c.id}  ${iso(c.createdAt)}  ${counted(keys, 'key')}${c.messageCount !== undefined ? `, ${c.messageCount} messages` : ''}`);
      }
    });
}
