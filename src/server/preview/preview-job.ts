import { z } from 'zod';
import { FileProblemSchema } from '../../contract/file-problems.ts';
import { TableProfileSchema } from '../../contract/profile.ts';
import { TableFilterSchema } from '../../contract/table-query.ts';

/**
 * What the server asks a preview process for (on its stdin, as JSON) and what it answers
 * (on its stdout). The file is one the server opened through the Workspace, named by its
 * descriptor in the server (`/proc/<pid>/fd/<n>`): opening that reopens the very file the
 * server holds, whatever a cell does to its path meanwhile.
 */

export const RowIndexSchema = z.object({
  rows: z.number().int().min(0),
  checkpoints: z.array(z.number().int().min(0)),
  stride: z.number().int().min(1),
});

/** The file a csv job writes in its directory. */
export const TABLE_CSV = 'table.csv';

export const PreviewJobSchema = z.object({
  /** The server's open descriptor of the file. */
  source: z.string().regex(/^\/proc\/\d+\/fd\/\d+$/),
  /**
   * A page of the file, a profile of its table's first rows (`profile.ts`), or the table (as
   * `query` asks, at most `limit` rows) written as CSV to `scratchDir/table.csv`. Default page.
   */
  mode: z.enum(['page', 'profile', 'csv']).default('page'),
  format: z.enum(['csv', 'tsv', 'text', 'xlsx', 'sqlite', 'parquet', 'json', 'unknown']),
  /** The file's name in the workspace (for messages) and size when it was opened. */
  path: z.string(),
  bytes: z.number().int().min(0),
  offset: z.number().int().min(0),
  limit: z.number().int().min(0),
  sheet: z.string().optional(),
  table: z.string().optional(),
  /** Sorting, search and filters (`table-query.ts`, CSV/TSV/Parquet only). */
  query: z
    .object({
      sort: z.string().optional(),
      desc: z.boolean().optional(),
      search: z.string().optional(),
      filters: z.array(TableFilterSchema).optional(),
    })
    .optional(),
  /** CSV/TSV/text: where rows start, from an earlier job on the same file version. */
  index: RowIndexSchema.optional(),
  /** A directory of this job only (SQLite's copy goes there); removed when the job ends. */
  scratchDir: z.string(),
});
export type PreviewJob = z.input<typeof PreviewJobSchema>;

const CellSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const ColumnSchema = z.object({
  name: z.string(),
  type: z.enum(['integer', 'number', 'boolean', 'date', 'string', 'json', 'bytes']),
});

export const PreviewPageSchema = z.object({
  kind: z.enum(['table', 'text', 'json', 'binary']),
  columns: z.array(ColumnSchema),
  rows: z.array(z.array(CellSchema)),
  total_rows: z.number().int().min(0).nullable(),
  total_rows_estimated: z.literal(true).optional(),
  sheets: z.array(z.string()).optional(),
  sheet: z.string().optional(),
  tables: z.array(z.string()).optional(),
  table: z.string().optional(),
  truncated: z.literal(true).optional(),
  /** What is wrong with the file (`contract/file-problems.ts`), in English and as data. */
  message: z.string().optional(),
  problem: FileProblemSchema.optional(),
});
export type PreviewPage = z.infer<typeof PreviewPageSchema>;

export const PreviewAnswerSchema = z.union([
  z.object({
    ok: z.literal(true),
    page: PreviewPageSchema,
    index: RowIndexSchema.optional(),
    profile: TableProfileSchema.optional(),
    /** Mode csv: the rows written, of the query's rows in all. */
    csv: z.object({ rows: z.number().int().min(0), total_rows: z.number().int().min(0) }).optional(),
  }),
  z.object({
    ok: z.literal(false),
    message: z.string(),
    /** The query parameter at fault, when the file is fine but the query is not. */
    param: z.enum(['sort', 'search', 'filter']).optional(),
  }),
]);
export type PreviewAnswer = z.infer<typeof PreviewAnswerSchema>;
