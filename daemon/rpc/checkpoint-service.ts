// CheckpointService over gRPC: a thin adapter over the core's checkpoint operations.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { CheckpointService, type CheckpointSchema } from '../../shared/gen/engram/v1/checkpoint_pb.ts';
import type { Engram } from '../core/engram.ts';
import type { CheckpointRecord } from '../core/engram.ts';
import { coreContext } from './context.ts';

function checkpointMessage(c: CheckpointRecord): MessageInitShape<typeof CheckpointSchema> {
  return { id: c.id, agentId: c.agentId, createdAtMs: BigInt(c.createdAt), stateJson: c.state, messageCount: c.messageCount };
}

export function checkpointService(core: Engram): ImplOf<typeof CheckpointService> {
  return {
    async saveCheckpoint(req, call) {
      return { checkpoint: checkpointMessage(await core.saveCheckpoint(coreContext(call, req.requestId), { agentId: req.agentId, state: req.stateJson })) };
    },
    async resumeCheckpoint(req, call) {
      const latest = await core.resumeCheckpoint(coreContext(call), req.agentId);
      return latest ? { found: true, checkpoint: checkpointMessage(latest) } : { found: false };
    },
    async listCheckpoints(req, call) {
      return { checkpoints: (await core.listCheckpoints(coreContext(call), req.agentId)).map(checkpointMessage) };
    },
  };
}
