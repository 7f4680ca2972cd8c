import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpHost } from './host.ts';
import { registerResources } from './resources.ts';
import { McpSessionState } from './session-state.ts';
import { registerListFiles } from './tools/list-files.ts';
import { registerPythonExec } from './tools/python-exec.ts';
import { registerQuery } from './tools/query.ts';
import { registerRunAnalysis } from './tools/run-analysis.ts';

export const MCP_TOOL_NAMES = ['list_files', 'query', 'python_exec', 'run_analysis'] as const;

const INSTRUCTIONS = `Analyst runs Python and SQL over a thread's data files in a hardened sandbox (no network).
- list_files shows the workspace; each file is also a resource.
- query runs one read-only statement in DuckDB SQL over the data files (one view per file) and keeps the rows, each with a citation id rid.
- python_exec runs Python on the rows of this session's latest successful query (\`data\`, \`results\`); it refuses after a failed or empty query. Print results with their rids.
- run_analysis hands a whole question to Analyst's own agent and returns its answer, steps and files.`;

/**
 * One MCP server for one session (docs/spec.md#front-ends): the tools `list_files`, `query`, `python_exec`
 * and `run_analysis` (those in DISALLOWED_TOOLS are left out) and the thread's files,
 * report and notebook as resources. Each session has its own query results.
 */
export function createMcpServer(host: McpHost, options: { version?: string } = {}): McpServer {
  const server = new McpServer(
    { name: 'analyst', title: 'Analyst', version: options.version ?? '0.1.0' },
    { instructions: INSTRUCTIONS, capabilities: { tools: {}, resources: {} } },
  );
  const state = new McpSessionState();
  const shown = (name: (typeof MCP_TOOL_NAMES)[number]) => !host.disallowedTools.has(name);
  if (shown('list_files')) registerListFiles(server, host);
  if (shown('query')) registerQuery(server, host, state);
  if (shown('python_exec')) registerPythonExec(server, host, state);
  if (shown('run_analysis')) registerRunAnalysis(server, host);
  registerResources(server, host);
  return server;
}
