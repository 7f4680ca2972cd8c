import mysql from 'mysql2';
import type { ConnectionDriver, JsonCell, QueryOptions, QueryRows, SchemaTable } from '../connection.ts';
import { ConnectionError } from '../errors/connection-error.ts';
import { jsonCell, numericText, rowBytes } from '../json-cell.ts';
import { secretsOf } from '../redact.ts';
import { readOnlyStatement } from '../statement.ts';
import { loginRefused, networkError, queryFailed, readOnlyRefused, timedOut } from './classify.ts';
import { groupTables } from './postgres-driver.ts';

/** mysql2's type numbers → names (`LONGLONG`, `VAR_STRING`, …), lower-cased for result columns. */
const TYPE_NAMES = new Map<number, string>(
  Object.entries((mysql as unknown as { Types: Record<string, number> }).Types).map(([name, n]) => [
    n,
    name.toLowerCase(),
  ]),
);

export interface MysqlDriverOptions {
  id: string;
  url: string;
  /** Connections the pool keeps at most. Default 3. */
  poolSize?: number;
  /** Connecting gives up after this long. Default 10,000. */
  connectTimeoutMs?: number;
}

type Conn = mysql.PoolConnection;

function run(conn: Conn, sql: string, values?: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    conn.query(sql, values, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * MySQL and MariaDB through `mysql2`: every statement inside `START TRANSACTION READ ONLY`
 * with the server's statement time limit (MySQL `max_execution_time`, MariaDB
 * `max_statement_time`), rows streamed and the connection dropped once a cap is reached,
 * always rolled back. One statement per call (`multipleStatements` stays off as well).
 */
export function mysqlDriver(options: MysqlDriverOptions): ConnectionDriver {
  const { id } = options;
  const secrets = secretsOf(options.url);
  const pool = mysql.createPool({
    uri: options.url,
    connectionLimit: options.poolSize ?? 3,
    maxIdle: options.poolSize ?? 3,
    idleTimeout: 30_000,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    multipleStatements: false,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    typeCast: (field, next) => {
      const value = next();
      if (
        typeof value === 'string' &&
        (field.type === 'NEWDECIMAL' || field.type === 'LONGLONG' || field.type === 'DECIMAL')
      ) {
        return numericText(value);
      }
      return value;
    },
  });
  pool.on('connection', (conn) => conn.on('error', () => {}));
  /** Which limit the server knows: learned on the first statement. */
  let timeLimit: 'max_execution_time' | 'max_statement_time' | undefined;

  function classify(error: unknown, timeoutMs: number): ConnectionError {
    if (error instanceof ConnectionError) return error;
    const errno = (error as { errno?: unknown }).errno;
    if (errno === 1792 || errno === 1290 || errno === 1142 || errno === 1227) return readOnlyRefused(id);
    if (errno === 3024 || errno === 1969 || errno === 1317) return timedOut(id, timeoutMs);
    if (errno === 1045 || errno === 1044 || errno === 1049 || errno === 1698) return loginRefused(id);
    if (errno === 1053 || errno === 2013 || errno === 2006 || errno === 1927) {
      return new ConnectionError(
        'connection_unreachable',
        `connection "${id}": the database server closed the connection during the statement; ask the operator whether it is running`,
      );
    }
    const network = networkError(id, error);
    if (network) return network;
    const message = (error as { sqlMessage?: unknown }).sqlMessage ?? (error as Error).message ?? error;
    return queryFailed(id, String(message), secrets);
  }

  async function connection(timeoutMs: number): Promise<Conn> {
    return new Promise((resolve, reject) =>
      pool.getConnection((error, conn) => (error ? reject(classify(error, timeoutMs)) : resolve(conn))),
    );
  }

  async function limitTime(conn: Conn, timeoutMs: number): Promise<void> {
    if (timeLimit !== 'max_statement_time') {
      try {
        await run(conn, 'SET SESSION max_execution_time = ?', [Math.max(1, Math.round(timeoutMs))]);
        timeLimit = 'max_execution_time';
        return;
      } catch (error) {
        if ((error as { errno?: unknown }).errno !== 1193) throw error;
        timeLimit = 'max_statement_time';
      }
    }
    await run(conn, 'SET SESSION max_statement_time = ?', [Math.max(0.001, timeoutMs / 1000)]);
  }

  async function inReadOnly<T>(timeoutMs: number, work: (conn: Conn) => Promise<T>): Promise<T> {
    const conn = await connection(timeoutMs);
    let broken = false;
    try {
      await limitTime(conn, timeoutMs);
      await run(conn, 'START TRANSACTION READ ONLY');
      const result = await work(conn);
      await run(conn, 'ROLLBACK');
      return result;
    } catch (error) {
      if (!(error instanceof CapReached)) {
        try {
          await run(conn, 'ROLLBACK');
        } catch {
          broken = true;
        }
      } else {
        broken = true;
      }
      if (error instanceof CapReached) return error.value as T;
      throw classify(error, timeoutMs);
    } finally {
      if (broken) conn.destroy();
      else conn.release();
    }
  }

  return {
    async query(sql: string, query: QueryOptions): Promise<QueryRows> {
      const statement = readOnlyStatement(sql, 'mysql');
      return inReadOnly(query.timeoutMs, (conn) => streamRows(conn, statement, query, id));
    },

    async schema(schemas, { timeoutMs }): Promise<SchemaTable[]> {
      return inReadOnly(timeoutMs, async (conn) => {
        const filter = schemas.length ? 'AND c.table_schema IN (?)' : 'AND c.table_schema = DATABASE()';
        const columns = (await run(
          conn,
          `SELECT c.table_schema AS table_schema, c.table_name AS table_name, c.column_name AS column_name,
                  c.column_type AS data_type
             FROM information_schema.columns c
            WHERE c.table_schema NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') ${filter}
            ORDER BY c.table_schema, c.table_name, c.ordinal_position`,
          schemas.length ? [schemas] : [],
        )) as Array<{ table_schema: string; table_name: string; column_name: string; data_type: string }>;
        const estimates = (await run(
          conn,
          'SELECT table_schema AS s, table_name AS n, table_rows AS r FROM information_schema.tables',
        )) as Array<{ s: string; n: string; r: number | string | null }>;
        const estimateOf = new Map<string, number>();
        for (const e of estimates) if (e.r !== null) estimateOf.set(`${e.s}.${e.n}`, Number(e.r));
        return groupTables(columns, estimateOf);
      });
    },

    async close() {
      await new Promise<void>((resolve) => pool.end(() => resolve()));
    },
  };
}

/** Thrown inside `inReadOnly` when a cap stopped the stream: the connection is dropped, the rows kept. */
class CapReached extends Error {
  constructor(readonly value: QueryRows) {
    super('cap reached');
  }
}

function streamRows(conn: Conn, statement: string, query: QueryOptions, id: string): Promise<QueryRows> {
  return new Promise((resolve, reject) => {
    const rows: JsonCell[][] = [];
    let columns: QueryRows['columns'] = [];
    let bytes = 0;
    let done = false;
    const timer = setTimeout(() => finish(timedOut(id, query.timeoutMs)), query.timeoutMs + 1000);
    function finish(outcome: QueryRows | Error, capped = false) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (outcome instanceof Error) {
        // A statement still running on the server: the connection goes, not back to the pool.
        if (outcome instanceof ConnectionError && outcome.code === 'connection_timeout') conn.destroy();
        reject(outcome);
      } else if (capped) {
        conn.pause();
        reject(new CapReached(outcome));
      } else {
        resolve(outcome);
      }
    }
    const q = conn.query({ sql: statement, rowsAsArray: true });
    q.on('fields', (fields: mysql.FieldPacket[]) => {
      columns = fields.map((f) => ({ name: f.name, type: TYPE_NAMES.get(f.columnType ?? -1) ?? 'unknown' }));
    });
    q.on('result', (raw: unknown) => {
      if (done) return;
      if (!Array.isArray(raw)) return; // an OK packet (SHOW of nothing, etc.)
      if (rows.length >= query.maxRows) return finish({ columns, rows, truncated: 'rows' }, true);
      const row = raw.map(jsonCell);
      bytes += rowBytes(row);
      if (bytes > query.maxBytes) return finish({ columns, rows, truncated: 'bytes' }, true);
      rows.push(row);
    });
    q.on('error', (error: Error) => finish(error));
    q.on('end', () => finish({ columns, rows, truncated: false }));
  });
}
