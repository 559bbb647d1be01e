// Memory slots from the command line: `engram slots put|get|list|delete|history|context`. A
// locked slot's delete fails (exit 1, "slot is locked") until a put with --unlock.
import { Option, type Command } from 'commander';
import { slotChangeJson, slotJson } from '../../../shared/json/shapes.ts';
import { describeSlotChange } from '../../../shared/json/slot-change.ts';
import type { Slot } from '../../../shared/model.ts';
import { CONVENTIONAL_SLOTS, SLOT_STATUSES, SLOT_VISIBILITIES } from '../../../shared/slots.ts';
import type { EngramClient, SlotWrite } from '../../client.ts';
import { EngramError, ErrorKind } from '../../../shared/errors.ts';
import { out, positiveInt, printJson, repeatable, usage, withClient, type Cli } from '../context.ts';

const line = (s: Slot): string =>
  `${s.id} ${s.projectId || '(global)'}/${s.scope}/${s.slotName}${s.locked ? ' [locked]' : ''} ${s.status} ${s.authority} confidence ${s.confidence}: ${JSON.stringify(s.slotValue)}`;

/** A locked slot's refusal says how to unlock it in the command a CLI user runs (the daemon
 *  says it in the request fields of a slot write); any other error stays as it is. */
async function inCliWords(client: EngramClient, id: string, error: unknown): Promise<unknown> {
  if (!(error instanceof EngramError) || error.kind !== ErrorKind.FailedPrecondition || !error.message.startsWith('slot is locked')) return error;
  const slot = await client.getSlot(id);
  const arg = (s: string) => (/^[\w.:@/-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);
  const command = ['engram slots put', arg(slot.slotName), ...(slot.projectId ? ['--project', arg(slot.projectId)] : []), ...(slot.scope !== 'user' ? ['--scope', arg(slot.scope)] : []), '--unlock'].join(' ');
  return new EngramError(error.kind, `slot is locked: unlock it first with ${command}, then delete it`, error.field);
}

function valueOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text; // a bare word or sentence is a string value
  }
}

export function registerSlotCommands({ program, globals }: Cli): void {
  const group = program.command('slots').description(`memory slots: typed, scoped facts injected into every prompt (conventional names: ${CONVENTIONAL_SLOTS.join(', ')})`);

  group
    .command('put')
    .description('create or update the slot of (project, scope, name); options left out keep the stored values')
    .argument('<name>', 'the slot name')
    .argument('[value...]', 'the value: JSON, or plain text for a string; unquoted words are joined (required for a new slot)')
    .option('--scope <scope>', 'the scope (default user)')
    .option('--project <id>', 'the project (default: a global slot)')
    .option('--lock', 'lock it: deletion is refused')
    .option('--unlock', 'unlock it')
    .addOption(new Option('--status <status>', 'review status').choices(SLOT_STATUSES))
    .option('--evidence <ref>', 'an evidence reference (repeat it)', repeatable)
    .option('--confidence <c>', 'confidence in [0, 1] (default 0.75)')
    .addOption(new Option('--visibility <v>', 'who may see it').choices(SLOT_VISIBILITIES))
    .option('--json', 'print JSON')
    .action(async (name: string, words: string[], o, cmd: Command) => {
      const opts = globals(cmd);
      const value = words.length ? words.join(' ') : undefined;
      if (o.lock && o.unlock) usage('--lock and --unlock cannot be combined', '--lock');
      const confidence = o.confidence === undefined ? undefined : Number(o.confidence);
      if (confidence !== undefined && !Number.isFinite(confidence)) usage(`--confidence must be a number, got "${o.confidence}"`);
      const write: SlotWrite = {
        slotName: name,
        ...(value !== undefined ? { slotValue: valueOf(value) } : {}),
        // An empty --scope goes to the daemon, which refuses it, instead of quietly meaning user.
        ...(o.scope !== undefined ? { scope: o.scope } : {}),
        ...(o.project ? { projectId: o.project } : {}),
        ...(o.lock ? { locked: true } : o.unlock ? { locked: false } : {}),
        ...(o.status ? { status: o.status } : {}),
        ...(o.evidence ? { evidenceRefs: o.evidence } : {}),
        ...(confidence !== undefined ? { confidence } : {}),
        ...(o.visibility ? { visibility: o.visibility } : {}),
      };
      const r = await withClient(opts, (c) => c.putSlot(write));
      if (opts.json) printJson({ slot: slotJson(r.slot), created: r.created, changed: r.changed });
      else out(`${r.created ? 'created' : r.changed ? 'updated' : 'unchanged'} ${line(r.slot)}`);
    });

  group
    .command('get')
    .description('one slot, archived ones too')
    .argument('<record-id>', 'the slot')
    .option('--json', 'print JSON')
    .action(async (id: string, _o, cmd: Command) => {
      const opts = globals(cmd);
      const slot = await withClient(opts, (c) => c.getSlot(id));
      if (opts.json) printJson({ slot: slotJson(slot) });
      else out(line(slot));
    });

  group
    .command('list')
    .description('slots by project and substring (archived ones with --archived)')
    .option('--project <id>', 'only this project\'s slots ("" for the global ones)')
    .option('--query <text>', 'a substring of the name or value')
    .option('--archived', 'the archived slots instead')
    .option('--limit <n>', 'slots per page, at most 1000 (default 100)', positiveInt('--limit'))
    .option('--page-token <t>', 'the next page')
    .option('--json', 'print JSON')
    .action(async (o, cmd: Command) => {
      const opts = globals(cmd);
      const r = await withClient(opts, (c) => c.listSlots({ ...(o.project !== undefined ? { projectId: o.project } : {}), ...(o.query ? { query: o.query } : {}), archived: o.archived === true, ...(o.limit ? { limit: o.limit } : {}), ...(o.pageToken ? { pageToken: o.pageToken } : {}) }));
      if (opts.json) return printJson({ count: r.slots.length, slots: r.slots.map(slotJson), next_page_token: r.nextPageToken });
      for (const s of r.slots) out(line(s));
      if (r.nextPageToken) out(`more: --page-token ${r.nextPageToken}`);
    });

  group
    .command('delete')
    .description('archive a slot; a locked one is refused (unlock it first with put --unlock)')
    .argument('<record-id>', 'the slot')
    .option('--json', 'print JSON')
    .action(async (id: string, _o, cmd: Command) => {
      const opts = globals(cmd);
      const slot = await withClient(opts, async (c) => {
        try {
          return await c.deleteSlot(id);
        } catch (error) {
          throw await inCliWords(c, id, error);
        }
      });
      if (opts.json) printJson({ slot: slotJson(slot) });
      else out(`archived ${line(slot)}`);
    });

  group
    .command('history')
    .description('every change of a slot: when, by whom, before and after')
    .argument('<record-id>', 'the slot')
    .option('--json', 'print JSON')
    .action(async (id: string, _o, cmd: Command) => {
      const opts = globals(cmd);
      const changes = await withClient(opts, (c) => c.slotHistory(id));
      if (opts.json) return printJson({ record_id: id, changes: changes.map(slotChangeJson) });
      for (const ch of changes.map(slotChangeJson)) out(`v${ch.version} ${ch.at} ${ch.op} by ${ch.by}: ${describeSlotChange(ch.before, ch.after)}`);
    });

  group
    .command('context')
    .description('the slots that apply, ready to inject (a project\'s and the global ones)')
    .option('--project <id>', 'the project')
    .option('--name <name>', 'only this slot (repeat it)', repeatable)
    .option('--json', 'print JSON')
    .action(async (o, cmd: Command) => {
      const opts = globals(cmd);
      const slots = await withClient(opts, (c) => c.slotContext({ ...(o.project ? { projectId: o.project } : {}), ...(o.name ? { slotNames: o.name } : {}) }));
      if (opts.json) return printJson({ count: slots.length, slots: slots.map(slotJson) });
      for (const s of slots) out(line(s));
      out(`${slots.length} slots`);
    });
}
