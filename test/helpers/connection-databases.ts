import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { ConnectionKind } from '../../src/connections/connection.ts';
import { freshDatabase, TEST_DATABASE_URL } from './postgres.ts';

/**
 * A throwaway database of each kind holding the same `sales` table, for the connections tests:
 * PostgreSQL on the server of scripts/test-postgres.sh, MariaDB on scripts/test-mariadb.sh's
 * (ANALYST_TEST_MYSQL_URL), SQLite in a temp file. A kind whose server is absent is skipped.
 */
export const TEST_MYSQL_URL = process.env.ANALYST_TEST_MYSQL_URL || undefined;

export const KINDS: ReadonlyArray<{ kind: ConnectionKind; skip: string | false }> = [
  { kind: 'postgres', skip: TEST_DATABASE_URL ? false : 'no ANALYST_TEST_DATABASE_URL (run with npm test)' },
  { kind: 'mysql', skip: TEST_MYSQL_URL ? false : 'no ANALYST_TEST_MYSQL_URL (run with npm test)' },
  { kind: 'sqlite', skip: false },
];

/** The rows of `sales`: deterministic, so a test can compute its own answers from them. */
export const SALES: ReadonlyArray<{ id: number; region: string; amount: number; units: number }> = Array.from(
  { length: 60 },
  (_, i) => ({
    id: i + 1,
    region: ['north', 'south', 'east', 'west'][i % 4]!,
    amount: Math.round(((i * 37) % 101) * 100 + 25) / 100,
    units: (i * 7) % 13,
  }),
);

export interface TestConnectionDb {
  kind: ConnectionKind;
  /** What a connection's `url` is (a path for SQLite). */
  url: string;
  /** Runs SQL as the administrator (outside any connection), returning rows. */
  admin(sql: string): Promise<Array<Record<string, unknown>>>;
  /** Rows in `sales` now (to show a refused write changed nothing). */
  salesCount(): Promise<number>;
  drop(): Promise<void>;
}

const CREATE = `CREATE TABLE sales (id INTEGER PRIMARY KEY, region VARCHAR(20) NOT NULL, amount DECIMAL(10,2) NOT NULL, units INTEGER NOT NULL)`;

function inserts(): string {
  return `INSERT INTO sales (id, region, amount, units) VALUES ${SALES.map((s) => `(${s.id}, '${s.region}', ${s.amount.toFixed(2)}, ${s.units})`).join(', ')}`;
}

export async function testConnectionDb(kind: ConnectionKind): Promise<TestConnectionDb> {
  if (kind === 'postgres') {
    const db = await freshDatabase();
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        return (await client.query(sql)).rows;
      } finally {
        await client.end();
      }
    };
    await admin(CREATE);
    await admin(inserts());
    await admin('CREATE TABLE audit (note TEXT)');
    await admin(
      "CREATE FUNCTION log_and_return(x INTEGER) RETURNS INTEGER LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit VALUES ('called'); RETURN x; END $$",
    );
    await admin('CREATE SEQUENCE counter');
    await admin('ANALYZE sales');
    return {
      kind,
      url: db.url,
      admin,
      salesCount: async () => Number((await admin('SELECT count(*) AS n FROM sales'))[0]!.n),
      drop: db.drop,
    };
  }
  if (kind === 'mysql') {
    const name = `analyst_c_${randomBytes(5).toString('hex')}`;
    const root = await mysql.createConnection({ uri: TEST_MYSQL_URL!, multipleStatements: false });
    await root.query(`CREATE DATABASE ${name}`);
    await root.end();
    const url = new URL(TEST_MYSQL_URL!);
    url.pathname = `/${name}`;
    const admin = async (sql: string) => {
      const conn = await mysql.createConnection({ uri: url.toString() });
      try {
        const [rows] = await conn.query(sql);
        return Array.isArray(rows) ? (rows as Array<Record<string, unknown>>) : [];
      } finally {
        await conn.end();
      }
    };
    await admin(CREATE);
    await admin(inserts());
    await admin('CREATE TABLE audit (note TEXT)');
    await admin(
      "CREATE FUNCTION log_and_return(x INTEGER) RETURNS INTEGER MODIFIES SQL DATA BEGIN INSERT INTO audit VALUES ('called'); RETURN x; END",
    );
    await admin('ANALYZE TABLE sales');
    return {
      kind,
      url: url.toString(),
      admin,
      salesCount: async () => Number((await admin('SELECT count(*) AS n FROM sales'))[0]!.n),
      drop: async () => {
        const conn = await mysql.createConnection({ uri: TEST_MYSQL_URL! });
        await conn.query(`DROP DATABASE IF EXISTS ${name}`);
        await conn.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'analyst-conn-'));
  const path = join(dir, 'shop.sqlite');
  const db = new Database(path);
  db.exec(CREATE);
  db.exec(inserts());
  db.exec('CREATE TABLE audit (note TEXT)');
  db.close();
  const admin = async (sql: string) => {
    const conn = new Database(path);
    try {
      const statement = conn.prepare(sql);
      if (statement.reader) return statement.all() as Array<Record<string, unknown>>;
      statement.run();
      return [];
    } finally {
      conn.close();
    }
  };
  return {
    kind,
    url: path,
    admin,
    salesCount: async () => Number((await admin('SELECT count(*) AS n FROM sales'))[0]!.n),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
