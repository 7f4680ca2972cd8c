import { McpMessageSchema, McpQuerySchema } from '../wire/requests.ts';
import { type ApiRoute, rawAnswer } from './api-route.ts';

/** The Model Context Protocol endpoint (Streamable HTTP), one session per thread. */
export const MCP_ROUTES: ApiRoute[] = [
  {
    method: 'post',
    path: '/mcp',
    summary:
      "MCP (Streamable HTTP): an initialize request opens a session on the caller's thread (?thread_id=) or a new one; later requests send Mcp-Session-Id",
    query: McpQuerySchema,
    body: McpMessageSchema,
    response: rawAnswer('a JSON-RPC response, or an SSE stream of JSON-RPC messages', 'text/event-stream'),
  },
  {
    method: 'get',
    path: '/mcp',
    summary: "MCP: the session's stream of server messages (SSE; needs Mcp-Session-Id)",
    response: rawAnswer('an SSE stream of JSON-RPC messages', 'text/event-stream'),
  },
  { method: 'delete', path: '/mcp', summary: 'MCP: end the session (needs Mcp-Session-Id)' },
];
