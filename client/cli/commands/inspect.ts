// engram inspect: the link to the daemon's web inspector. The link carries a one-time ticket
// (good for a minute), so opening it signs the browser in without typing the token.
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { isAgentToken } from '../../../shared/agent-token.ts';
import { Capability } from '../../../shared/capabilities.ts';
import { describeChoice, locateDataDir, readDiscovery } from '../../../shared/discovery.ts';
import { EngramError, ErrorKind } from '../../../shared/errors.ts';
import { out, printJson, withClient, type Cli } from '../context.ts';

export function registerInspectCommand({ program, globals }: Cli): void {
  program
    .command('inspect')
    .description("print a link to the daemon's web inspector (needs a daemon started with --http); --open opens it in the browser")
    .option('--open', 'also open it in the default browser')
    .option('--json', 'print JSON')
    .action(async (o: { open?: boolean; json?: boolean }, cmd: Command) => {
      const opts = globals(cmd);
      if (opts.address) throw new EngramError(ErrorKind.InvalidArgument, 'engram inspect finds the HTTP address in the data directory\'s discovery file: give --data-dir (or run it on the daemon\'s machine), not --address', 'address');
      const choice = locateDataDir(opts.dataDir);
      const discovery = readDiscovery(choice.dir, describeChoice(choice));
      const { daemonVersion, capabilities } = await withClient(opts, (c) => c.hello());
      if (!capabilities.includes(Capability.Inspector)) {
        throw new EngramError(ErrorKind.FailedPrecondition, `the daemon (engram ${daemonVersion}) has no web inspector: upgrade it, or start it without --compat`, 'inspect');
      }
      if (!discovery.httpAddress) {
        throw new EngramError(ErrorKind.FailedPrecondition, `the daemon serving ${choice.dir} serves no HTTP: start it with --http, e.g. engram restart --http 127.0.0.1:7878`, 'http');
      }
      // A daemon listening on every address is reached, from here, on loopback.
      const base = `http://${discovery.httpAddress.replace(/^0\.0\.0\.0:/, '127.0.0.1:').replace(/^\[::\]:/, '[::1]:')}`;
      const link = `${base}${await ticketPath(base, opts.token ?? discovery.token)}`;
      if (o.json) printJson({ url: link, expires_in_seconds: 60 });
      else out(`${link}\n(the link signs a browser in once, within a minute; later, sign in with ${laterToken(opts.token, choice.dir)})`);
      if (o.open) openInBrowser(link);
    });
}

/** The token to sign in with once the ticket is spent: the one the command was given, whose
 *  view the link opened (an agent token's is only its namespaces), else the daemon's own. */
function laterToken(given: string | undefined, dataDir: string): string {
  if (given === undefined) return `the token in ${dataDir}/token`;
  if (isAgentToken(given)) return 'the agent token given to this command (ENGRAM_TOKEN or --token), which shows only the namespaces it may read';
  return 'the token given to this command (ENGRAM_TOKEN or --token)';
}

async function ticketPath(base: string, token: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${base}/inspector/tickets`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    throw new EngramError(ErrorKind.Unavailable, `cannot reach the daemon's HTTP server at ${base}: ${(error as Error).message}`, 'http');
  }
  const body = (await response.json().catch(() => ({}))) as { path?: string; error?: { message?: string } };
  if (!response.ok || !body.path) throw new EngramError(ErrorKind.FailedPrecondition, `the daemon refused an inspector ticket (${response.status}): ${body.error?.message ?? 'no answer'}`, 'inspect');
  return body.path;
}

function openInBrowser(link: string): void {
  const [command, ...args] = process.platform === 'darwin' ? ['open'] : process.platform === 'win32' ? ['cmd', '/c', 'start', '""'] : ['xdg-open'];
  const child = spawn(command!, [...args, link], { stdio: 'ignore', detached: true });
  child.on('error', () => process.stderr.write(`engram: could not start ${command} to open the browser; open the link above yourself\n`));
  child.unref();
}
