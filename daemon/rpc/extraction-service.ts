// ExtractionService over gRPC: a thin adapter over the core's fact extraction.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { ExtractionService } from '../../shared/gen/engram/v1/extract_pb.ts';
import type { Engram } from '../core/engram.ts';
import { coreContext } from './context.ts';

export function extractionService(core: Engram): ImplOf<typeof ExtractionService> {
  return {
    async extract(req, call) {
      const turns = req.turns.length ? req.turns.map((t) => ({ speaker: t.speaker, text: t.text })) : undefined;
      const r = await core.extract(coreContext(call, req.requestId), { agentId: req.agentId, message: req.message, turns, remember: req.remember });
      return {
        extractor: r.extractor,
        facts: r.facts.map((f) => ({ text: f.text, kind: f.kind, entities: f.entities, factId: f.factId ?? '', duplicate: f.duplicate ?? false, error: f.error ?? '' })),
        rejected: r.rejected ?? '',
        stored: r.stored,
      };
    },
  };
}
