// An MCP server (the SDK's low-level Server, so the tool definitions are served exactly as
// written in tools.ts) over any McpBackend. Both transports build theirs here.
//
// Tool calls run concurrently: the SDK dispatches each request as it arrives and answers it when
// its handler settles, so one slow recall does not hold up the next call. A response guarantees
// only its own effects; a client needing write-then-read waits for the write's response.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { EngramError } from '../errors.ts';
import { ENGRAM_VERSION } from '../version.ts';
import { rejectMisplacedConfidence, ToolInputError, type Args } from './args.ts';
import type { McpBackend } from './backend.ts';
import { DEFAULT_HANDLER_CONTEXT, HANDLERS } from './handlers/index.ts';
import { CORTEX_TOOLS, INPUT_TYPES } from './input-schemas.ts';
import { SERVER_INSTRUCTIONS } from './instructions.ts';
import { toolArgumentName } from './argument-names.ts';
import { failure } from './result.ts';
import { isToolName, TOOLS, type ToolName } from './tools.ts';

export interface McpServerOptions {
  /** The namespace of the CortexGraph tools when a call names none (default "default"). */
  defaultAgentId?: string;
  /** Told about failures that are not Engram errors (likely bugs); the caller still gets a tool error. */
  onUnexpectedError?: (tool: string, error: unknown) => void;
  /** Rewords a backend's error for an agent before it becomes the tool error (e.g. advice an
   *  agent cannot follow); absent: errors as they are. */
  forAgent?: (error: unknown) => unknown;
  /** Serve only these tools (absent: all). Every tool's schema is in the agent's context, so a
   *  host that uses a few can leave the rest out. */
  tools?: readonly ToolName[];
}

export interface EngramMcpServer {
  server: Server;
  /** Resolves once every tool call received so far has settled (their answers then follow). */
  settled(): Promise<void>;
}

/** A backend, or one per call made from the caller's auth info (which the transport hands to
 *  every request handler). */
export type BackendSource = McpBackend | ((authInfo: AuthInfo | undefined) => McpBackend);

const ANY_TOOL_CALL = z.object({ method: z.literal('tools/call'), params: z.unknown() }).loose();

export function createMcpServer(source: BackendSource, options: McpServerOptions = {}): EngramMcpServer {
  const server = new Server({ name: 'engram', title: 'Engram memory', version: ENGRAM_VERSION }, { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS });
  const inflight = new Set<Promise<CallToolResult>>();
  const served = options.tools ? TOOLS.filter((t) => options.tools!.includes(t.name as ToolName)) : TOOLS;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: served }));
  // Registered with a schema that accepts any params: the SDK's Server then checks them against
  // CallToolRequestSchema itself and answers a malformed call with -32602 (invalid params); parsed
  // here first, a non-object `arguments` would surface as -32603 (internal error).
  server.setRequestHandler(ANY_TOOL_CALL, (raw, extra) => {
    const request = CallToolRequestSchema.parse(raw);
    const backend = typeof source === 'function' ? source(extra.authInfo) : source;
    const call = callTool(backend, request.params.name, request.params.arguments ?? {}, options);
    inflight.add(call);
    void call.finally(() => inflight.delete(call)).catch(() => {});
    return call;
  });
  return { server, settled: async () => void (await Promise.allSettled([...inflight])) };
}

/** What a tool's input schema declares (`additionalProperties: false`) is all it takes: a key it
 *  does not declare is refused, never dropped (a misspelt option would otherwise do nothing). */
function rejectUnknownArguments(name: keyof typeof INPUT_TYPES, args: Args): void {
  const known = Object.keys(INPUT_TYPES[name].shape);
  const unknown = Object.keys(args).filter((key) => !known.includes(key));
  if (unknown.length) throw new ToolInputError(`${unknown.join(', ')}: not a parameter of ${name} (${known.length ? `its parameters: ${known.join(', ')}` : 'it takes none'})`);
}

/** A refusal worded with the tool's own argument name for the field the daemon named. */
function toolMessage(tool: ToolName, error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const field = error instanceof EngramError ? error.field : undefined;
  if (!field || !error.message.startsWith(`${field}:`)) return error.message;
  return toolArgumentName(tool, field) + error.message.slice(field.length);
}

export async function callTool(backend: McpBackend, name: string, args: Args, options: McpServerOptions = {}): Promise<CallToolResult> {
  // An unknown tool is a protocol error (the request itself is wrong), not a tool result.
  if (!isToolName(name) || (options.tools && !options.tools.includes(name))) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
  try {
    // The specific refusal first (it says where a confidence option belongs), then the general one.
    rejectMisplacedConfidence(name, args, Object.keys(INPUT_TYPES[name].shape));
    rejectUnknownArguments(name, args);
    const ctx = { ...DEFAULT_HANDLER_CONTEXT, ...(options.defaultAgentId ? { defaultAgentId: options.defaultAgentId } : {}) };
    return await HANDLERS[name](args, backend, ctx);
  } catch (thrown) {
    const error = options.forAgent ? options.forAgent(thrown) : thrown;
    // The CortexGraph tools report errors in their own payload, still as tool errors.
    const fail = CORTEX_TOOLS.has(name) ? (message: string) => failure(JSON.stringify({ success: false, message })) : failure;
    if (error instanceof ToolInputError) return fail(error.message);
    if (!(error instanceof EngramError)) options.onUnexpectedError?.(name, error);
    return fail(`${name} failed: ${toolMessage(name, error)}`);
  }
}
