// DecayService over gRPC: a thin adapter over the core's reinforcement and collection.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { DecayService } from '../../shared/gen/engram/v1/decay_pb.ts';
import type { Engram } from '../core/engram.ts';
import { factMessage } from './convert.ts';
import { coreContext } from './context.ts';

export function decayService(core: Engram): ImplOf<typeof DecayService> {
  return {
    async touch(req, call) {
      const r = await core.touch(coreContext(call, req.requestId), { agentId: req.agentId, factId: req.factId, boostStrength: req.boostStrength });
      return { fact: factMessage(r.fact), oldScore: r.oldScore, newScore: r.newScore, replayed: r.replayed };
    },
    async observeUsage(req, call) {
      return core.observeUsage(coreContext(call, req.requestId), { agentId: req.agentId, factIds: req.factIds, contextTags: req.contextTags });
    },
    async promote(req, call) {
      const r = await core.promote(coreContext(call), { agentId: req.agentId, factId: req.factId, autoDetect: req.autoDetect, dryRun: req.dryRun, target: req.target, force: req.force });
      return { ...r, candidates: r.candidates.map(({ id, ...c }) => ({ factId: id, ...c })) };
    },
    async collectGarbage(req, call) {
      return core.collectGarbage(coreContext(call, req.requestId), { agentId: req.agentId, dryRun: req.dryRun, archiveInstead: req.archiveInstead, limit: req.limit });
    },
  };
}
