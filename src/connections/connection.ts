/**
 * What a database connection is to Analyst, independent of the database (docs/connections.md):
 * read-only statements, one per call, bounded in rows, bytes and time, and a description of
 * its tables. One driver per kind implements it (`drivers/`).
 */

export type ConnectionKind = 'postgres' | 'mysql' | 'sqlite';

export interface ResultColumn {
  name: string;
  /** The database's type name where the driver knows it (`integer`, `varchar`, …), else `unknown`. */
  type: string;
}

/** Rows are arrays of JSON values: numbers, strings, booleans, null (dates as ISO strings). */
export type JsonCell = string | number | boolean | null;

export interface QueryRows {
  columns: ResultColumn[];
  rows: JsonCell[][];
  /** Why fetching stopped early: the row cap, the byte cap, or false when every row came. */
  truncated: false | 'rows' | 'bytes';
}

export interface QueryOptions {
  /** At most this many rows are fetched (the rest are never read from the server). */
  maxRows: number;
  /** At most about this many bytes of rows (as JSON) are kept; fetching stops there. */
  maxBytes: number;
  /** The statement is cancelled by the database after this long. */
  timeoutMs: number;
}

export interface TableColumn {
  name: string;
  type: string;
}

export interface SchemaTable {
  schema: string;
  name: string;
  columns: TableColumn[];
  /** The database's own estimate of the row count (statistics, not a count); null when it has none. */
  row_estimate: number | null;
}

export interface ConnectionDriver {
  /** Runs one read-only statement: ConnectionError for a write, a second statement, a timeout… */
  query(sql: string, options: QueryOptions): Promise<QueryRows>;
  /** The tables (and views) of the given schemas (all non-system ones when empty), with their columns. */
  schema(schemas: readonly string[], options: { timeoutMs: number }): Promise<SchemaTable[]>;
  /** Closes the pool; idempotent. */
  close(): Promise<void>;
}
