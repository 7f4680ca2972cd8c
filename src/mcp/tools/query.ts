import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { runConnectionQuery } from '../../agent/tools/connection-query.ts';
import { TOOL_DEFINITIONS } from '../../agent/tools/definitions.ts';
import { runQuery } from '../../agent/tools/query-tool.ts';
import { QueryArgsSchema } from '../../agent/tools/tool-args.ts';
import type { McpHost } from '../host.ts';
import type { McpSessionState } from '../session-state.ts';

/** Rows given back as structured content; the rest stay with the session for python_exec. */
const STRUCTURED_ROWS = 1_000;

export const QueryOutputSchema = z.object({
  query_id: z.string().describe('The id python_exec results name in source_query_ids'),
  status: z.enum(['ok', 'empty', 'error']),
  sql: z.string(),
  row_count: z.number().int(),
  rows: z.array(z.record(z.unknown())).describe('Up to 1,000 rows, each with its citation id rid'),
  rows_complete: z.boolean(),
  source_files: z.array(z.string()),
  connection_id: z.string().optional().describe('The database connection it ran on'),
  notes: z.array(z.string()),
  error: z.string().optional(),
  exec: z.object({
    status: z.string(),
    exit_code: z.number().int().nullable(),
    output_complete: z.boolean(),
    duration_ms: z.number(),
    source_query_ids: z.array(z.string()),
  }),
});

/** `query`: SQL over the workspace's data files, in the thread's sandbox, as in tools mode. */
export function registerQuery(server: McpServer, host: McpHost, state: McpSessionState): void {
  server.registerTool(
    'query',
    {
      title: 'Query the data files with SQL',
      description: TOOL_DEFINITIONS.query.function.description,
      inputSchema: QueryArgsSchema,
      outputSchema: QueryOutputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ sql, connection }, extra) => {
      const thread = await host.thread();
      const queryId = state.nextQueryId();
      const outcome = await host.withCell(thread, (workspace, signal) =>
        connection !== undefined
          ? runConnectionQuery(
              { connections: host.connections, session: { id: thread.id, workspace } },
              state.turn,
              queryId,
              connection,
              sql,
              () => {},
            )
          : runQuery(
              {
                sandbox: host.sandbox,
                session: { id: thread.id, workspace },
                abortSignal: AbortSignal.any([signal, extra.signal]),
              },
              state.turn,
              queryId,
              sql,
              () => {},
            ),
      );
      const { result, display } = outcome;
      return {
        content: [{ type: 'text', text: outcome.message }],
        structuredContent: {
          query_id: queryId,
          status: result.status,
          sql,
          row_count: result.row_count,
          rows: result.rows.slice(0, STRUCTURED_ROWS),
          rows_complete: result.rows.length <= STRUCTURED_ROWS,
          source_files: result.source_files,
          ...(result.connection_id ? { connection_id: result.connection_id } : {}),
          notes: result.notes,
          ...(result.error ? { error: result.error } : {}),
          exec: {
            status: display.status,
            exit_code: display.exit_code,
            output_complete: display.output_complete,
            duration_ms: display.duration_ms,
            source_query_ids: display.source_query_ids,
          },
        },
        isError: result.status === 'error',
      };
    },
  );
}
