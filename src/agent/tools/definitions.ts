import type { ToolDefinition } from '../../llm/model.ts';

export type ToolName = 'query' | 'python_exec';
export const TOOL_NAMES: readonly ToolName[] = ['query', 'python_exec'];

/** The tools of tools mode (docs/spec.md#tools-mode). Descriptions steer the model; keep them exact. */
export const TOOL_DEFINITIONS: Record<ToolName, ToolDefinition> = {
  query: {
    type: 'function',
    function: {
      name: 'query',
      description:
        "Run one read-only SQL statement (DuckDB's SQL dialect) over the thread's data files. Each CSV, TSV, JSON, " +
        'JSONL, Excel sheet or Parquet file is a view named after its file (lowercase, non-letters replaced by _), read ' +
        'where it lies, so files larger than memory work; the tables of a SQLite file are under a schema named after ' +
        'its file (shop.items). Use SQL aggregates (COUNT, SUM, AVG, MIN, MAX, GROUP BY) for plain statistics: they ' +
        'are exact and cheap. Returns a preview; the full rows, each with a citation id rid (r1, r2, ...), are kept ' +
        'for python_exec.',
      parameters: {
        type: 'object',
        properties: {
          sql: { type: 'string', description: 'One SELECT statement in DuckDB SQL.' },
          connection: {
            type: 'string',
            description:
              "Optional: the id of one of the thread's database connections; the statement then runs there, read-only, in that database's SQL dialect.",
          },
        },
        required: ['sql'],
        additionalProperties: false,
      },
    },
  },
  python_exec: {
    type: 'function',
    function: {
      name: 'python_exec',
      description:
        'Run Python on query results of this turn, for what SQL cannot do (models, tests, charts). The code gets ' +
        '`data` (rows of the latest successful non-empty query, each with its rid) and `results` (every successful ' +
        'query of this turn with its tool-call id, SQL, source files and row count), also in /workspace/data.json. ' +
        'Run a query first; results of earlier questions are not reused. Print your results together with the ' +
        'rids they come from.',
      parameters: {
        type: 'object',
        properties: {
          code: { type: 'string', description: 'Python source to run.' },
          timeout: { type: 'number', description: 'Seconds, 1 to 30 (default 30).' },
        },
        required: ['code'],
        additionalProperties: false,
      },
    },
  },
};

/**
 * Reads DISALLOWED_TOOLS: `[python_exec]`, `python_exec,query`, or a JSON array. Unknown
 * names are kept (they hide nothing but do no harm).
 */
export function parseDisallowedTools(value: string | undefined): Set<string> {
  if (!value) return new Set();
  const names = value
    .replace(/^\s*\[|\]\s*$/g, '')
    .split(/[,\s]+/)
    .map((name) => name.trim().replace(/^["']|["']$/g, ''))
    .filter(Boolean);
  return new Set(names);
}
