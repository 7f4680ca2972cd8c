import { z } from 'zod';
import { ColumnTypeSchema } from './preview.ts';

/**
 * A profile of one table of a workspace file (GET /v1/threads/{id}/profile/{path}), as the
 * server sends it and the web UI reads it: per column its type, how many values are missing
 * and distinct, min/max/mean with a histogram for numbers, or the most common values otherwise.
 * Computed in a preview process from the table's first rows (`rows_profiled` says how many).
 */
export const HistogramBinSchema = z.object({
  from: z.number(),
  to: z.number(),
  count: z.number().int().min(0),
});
export type HistogramBin = z.infer<typeof HistogramBinSchema>;

export const ColumnProfileSchema = z.object({
  name: z.string(),
  type: ColumnTypeSchema,
  count: z.number().int().min(0).describe('Values present (not null, not empty)'),
  missing: z.number().int().min(0).describe('Values null or empty'),
  distinct: z.number().int().min(0).describe('Distinct present values; counting stops at 10,000'),
  distinct_capped: z.literal(true).optional().describe('`distinct` stopped counting at its cap'),
  min: z.union([z.number(), z.string()]).optional().describe('Numbers and dates: the smallest value'),
  max: z.union([z.number(), z.string()]).optional().describe('Numbers and dates: the largest value'),
  mean: z.number().optional().describe('Numbers: the mean'),
  histogram: z
    .array(HistogramBinSchema)
    .optional()
    .describe('Numbers: 10 equal bins from min to max (one bin when every value is the same)'),
  top: z
    .array(z.object({ value: z.union([z.string(), z.boolean()]), count: z.number().int().min(0) }))
    .optional()
    .describe('Other columns: the 5 most common values, most common first'),
});
export type ColumnProfile = z.infer<typeof ColumnProfileSchema>;

export const TableProfileSchema = z.object({
  columns: z.array(ColumnProfileSchema),
  rows_profiled: z.number().int().min(0).describe('Rows the profile was computed from (the first ones)'),
});
export type TableProfile = z.infer<typeof TableProfileSchema>;

export const ProfileSchema = TableProfileSchema.extend({
  path: z.string(),
  bytes: z.number().int().describe("The file's size in bytes"),
  total_rows: z.number().int().nullable().describe('Rows of the table in all; null when not known cheaply'),
  total_rows_estimated: z.literal(true).optional().describe('`total_rows` is an estimate'),
  sheets: z.array(z.string()).optional().describe("Excel: every sheet's name; `sheet` is the one profiled"),
  sheet: z.string().optional(),
  tables: z.array(z.string()).optional().describe("SQLite: every table's name; `table` is the one profiled"),
  table: z.string().optional(),
});
export type Profile = z.infer<typeof ProfileSchema>;
