import { z } from 'zod';

/**
 * The arguments of the `query` and `python_exec` tools, defined once: tools mode validates
 * the model's calls with them, and the MCP server gives them to its clients as the tools'
 * input schemas.
 */

export const QueryArgsSchema = z
  .object({
    sql: z.string().trim().min(1, 'sql is empty').describe('One SELECT statement in DuckDB SQL.'),
    connection: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe("A database connection's id: the statement runs there, in that database's SQL dialect."),
  })
  .strict();
export type QueryArgs = z.infer<typeof QueryArgsSchema>;

export const PythonExecArgsSchema = z
  .object({
    code: z
      .string()
      .refine((c) => c.trim() !== '', 'code is empty')
      .describe('Python source to run.'),
    timeout: z.number().min(1).max(30).optional().describe('Seconds, 1 to 30 (default 30).'),
  })
  .strict();
export type PythonExecArgs = z.infer<typeof PythonExecArgsSchema>;
