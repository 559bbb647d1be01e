// The standard grpc.health.v1 service: SERVING while the daemon accepts calls, NOT_SERVING
// once it has started to drain.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from '../../shared/gen/grpc/health/v1/health_pb.ts';
import { fieldNotFound } from '../../shared/errors.ts';

const KNOWN_SERVICES = new Set(['', 'engram.v1.MemoryService', 'engram.v1.HandshakeService', 'engram.v1.AdminService', 'engram.v1.CheckpointService']);

export function healthService(isServing: () => boolean): ImplOf<typeof Health> {
  const status = (service: string) => {
    if (!KNOWN_SERVICES.has(service)) throw fieldNotFound('service', `unknown service "${service}"`);
    return isServing() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  };
  return {
    async check(req) {
      return { status: status(req.service) };
    },
    async *watch(req) {
      yield { status: status(req.service) };
    },
  };
}
