// GraphService over gRPC: a thin adapter over the core's relations and graph reads.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { GraphService } from '../../shared/gen/engram/v1/graph_pb.ts';
import type { Engram } from '../core/engram.ts';
import { factMessage } from './convert.ts';
import { coreContext } from './context.ts';

export function graphService(core: Engram): ImplOf<typeof GraphService> {
  return {
    async relate(req, call) {
      const r = await core.relate(coreContext(call, req.requestId), { agentId: req.agentId, fromId: req.fromId, toId: req.toId, type: req.type, remove: req.remove });
      return { fact: factMessage(r.fact), changed: r.changed, replayed: r.replayed };
    },
    async linkEntity(req, call) {
      const fact = await core.linkEntity(coreContext(call, req.requestId), { agentId: req.agentId, factId: req.factId, entity: req.entity, ...(req.entityType ? { type: req.entityType } : {}) });
      return { fact: factMessage(fact) };
    },
    async readGraph(req, call) {
      return core.readGraph(coreContext(call), {
        agentId: req.agentId,
        ...(req.factId ? { factId: req.factId } : { entity: req.entity }),
        limit: req.limit,
      });
    },
  };
}
