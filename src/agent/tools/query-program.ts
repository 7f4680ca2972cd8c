import { z } from 'zod';
import { pythonFile } from '../python-file.ts';

/** Rows kept per query; beyond this the result is marked truncated. */
export const MAX_QUERY_ROWS = 10_000;
/** Output the query program may print (its JSON result). */
export const QUERY_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * The Python program that answers a `query` call inside the thread's sandbox (never on the
 * host): the workspace's data files become DuckDB views (query.py), or, in an image without
 * the `duckdb` module, tables of an in-memory SQLite database (query_sqlite.py); the one
 * read-only statement runs and its result is printed as JSON after a random marker, so
 * nothing the data contains can pass for the result. Everything lives inside functions
 * deleted afterwards, so a stateful session's variables are left alone.
 */
export function queryProgram(sql: string, marker: string): string {
  const call =
    `_analyst_query(${JSON.stringify(sql)}, ${JSON.stringify(marker)}, ${MAX_QUERY_ROWS})\n` +
    'del _analyst_query, _analyst_query_sqlite\n';
  return [
    pythonFile(new URL('./query_sqlite.py', import.meta.url)),
    pythonFile(new URL('./query.py', import.meta.url)),
    call,
  ].join('\n\n');
}

const QueryOutputSchema = z.union([
  z.object({
    ok: z.literal(true),
    columns: z.array(z.string()),
    rows: z.array(z.array(z.unknown())),
    truncated: z.boolean(),
    tables: z.array(z.string()),
    source_files: z.array(z.string()),
    notes: z.array(z.string()),
  }),
  z.object({
    ok: z.literal(false),
    error: z.string(),
    tables: z.array(z.string()),
    source_files: z.array(z.string()),
    notes: z.array(z.string()),
  }),
]);
export type QueryOutput = z.infer<typeof QueryOutputSchema>;

/** Reads the program's result from its output; undefined when it is missing or malformed. */
export function parseQueryOutput(output: string, marker: string): QueryOutput | undefined {
  const start = output.lastIndexOf(marker);
  if (start < 0) return undefined;
  const line = output.slice(start + marker.length).split('\n')[0] ?? '';
  try {
    const parsed = QueryOutputSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
