import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type BigTable,
  bigTable,
  bigTableCsv,
  bigTableParquet,
  rowOf,
  rowsWhere,
  sortRows,
} from '../helpers/big-table.ts';
import { xlsxOf } from '../web/fixtures.ts';
import { expectError, newThread, startTestServer, type TestServer } from './helpers.ts';

const ROWS = 1_000_000;

interface Page {
  columns: Array<{ name: string; type: string }>;
  rows: Array<Array<string | number | null>>;
  total_rows: number;
  queryable?: true;
}

/**
 * Sorting, search and filters of GET /v1/threads/{id}/preview/{path} and the CSV download
 * (GET …/table-csv/{path}) on a 1,000,000-row CSV and the same rows as Parquet, against a real
 * server; every expected row is computed here from the rows the test made, not by the server.
 */
describe('table queries', () => {
  let server: TestServer;
  let thread: string;
  let table: BigTable;
  let all: number[];

  const upload = async (name: string, data: Uint8Array | string) => {
    const form = new FormData();
    form.append('file', new Blob([data as BlobPart]), name);
    const response = await server.fetch(`/v1/threads/${thread}/files`, { method: 'POST', body: form });
    assert.equal(response.status, 200, await response.clone().text());
  };
  const url = (route: string, path: string, params: Record<string, string | number | boolean | object>) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params))
      query.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
    return `/v1/threads/${thread}/${route}/${path}?${query}`;
  };
  const preview = async (path: string, params: Record<string, string | number | boolean | object>) => {
    const response = await server.fetch(url('preview', path, params));
    const body = await response.text();
    assert.equal(response.status, 200, body);
    return JSON.parse(body) as Page;
  };
  const problem = async (path: string, params: Record<string, string | number | boolean | object>) =>
    expectError(await server.fetch(url('preview', path, params)), 400);

  before(async () => {
    server = await startTestServer();
    thread = await newThread(server);
    table = bigTable(ROWS);
    all = rowsWhere(table, () => true);
    await upload('big.csv', bigTableCsv(table));
    await upload('big.parquet', bigTableParquet(table));
    await upload('book.xlsx', xlsxOf({ Sheet1: [['a'], [1]] }));
  });
  after(async () => server.close());

  for (const path of ['big.csv', 'big.parquet']) {
    describe(path, () => {
      test('sorted by a number, descending: the largest first, empty values last, ties in file order', async () => {
        const expected = sortRows(all, (i) => table.amount[i]!, true);
        const first = await preview(path, { sort: 'amount', desc: true, limit: 5 });
        assert.equal(first.total_rows, ROWS);
        assert.equal(first.queryable, true);
        assert.deepEqual(
          first.columns.map((c) => c.name),
          ['id', 'city', 'amount', 'day'],
        );
        assert.deepEqual(
          first.rows,
          expected.slice(0, 5).map((i) => rowOf(table, i)),
        );
        // The last page: the rows without an amount, in file order.
        const last = await preview(path, { sort: 'amount', desc: true, offset: ROWS - 3, limit: 5 });
        assert.deepEqual(
          last.rows,
          expected.slice(ROWS - 3).map((i) => rowOf(table, i)),
        );
        assert.equal(last.rows.at(-1)?.[2], null);
      });

      test('a page deep into a sort by text, ascending', async () => {
        const expected = sortRows(all, (i) => table.city[i]!, false);
        const page = await preview(path, { sort: 'city', offset: 654_321, limit: 4 });
        assert.deepEqual(
          page.rows,
          expected.slice(654_321, 654_325).map((i) => rowOf(table, i)),
        );
      });

      test('contains (any case) and a range: the rows kept, counted, in file order', async () => {
        const kept = rowsWhere(
          table,
          (i) =>
            table.city[i]!.toLowerCase().includes("o'h") &&
            table.amount[i]! >= 100 &&
            table.amount[i]! <= 120.5,
        );
        assert.ok(kept.length > 1000);
        const page = await preview(path, {
          filter: [
            { column: 'city', op: 'contains', value: "O'H" },
            { column: 'amount', op: 'range', min: 100, max: 120.5 },
          ],
          offset: 1000,
          limit: 10,
        });
        assert.equal(page.total_rows, kept.length);
        assert.deepEqual(
          page.rows,
          kept.slice(1000, 1010).map((i) => rowOf(table, i)),
        );
      });

      test('search in every column with a sort, and equals on a number', async () => {
        // "ZÜR" finds Zürich in any case; "2024-03-1" finds days (a column of dates or text).
        const kept = rowsWhere(
          table,
          (i) => table.city[i] === 'Zürich' && table.day[i]!.includes('2024-03-1'),
        );
        const expected = sortRows(kept, (i) => table.amount[i]!, false);
        const searched = await preview(path, {
          search: 'ZÜR',
          filter: [{ column: 'day', op: 'contains', value: '2024-03-1' }],
          sort: 'amount',
          limit: 6,
        });
        assert.equal(searched.total_rows, kept.length);
        assert.deepEqual(
          searched.rows,
          expected.slice(0, 6).map((i) => rowOf(table, i)),
        );
        const equal = rowsWhere(table, (i) => table.amount[i] === 500.3);
        const equals = await preview(path, {
          filter: [{ column: 'amount', op: 'equals', value: '500.3' }],
          limit: 1000,
        });
        assert.equal(equals.total_rows, equal.length);
        assert.deepEqual(
          equals.rows.map((r) => r[0]),
          equal.map((i) => table.id[i]),
        );
      });

      test('the CSV download holds the query’s rows, in its order', async () => {
        // (An empty amount is in no range: JavaScript's `null <= 50` is true, SQL's is not.)
        const kept = rowsWhere(
          table,
          (i) => table.city[i] === 'Lima, Peru' && table.amount[i] !== null && table.amount[i]! <= 50,
        );
        const expected = sortRows(kept, (i) => table.amount[i]!, true);
        const response = await server.fetch(
          url('table-csv', path, {
            filter: [
              { column: 'city', op: 'equals', value: 'Lima, Peru' },
              { column: 'amount', op: 'range', max: 50 },
            ],
            sort: 'amount',
            desc: 'true',
          }),
        );
        const text = await response.text();
        assert.equal(response.status, 200, text);
        assert.match(response.headers.get('content-type') ?? '', /^text\/csv/);
        assert.match(response.headers.get('content-disposition') ?? '', /big\.csv/);
        assert.equal(response.headers.get('x-analyst-total-rows'), String(kept.length));
        const lines = text.trimEnd().split('\n');
        assert.equal(lines[0], 'id,city,amount,day');
        const parsed = lines.slice(1).map((line) => {
          const fields = /^(\d+),"Lima, Peru",([^,]+),(.+)$/.exec(line);
          assert.ok(fields, line);
          return [Number(fields[1]), 'Lima, Peru', Number(fields[2]), fields[3]];
        });
        assert.deepEqual(
          parsed,
          expected.map((i) => rowOf(table, i)),
        );
      });
    });
  }

  test('a column that does not exist, by sort or filter: a 400 naming it and the columns there are', async () => {
    const sort = await problem('big.csv', { sort: 'price' });
    assert.equal(sort.param, 'sort');
    assert.match(sort.message, /no column "price".*"id", "city", "amount", "day"/);
    const filter = await problem('big.parquet', { filter: [{ column: 'City', op: 'contains', value: 'x' }] });
    assert.equal(filter.param, 'filter');
    assert.match(filter.message, /no column "City"/);
  });

  test('SQL in names is an unknown column; SQL in values is text to look for', async () => {
    for (const name of ['city" OR 1=1 --', 'id; DROP TABLE t', 'amount) FROM t; --', 'rowid']) {
      const error = await problem('big.csv', { sort: name });
      assert.equal(error.param, 'sort', name);
      assert.match(error.message, /no column/);
    }
    for (const value of ["' OR '1'='1", "x'); DROP TABLE t; --", '%', '_', '\\', '$1']) {
      const searched = await preview('big.csv', { search: value, limit: 1 });
      assert.equal(searched.total_rows, 0, value);
      const equal = await preview('big.parquet', {
        filter: [{ column: 'city', op: 'equals', value }],
        limit: 1,
      });
      assert.equal(equal.total_rows, 0, value);
    }
    // Quotes in values that are there: exactly their rows.
    for (const city of ["O'Hara", 'X"Y']) {
      const page = await preview('big.csv', {
        filter: [{ column: 'city', op: 'equals', value: city }],
        limit: 1,
      });
      assert.equal(page.total_rows, rowsWhere(table, (i) => table.city[i] === city).length, city);
    }
    // "%" and "_" are not wildcards (no row holds either), and the table is still there.
    const still = await preview('big.csv', { sort: 'id', limit: 1 });
    assert.equal(still.total_rows, ROWS);
  });

  test('wrong values and huge strings: plain 400s', async () => {
    const cases: Array<[Record<string, string | object>, string, RegExp]> = [
      [{ search: 'x'.repeat(1001) }, 'search', /1000/],
      [{ sort: 'y'.repeat(301) }, 'sort', /300/],
      [{ filter: 'z'.repeat(16_001) }, 'filter', /16000/],
      [{ filter: '[{"column":' }, 'filter', /JSON array/],
      [{ filter: [{ column: 'city', op: 'like', value: 'x' }] }, 'filter', /op/],
      [{ filter: [{ column: 'city', op: 'contains', value: 'v'.repeat(1001) }] }, 'filter', /1000/],
      [{ filter: [{ column: 'amount', op: 'range' }] }, 'filter', /min, max or both/],
      [{ filter: [{ column: 'city', op: 'range', min: 1 }] }, 'filter', /range needs a column of numbers/],
      [{ filter: [{ column: 'amount', op: 'equals', value: 'ten' }] }, 'filter', /holds numbers/],
      [{ desc: 'maybe' }, 'desc', /true/],
    ];
    for (const [params, param, message] of cases) {
      const error = await problem('big.csv', params);
      assert.equal(error.param?.split('.')[0], param, JSON.stringify(params).slice(0, 80));
      assert.match(error.message, message);
    }
  });

  test('a format DuckDB does not read here: a 400 that says which formats sort', async () => {
    const error = await problem('book.xlsx', { sort: 'a' });
    assert.equal(error.param, 'sort');
    assert.match(error.message, /CSV, TSV and Parquet/);
    const csv = await expectError(await server.fetch(url('table-csv', 'book.xlsx', {})), 400);
    assert.match(csv.message, /CSV, TSV and Parquet/);
    const plain = await preview('book.xlsx', {});
    assert.equal(plain.queryable, undefined);
  });
});
