import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TableQueryProblem, tableSql } from '../../src/server/preview/table-sql.ts';
import { filterOf, viewParams } from '../../web/src/lib/table-view.ts';

const COLUMNS = [
  { name: 'id', sqlType: 'BIGINT' },
  { name: 'we"ird', sqlType: 'VARCHAR' },
  { name: 'price', sqlType: 'DECIMAL(18,3)' },
];

test('values are parameters, never part of the SQL text', () => {
  const hostile = "x'); DROP TABLE t; --";
  const sql = tableSql(COLUMNS, {
    search: hostile,
    filters: [
      { column: 'we"ird', op: 'contains', value: hostile },
      { column: 'we"ird', op: 'equals', value: hostile },
      { column: 'price', op: 'range', min: 1, max: 2 },
    ],
  });
  const text = `${sql.where} ${sql.orderBy}`;
  assert.doesNotMatch(text, /DROP/);
  assert.deepEqual(sql.params, [hostile.toLowerCase(), hostile.toLowerCase(), hostile, 1, 2]);
  assert.match(text, /"we""ird"/);
});

test('names must be columns of the table; the file order breaks ties', () => {
  assert.throws(
    () => tableSql(COLUMNS, { sort: 'id" DESC --' }),
    (e) => e instanceof TableQueryProblem && e.param === 'sort',
  );
  assert.equal(tableSql(COLUMNS, { sort: 'id', desc: true }).orderBy, 'ORDER BY "id" DESC NULLS LAST, rowid');
  assert.equal(tableSql(COLUMNS, {}).orderBy, 'ORDER BY rowid');
});

test('a range on text and a word for a number are refused with the filter at fault', () => {
  for (const filter of [
    { column: 'we"ird', op: 'range' as const, min: 1 },
    { column: 'id', op: 'equals' as const, value: 'ten' },
    { column: 'id', op: 'equals' as const, value: ' ' },
  ])
    assert.throws(
      () => tableSql(COLUMNS, { filters: [filter] }),
      (e) => e instanceof TableQueryProblem && e.param === 'filter',
    );
});

test('what is typed in a filter box becomes a filter', () => {
  assert.deepEqual(filterOf('n', 'number', '10..20'), { column: 'n', op: 'range', min: 10, max: 20 });
  assert.deepEqual(filterOf('n', 'integer', '..-3'), { column: 'n', op: 'range', max: -3 });
  assert.deepEqual(filterOf('n', 'integer', '>= 5'), { column: 'n', op: 'range', min: 5 });
  assert.deepEqual(filterOf('n', 'number', '=1.5e3'), { column: 'n', op: 'equals', value: 1500 });
  assert.equal(filterOf('n', 'number', 'ten'), 'invalid');
  assert.equal(filterOf('n', 'number', '  '), undefined);
  assert.deepEqual(filterOf('s', 'string', '=Oslo'), { column: 's', op: 'equals', value: 'Oslo' });
  assert.deepEqual(filterOf('s', 'string', '10..20'), { column: 's', op: 'contains', value: '10..20' });
  const params = viewParams({ sort: 's', desc: true, search: ' x ', filters: { s: 'a', n: 'bad' } }, [
    { name: 's', type: 'string' },
    { name: 'n', type: 'number' },
  ]);
  assert.equal(params.get('sort'), 's');
  assert.equal(params.get('desc'), 'true');
  assert.equal(params.get('search'), 'x');
  assert.deepEqual(JSON.parse(params.get('filter')!), [{ column: 's', op: 'contains', value: 'a' }]);
});
