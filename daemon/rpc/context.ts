// A gRPC call as the core sees it: the caller the server authenticated, the request's own
// request id, the client's deadline and its cancellation.
import type { ServerCall } from '../../shared/grpc/bridge.ts';
import type { CallContext, Principal } from '../core/context.ts';

export function coreContext(call: ServerCall, requestId = ''): CallContext {
  return {
    principal: call.caller as Principal,
    requestId,
    signal: call.signal,
    changes: call.changes,
    ...(call.deadline !== undefined ? { deadline: call.deadline } : {}),
  };
}
