// AnalysisService over gRPC: a thin adapter over the core's message analysis.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { AnalysisService } from '../../shared/gen/engram/v1/analysis_pb.ts';
import type { Engram } from '../core/engram.ts';
import { coreContext } from './context.ts';

export function analysisService(core: Engram): ImplOf<typeof AnalysisService> {
  return {
    async analyzeMessage(req, call) {
      return core.analyzeMessage(coreContext(call), { message: req.message });
    },
    async analyzeForRecall(req, call) {
      return core.analyzeForRecall(coreContext(call), { message: req.message });
    },
  };
}
