import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { PreviewCell } from '../../contract/preview.ts';
import type { TableQuery } from '../../contract/table-query.ts';
import { columnTypeOf, type SqlColumn, selectList, tableSql } from './table-sql.ts';

/**
 * A sorted, searched or filtered table (docs/spec.md#table-queries), run by DuckDB inside a
 * preview process: the file (CSV, TSV or Parquet, by the server's descriptor) is loaded once
 * into a temporary table, counted and paged through the SQL of `table-sql.ts`. DuckDB's memory
 * is capped below the process's limit and spills to the job's scratch directory.
 */
export interface TableSource {
  /** `/proc/<server pid>/fd/<n>`: the server's open descriptor of the file. */
  source: string;
  format: 'csv' | 'tsv' | 'parquet';
  scratchDir: string;
}

export interface QueriedPage {
  columns: Array<{ name: string; type: ReturnType<typeof columnTypeOf> }>;
  rows: PreviewCell[][];
  totalRows: number;
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
const MAX_CELL_CHARS = 10_000;

async function open(file: TableSource): Promise<{ connection: DuckDBConnection; close: () => void }> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '1',
    memory_limit: '192MB',
    temp_directory: file.scratchDir,
    // Only the one file is read; nothing is installed or fetched.
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connection = await instance.connect();
  try {
    await load(connection, file);
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
  return {
    connection,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

async function load(connection: DuckDBConnection, file: TableSource): Promise<void> {
  const path = literal(file.source);
  const read = (sample: string) =>
    file.format === 'parquet'
      ? `read_parquet(${path})`
      : `read_csv(${path}, header = true${file.format === 'tsv' ? `, delim = '\\t'` : ''}${sample})`;
  try {
    await connection.run(`CREATE TEMP TABLE t AS SELECT * FROM ${read('')}`);
  } catch (error) {
    // Types are guessed from the first rows; a later row that breaks the guess is read again
    // with the guess taken from every row.
    if (file.format === 'parquet' || !/Could not convert|conversion/i.test(String(error))) throw error;
    await connection.run(`CREATE OR REPLACE TEMP TABLE t AS SELECT * FROM ${read(', sample_size = -1')}`);
  }
}

async function columnsOf(connection: DuckDBConnection): Promise<SqlColumn[]> {
  const described = await connection.runAndReadAll('DESCRIBE t');
  return described.getRowObjectsJS().map((row) => ({
    name: String(row.column_name),
    sqlType: String(row.column_type),
  }));
}

/** How many rows the query keeps in all. */
async function countRows(
  connection: DuckDBConnection,
  sql: { where: string; params: Array<string | number> },
): Promise<number> {
  const counted = await connection.runAndReadAll(`SELECT count(*) AS n FROM t ${sql.where}`, sql.params);
  return Number(counted.getRowsJS()[0]?.[0] ?? 0);
}

/** One page of the queried table, and how many rows the query keeps in all. */
export async function queryPage(
  file: TableSource,
  query: TableQuery,
  page: { offset: number; limit: number },
): Promise<QueriedPage> {
  const { connection, close } = await open(file);
  try {
    const columns = await columnsOf(connection);
    const sql = tableSql(columns, query);
    const totalRows = await countRows(connection, sql);
    const n = sql.params.length;
    const selected = await connection.runAndReadAll(
      `SELECT ${selectList(columns)} FROM t ${sql.where} ${sql.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...sql.params, page.limit, page.offset],
    );
    return {
      columns: columns.map((c) => ({ name: c.name, type: columnTypeOf(c.sqlType) })),
      rows: selected.getRowsJS().map((row) => row.map(cellOf)),
      totalRows,
    };
  } finally {
    close();
  }
}

/** The whole queried table (at most `maxRows` rows) written as CSV with a header to `outPath`. */
export async function queryToCsv(
  file: TableSource,
  query: TableQuery,
  outPath: string,
  maxRows: number,
): Promise<{ rows: number; totalRows: number }> {
  const { connection, close } = await open(file);
  try {
    const columns = await columnsOf(connection);
    const sql = tableSql(columns, query);
    const totalRows = await countRows(connection, sql);
    const n = sql.params.length;
    await connection.run(
      `COPY (SELECT ${selectList(columns)} FROM t ${sql.where} ${sql.orderBy} LIMIT $${n + 1}) TO ${literal(outPath)} (FORMAT csv, HEADER true)`,
      [...sql.params, maxRows],
    );
    return { rows: Math.min(totalRows, maxRows), totalRows };
  } finally {
    close();
  }
}

function cellOf(value: unknown): PreviewCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string')
    return value.length > MAX_CELL_CHARS ? `${value.slice(0, MAX_CELL_CHARS)}…` : value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  const text = JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? Number(v) : v));
  return text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS)}…` : text;
}
