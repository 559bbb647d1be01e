// The transport floor: grpc.health.v1 Check, a tiny unary call the daemon answers without
// touching the store, over the same unix socket. Measured in the same run as the real calls,
// so a busy machine shows in both and their ratio stays meaningful.
import * as grpc from '@grpc/grpc-js';
import { readDiscovery } from '../shared/discovery.ts';
import { Health } from '../shared/gen/grpc/health/v1/health_pb.ts';
import { createServiceClient } from '../shared/grpc/bridge.ts';

/** How many slices a bench cuts its measured calls into, each followed by a slice of floor calls:
 *  the floor is then taken in the same moments as the calls, so a machine whose speed drifts
 *  during the run moves both alike. */
export const FLOOR_SLICES = 5;

export interface HealthClient {
  /** `metadata`: e.g. engram-min-change, which the daemon waits for before answering. */
  check(metadata?: grpc.Metadata): Promise<unknown>;
  close(): void;
}

export function healthClient(dataDir: string): HealthClient {
  const channel = new grpc.Client(readDiscovery(dataDir).address, grpc.credentials.createInsecure());
  const health = createServiceClient(Health, channel);
  return { check: (metadata) => health.check({ service: '' }, metadata ? { metadata } : {}), close: () => channel.close() };
}
