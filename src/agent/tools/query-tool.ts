import { randomHex } from '../../ids/random-hex.ts';
import type { ExecResult } from '../../sandbox/sandbox.ts';
import type { RunContext } from '../context.ts';
import { parseQueryOutput, QUERY_OUTPUT_BYTES, queryProgram } from './query-program.ts';
import type { QueryResult, TurnResults } from './turn-results.ts';

const PREVIEW_ROWS = 20;
const PREVIEW_CELL_CHARS = 80;

/** What a query call produced: the stored result and what the model and the person see. */
export interface QueryOutcome {
  result: QueryResult;
  /** The cell's ExecResult with the preview as its output (the raw JSON is not shown). */
  display: ExecResult;
  /** The tool message for the model. */
  message: string;
}

/** What a query needs of a run: the sandbox, the thread's session, the cancel signal. */
export type QueryContext = Pick<RunContext, 'sandbox' | 'session' | 'abortSignal'>;

/** Runs one `query` call in the thread's sandbox and records it in the turn. */
export async function runQuery(
  context: QueryContext,
  turn: TurnResults,
  toolCallId: string,
  sql: string,
  onOutput: (text: string) => void,
): Promise<QueryOutcome> {
  const marker = `@@analyst-query-${randomHex(8)}@@`;
  const exec = await context.sandbox.runCell(context.session, {
    code: queryProgram(sql, marker),
    abortSignal: context.abortSignal,
    maxOutputBytes: QUERY_OUTPUT_BYTES,
  });
  const parsed = exec.status === 'ok' ? parseQueryOutput(exec.output, marker) : undefined;
  let result: QueryResult;
  if (!parsed) {
    const why =
      exec.status === 'ok'
        ? 'the query program printed no result'
        : `${exec.status}: ${exec.message ?? exec.output.slice(-500)}`;
    result = turn.record({
      tool_call_id: toolCallId,
      sql,
      status: 'error',
      source_files: [],
      row_count: 0,
      rows: [],
      notes: [],
      error: why,
    });
  } else if (!parsed.ok) {
    result = turn.record({
      tool_call_id: toolCallId,
      sql,
      status: 'error',
      source_files: parsed.source_files,
      row_count: 0,
      rows: [],
      notes: parsed.notes,
      error: `${parsed.error}. Tables: ${parsed.tables.join(', ') || '(none: no data files were found)'}`,
    });
  } else {
    const rows = parsed.rows.map((values) =>
      Object.fromEntries(parsed.columns.map((c, i) => [c, values[i] ?? null])),
    );
    const notes = parsed.truncated
      ? [...parsed.notes, `only the first ${rows.length} rows were kept`]
      : parsed.notes;
    result = turn.record({
      tool_call_id: toolCallId,
      sql,
      status: rows.length === 0 ? 'empty' : 'ok',
      source_files: parsed.source_files,
      row_count: rows.length,
      rows,
      notes,
    });
  }
  const message = describeQuery(result);
  onOutput(message);
  const display: ExecResult = {
    ...exec,
    status: result.status === 'error' ? 'error' : 'ok',
    output: message,
    output_bytes: Buffer.byteLength(message),
    output_complete: true,
    artifacts: [],
    source_query_ids: [toolCallId],
    query: { row_count: result.row_count },
  };
  if (result.status === 'error') display.message = result.error;
  else delete display.message;
  return { result, display, message };
}

/** The model's view of a query: a preview table with rids and where the full rows went. */
export function describeQuery(result: QueryResult): string {
  const notes = result.notes.map((n) => `Note: ${n}`);
  if (result.status === 'error')
    return [`Query ${result.tool_call_id} failed: ${result.error}`, ...notes].join('\n');
  if (result.status === 'empty')
    return [`Query ${result.tool_call_id} returned no rows.`, ...notes].join('\n');
  const columns = Object.keys(result.rows[0] ?? {});
  const cell = (value: unknown) => {
    const text =
      value === null || value === undefined
        ? ''
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
    const short = text.length > PREVIEW_CELL_CHARS ? `${text.slice(0, PREVIEW_CELL_CHARS - 1)}…` : text;
    return short.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  };
  const shown = result.rows.slice(0, PREVIEW_ROWS);
  const table = [
    `| ${columns.join(' | ')} |`,
    `| ${columns.map(() => '---').join(' | ')} |`,
    ...shown.map((row) => `| ${columns.map((c) => cell(row[c])).join(' | ')} |`),
  ];
  const sources = result.source_files.length ? ` from ${result.source_files.join(', ')}` : '';
  return [
    `Query ${result.tool_call_id}: ${result.row_count} row${result.row_count === 1 ? '' : 's'}${sources}` +
      (result.row_count > shown.length ? ` (first ${shown.length} shown)` : '') +
      '. The full rows are kept as a query result; python_exec receives them as `data`. Cite rows by rid.',
    ...table,
    ...notes,
  ].join('\n');
}
