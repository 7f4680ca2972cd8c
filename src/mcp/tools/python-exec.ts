import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { TOOL_DEFINITIONS } from '../../agent/tools/definitions.ts';
import { PythonExecArgsSchema } from '../../agent/tools/tool-args.ts';
import { ExecResultSchema } from '../../sandbox/exec-result-schema.ts';
import { execToolResult, refusal } from '../exec-content.ts';
import type { McpHost } from '../host.ts';
import type { McpSessionState } from '../session-state.ts';

/**
 * `python_exec`: Python in a fresh sandbox with nothing mounted, given `data` (the rows of
 * this session's latest successful query) and `results` (every successful query of the
 * session). After a failed or empty query it refuses, and says why (docs/spec.md#tools-mode).
 */
export function registerPythonExec(server: McpServer, host: McpHost, state: McpSessionState): void {
  server.registerTool(
    'python_exec',
    {
      title: 'Run Python on query results',
      description: TOOL_DEFINITIONS.python_exec.function.description.replaceAll('this turn', 'this session'),
      inputSchema: PythonExecArgsSchema,
      outputSchema: ExecResultSchema,
      annotations: { openWorldHint: false },
    },
    async ({ code, timeout }, extra) => {
      const input = state.turn.pythonExecInput();
      if (!input.allowed)
        return refusal(`python_exec did not run: ${input.reason.replaceAll('this turn', 'this session')}.`);
      const result = await host.sandbox.runEphemeral({
        code,
        timeoutMs: timeout === undefined ? undefined : Math.round(timeout * 1000),
        data: input.data,
        results: input.results,
        sourceQueryIds: input.sourceQueryIds,
        abortSignal: extra.signal,
      });
      return execToolResult(result);
    },
  );
}
