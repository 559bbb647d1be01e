// ConsolidationService over gRPC: a thin adapter over the core's consolidation runs and counters.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { ConsolidationService } from '../../shared/gen/engram/v1/consolidation_pb.ts';
import type { ConsolidationCounters, Engram } from '../core/engram.ts';
import { factMessage } from './convert.ts';
import { coreContext } from './context.ts';

export const countersMessage = (c: ConsolidationCounters) => ({
  runs: BigInt(c.runs),
  summariesWritten: BigInt(c.summariesWritten),
  factsRetired: BigInt(c.factsRetired),
  failures: BigInt(c.failures),
  rejectedProposals: BigInt(c.rejectedProposals),
  lastRunAtMs: BigInt(c.lastRunAt),
  queued: c.queued,
});

export function consolidationService(core: Engram): ImplOf<typeof ConsolidationService> {
  return {
    async consolidate(req, call) {
      const { summary, ...run } = await core.consolidate(coreContext(call, req.requestId), { agentId: req.agentId, dryRun: req.dryRun });
      return { ...run, ...(summary ? { summary: factMessage(summary) } : {}) };
    },
    async consolidationStatus() {
      return { counters: countersMessage(core.consolidationCounters()) };
    },
  };
}
