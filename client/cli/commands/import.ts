// `engram import <agent> <file>`: JSONL (one fact per line) or a chat export, resumable and
// deduplicating. Each line's request id is derived from the agent and the line's content, so a
// re-run (after an interruption, or on the same file) gets the daemon's replay of what it stored
// the first time instead of a second copy; and a line saying what a live fact of the agent already
// says is that fact, as for any write (a backup restored over live data, or two agents merged, is
// not doubled). Bad lines are reported with their number and skipped; the exit code is then 1.
import { Option, type Command } from 'commander';
import type { BatchItem, BatchItemResult, EngramClient } from '../../client.ts';
import { importConversation } from '../../import/conversation.ts';
import { isItemError, pool, writeAll } from '../../import/write-all.ts';
import type { ConfidenceLabel, Fact } from '../../types.ts';
import { EngramError, ErrorKind } from '../../../shared/errors.ts';
import { CapabilityError, UncertainWriteError, UnreachableError } from '../../errors.ts';
import * as check from '../../../shared/validate.ts';
import type { Limits } from '../../../shared/validate.ts';
import { out, positiveInt, printJson, usage, withClient, type Cli } from '../context.ts';
import { parseConversationFile } from '../io/conversation-file.ts';
import { readNamedFile, utf8, utf8Text } from '../io/read-file.ts';
import { derivedRequestId, parseImportLine, refusedLineId, type ImportRecord, type NotKept } from '../io/records.ts';
import { ProgressBar } from '../../../shared/progress-bar.ts';
import { SUPERSEDED_BY_AGENT } from '../../../shared/retired.ts';
import { counted } from '../../../shared/counted.ts';
import { Capability } from '../../../shared/capabilities.ts';
import { Interrupted, stopOnInterrupt, type StoppableWork } from '../interrupt.ts';

interface LineError {
  line: number;
  reason: string;
  /** The line was stored (as this fact) but a later step of it did not finish: counted as
   *  imported or already present, not as failed. */
  storedAs?: string;
  /** Such a line was counted as already present (stored by an earlier run, or found). */
  present?: boolean;
}

interface Summary {
  imported: number;
  alreadyPresent: number;
  errors: LineError[];
  /** Lines stored by this run that carried what a new fact cannot take, by what. */
  notKept?: Map<NotKept, number>;
  /** Lines stored by this run (restoring) whose replaces named facts neither before them in the
   *  file nor in the agent: stored with the rest of their lineage. */
  lineageCut?: number;
  /** Relations of lines this run first wrote that can never be made: an end of each is retired
   *  (a relation joins only live facts). Said once, not as a failure: no re-run can add them. */
  neverRelated?: { line: number; reason: string }[];
  /** Pins, types, relations and retirements this run applied: none, and nothing imported or
   *  failed, is an import that was already complete. */
  stepsApplied?: number;
}

const FACT_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The daemon went away (or a capability is missing) mid-import: what was done so far, and why. */
class ImportStopped extends Error {
  constructor(
    /** null: not known (a conversation's re-run tells, replaying what was stored). */
    readonly summary: Summary | null,
    /** Where: "at line N", or "after N of M turns". */
    readonly where: string,
    override readonly cause: unknown,
  ) {
    super(`import stopped ${where}`);
  }
}

const reasonOf = (error: unknown) => (error instanceof EngramError ? `${error.kind}: ${error.message}` : (error as Error).message);

/** A file given as JSON lines that is really one JSON document spread over lines (a chat export,
 *  a pretty-printed array), or a JSON array on one line: every line would fail on its own, so it
 *  is refused as a whole, with what to do instead, before anything is sent. */
function refuseWholeDocument(bytes: Buffer, file: string): void {
  const text = bytes.toString('utf8');
  const first = text.split('\n').find((line) => line.trim() !== '');
  if (first === undefined || !/^\s*[[{]/.test(first)) return;
  // One line holding one object is JSON lines of one fact; holding an array, it is not.
  const oneLine = !text.trim().includes('\n');
  if (oneLine ? !Array.isArray(jsonValue(first)?.value) : jsonValue(first)) return;
  const whole = jsonValue(text);
  if (!whole) return;
  const { value } = whole;
  const what = Array.isArray(value)
    ? 'a JSON array, not JSON lines: write one object per line (for example with `jq -c \'.[]\'`) and import that'
    : value !== null && typeof value === 'object' && 'sessions' in value
      ? 'a conversation export (one JSON document with "sessions"), not JSON lines: import it with --format conversation'
      : 'one JSON document spread over several lines, not JSON lines: write each fact as one object on its own line';
  usage(`<file>: ${file === '-' ? 'stdin' : file} is ${what}; nothing was imported`, '<file>');
}

/** The JSON value `text` holds, or undefined when it is not JSON. */
function jsonValue(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
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

/** Where each line of the file lies, numbered from 1. */
function* lineSpans(bytes: Buffer): Generator<{ line: number; start: number; stop: number }> {
  let start = 0;
  for (let line = 1; start <= bytes.length; line++) {
    const end = bytes.indexOf(0x0a, start);
    const stop = end < 0 ? bytes.length : end;
    yield { line, start, stop };
    start = stop + 1;
  }
}

/** Whether a line holds only whitespace. Plain ASCII is decided from its bytes, without decoding;
 *  other bytes may be Unicode spaces, so such a line is decoded (one that is not UTF-8 is not blank:
 *  it is refused by number). */
function isBlank(bytes: Buffer, start: number, stop: number): boolean {
  let ascii = true;
  for (let i = start; i < stop; i++) {
    const b = bytes[i]!;
    if (b >= 0x80) ascii = false;
    else if (b !== 0x20 && (b < 0x09 || b > 0x0d)) return false;
  }
  return ascii || utf8(bytes.subarray(start, stop))?.trim() === '';
}

/** The file's non-blank lines, numbered from 1, each as text or, when it is not UTF-8, null: a
 *  line is refused rather than stored with replacement characters. */
function* numberedLines(bytes: Buffer): Generator<{ line: number; text: string | null }> {
  for (const { line, start, stop } of lineSpans(bytes)) {
    if (isBlank(bytes, start, stop)) continue;
    yield { line, text: utf8(bytes.subarray(start, stop))?.replace(/\r$/, '') ?? null };
  }
}

/** How many lines numberedLines yields (the progress bar's total), without decoding them. */
function countLines(bytes: Buffer): number {
  let count = 0;
  for (const { start, stop } of lineSpans(bytes)) if (!isBlank(bytes, start, stop)) count++;
  return count;
}

/** What a fact line asks the daemon to store; `replaces`: its restore's, as the facts of this
 *  agent the source ids became. */
function batchItem(agent: string, r: ImportRecord, allowDuplicate: boolean, replaces?: string[]): BatchItem {
  return {
    agentId: agent,
    text: r.text,
    requestId: r.requestId,
    occurredAt: r.occurredAt,
    tags: r.tags,
    entities: r.entities,
    source: r.source,
    context: r.context,
    metaJson: r.metaJson,
    ...(r.confidence ? { confidence: r.confidence as ConfidenceLabel } : {}),
    ...(r.strength !== undefined ? { strength: r.strength } : {}),
    // --allow-duplicate: the file exactly, copies of a live fact's text included (as exported
    // from facts written with allow_duplicate).
    ...(allowDuplicate ? { allowDuplicate: true } : {}),
    ...(r.restore ? { restore: { ...r.restore, replaces } } : {}),
  };
}

type Numbered = { line: number; record: ImportRecord };
/** A line about to be written, with its restore's replaces mapped (`cut`: some named no fact). */
type Pending = Numbered & { replaces?: string[]; cut?: boolean };

/** What of a line's later steps its fact already has: each step applies only what is missing, so
 *  a re-run of a finished import changes nothing (and never types or relates a fact retired since,
 *  which the daemon refuses). */
interface FactNow {
  pinned: boolean;
  retired: boolean;
  types: Record<string, string>;
  relations: readonly { type: string; targetId: string }[];
}

const nowOf = (fact: Fact): FactNow => ({ pinned: fact.pinned, retired: fact.supersededBy !== undefined, types: fact.entityTypes, relations: fact.relations });
/** A fact this run has just written: none of the line's later steps is applied yet. */
const NOTHING_APPLIED: FactNow = { pinned: false, retired: false, types: {}, relations: [] };

/** A line whose fact is in the namespace (stored now, or found there). `fresh`: stored by this
 *  run, so counted as imported (else as already present). `matched`: the line says what a live
 *  fact already said (write dedup): that fact is not the line's, so the line's pin and retirement
 *  are not applied to it. `now`: what that fact already has; undefined until read when a write's
 *  replay or dedup answered only the fact's id, or when it could not be read (then every step is
 *  tried, and a failure is said). `firstWrite`: this run's write stored or matched it (not a replay
 *  of an earlier run's, nor found by its id), so what cannot be restored of it is said now. */
type Stored = Numbered & { factId: string; fresh: boolean; now?: FactNow; matched?: boolean; firstWrite?: boolean };

/** Whether a line has a step after its write (the steps `FactNow` tells the state of). */
const hasLaterSteps = (r: ImportRecord) => r.pinned || r.supersededBy !== '' || r.relations.length > 0 || Object.keys(r.entityTypes).length > 0;

const LOOKUPS_IN_FLIGHT = 16;

/** The lines whose superseded_by links, from a line of the file to another, come back to where
 *  they started (A by B, B by A): each such line → the lines of its cycle, in link order from the
 *  first of them. Retiring them would leave none of those facts live. Only the links the
 *  retirement pass applies count (not a line already retired, nor one that is a live fact's). */
function supersedeCycles(stored: Stored[]): Map<number, number[]> {
  const byId = new Map<string, Stored>();
  for (const s of stored) if (s.record.id) byId.set(s.record.id, s);
  const next = (s: Stored) => (s.now?.retired || s.matched || s.record.supersededBy === SUPERSEDED_BY_AGENT ? undefined : byId.get(s.record.supersededBy));
  const cycles = new Map<number, number[]>();
  const visited = new Set<Stored>();
  for (const start of stored) {
    const path: Stored[] = [];
    let s: Stored | undefined = start;
    while (s && !visited.has(s)) {
      visited.add(s);
      path.push(s);
      s = next(s);
    }
    const from = s ? path.indexOf(s) : -1;
    if (from < 0) continue; // the chain ends, or joins one seen before
    const lines = path.slice(from).map((c) => c.line);
    const first = lines.indexOf(Math.min(...lines));
    const cycle = [...lines.slice(first), ...lines.slice(0, first)];
    for (const line of cycle) cycles.set(line, cycle);
  }
  return cycles;
}


/** What of an export's record the daemon restores: restore-write-v1's fields, restore-promotion-v1's. */
interface Restores {
  restoring: boolean;
  promotion: boolean;
}

interface JsonlOptions {
  concurrency: number;
  allowDuplicate: boolean;
  /** Ctrl-C: the writes in flight finish, then the import stops and says where. */
  interrupt: StoppableWork;
}

/** Fact lines parsed ahead of those being written, in batches of the daemon's size: while one
 *  window is written the next is parsed, so neither side waits for the other (parsing a whole
 *  large file first kept the daemon idle, and every parsed line alive, for seconds). */
const WINDOW_BATCHES = 8;

/** Lines parsed between turns of the event loop, so an answer from the daemon is not kept waiting. */
const PARSE_SLICE = 256;

/** The file's lines parsed, a window at a time; a bad line is given to `refuse` (with its source
 *  id, when it names one) and skipped. */
async function* parsedWindows(bytes: Buffer, agent: string, limits: Limits, restores: Restores, size: number, refuse: (error: LineError, sourceId?: string) => void): AsyncGenerator<Numbered[]> {
  let window: Numbered[] = [];
  let sinceYield = 0;
  /** Source id → the first line that named it (refused or not): a superseded_by or relation names
   *  one fact, so a second line with that id is refused rather than silently taking its place. */
  const idLines = new Map<string, number>();
  const firstWith = (id: string | undefined, line: number) => {
    if (id === undefined) return undefined;
    const first = idLines.get(id);
    if (first === undefined) idLines.set(id, line);
    return first;
  };
  for (const { line, text } of numberedLines(bytes)) {
    if (++sinceYield >= PARSE_SLICE) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (text === null) {
      refuse({ line, reason: 'is not valid UTF-8 (save the file as UTF-8)' });
      continue;
    }
    let record: ImportRecord;
    try {
      record = parseImportLine(agent, text, limits, restores.restoring, restores.promotion);
    } catch (error) {
      const id = refusedLineId(text);
      refuse({ line, reason: (error as Error).message }, firstWith(id, line) === undefined ? id : undefined);
      continue;
    }
    const first = firstWith(record.id, line);
    if (first !== undefined) {
      refuse({ line, reason: `id ${record.id} was already used by line ${first} (each line's id names one fact: give this line its own id, or drop it)` });
      continue;
    }
    window.push({ line, record });
    if (window.length >= size) {
      yield window;
      window = [];
    }
  }
  if (window.length > 0) yield window;
}

/** With --allow-duplicate the file is stored exactly: the second of two identical lines is a
 *  second fact, so it needs a request id of its own — the content's, and which copy it is, so a
 *  re-run of the same file still stores nothing twice. */
class CopyCounter {
  private readonly seen = new Map<string, number>();

  requestIdOf(contentId: string): string {
    const copy = this.seen.get(contentId) ?? 0;
    this.seen.set(contentId, copy + 1);
    return copy === 0 ? contentId : derivedRequestId([contentId, copy]);
  }
}

async function importJsonl(c: EngramClient, agent: string, bytes: Buffer, options: JsonlOptions, bar: ProgressBar): Promise<Summary> {
  const { limits, capabilities } = await c.hello();
  // A daemon that takes restores gets back what an export said of its facts; an older one
  // assigns it afresh, and the import says so (notKept).
  const restores: Restores = { restoring: capabilities.includes(Capability.RestoreWrite), promotion: capabilities.includes(Capability.RestorePromotion) };
  const summary: Summary = { imported: 0, alreadyPresent: 0, errors: [], notKept: new Map(), lineageCut: 0, neverRelated: [], stepsApplied: 0 };
  // Progress counts every non-blank line, so a bad line moves it too.
  const total = countLines(bytes);
  // Lines are done once written (an item the daemon refused included) or skipped before that
  // (refused here, or their lookup failed): each is counted once, so the bar ends at the total.
  let skipped = 0;
  const progress = () => bar.update('import', done + skipped, total);
  /** Source id → the line that named it and was not stored: the lines pointing at it wait for it. */
  const notStored = new Map<string, number>();
  const refuse = (error: LineError, sourceId?: string) => {
    summary.errors.push(error);
    if (sourceId) notStored.set(sourceId, error.line);
    skipped++;
  };
  const stored: Stored[] = [];
  /** Source id → the stored line that has it (ids are unique in a file: parsedWindows refuses a
   *  second line with one), filled as lines are kept: a restore's replaces and the relations and
   *  retirements after the writes look their targets up here. */
  const lineOf = new Map<string, Stored>();
  /** A line whose fact is in the namespace, counted as imported (stored now) or already present. */
  const keep = (s: Stored) => {
    if (s.fresh) summary.imported++;
    else summary.alreadyPresent++;
    if (s.fresh) for (const what of s.record.notKept) summary.notKept!.set(what, (summary.notKept!.get(what) ?? 0) + 1);
    if (s.record.id) lineOf.set(s.record.id, s);
    stored.push(s);
  };
  const lineError = (line: number, error: unknown, record?: ImportRecord) => {
    if (!isItemError(error)) throw new ImportStopped(summary, `at line ${line}`, error);
    summary.errors.push({ line, reason: reasonOf(error) });
    if (record?.id) notStored.set(record.id, line);
  };
  let done = 0;

  // Pass 1: store every record in file order (in batches where the daemon has them); remember
  // where each source id went. A line with an id may already be in the namespace under it (an
  // export imported back): those are looked up first, 16 at a time.
  const { signal } = options.interrupt;
  /** The pass running after the writes: named in the progress, and where a stop happened. */
  let pass: string | undefined;
  const where = (line: number) => (pass ? `at line ${line}, while ${pass} (after the writes)` : `at line ${line}`);
  /** Stops the import before line `line` once Ctrl-C was pressed. */
  const unlessInterrupted = (line: number) => {
    if (signal.aborted) throw new ImportStopped(summary, where(line), signal.reason);
  };
  /** Whether the lines' ids are looked up: not when the agent had no fact before this import
   *  wrote one (an export imported into a new agent), where every lookup would find nothing (a
   *  20k-line export took 22 s instead of 8). Decided at the first window, before any write; a
   *  first window without ids leaves them looked up (the agent may hold this import's facts by then). */
  let lookUpIds: boolean | undefined;
  const agentHasFacts = async (line: number) => {
    try {
      const page = await c.list(agent, { pageSize: 1 });
      return page.facts.length > 0 || page.nextPageToken !== '';
    } catch (error) {
      throw new ImportStopped(summary, where(line), error);
    }
  };
  const writeWindow = async (records: Numbered[]) => {
    const present = new Map<number, Fact | null>(); // line → the fact already there, null: a lookup failed
    const withIds = records.filter(({ record }) => record.id);
    lookUpIds ??= withIds.length === 0 || (await agentHasFacts(records[0]!.line));
    const toLookUp = lookUpIds ? withIds : [];
    // Its own phase: thousands of lookups take seconds before the window's first write.
    let lookedUp = 0;
    if (toLookUp.length > 0) bar.update('looking up ids', 0, toLookUp.length);
    await pool(
      toLookUp,
      LOOKUPS_IN_FLIGHT,
      async ({ line, record }) => {
        try {
          const fact = await existing(c, agent, record);
          if (fact) present.set(line, fact);
        } catch (error) {
          lineError(line, error, record);
          present.set(line, null);
        }
        bar.update('looking up ids', ++lookedUp, toLookUp.length);
      },
      signal,
    );
    // Ctrl-C stops the window before its writes: also a line whose lookup did not run (the pool
    // starts none once interrupted) must not be written as if it were new.
    unlessInterrupted(records[0]!.line);
    let segment: Pending[] = [];
    /** Writes the lines gathered since the last flush, as batches. */
    const flush = async () => {
      const lines = segment;
      segment = [];
      const before = done;
      const results: (BatchItemResult | undefined)[] = new Array(lines.length);
      let stopped: { cause: unknown } | undefined;
      try {
        options.interrupt.writing();
        await writeAll(c, lines.map((w) => batchItem(agent, w.record, options.allowDuplicate, w.replaces)), {
          concurrency: options.concurrency,
          signal,
          onProgress: (n) => {
            done = before + n;
            progress();
          },
          onWritten: (from, written) => written.forEach((r, k) => (results[from + k] = r)),
        });
      } catch (error) {
        stopped = { cause: error };
      }
      results.forEach((r, i) => {
        const { line, record } = lines[i]!;
        if (!r) return; // not written: the import stopped first
        if (r.error) return lineError(line, r.error, record);
        const fresh = !(r.replayed || r.duplicate);
        if (fresh && lines[i]!.cut) summary.lineageCut!++;
        keep({ line, record, factId: r.factId, fresh, ...(fresh ? { now: NOTHING_APPLIED } : {}), matched: r.duplicate, firstWrite: !r.replayed });
      });
      if (stopped) throw new ImportStopped(summary, `at line ${lines[results.findIndex((r) => !r)]?.line ?? 0}`, stopped.cause);
      done = before + lines.length;
    };
    for (const { line, record } of records) {
      const fact = present.get(line);
      if (fact === null) {
        skipped++;
        progress();
        continue;
      }
      if (fact) {
        keep({ line, record, factId: fact.id, fresh: false, now: nowOf(fact) });
        done++;
        progress();
      } else if (record.alias) {
        // An alias is its own kind of write; the lines before it go first, so the order holds.
        await flush();
        unlessInterrupted(line);
        options.interrupt.writing();
        try {
          const res = await c.alias(agent, record.alias.term, record.alias.equivalents, { requestId: record.requestId });
          keep({ line, record, factId: res.fact.id, fresh: !(res.replayed || res.duplicate), now: nowOf(res.fact), matched: res.duplicate, firstWrite: !res.replayed });
        } catch (error) {
          lineError(line, error, record);
        }
        done++;
        progress();
      } else if (record.restore?.replaces) {
        // The facts it replaced are stored first (an export lists them before it): those of the
        // lines still to be sent go now, so their ids are known.
        if (segment.some((p) => p.record.id !== undefined && record.restore!.replaces!.includes(p.record.id))) await flush();
        segment.push({ line, record, ...(await replacedNow(record.restore.replaces, line)) });
      } else segment.push({ line, record });
    }
    await flush();
  };
  /** The facts of this agent a restore's replaces (source ids) are now: the earlier lines' facts,
   *  else the agent's own of that id (an export imported back). One that is neither is left out. */
  const replacedNow = async (ids: readonly string[], line: number): Promise<{ replaces: string[]; cut: boolean }> => {
    const replaces: string[] = [];
    let cut = false;
    for (const id of ids) {
      let factId = lineOf.get(id)?.factId;
      try {
        factId ??= (await lookup(c, agent, id))?.id;
      } catch (error) {
        throw new ImportStopped(summary, where(line), error);
      }
      if (factId === undefined) cut = true;
      // Two lines may have become one fact (a line saying what a live fact says is that fact).
      else if (!replaces.includes(factId)) replaces.push(factId);
    }
    return { replaces, cut };
  };

  // Each window is written once the one before it is; the next is parsed meanwhile.
  let writing: Promise<void> = Promise.resolve();
  const windowSize = Math.max(1, limits.maxWriteBatch) * WINDOW_BATCHES;
  const copies = options.allowDuplicate ? new CopyCounter() : undefined;
  for await (const records of parsedWindows(bytes, agent, limits, restores, windowSize, refuse)) {
    if (copies) for (const { record } of records) record.requestId = copies.requestIdOf(record.requestId);
    await writing;
    writing = writeWindow(records);
    // A stopped window must not be left unobserved while the next is parsed.
    writing.catch(() => undefined);
  }
  await writing;
  stored.sort((a, b) => a.line - b.line);
  /** The fact a line's relation or superseded_by names: the one the file's line became, else the
   *  agent's own of that id; else the refused line it waits for; else none. */
  const target = async (s: Stored, id: string): Promise<{ factId: string; retired?: boolean } | { waitsFor: number } | undefined> => {
    unlessInterrupted(s.line);
    const fromFile = lineOf.get(id)?.factId;
    if (fromFile) return { factId: fromFile };
    let inAgent: Fact | undefined;
    try {
      inAgent = await lookup(c, agent, id);
    } catch (error) {
      throw new ImportStopped(summary, where(s.line), error);
    }
    if (inAgent) return { factId: inAgent.id, ...(inAgent.supersededBy !== undefined ? { retired: true } : {}) };
    const line = notStored.get(id);
    return line === undefined ? undefined : { waitsFor: line };
  };
  /** A stored line whose later step did not finish: counted where it was, imported or present. */
  const unfinished = (s: Stored, reason: string) => summary.errors.push({ line: s.line, reason, storedAs: s.factId, ...(s.fresh ? {} : { present: true }) });
  const notImported = (line: number, mend = '') => `is line ${line}'s fact, which was not imported (mend line ${line} and re-run${mend})`;

  // A lifecycle step after the line's fact is stored: its failure says the fact is there. It and
  // `target` (the lookups) are where the passes below stop on Ctrl-C.
  const after = async (s: Stored, what: string, step: () => Promise<unknown>): Promise<boolean> => {
    unlessInterrupted(s.line);
    try {
      await step();
      summary.stepsApplied!++;
      return true;
    } catch (error) {
      if (!isItemError(error)) throw new ImportStopped(summary, where(s.line), error);
      unfinished(s, `stored as ${s.factId} but not ${what} (re-run to finish): ${reasonOf(error)}`);
      return false;
    }
  };
  /** Runs one pass over `items` as its own progress phase: after the writes' 100%, the user sees
   *  what still runs (retiring thousands of facts takes seconds). */
  const runPass = async <T>(phase: string, items: T[], each: (item: T) => Promise<unknown>) => {
    if (items.length === 0) return;
    pass = phase;
    bar.update(phase, 0, items.length);
    for (const [i, item] of items.entries()) {
      await each(item);
      bar.update(phase, i + 1, items.length);
    }
  };
  /** Reads what the facts of `lines` have by now, 16 at a time, as its own progress phase. */
  const readNow = async (lines: Stored[]) => {
    if (lines.length === 0) return;
    const phase = (pass = 'reading stored facts');
    let read = 0;
    bar.update(phase, 0, lines.length);
    await pool(
      lines,
      LOOKUPS_IN_FLIGHT,
      async (s) => {
        let fact: Fact | undefined;
        try {
          fact = await lookup(c, agent, s.factId);
        } catch (error) {
          throw new ImportStopped(summary, where(s.line), error);
        }
        if (fact) s.now = nowOf(fact);
        bar.update(phase, ++read, lines.length);
      },
      signal,
    );
    // Ctrl-C stops it before a step relies on a state that was not read.
    unlessInterrupted((lines.find((s) => s.now === undefined) ?? lines[0]!).line);
  };
  // A line stored by an earlier run (this one's write was a replay) or found by dedup: what its
  // fact has by now decides which of the steps below are left to do.
  await readNow(stored.filter((s) => s.now === undefined && hasLaterSteps(s.record)));
  const pins = stored.filter((s) => s.record.pinned && !s.now?.pinned && !s.matched);
  await runPass('pinning', pins, (s) => after(s, 'pinned', () => c.pin(agent, s.factId)));
  // Entity types (set by link --type or --kg) go back the way they were set, on the live fact: a
  // line retired in the file is typed before the retiring pass below retires it. A fact already
  // retired (by an earlier run) had its types set then; the daemon types only live facts.
  const typings = stored.flatMap((s) =>
    s.now?.retired ? [] : Object.entries(s.record.entityTypes).filter(([entity, type]) => s.now?.types[entity] !== type).map(([entity, type]) => ({ s, entity, type })),
  );
  await runPass('typing entities', typings, ({ s, entity, type }) => after(s, `typed (${entity}: ${type})`, () => c.linkEntity(agent, s.factId, entity, { type })));

  // The lines of a cycle of superseded_by stay live: retired, none of their facts would be.
  const cycles = supersedeCycles(stored);
  /** Whether the file retires the line's fact (a live fact it matched is not the line's). */
  const retiredByFile = (s: Stored) => s.record.supersededBy !== '' && !s.matched && !cycles.has(s.line);
  const endsRetired = (s: Stored) => retiredByFile(s) || s.now?.retired === true;
  /** A relation that can never be made: said for the run that first wrote the line, not tried. */
  const never = (s: Stored, reason: string) => {
    if (s.firstWrite) summary.neverRelated!.push({ line: s.line, reason });
  };

  // Relations of the file's live facts, to the imported facts their targets became (both ends
  // are live now; the retirements below then move them, as any retirement does). A relation
  // with an end that ends retired would be dropped by the retirement, or refused.
  const relations = stored.flatMap((s) => (s.record.supersededBy && !retiredByFile(s) ? [] : s.record.relations.map((r) => ({ s, r }))));
  await runPass('relating', relations, async ({ s, r }) => {
    const what = `its ${r.type} target ${r.targetId}`;
    if (endsRetired(s)) return never(s, `not related (${r.type} ${r.targetId}): the line's fact is retired (its superseded_by)`);
    const targetLine = lineOf.get(r.targetId);
    if (targetLine && endsRetired(targetLine)) return never(s, `not related: ${what} is line ${targetLine.line}'s fact, which is retired (its superseded_by)`);
    const to = await target(s, r.targetId);
    if (to === undefined) unfinished(s, `stored as ${s.factId} but not related: ${what} is neither in the file nor in the agent`);
    else if ('waitsFor' in to) unfinished(s, `stored as ${s.factId} but not related yet: ${what} ${notImported(to.waitsFor)}`);
    else if (to.retired) never(s, `not related: ${what} is a retired fact of the agent`);
    else if (!s.now?.relations.some((has) => has.type === r.type && has.targetId === to.factId)) await after(s, `related (${r.type} ${to.factId})`, () => c.relate(agent, s.factId, r.type, to.factId));
  });

  // Pass 2: retire, pointing superseded_by at the imported replacement when the file has it.
  await runPass('retiring', stored.filter((s) => s.record.supersededBy && !s.now?.retired && !s.matched), async (s) => {
    const { supersededBy } = s.record;
    const cycle = cycles.get(s.line);
    if (cycle) {
      const lines = [...cycle, cycle[0]].join(' → ');
      unfinished(s, `stored as ${s.factId} but not retired: its superseded_by ${supersededBy} is part of a cycle, lines ${lines} (each would retire the next, leaving none of them live; drop superseded_by from the line that is current and re-run)`);
      return;
    }
    const by = supersededBy === SUPERSEDED_BY_AGENT ? { factId: SUPERSEDED_BY_AGENT } : await target(s, supersededBy);
    const what = `its superseded_by ${supersededBy}`;
    if (by && 'waitsFor' in by) {
      unfinished(s, `stored as ${s.factId} but not retired yet: ${what} ${notImported(by.waitsFor, '; the fact stays live until then')}`);
      return;
    }
    if (by === undefined) unfinished(s, `stored as ${s.factId} and retired as forgotten: ${what} is neither in the file nor in the agent`);
    await after(s, 'retired', async () => {
      if (by === undefined || by.factId === SUPERSEDED_BY_AGENT) await c.forget(agent, s.factId);
      else await c.updateFact(agent, { ...(await c.get(agent, s.factId)), supersededBy: by.factId });
    });
  });
  summary.errors.sort((a, b) => a.line - b.line);
  return summary;
}

async function importChat(c: EngramClient, agent: string, text: string, concurrency: number | undefined, interrupt: StoppableWork, bar: ProgressBar): Promise<Summary> {
  const { sessions, problems, ignored } = parseConversationFile(text);
  if (ignored.length > 0) process.stderr.write(`engram: ignored, not part of the conversation format: ${ignored.join(', ')}\n`);
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
  let done = 0;
  let replayed: number;
  interrupt.writing();
  try {
    ({ replayed } = await importConversation(c, agent, sessions, {
      ...(concurrency ? { concurrency } : {}),
      signal: interrupt.signal,
      onProgress: (p) => bar.update('import', (done = p.done), p.total),
    }));
  } catch (error) {
    // How many of those were new is not known until the re-run replays them.
    throw new ImportStopped(null, `after ${done} of ${total} turns were acknowledged`, error);
  }
  return { imported: total - replayed, alreadyPresent: replayed, errors: [] };
}

function report(summary: Summary, agent: string, json: boolean | undefined): void {
  for (const e of summary.errors) process.stderr.write(`engram: line ${e.line}: ${e.reason}\n`);
  const notKept = notKeptNote(summary.notKept);
  if (notKept) process.stderr.write(`engram: ${notKept}\n`);
  const cut = summary.lineageCut ?? 0;
  if (cut > 0) process.stderr.write(`engram: ${counted(cut, 'line')} carried replaces naming facts neither earlier in the file nor in the agent: stored without them (a re-run cannot add them)\n`);
  for (const n of summary.neverRelated ?? []) process.stderr.write(`engram: line ${n.line}: ${n.reason}; a relation joins only live facts, so a re-run cannot add it\n`);
  if (json) {
    printJson(summaryJson(summary, agent));
    return;
  }
  const { failed } = tally(summary);
  // The incomplete are among the imported or the already present: each said beside its count
  // (after the failures they would read as more lines than the file has).
  const ofThem = (n: number) => (n ? ` (${n} of them stored incompletely)` : '');
  out(`${summary.imported} imported${ofThem(incompleteLines(summary, false))}, ${summary.alreadyPresent} already present${ofThem(incompleteLines(summary, true))}${failed ? `, ${failed} failed` : ''}${complete(summary) ? ' (nothing left to do)' : ''}`);
}

/** Whether the run found the import already done: every line present with all its steps, and
 *  nothing this run stored, applied or could not finish. */
const complete = (s: Summary) => s.alreadyPresent > 0 && s.imported === 0 && s.errors.length === 0 && s.stepsApplied === 0;

/** What the lines stored by this run carried that the new facts start without, or undefined. */
function notKeptNote(notKept: Map<NotKept, number> | undefined): string | undefined {
  const said: Record<NotKept, (n: number) => string> = {
    'use statistics': (n) => `${counted(n, 'line')} carried use statistics (use_count, review_count, cross_domain_count), which start afresh: they decay as new facts of their strength`,
    'summary kind': (n) => `${counted(n, 'line')} ${n === 1 ? 'was a summary, stored as a fact' : 'were summaries, stored as facts'}`,
    lineage: (n) => `${counted(n, 'line')} carried replaces, which starts empty (the facts replaced point at the new ones through superseded_by)`,
    promotion: (n) => `${counted(n, 'line')} carried promoted_at, which starts empty: ${n === 1 ? 'that fact is' : 'those facts are'} not promoted, so gc may collect ${n === 1 ? 'it' : 'them'} (promote ${n === 1 ? 'it' : 'them'} again)`,
  };
  const parts = [...(notKept ?? [])].map(([what, count]) => said[what](count));
  return parts.length > 0 ? `not restored (the daemon assigns these; see README, Import): ${parts.join('; ')}` : undefined;
}

/** Each line counts once: failed (nothing of it stored) or stored; a stored line whose later
 *  step did not finish is also counted as incomplete. */
function tally(summary: Summary): { failed: number; incomplete: number } {
  return { failed: summary.errors.filter((e) => e.storedAs === undefined).length, incomplete: incompleteLines(summary) };
}

/** Stored lines a later step of which did not finish, each once however many steps failed;
 *  `present`: only those counted as already present (true) or as imported (false). */
function incompleteLines(summary: Summary, present?: boolean): number {
  const of = summary.errors.filter((e) => e.storedAs !== undefined && (present === undefined || (e.present === true) === present));
  return new Set(of.map((e) => e.line)).size;
}

function summaryJson(summary: Summary, agent: string): Record<string, unknown> {
  const errors = summary.errors.map(({ line, reason, storedAs }) => ({ line, reason, ...(storedAs ? { stored_as: storedAs } : {}) }));
  return { agent_id: agent, imported: summary.imported, already_present: summary.alreadyPresent, ...tally(summary), errors };
}

const RESUME = "re-run the same command to resume (what is already stored is not stored again; the file's pins, relations and retirements are applied once every line is stored)";

/** What to do about a stop: a re-run resumes once the cause is gone, and a cause a re-run alone
 *  cannot remove (a token's rights, what the daemon can take) says what to change first. */
function nextStep(cause: unknown): string {
  if (cause instanceof Interrupted) return RESUME;
  if (cause instanceof CapabilityError) return `this daemon cannot store these lines as they are (below); once it can, ${RESUME}`;
  if (cause instanceof EngramError && (cause.kind === ErrorKind.PermissionDenied || cause.kind === ErrorKind.Unauthenticated)) {
    return `the token may not write this agent: use one that may (ENGRAM_TOKEN or --token), then ${RESUME}`;
  }
  return RESUME;
}

/** The daemon went away or stopped answering under the import. */
interface DaemonLost {
  why: string;
  /** Lines sent and not answered: their outcome is unknown, and they were not sent again. */
  inFlight: number;
  /** Nothing accepted the connection: the daemon must be started again. */
  gone: boolean;
}

function daemonLost(cause: unknown): DaemonLost | undefined {
  if (cause instanceof UnreachableError) return { why: cause.message, inFlight: 0, gone: true };
  if (!(cause instanceof UncertainWriteError)) return undefined;
  const said = (cause.cause as Error)?.message ?? String(cause.cause);
  return { why: `the daemon stopped answering with a write in flight (${said})`, inFlight: cause.requestIds.length, gone: false };
}

/** What to do once the daemon is lost: have it serve again, then re-run. */
function nextAfterLost(lost: DaemonLost): string {
  const uncertain = lost.inFlight > 0 ? ', those in flight included' : '';
  const rerun = `re-run the same command to resume: each line's request id makes the re-run store nothing twice${uncertain} (the file's pins, relations and retirements are applied once every line is stored)`;
  return lost.gone ? `start the daemon again (engram start), then ${rerun}` : `once the daemon serves again (engram status; engram start if it stopped), ${rerun}`;
}

/** How many lines the daemon acknowledged as stored, and what became of those in flight. */
function acknowledgedLine(summary: Summary, lost: DaemonLost): string {
  const acknowledged = `${counted(summary.imported + summary.alreadyPresent, 'line')} acknowledged as stored`;
  const inFlight = lost.inFlight > 0 ? `the ${counted(lost.inFlight, 'line')} in flight may or may not have been stored, and were not sent again` : 'no write was in flight';
  return `${acknowledged}; ${inFlight}`;
}

/** An import that stopped: what it did, where it stopped and why; with --json one document. A
 *  daemon lost says how many lines it acknowledged, that those in flight are uncertain and were not
 *  resent, and to have it serve again before the re-run. */
function reportStopped(stopped: ImportStopped, agent: string, json: boolean | undefined): void {
  const lost = daemonLost(stopped.cause);
  const next = lost ? nextAfterLost(lost) : nextStep(stopped.cause);
  if (json) {
    const cause =
      stopped.cause instanceof EngramError ? { kind: stopped.cause.kind, message: stopped.cause.message }
      : stopped.cause instanceof Interrupted ? { kind: 'interrupted', message: stopped.cause.message }
      : { kind: 'internal', message: String((stopped.cause as Error)?.message ?? stopped.cause) };
    const counts = lost && stopped.summary ? { acknowledged: stopped.summary.imported + stopped.summary.alreadyPresent, in_flight: lost.inFlight } : {};
    printJson({ ...(stopped.summary ? summaryJson(stopped.summary, agent) : { agent_id: agent }), stopped: { where: stopped.where, error: cause, ...counts, next } });
    return;
  }
  if (stopped.summary) report(stopped.summary, agent, false);
  if (lost) {
    const lines = [`${stopped.message}: ${lost.why}`, ...(stopped.summary ? [acknowledgedLine(stopped.summary, lost)] : []), next];
    process.stderr.write(lines.map((line) => `engram: ${line}\n`).join(''));
    return;
  }
  const what = stopped.cause instanceof Interrupted ? `import interrupted ${stopped.where}` : stopped.message;
  process.stderr.write(`engram: ${what}; ${next}\n`);
}

export function registerImportCommand({ program, globals, setExit }: Cli): void {
  program
    .command('import')
    .description('import facts from a JSONL file (one {"text", "occurred_at"?, ...} per line) or a chat export; re-runs never store a line twice')
    .argument('<agent>', 'agent id (namespace)')
    .argument('<file>', 'the file ("-" for stdin)')
    .addOption(new Option('--format <format>', 'jsonl, or conversation ({"sessions": [{"occurred_at", "turns": [{"speaker", "text"}]}]})').choices(['jsonl', 'conversation']).default('jsonl'))
    .option('--concurrency <n>', 'writes in flight (jsonl default 1, which keeps the file order; conversation default 16)', positiveInt('--concurrency'))
    .option('--allow-duplicate', 'store a line whose text matches a live fact of the agent as a new fact (by default it is that fact, "already present"), as `engram remember --allow-duplicate` does')
    .option('--json', 'print JSON')
    .action(async (agent: string, file: string, o, cmd: Command) => {
      const opts = globals(cmd);
      check.agentId(agent); // refused once, not once per line
      const bytes = readNamedFile(file, 'nothing was imported');
      // A conversation is read whole, so all of it must be UTF-8; JSON lines are refused one by one.
      const chat = o.format === 'conversation' ? utf8Text(bytes, `<file>: ${file === '-' ? 'stdin' : file}`, 'nothing was imported', '<file>') : undefined;
      if (chat === undefined) refuseWholeDocument(bytes, file);
      const bar = new ProgressBar();
      const interrupt = stopOnInterrupt('stopping the import after the writes in flight', `the last writes' outcome is unknown: ${RESUME}`, (signal, where) => {
        // --json: stdout says it too, in the shape of any other stop (a script reads one document).
        if (opts.json) reportStopped(new ImportStopped(null, where, new Interrupted(signal)), agent, true);
      });
      let summary: Summary;
      try {
        summary = await withClient(opts, (c) =>
          chat !== undefined
            ? importChat(c, agent, chat, o.concurrency, interrupt, bar)
            : importJsonl(c, agent, bytes, { concurrency: o.concurrency ?? 1, allowDuplicate: o.allowDuplicate === true, interrupt }, bar),
        ).finally(() => bar.done()); // what is said next, a summary or a stop, starts on a line of its own
      } catch (error) {
        if (!(error instanceof ImportStopped)) throw error;
        reportStopped(error, agent, opts.json);
        if (error.cause instanceof Interrupted) return setExit(error.cause.exitCode);
        // --json said it all in one document, as did the lines about a daemon lost; the exit
        // code still says it failed.
        if (opts.json || daemonLost(error.cause)) return setExit(1);
        throw error.cause;
      } finally {
        interrupt.dispose();
      }
      report(summary, agent, opts.json);
      if (summary.errors.length > 0) setExit(1);
    });
}
