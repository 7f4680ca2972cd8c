import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { unzipSync } from 'fflate';
import { csvOf, parquetOf, sqliteOf, xlsxOf } from '../web/fixtures.ts';
import { expectError, json, startTestServer, type TestServer } from './helpers.ts';

/** The preview, export, folder-upload and file-delete routes against a real server and workspaces. */
describe('thread previews and exports', () => {
  let server: TestServer;
  let thread: string;

  const upload = async (name: string, data: Uint8Array | string, folder?: string) => {
    const form = new FormData();
    if (folder) form.append('folder', folder);
    form.append('file', new Blob([data as BlobPart]), name);
    const response = await server.fetch(`/v1/threads/${thread}/files`, { method: 'POST', body: form });
    assert.equal(response.status, 200, await response.clone().text());
    return json(response);
  };
  const preview = async (path: string, query = '') => {
    const response = await server.fetch(
      `/v1/threads/${thread}/preview/${encodeURIComponent(path).replace(/%2F/g, '/')}${query}`,
    );
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as {
      kind: string;
      columns: Array<{ name: string; type: string }>;
      rows: unknown[][];
      total_rows: number;
      offset: number;
      sheets?: string[];
      sheet?: string;
      tables?: string[];
      table?: string;
    };
  };

  before(async () => {
    server = await startTestServer();
    const created = await json(
      await server.fetch('/v1/threads', {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      }),
    );
    thread = created.id as string;
  });
  after(async () => server.close());

  test('a CSV is paged by offset with column types, quoted newlines included', async () => {
    await upload('big.csv', csvOf(100_000));
    const first = await preview('big.csv', '?limit=3');
    assert.equal(first.kind, 'table');
    assert.deepEqual(
      first.columns.map((c) => [c.name, c.type]),
      [
        ['id', 'integer'],
        ['region', 'string'],
        ['amount', 'number'],
        ['note', 'string'],
      ],
    );
    assert.equal(first.total_rows, 100_000);
    assert.deepEqual(first.rows[0], [0, 'north', 0, 'multi\nline, "quoted"']);
    const deep = await preview('big.csv', '?offset=54321&limit=2');
    assert.deepEqual(
      deep.rows.map((r) => r[0]),
      [54321, 54322],
    );
    const quoted = await preview('big.csv', '?offset=99000&limit=1');
    assert.deepEqual(quoted.rows[0], [99000, 'north', 24750, 'multi\nline, "quoted"']);
    const past = await preview('big.csv', '?offset=100000&limit=5');
    assert.deepEqual(past.rows, []);
  });

  test('every sheet of an Excel file, every table of a SQLite file, Parquet, JSON and text', async () => {
    await upload(
      'book.xlsx',
      xlsxOf({
        Sales: [
          ['region', 'amount'],
          ['north', 10],
          ['south', 20.5],
        ],
        Costs: [
          ['item', 'cost'],
          ['rent', 1000],
        ],
      }),
    );
    const sales = await preview('book.xlsx');
    assert.deepEqual(sales.sheets, ['Sales', 'Costs']);
    assert.equal(sales.sheet, 'Sales');
    assert.deepEqual(sales.rows, [
      ['north', 10],
      ['south', 20.5],
    ]);
    const costs = await preview('book.xlsx', '?sheet=Costs');
    assert.deepEqual(
      costs.columns.map((c) => c.name),
      ['item', 'cost'],
    );
    assert.deepEqual(costs.rows, [['rent', 1000]]);

    await upload(
      'shop.sqlite',
      await sqliteOf({
        customers: {
          columns: 'id INTEGER, name TEXT',
          rows: [
            [1, 'Ada'],
            [2, 'Lin'],
          ],
        },
        orders: { columns: 'id INTEGER, total REAL', rows: [[7, 9.5]] },
      }),
    );
    const customers = await preview('shop.sqlite', '?offset=1');
    assert.deepEqual(customers.tables, ['customers', 'orders']);
    assert.deepEqual(customers.rows, [[2, 'Lin']]);
    assert.equal(customers.total_rows, 2);
    const orders = await preview('shop.sqlite', '?table=orders');
    assert.deepEqual(orders.columns, [
      { name: 'id', type: 'integer' },
      { name: 'total', type: 'number' },
    ]);

    await upload('prices.parquet', parquetOf(5000));
    const parquet = await preview('prices.parquet', '?offset=4998&limit=10');
    assert.equal(parquet.total_rows, 5000);
    assert.deepEqual(parquet.rows, [
      ['city-1', 4999, 7498.5],
      ['city-2', 5000, 7500],
    ]);
    assert.deepEqual(
      parquet.columns.map((c) => c.type),
      ['string', 'integer', 'number'],
    );

    await upload(
      'records.json',
      JSON.stringify({
        items: [
          { a: 1, b: 'x' },
          { a: 2, c: true },
        ],
      }),
    );
    const records = await preview('records.json');
    assert.equal(records.kind, 'json');
    assert.deepEqual(records.rows, [
      [1, 'x', null],
      [2, null, true],
    ]);

    await upload('notes.md', '# Title\n\nline 3\n', 'docs/2024');
    const notes = await preview('docs/2024/notes.md', '?offset=2');
    assert.equal(notes.kind, 'text');
    assert.deepEqual(notes.rows, [['line 3']]);
    assert.equal(notes.total_rows, 3);
  });

  test('hostile files get a clear error, not a stuck or crashed server', async () => {
    await upload('broken.xlsx', 'this is no zip');
    const bad = await expectError(await server.fetch(`/v1/threads/${thread}/preview/broken.xlsx`), 400);
    assert.match(bad.message, /cannot be previewed/);
    await upload('fake.sqlite', 'not a database at all, but long enough to have a header');
    await expectError(await server.fetch(`/v1/threads/${thread}/preview/fake.sqlite`), 400);
    await expectError(await server.fetch(`/v1/threads/${thread}/preview/missing.csv`), 404);
    await expectError(await server.fetch(`/v1/threads/${thread}/preview/..%2F..%2Fetc%2Fpasswd`), 400);
    await expectError(await server.fetch(`/v1/threads/${thread}/preview/big.csv?limit=100000`), 400);
    // The server still answers.
    assert.equal((await preview('book.xlsx', '?sheet=Costs')).rows.length, 1);
  });

  test('images and PDFs are named, unknown bytes are binary', async () => {
    await upload('chart.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    assert.equal((await preview('chart.png')).kind, 'image');
    await upload('paper.pdf', '%PDF-1.4\n');
    assert.equal((await preview('paper.pdf')).kind, 'pdf');
    await upload('blob.bin', new Uint8Array([0, 1, 2, 3, 255]));
    assert.equal((await preview('blob.bin')).kind, 'binary');
  });

  test('the workspace exports as a ZIP with every file, folders kept', async () => {
    const response = await server.fetch(`/v1/threads/${thread}/export?format=zip`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/zip');
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    assert.ok(files['big.csv']);
    assert.equal(new TextDecoder().decode(files['docs/2024/notes.md']), '# Title\n\nline 3\n');
    assert.ok(files['book.xlsx']);
    await expectError(await server.fetch(`/v1/threads/${thread}/export?format=tar`), 400);
  });

  test('a file is deleted from the workspace; folders with bad names are refused', async () => {
    const deleted = await server.fetch(`/v1/threads/${thread}/files/blob.bin`, { method: 'DELETE' });
    assert.equal(deleted.status, 200);
    await expectError(await server.fetch(`/v1/threads/${thread}/files/blob.bin`, { method: 'DELETE' }), 404);
    const list = (await json(await server.fetch(`/v1/threads/${thread}/files`))).data as Array<{
      path: string;
    }>;
    assert.ok(!list.some((f) => f.path === 'blob.bin'));
    const form = new FormData();
    form.append('folder', '../outside');
    form.append('file', new Blob(['x']), 'a.txt');
    await expectError(await server.fetch(`/v1/threads/${thread}/files`, { method: 'POST', body: form }), 400);
  });
});
