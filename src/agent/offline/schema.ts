import { z } from 'zod';

/**
 * What the offline analyst learns from its "load and look" cell (`python/look.py`): every
 * table in the workspace, how it was read, and what each column holds. Read leniently:
 * only what the planner uses.
 */
const ColumnSchema = z.object({
  name: z.string(),
  dtype: z.string(),
  /** `numeric-text`: text that reads as numbers ("1,234", "12%"). */
  kind: z.enum(['number', 'numeric-text', 'date', 'text', 'bool', 'empty']),
  missing: z.number(),
  distinct: z.number(),
  min: z.union([z.number(), z.string()]).optional(),
  max: z.union([z.number(), z.string()]).optional(),
  integer: z.boolean().optional(),
  percent: z.boolean().optional(),
  /** The most decimal places the numbers are written with. */
  decimals: z.number().optional(),
  /** Values that name a row summing up the others ("Total"); aggregates leave those rows out. */
  totals: z.array(z.string()).optional(),
  /** The most frequent values as text, with their counts. */
  values: z.array(z.tuple([z.string(), z.number()])).optional(),
});

const TableSchema = z.object({
  file: z.string(),
  label: z.string(),
  rows: z.number(),
  columns: z.array(ColumnSchema),
  reader: z.enum(['csv', 'json', 'jsonl', 'excel', 'parquet', 'sqlite']),
  sep: z.string().optional(),
  encoding: z.string().optional(),
  sheet: z.string().optional(),
  table: z.string().optional(),
  /** The file's size in bytes. */
  bytes: z.number().optional(),
  /**
   * For a file too large to load whole: the DuckDB table function that reads it
   * (`read_csv('sales.csv', delim=',', header=true)`); the cells then run SQL on it.
   */
  source: z.string().optional(),
});

export const LookSchema = z.object({
  tables: z.array(TableSchema),
  notes: z.array(z.string()),
  skipped: z.array(z.string()),
  /** Files that are not usable tables, each with the statement of why (`contract/file-problems.ts`). */
  problems: z.array(z.object({ file: z.string(), message: z.string() })).default([]),
});

export type ColumnInfo = z.infer<typeof ColumnSchema>;
export type TableInfo = z.infer<typeof TableSchema>;
export type Look = z.infer<typeof LookSchema>;

/** Whether a column can be summed and averaged (numbers, or text that reads as numbers). */
export function isNumeric(column: ColumnInfo): boolean {
  return column.kind === 'number' || column.kind === 'numeric-text';
}

/** Whether a column names things or groups rows (text, booleans, or a handful of codes). */
export function isCategorical(column: ColumnInfo, rows: number): boolean {
  if (column.kind === 'text' || column.kind === 'bool') return true;
  return column.kind === 'number' && column.integer === true && column.distinct <= Math.min(12, rows / 2);
}
