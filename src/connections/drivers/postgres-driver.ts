import pg from 'pg';
import type { ConnectionDriver, JsonCell, QueryOptions, QueryRows, SchemaTable } from '../connection.ts';
import { ConnectionError } from '../errors/connection-error.ts';
import { jsonCell, numericText, rowBytes } from '../json-cell.ts';
import { secretsOf } from '../redact.ts';
import { readOnlyStatement } from '../statement.ts';
import { loginRefused, networkError, queryFailed, readOnlyRefused, timedOut } from './classify.ts';

const FETCH_BATCH = 500;

/** Type names of the common OIDs (pg_type.typname), for result columns. */
const TYPE_NAMES: Record<number, string> = {
  16: 'boolean',
  17: 'bytea',
  18: 'char',
  19: 'name',
  20: 'bigint',
  21: 'smallint',
  23: 'integer',
  25: 'text',
  26: 'oid',
  114: 'json',
  700: 'real',
  701: 'double precision',
  1042: 'character',
  1043: 'character varying',
  1082: 'date',
  1083: 'time',
  1114: 'timestamp',
  1184: 'timestamptz',
  1186: 'interval',
  1700: 'numeric',
  2950: 'uuid',
  3802: 'jsonb',
};

/** Exact values as JSON: 64-bit integers and decimals as numbers when nothing is lost; dates as the server wrote them. */
const TYPES = {
  getTypeParser(oid: number, format?: string) {
    if (oid === 20 || oid === 1700) return numericText;
    if (oid === 1082 || oid === 1114 || oid === 1184 || oid === 1083) return (text: string) => text;
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as unknown as pg.CustomTypesConfig;

export interface PostgresDriverOptions {
  id: string;
  url: string;
  /** Connections the pool keeps at most. Default 3. */
  poolSize?: number;
  /** Connecting gives up after this long. Default 10,000. */
  connectTimeoutMs?: number;
}

/**
 * PostgreSQL through `pg`: every statement inside `BEGIN READ ONLY` with a `statement_timeout`,
 * read through a cursor in batches (so the row and byte caps stop the fetching, never the
 * server's whole answer in memory), and always rolled back.
 */
export function postgresDriver(options: PostgresDriverOptions): ConnectionDriver {
  const { id } = options;
  const secrets = secretsOf(options.url);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 3,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    application_name: 'analyst',
    types: TYPES,
  });
  // An idle client whose server went away must not crash the process.
  pool.on('error', () => {});

  function classify(error: unknown, timeoutMs: number): ConnectionError {
    if (error instanceof ConnectionError) return error;
    const code = (error as { code?: unknown }).code;
    if (code === '25006' || code === '42501') return readOnlyRefused(id);
    if (code === '57014') return timedOut(id, timeoutMs);
    if (code === '28P01' || code === '28000' || code === '3D000') return loginRefused(id);
    if (code === '57P01' || code === '57P02' || code === '57P03') {
      return new ConnectionError(
        'connection_unreachable',
        `connection "${id}": the database server is shutting down or restarting; try again later`,
      );
    }
    const network = networkError(id, error);
    if (network) return network;
    return queryFailed(id, String((error as { message?: unknown }).message ?? error), secrets);
  }

  async function inReadOnly<T>(timeoutMs: number, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw classify(error, timeoutMs);
    }
    let broken = false;
    // A server that goes away mid-statement makes a checked-out client emit `error`: without a
    // listener that is an uncaught exception that would stop the whole service.
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
      const result = await work(client);
      await client.query('ROLLBACK');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw classify(error, timeoutMs);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  return {
    async query(sql: string, query: QueryOptions): Promise<QueryRows> {
      const statement = readOnlyStatement(sql, 'postgres');
      const deadline = Date.now() + query.timeoutMs;
      return inReadOnly(query.timeoutMs, async (client) => {
        // DECLARE accepts only a query (SELECT, VALUES, TABLE, WITH without data-modifying parts).
        await client.query(`DECLARE analyst_rows NO SCROLL CURSOR FOR\n${statement}\n`);
        const rows: JsonCell[][] = [];
        let columns: QueryRows['columns'] = [];
        let bytes = 0;
        let truncated: QueryRows['truncated'] = false;
        for (;;) {
          if (Date.now() > deadline) throw timedOut(id, query.timeoutMs);
          const want = Math.min(FETCH_BATCH, query.maxRows + 1 - rows.length);
          const batch = await client.query({ text: `FETCH ${want} FROM analyst_rows`, rowMode: 'array' });
          if (columns.length === 0) {
            columns = batch.fields.map((f) => ({
              name: f.name,
              type: TYPE_NAMES[f.dataTypeID] ?? 'unknown',
            }));
          }
          for (const raw of batch.rows as unknown[][]) {
            if (rows.length >= query.maxRows) {
              truncated = 'rows';
              break;
            }
            const row = raw.map(jsonCell);
            bytes += rowBytes(row);
            if (bytes > query.maxBytes) {
              truncated = 'bytes';
              break;
            }
            rows.push(row);
          }
          if (truncated || batch.rows.length < want) break;
        }
        return { columns, rows, truncated };
      });
    },

    async schema(schemas, { timeoutMs }): Promise<SchemaTable[]> {
      return inReadOnly(timeoutMs, async (client) => {
        const filter = schemas.length ? 'AND c.table_schema = ANY($1::text[])' : '';
        const params = schemas.length ? [schemas] : [];
        const columns = await client.query(
          `SELECT c.table_schema, c.table_name, c.column_name, c.data_type
             FROM information_schema.columns c
            WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema')
              AND c.table_schema NOT LIKE 'pg\\_toast%' ${filter}
            ORDER BY c.table_schema, c.table_name, c.ordinal_position`,
          params,
        );
        const estimates = await client.query(
          `SELECT n.nspname AS schema, c.relname AS name, c.reltuples::float8 AS estimate
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
        );
        const estimateOf = new Map<string, number>();
        for (const e of estimates.rows) estimateOf.set(`${e.schema}.${e.name}`, Number(e.estimate));
        return groupTables(columns.rows, estimateOf);
      });
    },

    async close() {
      await pool.end().catch(() => {});
    },
  };
}

/** Rows of (schema, table, column, type) in order → tables with their columns. */
export function groupTables(
  rows: Array<{ table_schema: string; table_name: string; column_name: string; data_type: string }>,
  estimateOf: Map<string, number>,
): SchemaTable[] {
  const tables = new Map<string, SchemaTable>();
  for (const r of rows) {
    const key = `${r.table_schema}.${r.table_name}`;
    let table = tables.get(key);
    if (!table) {
      const estimate = estimateOf.get(key);
      table = {
        schema: r.table_schema,
        name: r.table_name,
        columns: [],
        row_estimate: estimate === undefined || estimate < 0 ? null : Math.round(estimate),
      };
      tables.set(key, table);
    }
    table.columns.push({ name: r.column_name, type: r.data_type });
  }
  return [...tables.values()];
}
