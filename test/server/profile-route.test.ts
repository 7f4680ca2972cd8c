import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { csvOf, parquetOf, sqliteOf, xlsxOf } from '../web/fixtures.ts';
import { expectError, newThread, startTestServer, type TestServer } from './helpers.ts';

interface Column {
  name: string;
  type: string;
  count: number;
  missing: number;
  distinct: number;
  min?: number | string;
  max?: number | string;
  mean?: number;
  histogram?: Array<{ from: number; to: number; count: number }>;
  top?: Array<{ value: string | boolean; count: number }>;
}

/** GET /v1/threads/{id}/profile/{path} against a real server, on every table format. */
describe('file profiles', () => {
  let server: TestServer;
  let thread: string;

  const upload = async (name: string, data: Uint8Array | string) => {
    const form = new FormData();
    form.append('file', new Blob([data as BlobPart]), name);
    const response = await server.fetch(`/v1/threads/${thread}/files`, { method: 'POST', body: form });
    assert.equal(response.status, 200, await response.clone().text());
  };
  const profile = async (path: string, query = '') => {
    const response = await server.fetch(`/v1/threads/${thread}/profile/${path}${query}`);
    const body = await response.text();
    assert.equal(response.status, 200, body);
    return JSON.parse(body) as {
      columns: Column[];
      rows_profiled: number;
      total_rows: number;
      sheet?: string;
      table?: string;
    };
  };
  const column = (columns: Column[], name: string) => columns.find((c) => c.name === name)!;

  before(async () => {
    server = await startTestServer();
    thread = await newThread(server);
  });
  after(async () => server.close());

  test('a CSV: numbers get min, max, mean and a histogram; strings their most common values', async () => {
    await upload('sales.csv', csvOf(1000));
    const sales = await profile('sales.csv');
    assert.equal(sales.rows_profiled, 1000);
    assert.equal(sales.total_rows, 1000);
    const id = column(sales.columns, 'id');
    // csvOf: id 0..999, region cycling north/south/east/west, amount id * 0.25.
    assert.deepEqual(
      [id.type, id.count, id.missing, id.distinct, id.min, id.max, id.mean],
      ['integer', 1000, 0, 1000, 0, 999, 499.5],
    );
    assert.deepEqual(
      id.histogram!.map((b) => b.count),
      [100, 100, 100, 100, 100, 100, 100, 100, 100, 100],
    );
    const region = column(sales.columns, 'region');
    assert.equal(region.distinct, 4);
    assert.deepEqual(
      region.top!.map((t) => t.count),
      [250, 250, 250, 250],
    );
    assert.equal(column(sales.columns, 'amount').max, 249.75);
  });

  test('Excel sheets, SQLite tables and Parquet are profiled; a changed file gets a new profile', async () => {
    await upload(
      'book.xlsx',
      xlsxOf({
        Costs: [
          ['item', 'cost'],
          ['rent', 1000],
          ['food', 250],
        ],
      }),
    );
    const costs = await profile('book.xlsx', '?sheet=Costs');
    assert.equal(costs.sheet, 'Costs');
    assert.deepEqual([column(costs.columns, 'cost').min, column(costs.columns, 'cost').mean], [250, 625]);

    await upload(
      'shop.sqlite',
      await sqliteOf({
        orders: {
          columns: 'id INTEGER, total REAL',
          rows: [
            [1, 2.5],
            [2, null],
            [3, 7.5],
          ],
        },
      }),
    );
    const orders = await profile('shop.sqlite', '?table=orders');
    assert.equal(orders.table, 'orders');
    const total = column(orders.columns, 'total');
    assert.deepEqual([total.count, total.missing, total.mean], [2, 1, 5]);

    await upload('prices.parquet', parquetOf(5000));
    const prices = await profile('prices.parquet');
    assert.deepEqual([column(prices.columns, 'id').min, column(prices.columns, 'id').max], [1, 5000]);
    assert.equal(column(prices.columns, 'city').distinct, 7);

    // An upload never replaces a file: the old one goes first.
    assert.equal(
      (await server.fetch(`/v1/threads/${thread}/files/sales.csv`, { method: 'DELETE' })).status,
      200,
    );
    await upload('sales.csv', 'id\n5\n7\n');
    const changed = await profile('sales.csv');
    assert.equal(changed.rows_profiled, 2);
    assert.equal(column(changed.columns, 'id').mean, 6);
  });

  test('a file that is not a table is refused', async () => {
    await upload('notes.md', '# hello\n');
    const error = await expectError(await server.fetch(`/v1/threads/${thread}/profile/notes.md`), 400);
    assert.match(error.message, /not a table/);
    await expectError(await server.fetch(`/v1/threads/${thread}/profile/missing.csv`), 404);
  });
});
