/** One `query` call of the current turn, as python_exec receives it. */
export interface QueryResult {
  tool_call_id: string;
  sql: string;
  status: 'ok' | 'empty' | 'error';
  source_files: string[];
  /** The database connection the statement ran on (its id, never its URL); absent for file queries. */
  connection_id?: string;
  row_count: number;
  /** Rows as objects, each with its citation id `rid` first. */
  rows: Array<Record<string, unknown>>;
  notes: string[];
  error?: string;
}

/** Whether python_exec may run now, and with what. */
export type PythonExecInput =
  | { allowed: true; data: Array<Record<string, unknown>>; results: QueryResult[]; sourceQueryIds: string[] }
  | { allowed: false; reason: string };

/**
 * The query results of the current turn (docs/spec.md#tools-mode): the turn starts at the latest user
 * message, so a new run starts empty and nothing from an earlier question is reused.
 * Row ids (r1, r2, …) are unique across the turn so citations never collide.
 */
export class TurnResults {
  private readonly results: QueryResult[] = [];
  private nextRid = 1;

  record(result: Omit<QueryResult, 'rows'> & { rows: Array<Record<string, unknown>> }): QueryResult {
    const rows = result.rows.map((row) => {
      const { rid: original, ...rest } = row;
      const withRid: Record<string, unknown> = { rid: `r${this.nextRid++}`, ...rest };
      if (original !== undefined) withRid.rid_original = original;
      return withRid;
    });
    const stored = { ...result, rows };
    this.results.push(stored);
    return stored;
  }

  get all(): readonly QueryResult[] {
    return this.results;
  }

  /** `data` = rows of the latest query if it succeeded with rows; otherwise a refusal with the reason. */
  pythonExecInput(): PythonExecInput {
    const latest = this.results[this.results.length - 1];
    if (!latest) {
      return {
        allowed: false,
        reason:
          'python_exec needs query results from this turn: call query first (results of earlier questions are not reused)',
      };
    }
    if (latest.status === 'error') {
      return {
        allowed: false,
        reason: `the latest query (${latest.tool_call_id}) failed: ${latest.error ?? 'unknown error'}. Fix the query first; python_exec does not fall back to older data`,
      };
    }
    if (latest.status === 'empty') {
      return {
        allowed: false,
        reason: `the latest query (${latest.tool_call_id}) returned no rows, so there is nothing to compute on (missing data is not treated as zero). Check the filter or the table, and query again`,
      };
    }
    const successful = this.results.filter((r) => r.status === 'ok');
    return {
      allowed: true,
      data: latest.rows,
      results: successful,
      sourceQueryIds: successful.map((r) => r.tool_call_id),
    };
  }
}
