// Agent tokens from the command line: `engram token create|list|revoke`. Making, listing and
// revoking need the whole daemon (the local socket or the daemon's own token).
import type { Command } from 'commander';
import { RIGHTS, type Right, type TokenInfo } from '../../../shared/model.ts';
import { out, printJson, repeatable, usage, withClient, type Cli } from '../context.ts';
import { tokenJson } from '../json.ts';

/** "read,write" → the rights; "none" → no rights (for --shared). */
const rightsList = (flag: string) => (value: string): Right[] => {
  if (value.trim() === 'none') return [];
  const names = value.split(',').map((r) => r.trim());
  for (const name of names) if (!RIGHTS.includes(name as Right)) usage(`${flag}: "${name}" is not a right; rights are ${RIGHTS.join(', ')}${flag === '--shared' ? ', or none' : ''}`, flag);
  return names as Right[];
};

const line = (t: TokenInfo): string =>
  `${t.id}  ${t.revokedAt ? 'revoked' : 'live   '}  agents ${t.agents.join(',')}  rights ${t.rights.join(',')}  shared ${t.shared.join(',') || 'none'}${t.label ? `  "${t.label}"` : ''}`;

export function registerTokenCommands({ program, globals }: Cli): void {
  const group = program.command('token').description('agent tokens: bearer tokens that open only some namespaces');

  group
    .command('create')
    .description('make a token for one or more agent namespaces and print it (shown only once)')
    .requiredOption('--agent <name>', 'a namespace the token opens (repeat for more)', repeatable)
    .option('--rights <list>', `rights there: ${RIGHTS.join(',')}`, rightsList('--rights'), ['read', 'write'] as Right[])
    .option('--shared <list>', 'rights on the shared namespace, slots and recipes, or none', rightsList('--shared'), ['read'] as Right[])
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
