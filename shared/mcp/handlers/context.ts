// What every tool handler is given beside its arguments and backend: the server's settings.
import { DEFAULT_CORTEX_AGENT } from '../input-schemas.ts';

export interface HandlerContext {
  /** The namespace of the tools whose agent_id is optional (the CortexGraph tools). */
  defaultAgentId: string;
}

export const DEFAULT_HANDLER_CONTEXT: HandlerContext = { defaultAgentId: DEFAULT_CORTEX_AGENT };
