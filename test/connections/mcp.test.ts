import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sha256 } from '../../src/server/config.ts';
import { SALES, type TestConnectionDb, testConnectionDb } from '../helpers/connection-databases.ts';
import { call, httpClient, KEY_A, KEY_B, textOf } from '../mcp/helpers.ts';
import { startTestServer, type TestServer } from '../server/helpers.ts';

const ownerOf = (key: string) => `key-${sha256(key).slice(0, 16)}`;

describe('MCP: query and list_files with connections (SQLite connection)', () => {
  let db: TestConnectionDb;
  let server: TestServer;
  before(async () => {
    db = await testConnectionDb('sqlite');
    const file = join(process.env.TMPDIR ?? '/tmp', `analyst-connections-mcp-${process.pid}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        connections: [{ id: 'shop', kind: 'sqlite', url: db.url, title: 'Shop', keys: [ownerOf(KEY_A)] }],
      }),
    );
    server = await startTestServer({
      env: { ANALYST_API_KEYS: `${KEY_A},${KEY_B}`, ANALYST_CONNECTIONS_FILE: file },
    });
  });
  after(async () => {
    await server?.close();
    await db?.drop();
  });

  test("the key's connection is listed and queried; python_exec gets its rows", async () => {
    const client = await httpClient(server.url, { key: KEY_A });
    try {
      const listed = await call(client, 'list_files');
      assert.deepEqual((listed.structuredContent as { connections: unknown }).connections, [
        { id: 'shop', kind: 'sqlite', title: 'Shop' },
      ]);
      const result = await call(client, 'query', {
        connection: 'shop',
        sql: 'SELECT max(amount) AS top FROM sales',
      });
      assert.equal(result.isError, false, textOf(result));
      const structured = result.structuredContent as {
        rows: Array<Record<string, unknown>>;
        connection_id: string;
      };
      assert.equal(structured.connection_id, 'shop');
      assert.deepEqual(structured.rows, [{ rid: 'r1', top: Math.max(...SALES.map((s) => s.amount)) }]);
      const exec = await call(client, 'python_exec', { code: 'print(data[0]["top"] * 2)' });
      assert.match(textOf(exec), new RegExp(String(Math.max(...SALES.map((s) => s.amount)) * 2)));
    } finally {
      await client.close();
    }
  });

  test('another key sees no connection, and querying it is an error', async () => {
    const client = await httpClient(server.url, { key: KEY_B });
    try {
      const listed = await call(client, 'list_files');
      assert.deepEqual((listed.structuredContent as { connections: unknown }).connections, []);
      const result = await call(client, 'query', { connection: 'shop', sql: 'SELECT 1' });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /no connection "shop"/);
    } finally {
      await client.close();
    }
  });
});
