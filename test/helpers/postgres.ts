import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The PostgreSQL server the test command started (scripts/test-postgres.sh), as an admin
 * URL; absent when there is none, and then the PostgreSQL runs of the tests are skipped
 * (reported as skipped, never as passed).
 */
export const TEST_DATABASE_URL = process.env.ANALYST_TEST_DATABASE_URL || undefined;

/** The store kinds this test process can run the service on: SQLite always, PostgreSQL when started. */
export type StoreKind = 'sqlite' | 'postgres';
export const STORE_KINDS: readonly StoreKind[] = TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  url: string;
  /** Drops the database (closing whatever still connects to it). */
  drop(): Promise<void>;
}

/** A fresh, empty database on the test server, for one test server or store. */
export async function freshDatabase(): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL)
    throw new Error('ANALYST_TEST_DATABASE_URL is not set (run the tests with npm test)');
  const name = `analyst_t_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Rows of one query against a test database (tests only: counts, ids). */
export async function queryDatabase(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows;
  } finally {
    await client.end();
  }
}
