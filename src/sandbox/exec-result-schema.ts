import { z } from 'zod';

/**
 * ExecResult (docs/spec.md#exec-result), the one result shape every front end sees, defined once: the
 * TypeScript types in `sandbox.ts` are inferred from these schemas, and /openapi.json is
 * generated from them.
 */

export const ExecStatusSchema = z
  .enum(['ok', 'error', 'timeout', 'killed', 'cancelled', 'unavailable'])
  .describe('How the cell ended');

export const ArtifactSchema = z
  .object({
    path: z.string().describe('Relative to the workspace root, `/`-separated'),
    bytes: z.number().int().nonnegative(),
    mime: z.string(),
    change: z.enum(['created', 'modified']),
  })
  .describe('A file a cell created or modified in its workspace');

export const CellErrorSchema = z
  .object({
    name: z.string().describe('The exception class, e.g. KeyError'),
    value: z.string(),
    traceback: z.array(z.string()).describe("Formatted traceback lines, with the cell's own line numbers"),
    line: z.number().int().positive().optional().describe("The line of the cell's code where it was raised"),
  })
  .describe("A cell's exception as data");

export const QueryRecordSchema = z
  .object({
    connection_id: z
      .string()
      .optional()
      .describe(
        'The database connection the SQL ran on (its id, never its URL); absent for a query over files',
      ),
    row_count: z
      .number()
      .int()
      .nonnegative()
      .describe('Rows the query fetched (within the row and byte caps)'),
  })
  .describe('What a tools-mode `query` ran on and fetched, so an analysis can be re-run');

export const ExecResultSchema = z
  .object({
    status: ExecStatusSchema,
    exit_code: z
      .number()
      .int()
      .nullable()
      .describe('Process exit status; null when the cell did not exit by itself (signal, timeout, cancel)'),
    output: z
      .string()
      .describe('stdout and stderr interleaved as a terminal shows them; cut at the output cap'),
    output_bytes: z
      .number()
      .int()
      .nonnegative()
      .describe('Bytes the cell wrote in total, including any beyond the cap'),
    output_complete: z.boolean(),
    input_complete: z
      .boolean()
      .describe('False when injected `data`/`results` were cut to fit the input cap'),
    duration_ms: z.number().nonnegative(),
    peak_memory_bytes: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe("The peak resident memory of the cell's process (absent when it could not be read)"),
    artifacts: z.array(ArtifactSchema),
    source_query_ids: z
      .array(z.string())
      .describe('Query results the cell was given (tools mode), by tool-call id'),
    message: z
      .string()
      .optional()
      .describe(
        'Why a non-ok status happened (or a quota was reached), in words a model and a person can act on',
      ),
    error: CellErrorSchema.optional().describe('The exception that ended the cell (status `error`)'),
    query: QueryRecordSchema.optional().describe('Present when the cell is a tools-mode SQL query'),
  })
  .describe('The result of one cell');
