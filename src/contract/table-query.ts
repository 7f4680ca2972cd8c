import { z } from 'zod';

/**
 * Sorting, searching and filtering a table preview on the server (docs/spec.md#table-queries):
 * the query parameters `sort`, `desc`, `search` and `filter` of
 * GET /v1/threads/{id}/preview/{path} and /table-csv/{path}. Values are only ever bound as
 * parameters and names only quoted, never written into SQL.
 */

/** Longest search text or filter value, in characters. */
export const MAX_QUERY_VALUE_CHARS = 1000;
/** Most filters in one query. */
export const MAX_FILTERS = 32;

const name = z.string().min(1).max(300);
const value = z.string().max(MAX_QUERY_VALUE_CHARS);

/** One column's condition: a text it contains (any case), a value it equals, or a numeric range. */
export const TableFilterSchema = z
  .discriminatedUnion('op', [
    z.object({ column: name, op: z.literal('contains'), value }).strict(),
    z.object({ column: name, op: z.literal('equals'), value: z.union([value, z.number()]) }).strict(),
    z
      .object({
        column: name,
        op: z.literal('range'),
        min: z.number().finite().optional(),
        max: z.number().finite().optional(),
      })
      .strict(),
  ])
  .refine(
    (f) => f.op !== 'range' || f.min !== undefined || f.max !== undefined,
    'a range needs min, max or both',
  );
export type TableFilter = z.infer<typeof TableFilterSchema>;

/** The filters as they travel: one JSON array in the `filter` query parameter. */
const FilterParamSchema = z
  .string()
  .max(16_000)
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: 'custom', message: 'filter must be a JSON array of {column, op, …}' });
      return z.NEVER;
    }
  })
  .pipe(z.array(TableFilterSchema).max(MAX_FILTERS));

export const TableQueryParamsSchema = z.object({
  sort: name.optional().describe('The column to sort by (ascending unless desc)'),
  desc: z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .optional()
    .describe('Sort descending'),
  search: value.optional().describe('Rows where any column contains this text (any case)'),
  filter: FilterParamSchema.optional().describe(
    'A JSON array of filters: {column, op: "contains", value}, {column, op: "equals", value}, {column, op: "range", min?, max?}',
  ),
});

/** What the preview process is asked to do with the table (the parsed parameters). */
export interface TableQuery {
  sort?: string;
  desc?: boolean;
  search?: string;
  filters?: TableFilter[];
}

/** True when the parameters ask for anything beyond a plain page. */
export function isTableQuery(query: TableQuery): boolean {
  return (
    query.sort !== undefined ||
    (query.search !== undefined && query.search !== '') ||
    (query.filters?.length ?? 0) > 0
  );
}
