// AdminService over gRPC: doctor and reindex, streamed so the CLI can draw a progress bar.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { AdminService } from '../../shared/gen/engram/v1/admin_pb.ts';
import { doctor } from '../index/doctor.ts';
import { reindex } from '../lifecycle/reindex.ts';
import type { Memory } from '../memory.ts';

export function adminService(memory: Memory): ImplOf<typeof AdminService> {
  return {
    async *doctor(req) {
      for await (const event of doctor(memory, req.rebuild)) {
        if (event.kind === 'progress') {
          yield { event: { case: 'progress', value: { phase: event.phase, done: BigInt(event.done), total: BigInt(event.total) } } };
        } else {
          yield { event: { case: 'report', value: { checks: event.checks, healthy: event.healthy, rebuilt: event.rebuilt } } };
        }
      }
    },
    async *reindex() {
      for await (const event of reindex(memory)) {
        if (event.kind === 'progress') {
          yield { event: { case: 'progress', value: { phase: event.phase, done: BigInt(event.done), total: BigInt(event.total) } } };
        } else {
          yield { event: { case: 'report', value: { embedded: BigInt(event.embedded), alreadyDone: BigInt(event.alreadyDone), embedder: event.embedder } } };
        }
      }
    },
  };
}
