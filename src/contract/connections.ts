/** The database connection objects of the API (docs/connections.md), as the server sends them and clients read them. */

import { z } from 'zod';

/** A connection as a key sees it: never its URL. */
export const ConnectionObjectSchema = z.object({
  id: z.string(),
  object: z.literal('connection'),
  kind: z.enum(['postgres', 'mysql', 'sqlite']),
  title: z.string(),
  max_rows: z.number().int(),
  timeout_s: z.number(),
  schemas: z.array(z.string()),
});

const ColumnSchema = z.object({ name: z.string(), type: z.string() });

export const ConnectionSchemaObjectSchema = z.object({
  object: z.literal('connection.schema'),
  connection_id: z.string(),
  tables: z.array(
    z.object({
      schema: z.string(),
      name: z.string(),
      columns: z.array(ColumnSchema),
      row_estimate: z.number().nullable(),
    }),
  ),
});

const Cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const ConnectionQueryResultSchema = z.object({
  object: z.literal('connection.query'),
  connection_id: z.string(),
  columns: z.array(ColumnSchema),
  rows: z.array(z.array(Cell)),
  row_count: z.number().int(),
  /** `rows` or `bytes` when a cap stopped the fetching; false when every row came. */
  truncated: z.union([z.literal(false), z.enum(['rows', 'bytes'])]),
});

export const ExtractResultSchema = z.object({
  object: z.literal('connection.extract'),
  connection_id: z.string(),
  path: z.string(),
  url: z.string(),
  row_count: z.number().int(),
  columns: z.array(ColumnSchema),
  truncated: z.union([z.literal(false), z.enum(['rows', 'bytes'])]),
  sql: z.string(),
});
