// `engram migrate --from DIR --to postgres://…`: copies the embedded store of a data dir into a
// PostgreSQL database (facts, vectors and every record, ids and vector keys kept), with
// progress; run again after an interruption, it resumes after the last batch it committed. The
// source daemon must be stopped (its store is opened here); daemons then start with --store.
import { existsSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ProgressBar } from '../shared/progress-bar.ts';
import { dataPaths, resolveDataDir } from '../shared/discovery.ts';
import { LevelStore } from './store/level/level-store.ts';
import { migrateStore, MigrationRefused } from './store/migrate.ts';
import { isPostgresUrl } from './store/open.ts';
import { PostgresStore, redacted } from './store/postgres/postgres-store.ts';
import { StoreFormatError, StoreLockedError } from './store/store.ts';

const fail = (message: string): number => {
  process.stderr.write(`engram migrate: ${message}\n`);
  return 1;
};

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
    return fail(`${(error as Error).message.replace(/^error: /, '')} (see engram migrate --help)`);
  }
  const batch = Number(opts.batch);
  if (!Number.isInteger(batch) || batch < 1 || batch > 10_000) return fail(`--batch must be a whole number in [1, 10000], got "${opts.batch}"`);
  if (!isPostgresUrl(opts.to)) return fail(`--to must be a postgres:// URL, got "${redacted(opts.to)}"`);
  const dataDir = resolveDataDir(opts.from);
  const path = dataPaths(dataDir).store;
  if (!existsSync(path)) return fail(`there is no store at ${path}`);
  let from: LevelStore | undefined;
  let to: PostgresStore | undefined;
  try {
    from = await LevelStore.open(path);
    to = await PostgresStore.open(opts.to);
    process.stderr.write(`copying ${path} into ${to.where}…\n`);
    const bar = new ProgressBar();
    const report = await migrateStore(from, to, path, (e) => bar.update(e.phase, e.done, e.total), batch);
    bar.done();
    const copied = Object.entries(report.copied).map(([phase, n]) => `${n} ${phase}`).join(', ') || 'nothing left to copy';
    process.stdout.write(`${report.resumed ? 'resumed and finished' : 'finished'}: ${copied}. Start daemons with --store ${to.where} (engram doctor checks the copy).\n`);
    return 0;
  } catch (error) {
    if (error instanceof StoreLockedError) return fail(`a daemon is serving ${dataDir}: stop it first (engram stop --data-dir ${dataDir}), then migrate`);
    if (error instanceof MigrationRefused || error instanceof StoreFormatError) return fail(error.message);
    return fail(`${(error as Error).message}. Run the same command again to resume after the last batch that committed.`);
  } finally {
    await from?.close().catch(() => undefined);
    await to?.close().catch(() => undefined);
  }
}
