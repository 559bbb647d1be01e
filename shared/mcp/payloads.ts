// The structuredContent payloads of the MCP tools as TypeScript types, inferred from the output
// schemas (output-schemas.ts), so a handler cannot build a payload its schema does not declare.
//
// Facts are plain texts in search payloads. GrayMatter's Recall returns []string and its MCP
// payloads carry those strings in `facts`/`merged`; a client compiled against that contract reads
// strings, so we do too. A caller that needs a fact's id (to update, forget or pin it) asks with
// explain: true, whose receipts carry provenance.fact_id, or uses memory_list.
import type { z } from 'zod';
import type { OUTPUT_TYPES } from './output-schemas.ts';

type Payload<T extends keyof typeof OUTPUT_TYPES> = z.infer<(typeof OUTPUT_TYPES)[T]>;

export type { ReceiptJson } from '../schemas/json-shapes.ts';

export type SearchPayload = Payload<'memory_search'>;
/** The effective confidence policy of a search (present only when confidence options applied). */
export type SearchRetrieval = NonNullable<SearchPayload['retrieval']>;
export type BatchPayload = Payload<'memory_search_batch'>;
export type AddPayload = Payload<'memory_add'>;
export type AddBatchPayload = Payload<'memory_add_batch'>;
export type AliasPayload = Payload<'memory_alias'>;
export type CheckpointSavePayload = Payload<'checkpoint_save'>;
export type CheckpointResumePayload = Payload<'checkpoint_resume'>;
export type ReflectPayload = Payload<'memory_reflect'>;
export type ListPayload = Payload<'memory_list'>;
export type GetPayload = Payload<'memory_get'>;
export type ForgetPayload = Payload<'memory_forget'>;
export type DeletePayload = Payload<'memory_delete'>;
export type SavePayload = Payload<'save_memory'>;
export type ScoredSearchPayload = Payload<'search_memory'>;
export type TouchPayload = Payload<'touch_memory'>;
export type ObservePayload = Payload<'observe_memory_usage'>;
export type GcPayload = Payload<'gc'>;

export { REFLECT_ACTIONS, type ReflectAction } from './input-schemas.ts';
