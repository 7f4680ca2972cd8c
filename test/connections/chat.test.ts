import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sha256 } from '../../src/server/config.ts';
import { SALES, type TestConnectionDb, testConnectionDb } from '../helpers/connection-databases.ts';
import { startTestServer, type TestServer } from '../server/helpers.ts';
import { KEY_A, KEY_B, TWO_KEYS } from '../server/hostile-helpers.ts';

const ownerOf = (key: string) => `key-${sha256(key).slice(0, 16)}`;

describe('chat requests with connection_ids (SQLite connection, scripted tools-mode model)', () => {
  let db: TestConnectionDb;
  let server: TestServer;
  const total = Math.round(SALES.reduce((a, s) => a + s.units, 0));

  before(async () => {
    db = await testConnectionDb('sqlite');
    const file = join(process.env.TMPDIR ?? '/tmp', `analyst-connections-chat-${process.pid}.json`);
    writeFileSync(
      file,
      JSON.stringify({ connections: [{ id: 'shop', kind: 'sqlite', url: db.url, keys: [ownerOf(KEY_A)] }] }),
    );
    server = await startTestServer({
      protocol: 'tools',
      env: { ...TWO_KEYS, ANALYST_CONNECTIONS_FILE: file },
      script: {
        turns: [
          {
            expect: { last_contains: 'connection "shop"' },
            tool_calls: [
              {
                id: 'call_1',
                name: 'query',
                arguments: { connection: 'shop', sql: 'SELECT SUM(units) AS units FROM sales' },
              },
            ],
          },
          {
            expect: { last_role: 'tool', last_contains: `| r1 | ${total} |` },
            content: `${total} units (r1).`,
          },
          // The second question on the thread: it remembers its connection.
          { expect: { last_contains: 'connection "shop"' }, content: 'Still there.' },
        ],
      },
    });
  });
  after(async () => {
    await server?.close();
    await db?.drop();
  });

  const chat = (body: unknown, key = KEY_A) =>
    server.fetch('/v1/chat/completions', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  test('another key naming the connection: 404 before any thread is made', async () => {
    const response = await chat(
      { messages: [{ role: 'user', content: 'units?' }], connection_ids: ['shop'] },
      KEY_B,
    );
    assert.equal(response.status, 404);
    assert.equal((await response.json()).error.code, 'not_found');
    const threads = await (await server.fetch('/v1/threads', { key: KEY_B })).json();
    assert.deepEqual(threads.data, []);
  });

  test('the answer comes from the connection, and the thread remembers it', async () => {
    const response = await chat({
      messages: [{ role: 'user', content: 'How many units?' }],
      connection_ids: ['shop'],
    });
    const body = await response.json();
    assert.equal(response.status, 200, JSON.stringify(body));
    assert.deepEqual(server.scripted!.failures, []);
    assert.match(body.choices[0].message.content, new RegExp(`${total} units \\(r1\\)`));
    const threadId = body.choices[0].message.thread_id;
    const again = await chat({ messages: [{ role: 'user', content: 'And now?', thread_id: threadId }] });
    assert.equal(again.status, 200);
    assert.deepEqual(server.scripted!.failures, []);
    const thread = await (await server.fetch(`/v1/threads/${threadId}`, { key: KEY_A })).json();
    assert.deepEqual(thread.metadata.connection_ids, ['shop']);
  });
});
