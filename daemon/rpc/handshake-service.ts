// HandshakeService: who this daemon is, what it can do, and its limits.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { HandshakeService } from '../../shared/gen/engram/v1/handshake_pb.ts';
import { Capability, type ReleaseProfile } from '../../shared/capabilities.ts';
import type { SignalWeights } from '../../shared/model.ts';
import { PROTOCOL_NAME, ENGRAM_VERSION } from '../../shared/version.ts';
import type { Limits } from '../../shared/validate.ts';

export interface HandshakeInfo {
  instanceId: string;
  profile: ReleaseProfile;
  defaultConfidenceWeight?: number;
  /** The weights a recall gets for the signals it does not weight. */
  defaultWeights: SignalWeights;
  limits: Limits;
  embedder: () => string;
  /** The store's kind and identity (Hello store, store_id). */
  store: { store: string; storeId: string };
}

export function handshakeService(info: HandshakeInfo): ImplOf<typeof HandshakeService> {
  return {
    async hello() {
      return {
        protocol: PROTOCOL_NAME,
        daemonVersion: ENGRAM_VERSION,
        instanceId: info.instanceId,
        capabilities: [...info.profile.capabilities].sort(),
        defaultConfidenceWeight: info.profile.advertisesDefaultWeight ? info.defaultConfidenceWeight : undefined,
        // A profile without batch writes advertises no batch size.
        limits: {
          ...info.limits,
          maxWriteBatch: info.profile.capabilities.includes(Capability.BatchWrite) ? info.limits.maxWriteBatch : 0,
          maxSlotValueBytes: info.profile.capabilities.includes(Capability.Slots) ? info.limits.maxSlotValueBytes : 0,
        },
        profile: info.profile.name,
        embedder: info.embedder(),
        defaultSignalWeights: info.profile.capabilities.includes(Capability.EmbedderWeights) ? info.defaultWeights : undefined,
        ...(info.profile.capabilities.includes(Capability.ReadYourWrites) ? info.store : {}),
      };
    },
  };
}
