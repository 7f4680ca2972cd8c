import { createReadStream } from 'node:fs';
import { InvalidInputError } from '../errors/index.ts';
import type { Workspace } from '../workspace/workspace.ts';
import type { ConnectionKind, QueryRows, SchemaTable } from './connection.ts';
import { rowsToParquet } from './parquet.ts';
import type { ConnectionRegistry } from './registry.ts';

/** What to bring in: a table (`schema.table` or `table`) or one read-only statement. */
export type ExtractSource = { table: string } | { sql: string };

export interface Extracted {
  /** Where it is in the workspace, e.g. `sales.parquet`. */
  path: string;
  rows: number;
  columns: QueryRows['columns'];
  truncated: QueryRows['truncated'];
  /** The statement that ran (kept in reports so the analysis can be re-run). */
  sql: string;
}

/** `name` → a file name in the workspace root ending in `.parquet` (no folders, no dot files). */
export function extractFileName(name: string): string {
  const base = name.trim().replace(/\.parquet$/i, '');
  if (!/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,100}$/.test(base)) {
    throw new InvalidInputError(
      'name: letters, digits, space, _ . - (at most 100), starting with a letter or digit, e.g. "sales_2024"',
      { param: 'name' },
    );
  }
  return `${base}.parquet`;
}

function quoteIdentifier(kind: ConnectionKind, name: string): string {
  return kind === 'mysql' ? `\`${name.replaceAll('`', '``')}\`` : `"${name.replaceAll('"', '""')}"`;
}

/** One connection as extract needs it: the server route's registry and a run's connections both give it. */
export interface ExtractConnection {
  id: string;
  kind: ConnectionKind;
  query(sql: string): Promise<QueryRows>;
  schema(): Promise<SchemaTable[]>;
}

/** `owner`'s connection `id` of the registry, as extract needs it. */
export function registryConnection(
  registry: ConnectionRegistry,
  owner: string,
  id: string,
): ExtractConnection {
  return {
    id,
    kind: registry.config(owner, id).kind,
    query: (sql) => registry.query(owner, id, sql),
    schema: () => registry.schema(owner, id),
  };
}

/** `SELECT * FROM` a table the connection's schema lists (so a name is never SQL of its own). */
export async function tableStatement(connection: ExtractConnection, table: string): Promise<string> {
  const { id, kind } = connection;
  const tables = await connection.schema();
  const found = tables.find((t) => `${t.schema}.${t.name}` === table) ?? tables.find((t) => t.name === table);
  if (!found) {
    throw new InvalidInputError(
      `table: no table "${table}" on connection "${id}" (GET /v1/connections/${id}/schema lists them)`,
      { param: 'table' },
    );
  }
  const qualified =
    kind === 'sqlite'
      ? quoteIdentifier(kind, found.name)
      : `${quoteIdentifier(kind, found.schema)}.${quoteIdentifier(kind, found.name)}`;
  return `SELECT * FROM ${qualified}`;
}

/**
 * Runs the statement on the connection (read-only, capped by the connection's `max_rows`) and
 * writes its rows into the workspace as a Parquet file, replacing one of the same name.
 */
export async function extractToWorkspace(
  connection: ExtractConnection,
  source: ExtractSource,
  name: string,
  workspace: Workspace,
): Promise<Extracted> {
  const path = extractFileName(name);
  const sql = 'table' in source ? await tableStatement(connection, source.table) : source.sql;
  const result = await connection.query(sql);
  const file = await rowsToParquet(result);
  try {
    await workspace.write(path, createReadStream(file.path));
  } finally {
    await file.cleanup();
  }
  return { path, rows: result.rows.length, columns: result.columns, truncated: result.truncated, sql };
}
