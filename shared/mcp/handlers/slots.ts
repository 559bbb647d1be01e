// The memory-slot tools: set (an upsert), list, delete (an archive, refused while locked) and the
// context block to inject.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { slotJson } from '../../json/shapes.ts';
import type { Slot } from '../../model.ts';
import { schemaArgs, type Args } from '../args.ts';
import type { McpBackend } from '../backend.ts';
import { success } from '../result.ts';

const line = (s: Slot): string => `- ${s.slotName}${s.projectId ? ` (${s.projectId})` : ''}: ${JSON.stringify(s.slotValue)} · confidence ${s.confidence} · ${s.status}${s.locked ? ' · locked' : ''} [${s.id}]`;

export async function memorySlotSet(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('memory_slot_set', args);
  const r = await backend.putSlot({
    slotName: a.slot_name,
    ...(a.slot_value !== undefined ? { slotValue: a.slot_value } : {}),
    ...(a.scope !== undefined ? { scope: a.scope } : {}),
    ...(a.project_id !== undefined ? { projectId: a.project_id } : {}),
    ...(a.locked !== undefined ? { locked: a.locked } : {}),
    ...(a.status !== undefined ? { status: a.status } : {}),
    ...(a.evidence_refs !== undefined ? { evidenceRefs: a.evidence_refs } : {}),
    ...(a.confidence !== undefined ? { confidence: a.confidence } : {}),
    ...(a.visibility !== undefined ? { visibility: a.visibility } : {}),
  });
  return success({ slot: slotJson(r.slot), created: r.created }, `${r.created ? 'Created' : 'Updated'} slot:\n${line(r.slot)}`);
}

export async function memorySlotList(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('memory_slot_list', args);
  const slots = await backend.listSlots({ ...(a.project_id !== undefined ? { projectId: a.project_id } : {}), ...(a.query ? { query: a.query } : {}), archived: a.archived, limit: a.limit });
  return success({ count: slots.length, slots: slots.map(slotJson) }, slots.length ? slots.map(line).join('\n') : 'No slots.');
}

export async function memorySlotDelete(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('memory_slot_delete', args);
  const slot = await backend.deleteSlot(a.record_id);
  return success({ slot: slotJson(slot) }, `Archived slot:\n${line(slot)}`);
}

export async function memorySlotContext(args: Args, backend: McpBackend): Promise<CallToolResult> {
  const a = schemaArgs('memory_slot_context', args);
  const slots = await backend.slotContext({ ...(a.project_id !== undefined ? { projectId: a.project_id } : {}), ...(a.slot_names ? { slotNames: a.slot_names } : {}) });
  return success({ count: slots.length, slots: slots.map(slotJson) }, slots.length ? `${slots.length} slots apply:\n${slots.map(line).join('\n')}` : 'No slots apply.');
}
