// VaultService over gRPC: a thin adapter over the core's unified search.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { VaultService } from '../../shared/gen/engram/v1/vault_pb.ts';
import type { Engram } from '../core/engram.ts';
import { coreContext } from './context.ts';

export function vaultService(core: Engram): ImplOf<typeof VaultService> {
  return {
    async searchUnified(req, call) {
      return core.searchUnified(coreContext(call), {
        agentId: req.agentId,
        query: req.query,
        tags: req.tags,
        limit: req.limit,
        stmWeight: req.stmWeight,
        ltmWeight: req.ltmWeight,
        windowDays: req.windowDays,
        minScore: req.minScore,
      });
    },
  };
}
