// MemoryControlsService over gRPC: a thin adapter over the core's memory slots.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { MemoryControlsService, type SlotSchema } from '../../shared/gen/engram/v1/controls_pb.ts';
import { invalidArgument } from '../../shared/errors.ts';
import type { Engram, Recipe, SlotRecord } from '../core/engram.ts';
import { coreContext } from './context.ts';
import { factMessage, receiptMessage, retrievalMessage } from './convert.ts';

export const slotMessage = (s: SlotRecord): MessageInitShape<typeof SlotSchema> => ({
  recordId: s.id,
  slotName: s.slotName,
  slotValueJson: JSON.stringify(s.slotValue),
  scope: s.scope,
  projectId: s.projectId,
  locked: s.locked,
  status: s.status,
  authority: s.authority,
  evidenceRefs: s.evidenceRefs,
  verificationState: s.verificationState,
  confidence: s.confidence,
  visibility: s.visibility,
  createdAtMs: BigInt(s.createdAt),
  updatedAtMs: BigInt(s.updatedAt),
  version: s.version,
});

const recipeMessage = ({ savedAt, ...r }: Recipe) => ({ ...r, savedAtMs: BigInt(savedAt) });

function parsedValue(json: string | undefined): unknown {
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw invalidArgument('slot_value_json', 'must be JSON text');
  }
}

export function controlsService(core: Engram): ImplOf<typeof MemoryControlsService> {
  return {
    async putSlot(req, call) {
      const r = await core.putSlot(coreContext(call, req.requestId), {
        slotName: req.slotName,
        slotValue: parsedValue(req.slotValueJson),
        scope: req.scope,
        projectId: req.projectId,
        locked: req.locked,
        status: req.status,
        ...(req.setEvidenceRefs || req.evidenceRefs.length ? { evidenceRefs: req.evidenceRefs } : {}),
        confidence: req.confidence,
        visibility: req.visibility,
      });
      return { slot: slotMessage(r.slot), created: r.created, unchanged: !r.changed, replayed: r.replayed };
    },
    async getSlot(req, call) {
      return { slot: slotMessage(await core.getSlot(coreContext(call), req.recordId)) };
    },
    async listSlots(req, call) {
      const r = await core.listSlots(coreContext(call), { projectId: req.projectId, query: req.query, archived: req.archived, limit: req.limit, ...(req.pageToken ? { pageToken: req.pageToken } : {}) });
      return { slots: r.slots.map(slotMessage), nextPageToken: r.nextPageToken };
    },
    async deleteSlot(req, call) {
      const r = await core.deleteSlot(coreContext(call, req.requestId), req.recordId);
      return { slot: slotMessage(r.slot), unchanged: !r.changed, replayed: r.replayed };
    },
    async slotHistory(req, call) {
      const changes = await core.slotHistory(coreContext(call), req.recordId);
      return { changes: changes.map((c) => ({ version: c.version, atMs: BigInt(c.at), by: c.by, op: c.op, ...(c.before ? { before: slotMessage(c.before) } : {}), after: slotMessage(c.after) })) };
    },
    async saveRecipe(req, call) {
      const { requestId, name, ...fields } = req;
      const r = await core.saveRecipe(coreContext(call, requestId), { name, ...fields });
      return { recipe: recipeMessage(r.recipe), unchanged: !r.changed, replayed: r.replayed };
    },
    async listRecipes(_req, call) {
      return { recipes: (await core.listRecipes(coreContext(call))).map(recipeMessage) };
    },
    async getRecipe(req, call) {
      return { recipe: recipeMessage(await core.getRecipe(coreContext(call), req.name)) };
    },
    async recipeHistory(req, call) {
      return { versions: (await core.recipeHistory(coreContext(call), req.name)).map(recipeMessage) };
    },
    async assembleContext(req, call) {
      const c = await core.assembleContext(coreContext(call), {
        agentId: req.agentId,
        query: req.query,
        mode: req.mode,
        recipe: req.recipe,
        tokenBudget: req.tokenBudget,
        projectId: req.projectId,
        ...(req.slotNames.length ? { slotNames: req.slotNames } : {}),
        topK: req.topK,
      });
      return {
        block: c.block,
        tokens: c.tokens,
        tokenBudget: c.tokenBudget,
        tokenizer: c.tokenizer,
        mode: c.mode,
        recipe: { ...c.recipe, reranker: c.recipe.rerankerStage },
        items: c.items.map((item) => ({
          kind: item.kind,
          id: item.id,
          text: item.text,
          tokens: item.tokens,
          confidence: item.confidence ?? 0,
          ...(item.slot ? { slot: slotMessage(item.slot) } : {}),
          ...(item.fact ? { fact: factMessage(item.fact) } : {}),
          ...(item.receipt ? { receipt: receiptMessage(item.receipt) } : {}),
          evidence: item.evidence ?? [],
        })),
        cut: c.cut,
        retrieval: retrievalMessage(c.retrieval),
      };
    },
    async slotContext(req, call) {
      const slots = await core.slotContext(coreContext(call), { projectId: req.projectId, ...(req.slotNames.length ? { slotNames: req.slotNames } : {}) });
      return { slots: slots.map(slotMessage), count: slots.length };
    },
  };
}
