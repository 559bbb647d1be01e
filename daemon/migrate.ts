// `engram migrate --from DIR --to postgres://…`: copies the embedded store of a data dir into a
// PostgreSQL database (facts, vectors and every record, ids and vector keys kept), with
// progress; run again after an interruption, it resumes after the last batch it committed. The
// source daemon must be stopped (its store is opened here); daemons then start with --store.
import { existsSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { counted } from '../shared/counted.ts';
import { ProgressBar } from '../shared/progress-bar.ts';
import { dataPaths, resolveDataDir } from '../shared/discovery.ts';
import { LevelStore } from './store/level/level-store.ts';
import { migrateStore, MigrationRefused } from './store/migrate.ts';
import { PostgresStore } from './store/postgres/postgres-store.ts';
import { isPostgresUrl, redacted } from './store/postgres-url.ts';
import { StoreFormatError, StoreLockedError } from './store/store.ts';

const fail = (message: string, code = 1): number => {
  process.stderr.write(`engram migrate: ${message}\n`);
  return code;
};

/** A flag the command cannot run with: exit 2, as every other command's usage errors. */
const usage = (message: string): number => fail(`${message} (see engram migrate --help)`, 2);

/** What the user gave as --to, safe to repeat: a URL's password is masked, and a value that
 *  is not a URL is shown as given unless it may hold credentials ("user:secret@host"). */
const shownTarget = (to: string): string => (to.includes('@') ? redacted(to) : to);

/** One phase's count: facts and aliases as the words engram stats and export use, other
 *  phases by their names (meta, requests, records:slots…). */
const copiedOf = (phase: string, n: number): string => (phase === 'facts' ? counted(n, 'fact') : phase === 'aliases' ? counted(n, 'alias', 'aliases') : `${n} ${phase}`);

export async function main(argv: string[]): Promise<number> {
  const command = new Command('engram migrate')
    .description('copy the embedded store of a data dir into a PostgreSQL database (resumable)')
    .requiredOption('--from <dir>', 'the data dir whose store is copied (its daemon stopped)')
    .requiredOption('--to <url>', 'the PostgreSQL database, postgres://user@host/db (created tables go in schema "engram")')
    .option('--batch <n>', 'facts per transaction', '500')
    .exitOverride()
    .configureOutput({ writeErr: () => {} });
  let opts: { from: string; to: string; batch: string };
  try {
    opts = command.parse(argv.slice(argv.indexOf('migrate') + 1), { from: 'user' }).opts();
  } catch (error) {
    if (error instanceof CommanderError && (error.code === 'commander.helpDisplayed' || error.code === 'commander.help')) return 0;
    return usage((error as Error).message.replace(/^error: /, ''));
  }
  const batch = Number(opts.batch);
  if (!Number.isInteger(batch) || batch < 1 || batch > 10_000) return usage(`--batch must be a whole number in [1, 10000], got "${opts.batch}"`);
  if (!isPostgresUrl(opts.to)) return usage(`--to must be a postgres:// URL, got "${shownTarget(opts.to)}"`);
  const dataDir = resolveDataDir(opts.from);
  const path = dataPaths(dataDir).store;
  if (!existsSync(path)) return usage(`--from: there is no store at ${path} (name the data directory of the store to copy)`);
  let from: LevelStore | undefined;
  let to: PostgresStore | undefined;
  try {
    from = await LevelStore.open(path);
    to = await PostgresStore.open(opts.to);
    process.stderr.write(`copying ${path} into ${to.where}…\n`);
    const bar = new ProgressBar();
    const report = await migrateStore(from, to, path, (e) => bar.update(e.phase, e.done, e.total), batch);
    bar.done();
    const copied = Object.entries(report.copied).map(([phase, n]) => copiedOf(phase, n)).join(', ') || 'nothing left to copy';
    process.stdout.write(`${report.resumed ? 'resumed and finished' : 'finished'}: ${copied}. Start daemons with --store ${to.where} (engram doctor checks the copy).\n`);
    return 0;
  } catch (error) {
    if (error instanceof StoreLockedError) return fail(`a daemon is serving ${dataDir}: stop it first (engram stop --data-dir ${dataDir}), then migrate`);
    if (error instanceof MigrationRefused || error instanceof StoreFormatError) return fail(error.message);
    // The target could not be opened: nothing was copied, so there is nothing to resume.
    if (to === undefined) return fail((error as Error).message);
    return fail(`${(error as Error).message}. Run the same command again to resume after the last batch that committed.`);
  } finally {
    await from?.close().catch(() => undefined);
    await to?.close().catch(() => undefined);
  }
}
