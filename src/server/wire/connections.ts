import { z } from 'zod';

/** The connection objects the routes answer with are part of the contract. */
export * from '../../contract/connections.ts';

export const ConnectionQueryBodySchema = z
  .object({
    sql: z.string().min(1).max(100_000),
    /** At most the connection's own `max_rows`. */
    max_rows: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict();

export const ExtractBodySchema = z
  .object({
    sql: z.string().min(1).max(100_000).optional(),
    table: z.string().min(1).max(300).optional(),
    name: z.string().min(1).max(120),
  })
  .strict()
  .refine((b) => (b.sql === undefined) !== (b.table === undefined), {
    message: 'send exactly one of "sql" and "table"',
    path: ['sql'],
  });
