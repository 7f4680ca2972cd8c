import { fork } from 'node:child_process';
import type { ConnectionDriver, QueryOptions, QueryRows, SchemaTable } from '../connection.ts';
import { ConnectionError } from '../errors/connection-error.ts';
import { secretsOf } from '../redact.ts';
import { readOnlyStatement } from '../statement.ts';
import { queryFailed, readOnlyRefused, timedOut } from './classify.ts';

export interface SqliteDriverOptions {
  id: string;
  /** The database file on the host. */
  path: string;
  /** A query process's JavaScript heap at most, in MB. Default 256. */
  memoryMb?: number;
}

type Outcome =
  | { ok: QueryRows | SchemaTable[] }
  | { error: 'read_only' }
  | { error: 'failed'; code: string | null; message: string };

/**
 * A SQLite file opened read-only (`SQLITE_OPEN_READONLY`, so no statement can change it), each
 * call in its own child process, killed when the time is up (a worker thread could not be
 * stopped inside SQLite's native code), and refused unless SQLite itself says the prepared
 * statement only reads.
 */
export function sqliteDriver(options: SqliteDriverOptions): ConnectionDriver {
  const { id } = options;
  const secrets = secretsOf(options.path);

  function inProcess(job: Record<string, unknown>, timeoutMs: number): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      const child = fork(new URL('./sqlite-child.mjs', import.meta.url), [], {
        execArgv: [`--max-old-space-size=${options.memoryMb ?? 256}`],
        // Only what node needs: the server's environment (secrets included) stays with the server.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
        serialization: 'advanced',
      });
      let settled = false;
      const settle = (then: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        child.kill('SIGKILL');
        then();
      };
      const timer = setTimeout(() => settle(() => reject(timedOut(id, timeoutMs))), timeoutMs);
      child.once('message', (outcome) => settle(() => resolve(outcome as Outcome)));
      child.once('error', (error) =>
        settle(() => reject(queryFailed(id, `the statement stopped: ${error.message}`, secrets))),
      );
      child.once('exit', () =>
        settle(() => reject(queryFailed(id, 'the statement stopped without an answer', secrets))),
      );
      child.send({ path: options.path, ...job });
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
      const outcome = await inProcess(
        { op: 'query', sql: statement, maxRows: query.maxRows, maxBytes: query.maxBytes },
        query.timeoutMs,
      );
      return unwrap(outcome) as QueryRows;
    },
    async schema(_schemas, { timeoutMs }): Promise<SchemaTable[]> {
      return unwrap(await inProcess({ op: 'schema' }, timeoutMs)) as SchemaTable[];
    },
    async close() {},
  };
}
