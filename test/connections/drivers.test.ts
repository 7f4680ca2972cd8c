import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { ConnectionDriver, ConnectionKind } from '../../src/connections/connection.ts';
import { mysqlDriver } from '../../src/connections/drivers/mysql-driver.ts';
import { postgresDriver } from '../../src/connections/drivers/postgres-driver.ts';
import { sqliteDriver } from '../../src/connections/drivers/sqlite-driver.ts';
import { ConnectionError } from '../../src/connections/errors/connection-error.ts';
import { KINDS, SALES, type TestConnectionDb, testConnectionDb } from '../helpers/connection-databases.ts';
import { eventually } from '../helpers/eventually.ts';

function driverFor(kind: ConnectionKind, url: string): ConnectionDriver {
  if (kind === 'postgres') return postgresDriver({ id: 'shop', url, connectTimeoutMs: 3000 });
  if (kind === 'mysql') return mysqlDriver({ id: 'shop', url, connectTimeoutMs: 3000 });
  return sqliteDriver({ id: 'shop', path: url });
}

const LIMITS = { maxRows: 1000, maxBytes: 1 << 20, timeoutMs: 10_000 };

/** Every kind of write, per database: each must be refused and leave the database as it was. */
function writes(kind: ConnectionKind): Record<string, string> {
  const common: Record<string, string> = {
    insert: "INSERT INTO sales (id, region, amount, units) VALUES (999, 'x', 1, 1)",
    update: 'UPDATE sales SET units = 0',
    delete: 'DELETE FROM sales',
    'DDL drop': 'DROP TABLE sales',
    'DDL create': 'CREATE TABLE sneaky (id INTEGER)',
    'two statements': 'SELECT 1; DELETE FROM sales',
    'two statements after a comment': 'SELECT 1 /* ; */ ; DELETE FROM sales',
    'transaction control commit': 'COMMIT',
    'transaction control begin': 'BEGIN',
    'select for update': 'SELECT * FROM sales FOR UPDATE',
  };
  if (kind === 'postgres') {
    return {
      ...common,
      copy: "COPY sales TO '/tmp/analyst-copy-out.csv'",
      'copy from program': "COPY audit FROM PROGRAM 'echo hi'",
      'side-effecting function': 'SELECT log_and_return(1)',
      'sequence nextval': "SELECT nextval('counter')",
      'data-modifying CTE': 'WITH d AS (DELETE FROM sales RETURNING *) SELECT count(*) FROM d',
      'select into': 'SELECT * INTO sales_copy FROM sales',
      'set transaction': 'SET TRANSACTION READ WRITE',
    };
  }
  if (kind === 'mysql') {
    return {
      ...common,
      copy: "SELECT * FROM sales INTO OUTFILE '/tmp/analyst-copy-out.csv'",
      'load data': "LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE audit",
      'side-effecting function': 'SELECT log_and_return(1)',
      'executable comment': 'SELECT 1 /*!, (SELECT log_and_return(2)) */',
      'lock in share mode': 'SELECT * FROM sales LOCK IN SHARE MODE',
      'set transaction': 'SET TRANSACTION READ WRITE',
    };
  }
  return {
    ...common,
    copy: "VACUUM INTO '/tmp/analyst-copy-out.sqlite'",
    attach: "ATTACH DATABASE '/tmp/analyst-attached.sqlite' AS other",
    pragma: 'PRAGMA journal_mode = delete',
  };
}

for (const { kind, skip } of KINDS) {
  describe(`connections: ${kind}`, { skip }, () => {
    let db: TestConnectionDb;
    let driver: ConnectionDriver;
    before(async () => {
      db = await testConnectionDb(kind);
      driver = driverFor(kind, db.url);
    });
    after(async () => {
      await driver?.close();
      await db?.drop();
    });

    test('schema: the table, its columns with types, in order', async () => {
      const tables = await driver.schema([], { timeoutMs: 10_000 });
      const sales = tables.find((t) => t.name === 'sales');
      assert.ok(sales, `sales in ${JSON.stringify(tables.map((t) => t.name))}`);
      assert.deepEqual(
        sales.columns.map((c) => c.name),
        ['id', 'region', 'amount', 'units'],
      );
      assert.match(sales.columns[1]!.type, /char/i);
      assert.match(sales.columns[2]!.type, /dec|numeric/i);
      if (kind !== 'sqlite') assert.equal(typeof sales.row_estimate, 'number');
    });

    test('query: exact values, numbers as numbers', async () => {
      const result = await driver.query(
        "SELECT region, sum(amount) AS total, count(*) AS n FROM sales WHERE region <> ';' GROUP BY region ORDER BY region",
        LIMITS,
      );
      assert.deepEqual(
        result.columns.map((c) => c.name),
        ['region', 'total', 'n'],
      );
      const expected = ['east', 'north', 'south', 'west'].map((region) => {
        const rows = SALES.filter((s) => s.region === region);
        return [region, Math.round(rows.reduce((a, s) => a + s.amount * 100, 0)) / 100, rows.length];
      });
      assert.deepEqual(result.rows, expected);
      assert.equal(result.truncated, false);
    });

    test('a trailing semicolon and comments are one statement', async () => {
      const result = await driver.query('SELECT count(*) AS n FROM sales; -- all of them', LIMITS);
      assert.deepEqual(result.rows, [[60]]);
    });

    test('row cap: the first rows, marked truncated', async () => {
      const result = await driver.query('SELECT id FROM sales ORDER BY id', { ...LIMITS, maxRows: 7 });
      assert.deepEqual(result.rows, [[1], [2], [3], [4], [5], [6], [7]]);
      assert.equal(result.truncated, 'rows');
      const exact = await driver.query('SELECT id FROM sales ORDER BY id', { ...LIMITS, maxRows: 60 });
      assert.equal(exact.rows.length, 60);
      assert.equal(exact.truncated, false);
    });

    test('byte cap: fetching stops at the bytes, marked truncated', async () => {
      const result = await driver.query('SELECT id, region FROM sales ORDER BY id', {
        ...LIMITS,
        maxBytes: 200,
      });
      assert.equal(result.truncated, 'bytes');
      assert.ok(result.rows.length > 0 && result.rows.length < 20, `${result.rows.length} rows`);
      assert.deepEqual(result.rows[0], [1, 'north']);
    });

    test('timeout: a long statement is cancelled with a clear error, and the next one runs', async () => {
      const slow =
        kind === 'postgres'
          ? 'SELECT pg_sleep(20)'
          : kind === 'mysql'
            ? 'SELECT SLEEP(20) AS s, (SELECT count(*) FROM sales) AS n'
            : 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c';
      await assert.rejects(driver.query(slow, { ...LIMITS, timeoutMs: 1000 }), (error: unknown) => {
        assert.ok(error instanceof ConnectionError, String(error));
        assert.equal(error.code, 'connection_timeout');
        assert.match(error.message, /longer than 1 s/);
        return true;
      });
      assert.deepEqual((await driver.query('SELECT count(*) AS n FROM sales', LIMITS)).rows, [[60]]);
      // SQLite runs in native code that no thread can interrupt: the timed-out statement's
      // process must be gone, not left spinning (it would also keep this process alive).
      if (kind === 'sqlite') await eventually(() => sqliteChildren() === 0, 'no SQLite query process left');
    });

    for (const [name, sql] of Object.entries(writes(kind))) {
      test(`refused, database unchanged: ${name}`, async () => {
        await assert.rejects(driver.query(sql, LIMITS), (error: unknown) => {
          assert.ok(error instanceof ConnectionError, `${sql}: ${String(error)}`);
          assert.ok(
            ['connection_read_only', 'connection_statement', 'connection_query_failed'].includes(error.code),
            `${sql}: ${error.code} ${error.message}`,
          );
          return true;
        });
        assert.equal(await db.salesCount(), 60);
        assert.deepEqual(await db.admin('SELECT * FROM audit'), []);
        const tables = (await driver.schema([], { timeoutMs: 10_000 })).map((t) => t.name).sort();
        assert.deepEqual(tables, ['audit', 'sales']);
      });
    }

    test('the database itself refuses what the first guard lets through', async () => {
      const sql = kind === 'sqlite' ? undefined : 'SELECT log_and_return(1)';
      if (!sql) return;
      await assert.rejects(driver.query(sql, LIMITS), (error: unknown) => {
        assert.ok(error instanceof ConnectionError);
        assert.equal(error.code, 'connection_read_only', error.message);
        return true;
      });
    });

    // A SQLite connection is a file: it has no password or server address.
    if (kind !== 'sqlite') {
      test('a refused login names neither password nor URL', async () => {
        const secret = 'Wr0ngSecretPassw0rd';
        const url = new URL(db.url);
        url.username = kind === 'postgres' ? 'no_such_role' : url.username;
        url.password = secret;
        const bad = driverFor(kind, url.toString());
        try {
          await assert.rejects(bad.query('SELECT 1', LIMITS), (error: unknown) => {
            assert.ok(error instanceof ConnectionError, String(error));
            assert.equal(error.code, 'connection_login_refused', error.message);
            assert.ok(!error.message.includes(secret));
            assert.ok(!JSON.stringify(error).includes(secret));
            assert.ok(!String(error.stack).includes(secret));
            return true;
          });
        } finally {
          await bad.close();
        }
      });

      test('an unreachable server: a clear error without the password', async () => {
        const secret = 'UnreachableSecret42';
        const bad = driverFor(kind, `${kind}://someone:${secret}@127.0.0.1:1/nothing`);
        try {
          await assert.rejects(bad.query('SELECT 1', LIMITS), (error: unknown) => {
            assert.ok(error instanceof ConnectionError, String(error));
            assert.equal(error.code, 'connection_unreachable', error.message);
            assert.ok(!error.message.includes(secret));
            return true;
          });
        } finally {
          await bad.close();
        }
      });
    }
  });
}

/** Child processes of this one that run a SQLite query. */
function sqliteChildren(): number {
  let count = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sqlite-child.mjs'))
        count++;
    } catch {
      // The process ended while it was read.
    }
  }
  return count;
}
