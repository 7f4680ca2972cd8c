import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { execSummary } from '../agent/tools/exec-summary.ts';
import type { ExecResult } from '../sandbox/sandbox.ts';

/**
 * A cell's result as an MCP tool result: ExecResult's facts (status, exit code, whether the
 * output is complete, the source query ids) in the text a model reads, the whole ExecResult
 * as structured content. A cell that did not end `ok` is an error result, so a client and
 * its model see at once that the code did not do what it was asked.
 */
export function execToolResult(result: ExecResult, extra: CallToolResult['content'] = []): CallToolResult {
  return {
    content: [{ type: 'text', text: execSummary(result) }, ...extra],
    structuredContent: result as unknown as Record<string, unknown>,
    isError: result.status !== 'ok',
  };
}

/** A tool call that did not run, and why (a refusal, a bad argument). */
export function refusal(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
