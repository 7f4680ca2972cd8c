import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { columnSql, conditionSql, whereSql } from '../../src/agent/offline/cells/sql.ts';
import type { TableInfo } from '../../src/agent/offline/schema.ts';

/** A table as the look cell describes it, over a DuckDB table `t` of the same columns. */
const table: TableInfo = {
  file: 't.csv',
  label: 't.csv',
  rows: 6,
  reader: 'csv',
  source: 't',
  columns: [
    { name: 'name', dtype: 'object', kind: 'text', missing: 0, distinct: 6, totals: ['Total'] },
    { name: 'amount', dtype: 'object', kind: 'numeric-text', missing: 0, distinct: 6 },
    { name: 'day', dtype: 'object', kind: 'date', missing: 0, distinct: 6 },
    { name: 'it\'s "odd"', dtype: 'int64', kind: 'number', missing: 0, distinct: 6 },
  ],
};

async function database() {
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  await connection.run(`CREATE TABLE t AS SELECT * FROM (VALUES
    ('a', '1,234', '2024-01-05', 1), ('b', '12.5%', '2024-02-10', 2), ('c', '$3', '2023-03-01', 3),
    ('d', '\u22124', '2024-04-01', 4), ('e', '3rd', 'not a date', 5), ('Total', '12[a]', '2024-06-01', 6),
    ('g', '202 (estimate)', '2024-07-01', 7), ('h', 'n/a', '2024-08-01', 8)
  ) v(name, amount, day, "it's ""odd""")`);
  return {
    rows: async (sql: string) => (await connection.runAndReadAll(sql)).getRowsJson(),
    close: () => connection.closeSync(),
  };
}

describe('the offline analyst SQL for large files, on DuckDB', () => {
  test('numbers written as text are read as python/to_number.py reads them', async () => {
    const db = await database();
    try {
      const rows = await db.rows(`SELECT ${columnSql(table, 'amount')} FROM t`);
      assert.deepEqual(
        rows.map((r) => r[0]),
        [1234, 12.5, 3, -4, 3, 12, 202, null],
      );
    } finally {
      db.close();
    }
  });

  test('filters, the total row left out, and a hostile column name', async () => {
    const db = await database();
    try {
      const where = whereSql(
        table,
        [
          { kind: 'compare', column: 'amount', op: '>', value: 3 },
          { kind: 'year', column: 'day', value: 2024 },
        ],
        { keep: [] },
      );
      const rows = await db.rows(`SELECT name FROM t${where} ORDER BY name`);
      assert.deepEqual(
        rows.map((r) => r[0]),
        ['a', 'b', 'g'],
      );
      const kept = await db.rows(
        `SELECT count(*) FROM t${whereSql(table, [{ kind: 'equals', column: 'name', value: 'Total' }], { keep: ['Total'] })}`,
      );
      assert.equal(kept[0]![0], '1');
      const odd = conditionSql(table, { kind: 'between', column: 'it\'s "odd"', low: 2, high: 3 })!;
      assert.deepEqual(
        (await db.rows(`SELECT name FROM t WHERE ${odd} ORDER BY 1`)).map((r) => r[0]),
        ['b', 'c'],
      );
      const quoted = conditionSql(table, { kind: 'in', column: 'name', values: ["x' OR 1=1 --", 'a'] })!;
      assert.deepEqual(
        (await db.rows(`SELECT name FROM t WHERE ${quoted}`)).map((r) => r[0]),
        ['a'],
      );
    } finally {
      db.close();
    }
  });

  test('a span of rows in table order has no SQL: the pandas cells keep it', () => {
    assert.equal(conditionSql(table, { kind: 'span', column: 'name', from: 'a', to: 'c' }), undefined);
    assert.equal(
      whereSql(table, [{ kind: 'span', column: 'name', from: 'a', to: 'c' }], { keep: [] }),
      undefined,
    );
  });
});
