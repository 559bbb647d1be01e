// Memory slots: put (an upsert on project, scope and name), get, list, delete (an archive, refused
// while locked), the change history of a slot, and the context block of the slots that apply.
// Every write goes through the write pipeline under the slot's key lock and commits the slot and
// its history entry together, so who changed a constraint, when, from what to what, is never lost.
import { EngramError, ErrorKind, fieldNotFound, invalidArgument } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import { checkSlot, nextSlot, slotKey, unchanged, type SlotInput, type SlotRecord } from '../controls/slot.ts';
import type { Json, MemoryStore } from '../store/store.ts';
import { CONTROLS_NAMESPACE, RelockNeeded, type Commit, type WritePipeline } from '../write/pipeline.ts';
import type { CallContext } from './context.ts';
import type { SlotChange, SlotWritten } from '../../shared/model.ts';

export type { SlotInput, SlotRecord } from '../controls/slot.ts';
export type { SlotChange, SlotWritten } from '../../shared/model.ts';

export interface SlotListInput {
  projectId?: unknown;
  query?: unknown;
  archived?: unknown;
  limit?: unknown;
  pageToken?: unknown;
}

const idLock = (recordId: string | undefined): string[] => (recordId ? [`slot-id:${recordId}`] : []);
const versionKey = (recordId: string, version: number) => `${recordId}\u0000${version.toString(16).padStart(8, '0')}`;

export class Slots {
  /** Upsert key → record id, for every slot (archived ones too: a write brings them back). */
  private readonly byKey = new Map<string, string>();

  constructor(
    private readonly store: MemoryStore,
    private readonly pipeline: WritePipeline,
  ) {}

  /** Loads the slot index; again whenever another daemon sharing the store changed slots. */
  async open(): Promise<void> {
    const loaded = new Map<string, string>();
    for await (const [id, value] of this.store.scanRecords('slots')) loaded.set(slotKey(value as unknown as SlotRecord), id);
    this.byKey.clear();
    for (const [key, id] of loaded) this.byKey.set(key, id);
  }

  /** Create or update the slot of this project, scope and name. A write that changes nothing
   *  records no version and answers the slot as it was (changed: false). */
  put(ctx: CallContext, input: SlotInput): Promise<SlotWritten> {
    const w = checkSlot(input);
    const key = slotKey(w);
    return this.pipeline.run<SlotWritten>(ctx, {
      agentId: CONTROLS_NAMESPACE,
      requestId: check.requestId(ctx.requestId),
      request: { op: 'slot', slot: w },
      locks: [`slot:${key}`, ...idLock(this.byKey.get(key))],
      plan: async (held) => {
        // A put and a delete of one slot hold both its key and its id.
        const knownId = this.byKey.get(key);
        if (knownId && !held.has(idLock(knownId)[0]!)) throw new RelockNeeded(idLock(knownId));
        const before = knownId ? await this.read(knownId) : undefined;
        return () => {
          const now = Date.now();
          const slot = nextSlot(before, w, before ? before.id : this.store.nextId(now).id, now);
          if (before && unchanged(before, slot)) return this.unchangedWrite('slot', before);
          const op = before && before.status !== 'archived' ? 'update' : 'create';
          return {
            changes: [
              { type: 'putRecord', table: 'slots', key: slot.id, value: slot as unknown as Json },
              { type: 'putRecord', table: 'slotChanges', key: versionKey(slot.id, slot.version), value: this.change(ctx, op, before, slot) as unknown as Json },
            ],
            result: { slot, created: !before, changed: true, replayed: false },
            record: { op: 'slot', recordId: slot.id, version: slot.version, created: !before, changed: true },
            apply: () => this.byKey.set(key, slot.id),
          };
        };
      },
      replay: async (recorded) => ({ slot: await this.recordedSlot(ctx, recorded), created: recorded.created === true, changed: recorded.changed !== false, replayed: true }),
    });
  }

  async get(_ctx: CallContext, recordId: unknown): Promise<SlotRecord> {
    const id = typeof recordId === 'string' && recordId !== '' ? recordId : undefined;
    if (!id) throw invalidArgument('record_id', 'must name a slot');
    const slot = await this.read(id);
    if (!slot) throw fieldNotFound('record_id', `no slot ${id}`);
    return slot;
  }

  /** Delete = archive; a locked slot refuses (the lock comes off only by an update). Archiving
   *  an archived slot changes nothing: no version, the slot as it was (changed: false). */
  delete(ctx: CallContext, recordIdInput: unknown): Promise<SlotWritten> {
    const recordId = typeof recordIdInput === 'string' ? recordIdInput : '';
    return this.pipeline.run<SlotWritten>(ctx, {
      agentId: CONTROLS_NAMESPACE,
      requestId: check.requestId(ctx.requestId),
      request: { op: 'slot-archive', recordId },
      locks: idLock(recordId),
      plan: async (held) => {
        const before = await this.get(ctx, recordId);
        if (!held.has(`slot:${slotKey(before)}`)) throw new RelockNeeded([`slot:${slotKey(before)}`]);
        if (before.status === 'archived') return () => this.unchangedWrite('slot-archive', before);
        if (before.locked) throw new EngramError(ErrorKind.FailedPrecondition, `slot is locked: ${howToUnlock(before)}`, 'record_id');
        return () => {
          const now = Date.now();
          const after: SlotRecord = { ...before, status: 'archived', updatedAt: now, version: before.version + 1 };
          return {
            changes: [
              { type: 'putRecord', table: 'slots', key: after.id, value: after as unknown as Json },
              { type: 'putRecord', table: 'slotChanges', key: versionKey(after.id, after.version), value: this.change(ctx, 'archive', before, after) as unknown as Json },
            ],
            result: { slot: after, created: false, changed: true, replayed: false },
            record: { op: 'slot-archive', recordId, version: after.version, changed: true },
          };
        };
      },
      replay: async (recorded) => ({ slot: await this.recordedSlot(ctx, { ...recorded, recordId }), created: false, changed: recorded.changed !== false, replayed: true }),
    });
  }

  /** A write that leaves the slot as it was: nothing committed but its request record. */
  private unchangedWrite(op: string, slot: SlotRecord): Commit<SlotWritten> {
    return { changes: [], result: { slot, created: false, changed: false, replayed: false }, record: { op, recordId: slot.id, version: slot.version, created: false, changed: false } };
  }

  /** The slot as the first write of a request id answered it: the version it left (from the
   *  history, which keeps every version); a record from before versions were recorded, the slot
   *  as it is now. */
  private async recordedSlot(ctx: CallContext, recorded: Json): Promise<SlotRecord> {
    const recordId = String(recorded.recordId);
    if (typeof recorded.version === 'number') {
      const change = (await this.store.getRecord('slotChanges', versionKey(recordId, recorded.version))) as unknown as SlotChange | undefined;
      if (change) return change.after;
    }
    return this.get(ctx, recordId);
  }

  /** Slots by project (absent: every project) and substring of name or value, id order, paged. */
  async list(_ctx: CallContext, input: SlotListInput): Promise<{ slots: SlotRecord[]; nextPageToken: string }> {
    const projectId = input.projectId === undefined ? undefined : String(input.projectId);
    const query = input.query === undefined || input.query === '' ? undefined : String(input.query).toLowerCase();
    const archived = input.archived === undefined ? false : check.boolean(input.archived, 'archived');
    const limit = input.limit === undefined ? 100 : check.count(input.limit, 'limit', check.MAX_SLOT_PAGE);
    const after = input.pageToken === undefined || input.pageToken === '' ? '' : check.pageToken(input.pageToken);
    const slots: SlotRecord[] = [];
    let nextPageToken = '';
    for await (const [id, value] of this.store.scanRecords('slots')) {
      if (id <= after) continue;
      const slot = value as unknown as SlotRecord;
      if ((slot.status === 'archived') !== archived) continue;
      if (projectId !== undefined && slot.projectId !== projectId) continue;
      if (query && !`${slot.slotName} ${JSON.stringify(slot.slotValue)}`.toLowerCase().includes(query)) continue;
      if (slots.length === limit) {
        nextPageToken = slots[slots.length - 1]!.id;
        break;
      }
      slots.push(slot);
    }
    return { slots, nextPageToken };
  }

  /** Every change of a slot, oldest first. */
  async history(ctx: CallContext, recordId: unknown): Promise<SlotChange[]> {
    const slot = await this.get(ctx, recordId);
    const out: SlotChange[] = [];
    for await (const [, value] of this.store.scanRecords('slotChanges', { prefix: `${slot.id}\u0000` })) out.push(value as unknown as SlotChange);
    return out;
  }

  /** The slots that apply: with a project, its slots and the global ones, a project slot
   *  shadowing a global one of the same scope and name; optionally only the named ones. */
  async context(_ctx: CallContext, input: { projectId?: unknown; slotNames?: unknown }): Promise<SlotRecord[]> {
    const projectId = input.projectId === undefined || input.projectId === '' ? '' : String(input.projectId);
    const names = input.slotNames === undefined ? undefined : new Set(check.tags(input.slotNames, 'slot_names'));
    const chosen = new Map<string, SlotRecord>();
    for await (const [, value] of this.store.scanRecords('slots')) {
      const slot = value as unknown as SlotRecord;
      if (slot.status === 'archived' || (names && !names.has(slot.slotName))) continue;
      if (slot.projectId !== '' && slot.projectId !== projectId) continue;
      const key = `${slot.scope}\u0000${slot.slotName}`;
      const held = chosen.get(key);
      if (!held || (held.projectId === '' && slot.projectId !== '')) chosen.set(key, slot);
    }
    return [...chosen.values()].sort((a, b) => (a.slotName < b.slotName ? -1 : a.slotName > b.slotName ? 1 : a.scope < b.scope ? -1 : 1));
  }

  private async read(id: string): Promise<SlotRecord | undefined> {
    return (await this.store.getRecord('slots', id)) as unknown as SlotRecord | undefined;
  }

  private change(ctx: CallContext, op: SlotChange['op'], before: SlotRecord | undefined, after: SlotRecord): SlotChange {
    return { recordId: after.id, version: after.version, at: after.updatedAt, by: ctx.principal.id, op, before: before ?? null, after };
  }
}

/** How to unlock a slot, in the fields every door's slot write takes (MCP memory_slot_set, REST
 *  POST /v1/memory-controls/slots, the library's putSlot): "slot is locked" alone leaves a person
 *  guessing, since a lock comes off only by writing the slot again. */
function howToUnlock(slot: SlotRecord): string {
  const which = [`slot_name ${JSON.stringify(slot.slotName)}`, ...(slot.projectId ? [`project_id ${JSON.stringify(slot.projectId)}`] : []), `scope ${JSON.stringify(slot.scope)}`];
  return `unlock it first by writing it again with locked: false (${which.join(', ')})`;
}
