import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { sha256 } from '../../src/server/config.ts';
import { KINDS, SALES, type TestConnectionDb, testConnectionDb } from '../helpers/connection-databases.ts';
import { startTestServer, type TestServer } from '../server/helpers.ts';
import { KEY_A, KEY_B, TWO_KEYS } from '../server/hostile-helpers.ts';

const ownerOf = (key: string) => `key-${sha256(key).slice(0, 16)}`;

/**
 * A cell that looks everywhere a cell can for the given strings, and prints where it found
 * them. The strings travel base64-encoded (so the cell's own text holds none of them), and a
 * canary the cell writes into its workspace first proves the search finds what is there.
 */
const SEARCH_CELL = (needles: string[]) => `
import base64, os
needles = [base64.b64decode(n).decode() for n in ${JSON.stringify(needles.map((n) => Buffer.from(n).toString('base64')))}]
canary = 'canary-' + base64.b64decode('${Buffer.from('f00d').toString('base64')}').decode() * 3
with open('/workspace/canary.txt', 'w') as f:
    f.write(canary)
needles.append(canary)
found = []
for k, v in os.environ.items():
    for n in needles:
        if n in k or n in v:
            found.append('env:' + k)
def scan(path):
    try:
        with open(path, 'rb') as f:
            data = f.read(4_000_000)
    except Exception:
        return
    for n in needles:
        if n.encode() in data:
            found.append(path)
for proc in ['/proc/self', '/proc/1']:
    for name in os.listdir(proc):
        path = os.path.join(proc, name)
        if os.path.isfile(path) and name not in ('pagemap', 'kcore', 'mem', 'clear_refs'):
            scan(path)
for root in ['/workspace', '/etc', '/tmp', '/home', '/root', '/opt', '/srv', '/var', '/run', '/usr/local']:
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in filenames:
            path = os.path.join(dirpath, name)
            if os.path.isfile(path) and not os.path.islink(path):
                scan(path)
scan('/proc/self/cmdline'); scan('/proc/self/environ')
print('FOUND', sorted(set(found)))
print('SEARCH DONE')
`;

for (const { kind, skip } of KINDS) {
  describe(`connections API: ${kind}`, { skip }, () => {
    let db: TestConnectionDb;
    let server: TestServer;
    const env = { SHOP_URL: '' };

    before(async () => {
      db = await testConnectionDb(kind);
      env.SHOP_URL = db.url;
      const file = join(process.env.TMPDIR ?? '/tmp', `analyst-connections-${process.pid}-${kind}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          connections: [
            {
              id: 'shop',
              kind,
              url_env: 'SHOP_URL',
              title: 'Shop',
              keys: [ownerOf(KEY_A)],
              max_rows: 50,
              timeout_s: 5,
            },
          ],
        }),
      );
      server = await startTestServer({
        env: { ...TWO_KEYS, ANALYST_CONNECTIONS_FILE: file, SHOP_URL: db.url },
      });
    });
    after(async () => {
      await server?.close();
      await db?.drop();
    });

    const post = (path: string, body: unknown, key = KEY_A) =>
      server.fetch(path, {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    test('list: the key sees its connection, without any secret; another key sees none', async () => {
      const response = await server.fetch('/v1/connections', { key: KEY_A });
      const text = await response.text();
      assert.equal(response.status, 200, text);
      const body = JSON.parse(text);
      assert.deepEqual(body.data, [
        { id: 'shop', object: 'connection', kind, title: 'Shop', max_rows: 50, timeout_s: 5, schemas: [] },
      ]);
      assert.ok(!text.includes(db.url));
      const other = await server.fetch('/v1/connections', { key: KEY_B });
      assert.deepEqual((await other.json()).data, []);
    });

    test('schema and query', async () => {
      const schema = await (await server.fetch('/v1/connections/shop/schema', { key: KEY_A })).json();
      const sales = schema.tables.find((t: { name: string }) => t.name === 'sales');
      assert.deepEqual(
        sales.columns.map((c: { name: string }) => c.name),
        ['id', 'region', 'amount', 'units'],
      );
      const response = await post('/v1/connections/shop/query', {
        sql: 'SELECT id, units FROM sales ORDER BY id',
      });
      const body = await response.json();
      assert.equal(response.status, 200, JSON.stringify(body));
      // The connection's max_rows (50) caps what the caller asked for.
      assert.equal(body.row_count, 50);
      assert.equal(body.truncated, 'rows');
      assert.deepEqual(body.rows[3], [SALES[3]!.id, SALES[3]!.units]);
      const fewer = await (
        await post('/v1/connections/shop/query', { sql: 'SELECT id FROM sales', max_rows: 3 })
      ).json();
      assert.equal(fewer.row_count, 3);
    });

    test('a write through the API: 400 read-only, the database unchanged', async () => {
      const response = await post('/v1/connections/shop/query', { sql: 'DELETE FROM sales' });
      const body = await response.json();
      assert.equal(response.status, 400);
      assert.equal(body.error.code, 'connection_read_only');
      assert.equal(await db.salesCount(), 60);
    });

    test('another key cannot query, describe or extract (404), and a missing body is 404 first', async () => {
      const thread = await (await post('/v1/threads', {}, KEY_B)).json();
      for (const response of [
        await post('/v1/connections/shop/query', { sql: 'SELECT 1' }, KEY_B),
        await server.fetch('/v1/connections/shop/schema', { key: KEY_B }),
        await post(`/v1/threads/${thread.id}/connections/shop/extract`, { table: 'sales', name: 'x' }, KEY_B),
      ]) {
        assert.equal(response.status, 404);
        const body = await response.json();
        assert.equal(body.error.code, 'not_found');
      }
      const files = await (await server.fetch(`/v1/threads/${thread.id}/files`, { key: KEY_B })).json();
      assert.deepEqual(files.data, []);
    });

    test('extract: a table and a query become Parquet files with exactly their rows', async () => {
      const thread = await (await post('/v1/threads', {}, KEY_A)).json();
      const table = await post(`/v1/threads/${thread.id}/connections/shop/extract`, {
        table: 'sales',
        name: 'sales',
      });
      const tableBody = await table.json();
      assert.equal(table.status, 200, JSON.stringify(tableBody));
      assert.equal(tableBody.path, 'sales.parquet');
      assert.equal(tableBody.row_count, 50); // max_rows of the connection
      assert.equal(tableBody.truncated, 'rows');

      const query = await post(`/v1/threads/${thread.id}/connections/shop/extract`, {
        sql: 'SELECT region, sum(units) AS units, count(*) AS n FROM sales GROUP BY region ORDER BY region',
        name: 'by_region.parquet',
      });
      const queryBody = await query.json();
      assert.equal(query.status, 200, JSON.stringify(queryBody));
      const bytes = await (
        await server.fetch(`/v1/threads/${thread.id}/files/by_region.parquet`, { key: KEY_A })
      ).arrayBuffer();
      const rows = await parquetReadObjects({ file: bytes, compressors });
      const expected = ['east', 'north', 'south', 'west'].map((region) => {
        const of = SALES.filter((s) => s.region === region);
        return { region, units: BigInt(of.reduce((a, s) => a + s.units, 0)), n: BigInt(of.length) };
      });
      assert.deepEqual(rows, expected);

      const salesBytes = await (
        await server.fetch(`/v1/threads/${thread.id}/files/sales.parquet`, { key: KEY_A })
      ).arrayBuffer();
      const salesRows = await parquetReadObjects({ file: salesBytes, compressors });
      assert.equal(salesRows.length, 50);
      const byId = new Map(salesRows.map((r) => [Number(r.id), r]));
      for (const s of SALES.slice(0, 60)) {
        const row = byId.get(s.id);
        if (!row) continue;
        assert.equal(row.region, s.region);
        assert.equal(Number(row.amount), s.amount);
        assert.equal(Number(row.units), s.units);
      }

      const bad = await post(`/v1/threads/${thread.id}/connections/shop/extract`, {
        table: 'sales; DROP TABLE sales',
        name: 'x',
      });
      assert.equal(bad.status, 400);
      const badName = await post(`/v1/threads/${thread.id}/connections/shop/extract`, {
        table: 'sales',
        name: '../escape',
      });
      assert.equal(badName.status, 400);
      assert.equal(await db.salesCount(), 60);
    });

    // A SQLite connection is a file: it has no password or server address.
    if (kind !== 'sqlite')
      test('a cell in the thread finds neither the password nor the server address', async () => {
        const url = new URL(db.url);
        const needles = [
          decodeURIComponent(url.password),
          `${url.hostname}:${url.port}`,
          url.pathname.slice(1),
        ].filter((n) => n.length >= 4);
        assert.ok(needles.length >= 2, JSON.stringify(needles.length));
        const thread = await (await post('/v1/threads', {}, KEY_A)).json();
        const extract = await post(`/v1/threads/${thread.id}/connections/shop/extract`, {
          table: 'sales',
          name: 'sales',
        });
        assert.equal(extract.status, 200);
        const response = await post(`/v1/threads/${thread.id}/exec`, {
          code: SEARCH_CELL(needles),
          timeout: 30,
        });
        const result = await response.json();
        assert.equal(response.status, 200, JSON.stringify(result));
        assert.match(result.output, /SEARCH DONE/, JSON.stringify(result).slice(0, 2000));
        assert.match(result.output, /FOUND \['\/workspace\/canary.txt'\]/, result.output);
      });
  });
}
