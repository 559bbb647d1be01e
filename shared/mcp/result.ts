// Tool results. A success carries structuredContent (conforming to the tool's outputSchema) and a
// text that says the same; an error is text only with isError: true and NO structuredContent —
// strict clients validate any structuredContent against the success schema, even on errors.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export function success(payload: object, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: payload as Record<string, unknown> };
}

export function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
