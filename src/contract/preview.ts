import { z } from 'zod';
import { FileProblemSchema } from './file-problems.ts';

/**
 * The preview of one workspace file (GET /v1/threads/{id}/preview/{path}), as the server
 * sends it and the web UI reads it: a page of a table, lines of text, or just the kind for
 * images, PDFs and other binaries.
 */
export const PreviewKindSchema = z.enum(['table', 'text', 'image', 'pdf', 'json', 'binary']);
export type PreviewKind = z.infer<typeof PreviewKindSchema>;

export const ColumnTypeSchema = z.enum(['integer', 'number', 'boolean', 'date', 'string', 'json', 'bytes']);
export type ColumnType = z.infer<typeof ColumnTypeSchema>;

export const PreviewColumnSchema = z.object({ name: z.string(), type: ColumnTypeSchema });
export type PreviewColumn = z.infer<typeof PreviewColumnSchema>;

/** A cell as JSON: strings, numbers, booleans and null (anything else is shown as a string). */
export const PreviewCellSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export type PreviewCell = z.infer<typeof PreviewCellSchema>;

export const PreviewSchema = z.object({
  path: z.string(),
  kind: PreviewKindSchema,
  columns: z.array(PreviewColumnSchema),
  rows: z.array(z.array(PreviewCellSchema)),
  offset: z.number().int(),
  limit: z.number().int(),
  total_rows: z.number().int().nullable().describe('Rows (text: lines) in all; null when not known cheaply'),
  total_rows_estimated: z
    .literal(true)
    .optional()
    .describe(
      '`total_rows` is an estimate (a big CSV or text file counted from its start, not scanned whole)',
    ),
  sheets: z.array(z.string()).optional().describe("Excel: every sheet's name; `sheet` is the one shown"),
  sheet: z.string().optional(),
  tables: z.array(z.string()).optional().describe("SQLite: every table's name; `table` is the one shown"),
  table: z.string().optional(),
  truncated: z
    .boolean()
    .optional()
    .describe('The page is cut short (a row too long, a cell cut, a file too big to read whole)'),
  bytes: z.number().int().describe("The file's size in bytes"),
  queryable: z
    .literal(true)
    .optional()
    .describe(
      'The table can be sorted, searched, filtered (sort, desc, search, filter) and downloaded as CSV',
    ),
  message: z.string().optional().describe('Why a file that looks like a table or text is not shown as one'),
  // A problem this reader does not know (a newer server's) is dropped, not a failed preview.
  problem: FileProblemSchema.optional()
    .catch(undefined)
    .describe(
      '`message` as data: a stable code and the values in the sentence, for front ends in other languages',
    ),
});
export type Preview = z.infer<typeof PreviewSchema>;
