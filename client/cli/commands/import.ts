// `engram import <agent> <file>`: JSONL (one fact per line) or a chat export, resumable and
// deduplicating. Each line's request id is derived from the agent and the line's content, so a
// re-run (after an interruption, or on the same file) gets the daemon's replay of what it stored
// the first time instead of a second copy. Bad lines are reported with their number and skipped;
// the exit code is then 1.
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { EngramClient } from '../../client.ts';
import { CapabilityError } from '../../errors.ts';
import { importConversation } from '../../import/conversation.ts';
import type { ConfidenceLabel, Fact } from '../../types.ts';
import { EngramError, ErrorKind } from '../../../shared/errors.ts';
import * as check from '../../../shared/validate.ts';
import { out, positiveInt, printJson, withClient, type Cli } from '../context.ts';
import { parseConversationFile } from '../io/conversation-file.ts';
import { parseImportLine, type ImportRecord } from '../io/records.ts';
import { ProgressBar } from '../progress.ts';

interface LineError {
  line: number;
  reason: string;
}

interface Summary {
  imported: number;
  alreadyPresent: number;
  errors: LineError[];
}

const FACT_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The daemon went away (or a capability is missing) mid-import: what was done so far, and why. */
class ImportStopped extends Error {
  constructor(
    readonly summary: Summary,
    readonly line: number,
    override readonly cause: unknown,
  ) {
    super(`import stopped at line ${line}`);
  }
}

/** Errors about one line's content; anything else (daemon gone, outcome unknown, missing
 *  capability) stops the import, which a re-run resumes. */
function isLineError(error: unknown): boolean {
  if (error instanceof CapabilityError) return false;
  if (!(error instanceof EngramError)) return false;
  const kinds: string[] = [ErrorKind.InvalidArgument, ErrorKind.NotFound, ErrorKind.FailedPrecondition, ErrorKind.Aborted];
  return kinds.includes(error.kind);
}

const reasonOf = (error: unknown) => (error instanceof EngramError ? `${error.kind}: ${error.message}` : (error as Error).message);

function readInput(file: string): string {
  return readFileSync(file === '-' ? 0 : file, 'utf8');
}

async function lookup(c: EngramClient, agent: string, id: string | undefined): Promise<Fact | undefined> {
  if (!id || !FACT_ID.test(id)) return undefined;
  try {
    return await c.get(agent, id);
  } catch (error) {
    if (error instanceof EngramError && error.kind === ErrorKind.NotFound) return undefined;
    throw error;
  }
}

/** The fact a line describes when it is already in the namespace under the line's own id (an
 *  export imported back into its own agent). */
async function existing(c: EngramClient, agent: string, r: ImportRecord): Promise<Fact | undefined> {
  const fact = await lookup(c, agent, r.id);
  return fact && (fact.text === r.text || (r.kind === 'alias' && fact.kind === 'alias')) ? fact : undefined;
}

async function write(c: EngramClient, agent: string, r: ImportRecord): Promise<{ fact: Fact; replayed: boolean }> {
  if (r.alias) return c.alias(agent, r.alias.term, r.alias.equivalents, { requestId: r.requestId });
  return c.put(agent, r.text, {
    requestId: r.requestId,
    occurredAt: r.occurredAt,
    tags: r.tags,
    entities: r.entities,
    source: r.source,
    context: r.context,
    metaJson: r.metaJson,
    ...(r.confidence ? { confidence: r.confidence as ConfidenceLabel } : {}),
    // An import reproduces its file: two identical lines are two facts (re-runs are idempotent
    // by request id, not by text).
    allowDuplicate: true,
  });
}

async function importJsonl(c: EngramClient, agent: string, text: string, concurrency: number, bar: ProgressBar): Promise<Summary> {
  const { limits } = await c.hello();
  const summary: Summary = { imported: 0, alreadyPresent: 0, errors: [] };
  const records: { line: number; record: ImportRecord }[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    try {
      records.push({ line: i + 1, record: parseImportLine(agent, line, limits) });
    } catch (error) {
      summary.errors.push({ line: i + 1, reason: (error as Error).message });
    }
  });

  // Pass 1: store every record (and pin it); remember where each source id went.
  const ids = new Map<string, string>();
  const toRetire: { line: number; record: ImportRecord; fact: Fact }[] = [];
  let next = 0;
  let done = 0;
  let fatal: { line: number; error: unknown } | undefined;
  /** A lifecycle step after the line's fact is stored: its failure says the fact is there. */
  const stored = async (id: string, what: string, step: () => Promise<Fact>): Promise<Fact> => {
    try {
      return await step();
    } catch (error) {
      if (error instanceof EngramError && isLineError(error)) throw new EngramError(error.kind, `stored as ${id} but not ${what} (re-run to finish): ${error.message}`);
      throw error;
    }
  };
  const worker = async (): Promise<void> => {
    while (next < records.length && !fatal) {
      const { line, record } = records[next++]!;
      try {
        let fact = await existing(c, agent, record);
        if (fact) summary.alreadyPresent++;
        else {
          const res = await write(c, agent, record);
          fact = res.fact;
          if (res.replayed) summary.alreadyPresent++;
          else summary.imported++;
        }
        if (record.id) ids.set(record.id, fact.id);
        if (record.pinned && !fact.pinned) fact = await stored(fact.id, 'pinned', () => c.pin(agent, fact!.id));
        if (record.supersededBy && !fact.supersededBy) toRetire.push({ line, record, fact });
      } catch (error) {
        if (!isLineError(error)) fatal ??= { line, error };
        else summary.errors.push({ line, reason: reasonOf(error) });
      }
      bar.update('import', ++done, records.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, records.length) }, worker));

  // Pass 2: retire, pointing superseded_by at the imported replacement when the file has it.
  for (const { line, record, fact } of fatal ? [] : toRetire) {
    try {
      let by = record.supersededBy === 'agent' ? 'agent' : ids.get(record.supersededBy);
      if (by === undefined && (await lookup(c, agent, record.supersededBy))) by = record.supersededBy;
      if (by === undefined || by === 'agent') await c.forget(agent, fact.id);
      else await c.updateFact(agent, { ...fact, supersededBy: by });
    } catch (error) {
      if (!isLineError(error)) {
        fatal = { line, error };
        break;
      }
      summary.errors.push({ line, reason: `stored as ${fact.id} but not retired (re-run to finish): ${reasonOf(error)}` });
    }
  }
  bar.done();
  summary.errors.sort((a, b) => a.line - b.line);
  if (fatal) throw new ImportStopped(summary, fatal.line, fatal.error);
  return summary;
}

async function importChat(c: EngramClient, agent: string, text: string, concurrency: number | undefined, bar: ProgressBar): Promise<Summary> {
  const { sessions, problems } = parseConversationFile(text);
  const { limits } = await c.hello();
  sessions.forEach((s, i) =>
    s.turns.forEach((t, j) => {
      try {
        if (t.speaker && t.text) check.factText(`${t.speaker}: ${t.text}`, limits, `sessions[${i}].turns[${j}].text`);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }),
  );
  if (problems.length > 0) {
    for (const p of problems) process.stderr.write(`engram: ${p}\n`);
    throw new EngramError(ErrorKind.InvalidArgument, `the conversation has ${problems.length} problem(s); nothing was imported`);
  }
  const total = sessions.reduce((n, s) => n + s.turns.length, 0);
  const { replayed } = await importConversation(c, agent, sessions, {
    ...(concurrency ? { concurrency } : {}),
    onProgress: (p) => bar.update('import', p.done, p.total),
  });
  bar.done();
  return { imported: total - replayed, alreadyPresent: replayed, errors: [] };
}

function report(summary: Summary, agent: string, json: boolean | undefined): void {
  for (const e of summary.errors) process.stderr.write(`engram: line ${e.line}: ${e.reason}\n`);
  if (json) {
    printJson({ agent_id: agent, imported: summary.imported, already_present: summary.alreadyPresent, failed: summary.errors.length, errors: summary.errors });
    return;
  }
  const failed = summary.errors.length ? `, ${summary.errors.length} failed` : '';
  out(`${summary.imported} imported, ${summary.alreadyPresent} already present${failed}`);
}

export function registerImportCommand({ program, globals, setExit }: Cli): void {
  program
    .command('import')
    .description('import facts from a JSONL file (one {"text", "occurred_at"?, ...} per line) or a chat export; re-runs never store a line twice')
    .argument('<agent>', 'agent id (namespace)')
    .argument('<file>', 'the file ("-" for stdin)')
    .addOption(new Option('--format <format>', 'jsonl, or conversation ({"sessions": [{"occurred_at", "turns": [{"speaker", "text"}]}]})').choices(['jsonl', 'conversation']).default('jsonl'))
    .option('--concurrency <n>', 'writes in flight (jsonl default 1, which keeps the file order; conversation default 16)', positiveInt('--concurrency'))
    .option('--json', 'print JSON')
    .action(async (agent: string, file: string, o, cmd: Command) => {
      const opts = globals(cmd);
      check.agentId(agent); // refused once, not once per line
      const text = readInput(file);
      const bar = new ProgressBar();
      let summary: Summary;
      try {
        summary = await withClient(opts, (c) =>
          o.format === 'conversation' ? importChat(c, agent, text, o.concurrency, bar) : importJsonl(c, agent, text, o.concurrency ?? 1, bar),
        );
      } catch (error) {
        if (!(error instanceof ImportStopped)) throw error;
        report(error.summary, agent, opts.json);
        process.stderr.write(`engram: ${error.message}; re-run the same command to resume (lines already stored are not stored again)\n`);
        throw error.cause;
      }
      report(summary, agent, opts.json);
      if (summary.errors.length > 0) setExit(1);
    });
}
