// ClusterService over gRPC: a thin adapter over the core's clustering and consolidation.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { ClusterService } from '../../shared/gen/engram/v1/cluster_pb.ts';
import type { Engram } from '../core/engram.ts';
import { coreContext } from './context.ts';

export function clusterService(core: Engram): ImplOf<typeof ClusterService> {
  return {
    async cluster(req, call) {
      return core.clusterFacts(coreContext(call), {
        agentId: req.agentId,
        ...(req.strategy ? { strategy: req.strategy } : {}),
        threshold: req.threshold,
        maxClusterSize: req.maxClusterSize,
        findDuplicates: req.findDuplicates,
        duplicateThreshold: req.duplicateThreshold,
      });
    },
    async consolidate(req, call) {
      return core.consolidateCluster(coreContext(call, req.requestId), {
        agentId: req.agentId,
        clusterId: req.clusterId,
        ...(req.mode ? { mode: req.mode } : {}),
        threshold: req.threshold,
        maxClusterSize: req.maxClusterSize,
      });
    },
  };
}
