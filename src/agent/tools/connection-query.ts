import { createReadStream } from 'node:fs';
import { rowsToParquet } from '../../connections/parquet.ts';
import type { ExecResult } from '../../sandbox/sandbox.ts';
import type { RunContext } from '../context.ts';
import { describeQuery, type QueryOutcome } from './query-tool.ts';
import type { QueryResult, TurnResults } from './turn-results.ts';

/** Rows handed to python_exec as `data` at most; a larger result goes into the workspace as Parquet. */
export const CONNECTION_DATA_ROWS = 5000;

/**
 * A tools-mode `query` with a `connection`: the statement runs on the host through the
 * connection's driver (read-only, capped), never in the sandbox; its rows are recorded in the
 * turn like a file query's (rids, `data`, `results`). A result with more rows than
 * `CONNECTION_DATA_ROWS` is written into the workspace as `queries/<call id>.parquet`, and the
 * result's notes say where.
 */
export async function runConnectionQuery(
  context: Pick<RunContext, 'connections' | 'session'>,
  turn: TurnResults,
  toolCallId: string,
  connectionId: string,
  sql: string,
  onOutput: (text: string) => void,
): Promise<QueryOutcome> {
  const started = Date.now();
  let result: QueryResult;
  // Every row fetched, including those only in the Parquet file: what a re-run should get back.
  let fetched = 0;
  try {
    if (!context.connections) throw new Error('this thread has no database connections');
    const rows = await context.connections.query(connectionId, sql);
    fetched = rows.rows.length;
    const notes: string[] = [];
    if (rows.truncated) {
      notes.push(
        `only the first ${rows.rows.length} rows were fetched (the connection's ${rows.truncated === 'rows' ? 'row' : 'byte'} cap): aggregate in SQL for exact totals`,
      );
    }
    let kept = rows.rows;
    if (rows.rows.length > CONNECTION_DATA_ROWS) {
      const path = `queries/${toolCallId.replace(/[^A-Za-z0-9_-]/g, '_')}.parquet`;
      const file = await rowsToParquet(rows);
      try {
        await context.session.workspace.write(path, createReadStream(file.path));
      } finally {
        await file.cleanup();
      }
      kept = rows.rows.slice(0, CONNECTION_DATA_ROWS);
      notes.push(
        `all ${rows.rows.length} rows are in /workspace/${path}; \`data\` holds the first ${CONNECTION_DATA_ROWS} (read the file with pandas or DuckDB for the rest)`,
      );
    }
    const objects = kept.map((values) =>
      Object.fromEntries(rows.columns.map((c, i) => [c.name, values[i] ?? null])),
    );
    result = turn.record({
      tool_call_id: toolCallId,
      sql,
      status: objects.length === 0 ? 'empty' : 'ok',
      source_files: [],
      connection_id: connectionId,
      row_count: objects.length,
      rows: objects,
      notes,
    });
  } catch (error) {
    result = turn.record({
      tool_call_id: toolCallId,
      sql,
      status: 'error',
      source_files: [],
      connection_id: connectionId,
      row_count: 0,
      rows: [],
      notes: [],
      error: (error as Error).message,
    });
  }
  const message = describeQuery(result).replace(
    `Query ${toolCallId}`,
    `Query ${toolCallId} on connection "${connectionId}"`,
  );
  onOutput(message);
  const display: ExecResult = {
    status: result.status === 'error' ? 'error' : 'ok',
    exit_code: result.status === 'error' ? 1 : 0,
    output: message,
    output_bytes: Buffer.byteLength(message),
    output_complete: true,
    input_complete: true,
    duration_ms: Date.now() - started,
    artifacts: [],
    source_query_ids: [toolCallId],
    query: { connection_id: connectionId, row_count: fetched },
  };
  if (result.status === 'error') display.message = result.error;
  return { result, display, message };
}
