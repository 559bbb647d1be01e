// Agent tokens from the command line: `engram token create|list|revoke`. Making, listing and
// revoking need the whole daemon (the local socket or the daemon's own token).
import { Option, type Command } from 'commander';
import { RIGHTS, type Right, type TokenInfo } from '../../../shared/model.ts';
import * as check from '../../../shared/validate.ts';
import { checkedFlag, out, printJson, repeatable, usage, withClient, type Cli } from '../context.ts';
import { tokenJson } from '../json.ts';

/** What a token grants when --rights or --shared is left out (as the daemon's defaults). */
const DEFAULT_RIGHTS: Right[] = ['read', 'write'];
const DEFAULT_SHARED: Right[] = ['read'];

/** "read,write" → the rights; "none" → no rights (for --shared). */
const rightsList = (flag: string) => (value: string): Right[] => {
  if (value.trim() === 'none') return [];
  const names = value.split(',').map((r) => r.trim());
  for (const name of names) if (!RIGHTS.includes(name as Right)) usage(`${flag}: "${name}" is not a right; rights are ${RIGHTS.join(', ')}${flag === '--shared' ? ', or none' : ''}`, flag);
  return names as Right[];
};

/** A namespace the token opens: an agent id, and not the shared namespace, whose rights --shared
 *  gives (the daemon's refusal names its request fields, agents and shared). */
const agentFlag = (value: string, previous: string[] | undefined): string[] => {
  checkedFlag('--agent', () => check.agentId(value, '--agent'));
  if (value === check.SHARED_AGENT_ID) usage(`--agent: ${check.SHARED_AGENT_ID} is the shared namespace: give its rights with --shared`, '--agent');
  return repeatable(value, previous);
};

/** A list of rights as a user types it, for the defaults --help shows. */
const typed = (rights: readonly Right[]): string => rights.join(',');

const line = (t: TokenInfo): string =>
  `${t.id}  ${t.revokedAt ? 'revoked' : 'live   '}  agents ${t.agents.join(',')}  rights ${t.rights.join(',')}  shared ${t.shared.join(',') || 'none'}${t.label ? `  "${t.label}"` : ''}`;

export function registerTokenCommands({ program, globals }: Cli): void {
  const group = program.command('token').description('agent tokens: bearer tokens that open only some namespaces');

  group
    .command('create')
    .description('make a token for one or more agent namespaces and print it (shown only once)')
    .requiredOption('--agent <name>', 'a namespace the token opens (repeat for more)', agentFlag)
    .addOption(new Option('--rights <list>', `rights there: ${typed(RIGHTS)}`).argParser(rightsList('--rights')).default(DEFAULT_RIGHTS, typed(DEFAULT_RIGHTS)))
    .addOption(new Option('--shared <list>', 'rights on the shared namespace, slots and recipes, or none').argParser(rightsList('--shared')).default(DEFAULT_SHARED, typed(DEFAULT_SHARED)))
    .option('--label <text>', 'a note to tell tokens apart in the list')
    .option('--json', 'print JSON')
    .action(async (o: { agent: string[]; rights: Right[]; shared: Right[]; label?: string }, cmd: Command) => {
      const opts = globals(cmd);
      const { token, info } = await withClient(opts, (c) => c.createToken({ agents: o.agent, rights: o.rights, shared: o.shared, ...(o.label ? { label: o.label } : {}) }));
      if (opts.json) return printJson({ token, info: tokenJson(info) });
      out(token);
      process.stderr.write(`token ${info.id}: agents ${info.agents.join(', ')} (${info.rights.join(', ')}), shared ${info.shared.join(', ') || 'none'}. Give it to the agent as ENGRAM_TOKEN or --token; it is not shown again.\n`);
    });

  group
    .command('list')
    .description('every token made, live and revoked (never their secrets)')
    .option('--json', 'print JSON')
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      const tokens = await withClient(opts, (c) => c.listTokens());
      if (opts.json) return printJson({ tokens: tokens.map(tokenJson) });
      out(tokens.length ? tokens.map(line).join('\n') : 'No agent tokens yet (engram token create --agent NAME).');
    });

  group
    .command('revoke')
    .description('revoke a token: the next call presenting it is refused')
    .argument('<id>', 'the token id (engram token list)')
    .option('--json', 'print JSON')
    .action(async (id: string, _o, cmd: Command) => {
      const opts = globals(cmd);
      if (id.trim() === '') usage('<id>: must name a token (engram token list shows their ids)', 'id');
      // Every door answers a repeated revocation as the first (the token, with its first
      // revoked_at), so the state before the call tells which this was.
      const { before, info } = await withClient(opts, async (c) => {
        const before = (await c.listTokens()).find((t) => t.id === id);
        return { before, info: await c.revokeToken(id) };
      });
      if (opts.json) printJson({ token: tokenJson(info) });
      else if (before?.revokedAt) out(`${info.id} was already revoked (at ${new Date(info.revokedAt).toISOString()}); nothing changed`);
      else out(`revoked ${info.id}`);
    });
}
