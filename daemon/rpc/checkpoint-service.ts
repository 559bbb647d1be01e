// CheckpointService over gRPC: a thin adapter over daemon/lifecycle/checkpoints.ts.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { CheckpointService, type CheckpointSchema } from '../../shared/gen/engram/v1/checkpoint_pb.ts';
import { listCheckpoints, resumeCheckpoint, saveCheckpoint } from '../lifecycle/checkpoints.ts';
import type { Memory } from '../memory.ts';
import type { CheckpointRecord } from '../store/database.ts';

function checkpointMessage(c: CheckpointRecord): MessageInitShape<typeof CheckpointSchema> {
  return { id: c.id, agentId: c.agentId, createdAtMs: BigInt(c.createdAt), stateJson: c.state, messageCount: c.messageCount };
}

export function checkpointService(memory: Memory): ImplOf<typeof CheckpointService> {
  return {
    async saveCheckpoint(req) {
      return { checkpoint: checkpointMessage(await saveCheckpoint(memory, { requestId: req.requestId, agentId: req.agentId, state: req.stateJson })) };
    },
    async resumeCheckpoint(req) {
      const latest = await resumeCheckpoint(memory, req.agentId);
      return latest ? { found: true, checkpoint: checkpointMessage(latest) } : { found: false };
    },
    async listCheckpoints(req) {
      return { checkpoints: (await listCheckpoints(memory, req.agentId)).map(checkpointMessage) };
    },
  };
}
