import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigurationError } from '../../src/errors/index.ts';
import { loadServerConfig } from '../../src/server/config.ts';
import { describeEachStore } from '../helpers/stores.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import {
  dbCounts,
  expectRawError,
  KEY_A,
  KEY_B,
  multipart,
  postJson,
  type RawResponse,
  rawRequest,
  settled,
  TWO_KEYS,
  treeDiff,
  treeOf,
  upload,
} from './hostile-helpers.ts';

const CSV = 'region,amount\nNorth,10\nSouth,20\n';

describeEachStore(
  'hostile: API keys keep owners apart',
  (store) => {
    let server: TestServer;
    let fileA: string;
    let threadA: string;

    const get = (path: string, key?: string) => rawRequest(server, { path, key });

    /** Everything key A can see, byte for byte, plus the data dir and every table's row count. */
    async function everythingOfA() {
      const text = async (path: string) => {
        const response = await get(path, KEY_A);
        assert.equal(response.status, 200, `${path}: ${response.text.slice(0, 300)}`);
        return response.text;
      };
      return {
        files: await text('/v1/files'),
        file: await text(`/v1/files/${fileA}`),
        content: await text(`/v1/files/${fileA}/content`),
        threads: await text('/v1/threads'),
        thread: await text(`/v1/threads/${threadA}`),
        messages: await text(`/v1/threads/${threadA}/messages`),
        events: await text(`/v1/threads/${threadA}/events`),
        workspace: await text(`/v1/threads/${threadA}/files`),
        workspaceFile: await text(`/v1/threads/${threadA}/files/sales.csv`),
        stats: await text('/v1/admin/threads-stats'),
        tree: await treeOf(server.dataDir),
        counts: await dbCounts(server),
      };
    }

    before(async () => {
      server = await startTestServer({ store, env: TWO_KEYS });
      const uploaded = await upload(server, '/v1/files', { filename: 'sales.csv', content: CSV }, KEY_A);
      assert.equal(uploaded.status, 200, uploaded.text);
      fileA = uploaded.json().id as string;
      const chat = await postJson(
        server,
        '/v1/chat/completions',
        { model: 'offline', file_ids: [fileA], messages: [{ role: 'user', content: 'Describe sales.csv' }] },
        KEY_A,
      );
      assert.equal(chat.status, 200, chat.text);
      threadA = (chat.json() as { choices: Array<{ message: { thread_id: string } }> }).choices[0]!.message
        .thread_id;
      await settled(server);
    });
    after(() => server.close());

    test('no key, a wrong key, another scheme or header → 401 in OpenAI shape, and nothing is created', async () => {
      const treeBefore = await treeOf(server.dataDir);
      const countsBefore = await dbCounts(server);
      const attempts: Array<{ what: string; response: RawResponse; message: RegExp }> = [
        { what: 'no header', response: await get('/v1/files'), message: /API key is required/ },
        {
          what: 'garbage key',
          response: await get('/v1/files', 'key-not-a-real-one-at-all'),
          message: /not valid/,
        },
        {
          what: 'a prefix of key A',
          response: await get('/v1/threads', KEY_A.slice(0, -1)),
          message: /not valid/,
        },
        {
          what: 'key A with a suffix',
          response: await get('/v1/threads', `${KEY_A}x`),
          message: /not valid/,
        },
        {
          what: 'Basic scheme',
          response: await rawRequest(server, {
            path: '/v1/files',
            headers: { authorization: `Basic ${Buffer.from(`${KEY_A}:`).toString('base64')}` },
          }),
          message: /API key is required/,
        },
        {
          what: 'Bearer without a key',
          response: await rawRequest(server, { path: '/v1/files', headers: { authorization: 'Bearer ' } }),
          message: /API key is required/,
        },
        {
          what: 'two keys in one header',
          response: await rawRequest(server, {
            path: '/v1/files',
            headers: { authorization: `Bearer ${KEY_A} ${KEY_B}` },
          }),
          message: /API key is required/,
        },
        {
          what: 'key in x-api-key',
          response: await rawRequest(server, { path: '/v1/files', headers: { 'x-api-key': KEY_A } }),
          message: /API key is required/,
        },
        {
          what: 'key in the query',
          response: await get(`/v1/files?api_key=${KEY_A}`),
          message: /API key is required/,
        },
        {
          what: 'exec without a key',
          response: await postJson(server, '/v1/exec', { code: 'open("/tmp/x","w")' }),
          message: /API key is required/,
        },
        {
          what: 'chat without a key',
          response: await postJson(server, '/v1/chat/completions', {
            model: 'offline',
            messages: [{ role: 'user', content: 'hi' }],
          }),
          message: /API key is required/,
        },
        {
          what: 'upload without a key',
          response: await upload(server, '/v1/files', { filename: 'x.csv', content: CSV }),
          message: /API key is required/,
        },
      ];
      for (const { what, response, message } of attempts) {
        const error = expectRawError(response, 401);
        assert.equal(error.type, 'authentication_error', what);
        assert.equal(error.code, 'invalid_api_key', what);
        assert.match(error.message, message, what);
        assert.ok(!error.message.includes(KEY_A) && !error.message.includes(KEY_B), `${what}: echoes a key`);
      }
      assert.deepEqual(treeDiff(treeBefore, await treeOf(server.dataDir)), []);
      assert.deepEqual(await dbCounts(server), countsBefore);
    });

    test('a percent-encoded /v1 path is no way around the key', async () => {
      const countsBefore = await dbCounts(server);
      // The router decodes %76 to "v", so these reach the /v1 routes; they must still need a key.
      for (const path of ['/%761/files', '/v%31/threads', '/%76%31/models']) {
        const response = await get(path);
        assert.ok(
          response.status === 401 || response.status === 404,
          `${path} answered ${response.status} without a key: ${response.text.slice(0, 200)}`,
        );
        expectRawError(response, response.status);
      }
      const exec = await postJson(server, '/%761/exec', { code: 'print("ran without a key")' });
      assert.ok(
        exec.status === 401 || exec.status === 404,
        `code ran without a key: ${exec.status} ${exec.text.slice(0, 200)}`,
      );
      const chat = await postJson(server, '/%761/chat/completions', {
        model: 'offline',
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.ok(chat.status === 401 || chat.status === 404, `a chat ran without a key: ${chat.status}`);
      assert.deepEqual(await dbCounts(server), countsBefore, 'a keyless request created records');
    });

    test("key B gets 404 (never 403) for every one of A's records, and A's data is intact", async () => {
      const before = await everythingOfA();
      const thread = `/v1/threads/${threadA}`;
      const { body: uploadBody, contentType } = multipart([
        { name: 'file', filename: 'sales.csv', content: 'overwritten by B\n' },
      ]);
      const attempts: Array<[string, Promise<RawResponse>, string]> = [
        ['GET file', get(`/v1/files/${fileA}`, KEY_B), fileA],
        ['GET file content', get(`/v1/files/${fileA}/content`, KEY_B), fileA],
        [
          'DELETE file',
          rawRequest(server, { method: 'DELETE', path: `/v1/files/${fileA}`, key: KEY_B }),
          fileA,
        ],
        ['GET thread', get(thread, KEY_B), threadA],
        ['GET messages', get(`${thread}/messages`, KEY_B), threadA],
        ['GET events', get(`${thread}/events`, KEY_B), threadA],
        ['GET workspace files', get(`${thread}/files`, KEY_B), threadA],
        ['GET a workspace file', get(`${thread}/files/sales.csv`, KEY_B), threadA],
        ['GET a report (md)', get(`${thread}/report?format=md`, KEY_B), threadA],
        ['GET a report (html)', get(`${thread}/report?format=html`, KEY_B), threadA],
        ['GET the notebook', get(`${thread}/notebook`, KEY_B), threadA],
        [
          'upload into the workspace',
          rawRequest(server, {
            method: 'POST',
            path: `${thread}/files`,
            key: KEY_B,
            headers: { 'content-type': contentType },
            body: uploadBody,
          }),
          threadA,
        ],
        [
          'exec in the thread',
          postJson(server, `${thread}/exec`, { code: 'open("pwned.txt", "w").write("B was here")' }, KEY_B),
          threadA,
        ],
        ['cancel', postJson(server, `${thread}/cancel`, {}, KEY_B), threadA],
        ['DELETE thread', rawRequest(server, { method: 'DELETE', path: thread, key: KEY_B }), threadA],
        [
          'chat on the thread',
          postJson(
            server,
            '/v1/chat/completions',
            { model: 'offline', thread_id: threadA, messages: [{ role: 'user', content: 'mine now' }] },
            KEY_B,
          ),
          threadA,
        ],
        [
          'chat with the file',
          postJson(
            server,
            '/v1/chat/completions',
            { model: 'offline', file_ids: [fileA], messages: [{ role: 'user', content: 'read it' }] },
            KEY_B,
          ),
          fileA,
        ],
      ];
      for (const [what, pending, id] of attempts) {
        const response = await pending;
        assert.notEqual(response.status, 403, `${what}: 403 tells B the record exists`);
        const error = expectRawError(response, 404);
        assert.equal(error.code, 'not_found', what);
        assert.ok(error.message.includes(id), `${what}: the message does not name ${id}: ${error.message}`);
        assert.ok(!response.text.includes('North'), `${what}: A's data leaked`);
      }
      assert.deepEqual(await everythingOfA(), before, "A's data changed");
    });

    test("B's listings and stats show only B's records, and B's cleanup leaves A's threads", async () => {
      const own = await upload(server, '/v1/files', { filename: 'b.csv', content: 'b\n1\n' }, KEY_B);
      assert.equal(own.status, 200, own.text);
      const ownId = own.json().id as string;
      try {
        const files = (await get('/v1/files', KEY_B)).json() as { data: Array<{ id: string }> };
        assert.deepEqual(
          files.data.map((f) => f.id),
          [ownId],
        );
        const filesOfA = (await get('/v1/files', KEY_A)).json() as { data: Array<{ id: string }> };
        assert.deepEqual(
          filesOfA.data.map((f) => f.id),
          [fileA],
        );
        const threads = (await get('/v1/threads', KEY_B)).json() as { data: unknown[] };
        assert.deepEqual(threads.data, []);
        // A cursor naming A's record must not page into A's list either.
        const paged = (await get(`/v1/threads?after=${threadA}`, KEY_B)).json() as { data: unknown[] };
        assert.deepEqual(paged.data, []);
        const stats = (await get('/v1/admin/threads-stats', KEY_B)).json() as Record<string, unknown>;
        assert.equal(stats.threads, 0);
        assert.equal(stats.messages, 0);
        assert.equal(stats.files, 1);

        const before = await everythingOfA();
        const cleanup = await postJson(server, '/v1/admin/cleanup-threads', { older_than_hours: 0 }, KEY_B);
        assert.equal(cleanup.status, 200, cleanup.text);
        assert.deepEqual(cleanup.json().deleted, []);
        assert.deepEqual(await everythingOfA(), before, "B's cleanup touched A's threads");
      } finally {
        await rawRequest(server, { method: 'DELETE', path: `/v1/files/${ownId}`, key: KEY_B });
      }
    });
  },
  { postgres: 'all' },
);

describe('hostile: loadServerConfig refuses an open server on a public address', () => {
  const flags = { port: 0, dataDir: '/tmp/analyst-config-test' };

  test('0.0.0.0 and :: without keys are refused with a ConfigurationError that says what to set', () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.10']) {
      assert.throws(
        () => loadServerConfig({ ...flags, host }, {}),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          error.message.includes(host) &&
          /ANALYST_API_KEYS/.test(error.message),
        host,
      );
    }
    assert.throws(() => loadServerConfig(flags, { ANALYST_HOST: '0.0.0.0' }), ConfigurationError);
    assert.throws(
      () => loadServerConfig({ ...flags, host: '0.0.0.0' }, { ANALYST_API_KEYS: ' , ,' }),
      ConfigurationError,
      'keys that are only separators are no keys',
    );
  });

  test('0.0.0.0 with keys is accepted; keys shorter than 16 characters are refused', () => {
    const config = loadServerConfig({ ...flags, host: '0.0.0.0' }, TWO_KEYS);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.keys.size, 2);
    assert.ok(![...config.keys.keys()].includes(KEY_A), 'keys are kept as digests, not as sent');
    assert.throws(
      () => loadServerConfig({ ...flags, host: '0.0.0.0' }, { ANALYST_API_KEYS: 'short-key' }),
      (error: unknown) => error instanceof ConfigurationError && /16 characters/.test(error.message),
    );
    assert.equal(loadServerConfig({ ...flags, host: '127.0.0.1' }, {}).keys.size, 0, 'loopback may be open');
  });
});
