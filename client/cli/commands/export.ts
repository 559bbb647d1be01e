// `engram export <agent>`: every fact of a namespace, retired ones included, oldest first.
// JSONL (a fact's whole record per line — `engram import` reads it back) to a file or stdout, or
// a markdown/Obsidian vault in a directory (see shared/markdown/notes.ts).
import { accessSync, constants, createWriteStream, existsSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, type WriteStream } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { makeDirectory } from '../../../shared/make-directory.ts';
import { EngramError, ErrorKind } from '../../../shared/errors.ts';
import { once } from 'node:events';
import { Option, type Command } from 'commander';
import type { EngramClient } from '../../client.ts';
import type { Fact } from '../../types.ts';
import { out, printJson, usage, withClient, type Cli } from '../context.ts';
import { factJson } from '../json.ts';
import { factNote, indexNote, noteAgentId, type IndexEntry } from '../../../shared/markdown/notes.ts';
import { ProgressBar } from '../../../shared/progress-bar.ts';
import { counted } from '../../../shared/counted.ts';
import { exitCodeOf, onInterrupt } from '../interrupt.ts';

/** One export line: the --json fact shape plus the embedder that made its vector. */
export const exportLine = (f: Fact) => JSON.stringify({ ...factJson(f), embedder: f.embedder ?? null });

/** The namespace's facts, once it is known to have one. An agent with none (most often a misspelt
 *  name in a backup script) is refused before anything is written: an earlier export at --out is
 *  never replaced by an empty one, and stdout gets nothing a script could take for a backup. */
async function factsOf(c: EngramClient, agent: string, out: string | undefined): Promise<AsyncIterable<Fact>> {
  const facts = c.listAll(agent);
  const first = await facts.next();
  if (first.done) {
    const kept = out !== undefined && existsSync(out) ? `; ${out} was left as it was` : '';
    throw new EngramError(ErrorKind.NotFound, `"${agent}" has no facts, so nothing was exported${kept} (engram agents lists the agents that have)`, 'agent');
  }
  return (async function* () {
    yield first.value;
    yield* facts;
  })();
}

/** What an export wrote: every record, of which `aliases` are alias records. */
interface Exported {
  count: number;
  aliases: number;
}

/** Visits every record. The progress counts facts as `engram stats` does (alias records are word
 *  mappings, not memories, and stats leaves them out), so it ends at the total it showed. */
async function each(c: EngramClient, agent: string, facts: AsyncIterable<Fact>, bar: ProgressBar, visit: (f: Fact) => Promise<void> | void): Promise<Exported> {
  const total = (await c.stats(agent)).factCount;
  let count = 0;
  let aliases = 0;
  for await (const fact of facts) {
    await visit(fact);
    count++;
    if (fact.kind === 'alias') aliases++;
    else bar.update('export', count - aliases, Math.max(total, count - aliases));
  }
  bar.done();
  return { count, aliases };
}

async function writeTo(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

/** JSONL to a file (written aside, then renamed: an interrupted export leaves no half file) or stdout. */
async function exportJsonl(c: EngramClient, agent: string, path: string | undefined, bar: ProgressBar): Promise<Exported> {
  if (!path) {
    // A failed write (EPIPE of `engram export a | head`, a full disk) is bin/engram.ts's to report.
    return each(c, agent, await factsOf(c, agent, path), bar, (f) => writeTo(process.stdout, `${exportLine(f)}\n`));
  }
  // Checked first: the rename at the end could not replace a directory, after the whole export.
  if (outChecked(() => statSync(path, { throwIfNoEntry: false }), path)?.isDirectory()) usage(`--out: ${path} is a directory; name a file inside it, or use --format markdown to write a note per fact there`, '--out');
  refuseUnwritable(path, false);
  const facts = await factsOf(c, agent, path);
  const partial = `${path}.partial-${process.pid}`;
  // Opened here, synchronously, so a path that cannot be written is one clear error, not an
  // unhandled stream event.
  const stream: WriteStream = createWriteStream('', { fd: outChecked(() => openSync(partial, 'w', 0o600), path) });
  const interrupted = removedIfInterrupted(partial);
  try {
    const exported = await each(c, agent, facts, bar, (f) => writeTo(stream, `${exportLine(f)}\n`));
    stream.end();
    await once(stream, 'finish');
    renameSync(partial, path);
    return exported;
  } catch (error) {
    stream.destroy();
    rmSync(partial, { force: true });
    throw error;
  } finally {
    interrupted.dispose();
  }
}

/** Removes `path` if the process is interrupted (Ctrl-C, SIGTERM) before `dispose`, and exits as
 *  the signal would have. */
function removedIfInterrupted(path: string): { dispose: () => void } {
  return onInterrupt((signal) => {
    rmSync(path, { force: true });
    process.exit(exitCodeOf(signal));
  });
}

const cannotWrite = (out: string, error: unknown): string => {
  const e = error as NodeJS.ErrnoException;
  return `--out: cannot write ${out} (${e.code ?? e.message}); choose a directory you can write to`;
};

/** Runs a file-system step of the export; its failure says which --out and what to do. */
function openOut<T>(step: () => T, out: string): T {
  try {
    return step();
  } catch (error) {
    throw new EngramError(ErrorKind.InvalidArgument, cannotWrite(out, error), '--out');
  }
}

/** Opens or makes --out, before anything is exported. A path that cannot be written (inside a
 *  missing directory, say) is then a mistake of the flag, a usage error (exit 2) like an --out
 *  naming a directory; what fails later, while writing, fails the export (exit 1). */
function outChecked<T>(step: () => T, out: string): T {
  try {
    return step();
  } catch (error) {
    return usage(cannotWrite(out, error), '--out');
  }
}

/** Refuses an --out that could not be written before the namespace is read, so a mistake of the
 *  flag is reported as one (exit 2) even for an agent with no facts; nothing is made. The place
 *  checked is the file's directory, or for a vault (made with its parents) the nearest directory
 *  that exists. */
function refuseUnwritable(out: string, makesParents: boolean): void {
  outChecked(() => {
    let place = makesParents ? resolve(out) : dirname(resolve(out));
    while (makesParents && !existsSync(place)) place = dirname(place);
    if (!statSync(place).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    accessSync(place, constants.W_OK);
  }, out);
}

/** The vault's directory, private like the store it comes from, with any missing parents. */
function vaultDir(dir: string): void {
  outChecked(() => {
    makeDirectory(dir, 0o700);
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    accessSync(dir, constants.W_OK);
  }, dir);
}

async function exportMarkdown(c: EngramClient, agent: string, dir: string, bar: ProgressBar): Promise<Exported> {
  refuseOtherNamespace(dir, agent);
  refuseUnwritable(dir, true);
  const facts = await factsOf(c, agent, dir);
  vaultDir(dir);
  const entries: IndexEntry[] = [];
  const exported = await each(c, agent, facts, bar, (f) => {
    openOut(() => writeFileSync(join(dir, `${f.id}.md`), factNote(f), { mode: 0o600 }), dir);
    entries.push({ id: f.id, text: f.text, retired: f.supersededBy !== undefined, entities: f.entities });
  });
  removeStaleNotes(dir, agent, new Set(entries.map((e) => `${e.id}.md`)));
  openOut(() => writeFileSync(join(dir, 'index.md'), indexNote(agent, entries, Date.now()), { mode: 0o600 }), dir);
  return exported;
}

/** Two namespaces exported to one directory would share one index and mix their notes. */
function refuseOtherNamespace(dir: string, agent: string): void {
  const index = join(dir, 'index.md');
  const owner = existsSync(index) ? noteAgentId(readFileSync(index, 'utf8')) : undefined;
  if (owner !== undefined && owner !== agent) {
    usage(`--out: ${dir} holds the markdown export of "${owner}"; export "${agent}" to a directory of its own`, '--out');
  }
}

const FACT_NOTE = /^[0-9A-HJKMNP-TV-Z]{26}\.md$/;

/** A new export of the same namespace replaces the last one: the notes of facts it no longer has
 *  (erased since) go, so the directory holds exactly what the index lists. Only notes this
 *  namespace's export wrote are touched; anything else in a vault stays. */
function removeStaleNotes(dir: string, agent: string, written: ReadonlySet<string>): void {
  for (const name of readdirSync(dir)) {
    if (!FACT_NOTE.test(name) || written.has(name)) continue;
    const path = join(dir, name);
    if (noteAgentId(readFileSync(path, 'utf8')) === agent) openOut(() => rmSync(path), dir);
  }
}

export function registerExportCommand({ program, globals }: Cli): void {
  program
    .command('export')
    .description('export every fact of a namespace (retired ones too) as JSONL, or as a markdown/Obsidian vault')
    .argument('<agent>', 'agent id (namespace)')
    .addOption(new Option('--format <format>', 'jsonl (engram import reads it back) or markdown (one note per fact)').choices(['jsonl', 'markdown']).default('jsonl'))
    .option('--out <path>', 'the file (jsonl; default stdout) or the directory (markdown, required)')
    .option('--json', 'print a JSON summary (needs --out)')
    .action(async (agent: string, o, cmd: Command) => {
      const opts = globals(cmd);
      if (o.format === 'markdown' && !o.out) usage('--format markdown needs --out DIR');
      if (opts.json && !o.out) usage('--json needs --out (without it the export itself goes to stdout)');
      const bar = new ProgressBar();
      const { count, aliases } = await withClient(opts, (c) => (o.format === 'markdown' ? exportMarkdown(c, agent, o.out, bar) : exportJsonl(c, agent, o.out, bar)));
      if (!o.out) return;
      const path = resolve(o.out);
      // count: every record written (its lines or notes), aliases among them.
      if (opts.json) printJson({ agent_id: agent, format: o.format, out: path, count, aliases });
      else out(`exported ${counted(count - aliases, 'fact')}${aliases ? ` and ${counted(aliases, 'alias', 'aliases')}` : ''} of "${agent}" to ${path}`);
    });
}
