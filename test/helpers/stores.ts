import { join } from 'node:path';
import { describe } from 'node:test';
import Database from 'better-sqlite3';
import { queryDatabase, STORE_KINDS, type StoreKind, TEST_DATABASE_URL } from './postgres.ts';

export { STORE_KINDS, type StoreKind };

/**
 * Whether suites marked `postgres: 'all'` also run on PostgreSQL: the test command runs the
 * PostgreSQL variant of the suites that depend most on the store by default, and of every
 * one with ANALYST_TEST_POSTGRES=all (they add minutes).
 */
const ALL_ON_POSTGRES = process.env.ANALYST_TEST_POSTGRES === 'all';

/**
 * Registers the suite once per store the service can run on: SQLite, and PostgreSQL when
 * the test command started one (otherwise that run is reported as skipped, never passed).
 * `postgres: 'all'` marks a suite whose PostgreSQL run is only registered with
 * ANALYST_TEST_POSTGRES=all. Each run gets its store kind to start its servers with.
 */
export function describeEachStore(
  name: string,
  suite: (store: StoreKind) => void,
  options: { postgres?: 'always' | 'all' } = {},
): void {
  describe(`${name} [sqlite]`, () => suite('sqlite'));
  // Not wanted in this run (a choice of the test command, not a missing part): not registered.
  if (options.postgres === 'all' && !ALL_ON_POSTGRES) return;
  const skip = TEST_DATABASE_URL
    ? false
    : 'no PostgreSQL server (ANALYST_TEST_DATABASE_URL); npm test starts one';
  describe(`${name} [postgres]`, { skip }, () => {
    if (!skip) suite('postgres');
  });
}

/** Read access to a test server's database, whichever it is (tests only). */
export interface TestDatabaseAccess {
  /** Rows in one of the store's tables. */
  count(table: 'files' | 'threads' | 'messages' | 'runs' | 'events'): Promise<number>;
  /** A thread's workspace id, whoever owns it. */
  workspaceOf(threadId: string): Promise<string | undefined>;
}

export function sqliteAccess(dataDir: string): TestDatabaseAccess {
  const read = <T>(work: (db: Database.Database) => T): T => {
    const db = new Database(join(dataDir, 'analyst.db'), { readonly: true, fileMustExist: true });
    try {
      return work(db);
    } finally {
      db.close();
    }
  };
  return {
    count: async (table) =>
      read((db) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n),
    workspaceOf: async (threadId) =>
      read(
        (db) =>
          (
            db.prepare('SELECT workspace FROM threads WHERE id = ?').get(threadId) as
              | { workspace: string }
              | undefined
          )?.workspace,
      ),
  };
}

export function postgresAccess(url: string): TestDatabaseAccess {
  return {
    count: async (table) => Number((await queryDatabase(url, `SELECT COUNT(*) AS n FROM ${table}`))[0]?.n),
    workspaceOf: async (threadId) =>
      (await queryDatabase(url, 'SELECT workspace FROM threads WHERE id = $1', [threadId]))[0]?.workspace as
        | string
        | undefined,
  };
}
