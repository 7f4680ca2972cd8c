import { Worker } from 'node:worker_threads';
import type { ConnectionDriver, QueryOptions, QueryRows, SchemaTable } from '../connection.ts';
import { ConnectionError } from '../errors/connection-error.ts';
import { secretsOf } from '../redact.ts';
import { readOnlyStatement } from '../statement.ts';
import { queryFailed, readOnlyRefused, timedOut } from './classify.ts';

export interface SqliteDriverOptions {
  id: string;
  /** The database file on the host. */
  path: string;
  /** A worker's heap at most, in MB. Default 256. */
  memoryMb?: number;
}

type Outcome =
  | { ok: QueryRows | SchemaTable[] }
  | { error: 'read_only' }
  | { error: 'failed'; code: string | null; message: string };

/**
 * A SQLite file opened read-only (`SQLITE_OPEN_READONLY`, so no statement can change it), each
 * call in its own worker thread, ended when the time is up, and refused unless SQLite itself
 * says the prepared statement only reads.
 */
export function sqliteDriver(options: SqliteDriverOptions): ConnectionDriver {
  const { id } = options;
  const secrets = secretsOf(options.path);

  function inWorker(data: Record<string, unknown>, timeoutMs: number): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(new URL('./sqlite-worker.mjs', import.meta.url), {
        workerData: { path: options.path, ...data },
        resourceLimits: { maxOldGenerationSizeMb: options.memoryMb ?? 256 },
      });
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        void worker.terminate();
        reject(timedOut(id, timeoutMs));
      }, timeoutMs);
      worker.once('message', (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      });
      worker.once('error', (error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(queryFailed(id, `the statement stopped: ${error.message}`, secrets));
      });
      worker.once('exit', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(queryFailed(id, 'the statement stopped without an answer', secrets));
      });
    });
  }

  function unwrap(outcome: Outcome): QueryRows | SchemaTable[] {
    if ('ok' in outcome) return outcome.ok;
    if (outcome.error === 'read_only') throw readOnlyRefused(id);
    if (outcome.code === 'SQLITE_READONLY') throw readOnlyRefused(id);
    if (/more than one statement/i.test(outcome.message)) {
      throw new ConnectionError('connection_statement', 'one statement per call: send a single SELECT');
    }
    if (outcome.code === 'SQLITE_CANTOPEN' || /unable to open|does not exist/i.test(outcome.message)) {
      throw new ConnectionError(
        'connection_unreachable',
        `connection "${id}": the SQLite file cannot be opened; ask the operator whether it is still there`,
      );
    }
    throw queryFailed(id, outcome.message, secrets);
  }

  return {
    async query(sql: string, query: QueryOptions): Promise<QueryRows> {
      const statement = readOnlyStatement(sql, 'sqlite');
      const outcome = await inWorker(
        { op: 'query', sql: statement, maxRows: query.maxRows, maxBytes: query.maxBytes },
        query.timeoutMs,
      );
      return unwrap(outcome) as QueryRows;
    },
    async schema(_schemas, { timeoutMs }): Promise<SchemaTable[]> {
      return unwrap(await inWorker({ op: 'schema' }, timeoutMs)) as SchemaTable[];
    },
    async close() {},
  };
}
