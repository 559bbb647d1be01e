// AdminService over gRPC: doctor and reindex, streamed so the CLI can draw a progress bar.
import type { ImplOf } from '../../shared/grpc/bridge.ts';
import { AdminService } from '../../shared/gen/engram/v1/admin_pb.ts';
import type { Engram, TokenInfo } from '../core/engram.ts';
import { coreContext } from './context.ts';

const progress = (event: { phase: string; done: number; total: number }) =>
  ({ event: { case: 'progress', value: { phase: event.phase, done: BigInt(event.done), total: BigInt(event.total) } } }) as const;

const tokenInfo = (t: TokenInfo) => ({
  id: t.id,
  agents: [...t.agents],
  rights: [...t.rights],
  sharedRights: [...t.shared],
  label: t.label,
  createdAtMs: BigInt(t.createdAt),
  createdBy: t.createdBy,
  revokedAtMs: BigInt(t.revokedAt),
});

export function adminService(core: Engram): ImplOf<typeof AdminService> {
  return {
    async *doctor(req, call) {
      for await (const event of core.doctor(coreContext(call), req.rebuild)) {
        if (event.kind === 'progress') yield progress(event);
        else yield { event: { case: 'report', value: { checks: event.checks, healthy: event.healthy, rebuilt: event.rebuilt } } };
      }
    },
    async storageStats(_req, call) {
      const r = await core.storageReport(coreContext(call));
      const n = BigInt;
      return { storeBytes: n(r.storeBytes), tables: r.tables.map((t) => ({ name: t.name, entries: n(t.entries), bytes: n(t.bytes) })), factCount: n(r.factCount), retiredCount: n(r.retiredCount), hints: r.hints };
    },
    async compact(_req, call) {
      const r = await core.compact(coreContext(call));
      return { bytesBefore: BigInt(r.bytesBefore), bytesAfter: BigInt(r.bytesAfter), seconds: r.seconds };
    },
    async createToken(req, call) {
      const { token, info } = await core.createToken(coreContext(call), {
        agents: req.agents,
        ...(req.rights.length ? { rights: req.rights } : {}),
        ...(req.shared ? { shared: req.shared.rights } : {}),
        label: req.label,
      });
      return { token, info: tokenInfo(info) };
    },
    async listTokens(_req, call) {
      return { tokens: (await core.listTokens(coreContext(call))).map(tokenInfo) };
    },
    async revokeToken(req, call) {
      return { info: tokenInfo(await core.revokeToken(coreContext(call), req.id)) };
    },
    async *reindex(_req, call) {
      for await (const event of core.reindex(coreContext(call))) {
        if (event.kind === 'progress') yield progress(event);
        else yield { event: { case: 'report', value: { embedded: BigInt(event.embedded), alreadyDone: BigInt(event.alreadyDone), embedder: event.embedder } } };
      }
    },
  };
}
