import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeEachStore } from '../helpers/stores.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import {
  dbCounts,
  type ErrorCase,
  expectRawError,
  multipart,
  postJson,
  type RawResponse,
  rawRequest,
  treeDiff,
  treeOf,
  upload,
} from './hostile-helpers.ts';

/** Ids a client can send that name nothing: well-formed but unknown, malformed, long, unicode. */
const THREAD_IDS = [
  'thread-000000000000000000000000',
  'thread-zzz',
  'thread-../../etc',
  'file-0123456789abcdef01234567',
  `thread-${'a'.repeat(300)}`,
  'thread-ü😀',
  'THREAD-0123456789ABCDEF01234567',
  ' thread-0123456789abcdef01234567',
];
const FILE_IDS = [
  'file-000000000000000000000000',
  'file-zzz',
  'file-../../etc/passwd',
  'thread-0123456789abcdef01234567',
  `file-${'f'.repeat(300)}`,
  'file-ü😀',
];

/** Path segment as a client would send it (the id's slashes encoded, so it stays one segment). */
const segment = (id: string) => encodeURIComponent(id);

describeEachStore(
  'hostile: unknown and malformed ids',
  (store) => {
    let server: TestServer;
    let realFile: string;
    before(async () => {
      server = await startTestServer({ store });
      const uploaded = await upload(server, '/v1/files', { filename: 'real.csv', content: 'a\n1\n' });
      assert.equal(uploaded.status, 200, uploaded.text);
      realFile = uploaded.json().id as string;
    });
    after(() => server.close());

    /** Sends `requests`, asserts each is a 404 naming the id, and that nothing was created. */
    async function expectNotFound(
      requests: Array<{ what: string; id: string; send: () => Promise<RawResponse> }>,
    ) {
      const treeBefore = await treeOf(server.dataDir);
      const countsBefore = await dbCounts(server);
      for (const { what, id, send } of requests) {
        const error = expectRawError(await send(), 404);
        assert.equal(error.code, 'not_found', what);
        assert.ok(error.message.includes(id), `${what}: the message does not name the id: ${error.message}`);
        assert.ok(error.param !== null, `${what}: no param`);
      }
      assert.deepEqual(treeDiff(treeBefore, await treeOf(server.dataDir)), [], 'the data dir changed');
      assert.deepEqual(await dbCounts(server), countsBefore, 'records were created');
    }

    test('every thread route answers 404 naming the id, and creates nothing', async () => {
      const { body, contentType } = multipart([{ name: 'file', filename: 'x.csv', content: 'x\n' }]);
      const requests = THREAD_IDS.flatMap((id) => {
        const base = `/v1/threads/${segment(id)}`;
        const get = (path: string) => () => rawRequest(server, { path });
        return [
          { what: `GET ${id}`, id, send: get(base) },
          { what: `DELETE ${id}`, id, send: () => rawRequest(server, { method: 'DELETE', path: base }) },
          { what: `messages ${id}`, id, send: get(`${base}/messages`) },
          { what: `events ${id}`, id, send: get(`${base}/events`) },
          { what: `files ${id}`, id, send: get(`${base}/files`) },
          { what: `a file of ${id}`, id, send: get(`${base}/files/data/x.csv`) },
          { what: `report ${id}`, id, send: get(`${base}/report?format=html`) },
          { what: `notebook ${id}`, id, send: get(`${base}/notebook`) },
          { what: `cancel ${id}`, id, send: () => postJson(server, `${base}/cancel`, {}) },
          { what: `exec ${id}`, id, send: () => postJson(server, `${base}/exec`, { code: 'open("x","w")' }) },
          {
            what: `upload ${id}`,
            id,
            send: () =>
              rawRequest(server, {
                method: 'POST',
                path: `${base}/files`,
                headers: { 'content-type': contentType },
                body,
              }),
          },
        ];
      });
      await expectNotFound(requests);
    });

    test('every file route answers 404 naming the id', async () => {
      const requests = FILE_IDS.flatMap((id) => {
        const base = `/v1/files/${segment(id)}`;
        return [
          { what: `GET ${id}`, id, send: () => rawRequest(server, { path: base }) },
          { what: `content ${id}`, id, send: () => rawRequest(server, { path: `${base}/content` }) },
          { what: `DELETE ${id}`, id, send: () => rawRequest(server, { method: 'DELETE', path: base }) },
        ];
      });
      await expectNotFound(requests);
    });

    test('an unknown model id answers 404 naming it and the known ones', async () => {
      for (const id of ['gpt-4o', '../offline', 'offline ', 'ü😀']) {
        const response = await rawRequest(server, { path: `/v1/models/${segment(id)}` });
        const error = expectRawError(response, 404);
        assert.equal(error.param, 'model');
        assert.ok(error.message.includes(id), error.message);
        assert.match(error.message, /offline/, 'the message lists the configured models');
      }
    });

    test('an id too long for the router still answers in OpenAI shape', async () => {
      const long = await rawRequest(server, { path: `/v1/threads/thread-${'a'.repeat(5000)}` });
      assert.ok([404, 414].includes(long.status), `HTTP ${long.status}`);
      expectRawError(long, long.status);
    });

    test('a path that is not valid percent-encoding answers 400 in OpenAI shape', async () => {
      for (const path of [
        '/v1/threads/thread-%zz',
        '/v1/files/%ff%fe',
        '/v1/threads/thread-%E0%A4%A/files',
      ]) {
        expectRawError(await rawRequest(server, { path }), 400);
      }
    });

    test('chat naming unknown file_ids or an unknown thread is refused before any thread exists', async () => {
      const threadsBefore = (await rawRequest(server, { path: '/v1/threads' })).text;
      const chat = (body: Record<string, unknown>) =>
        postJson(server, '/v1/chat/completions', {
          model: 'offline',
          messages: [{ role: 'user', content: 'Describe the data.' }],
          ...body,
        });
      const cases: Array<{ body: Record<string, unknown>; id: string; param: string }> = [
        {
          body: { file_ids: ['file-000000000000000000000000'] },
          id: 'file-000000000000000000000000',
          param: 'file_ids',
        },
        {
          body: { file_ids: [realFile, 'file-../../etc/passwd'] },
          id: 'file-../../etc/passwd',
          param: 'file_ids',
        },
        {
          body: {
            messages: [{ role: 'user', content: 'Describe it.', file_ids: [realFile, 'file-zzz'] }],
          },
          id: 'file-zzz',
          param: 'file_ids',
        },
        {
          body: { thread_id: 'thread-000000000000000000000000' },
          id: 'thread-000000000000000000000000',
          param: 'thread_id',
        },
        {
          body: { messages: [{ role: 'user', content: 'Go on.', thread_id: 'thread-ü😀' }] },
          id: 'thread-ü😀',
          param: 'thread_id',
        },
        // An unknown thread and a known file: the file must not be copied anywhere.
        { body: { thread_id: 'thread-zzz', file_ids: [realFile] }, id: 'thread-zzz', param: 'thread_id' },
      ];
      await expectNotFound(
        cases.map(({ body, id }) => ({ what: JSON.stringify(body), id, send: () => chat(body) })),
      );
      for (const { body, param } of cases) {
        assert.equal(expectRawError(await chat(body), 404).param, param, JSON.stringify(body));
      }
      assert.equal((await rawRequest(server, { path: '/v1/threads' })).text, threadsBefore);
    });

    test('unknown routes and wrong methods → 404/405 in OpenAI shape', async () => {
      const routes: Array<[string, string]> = [
        ['GET', '/v1/nothing'],
        ['GET', '/v2/files'],
        ['GET', '/v1/files/'],
        ['GET', '/v1/threads/thread-000000000000000000000000/nothing'],
        ['DELETE', '/v1/models'],
        ['PUT', '/v1/files'],
        ['PATCH', '/v1/threads/thread-000000000000000000000000'],
        ['POST', '/v1/threads/thread-000000000000000000000000'],
        ['GET', '/v1/chat/completions'],
        ['GET', '/v1/exec'],
        ['DELETE', '/v1/admin/threads-stats'],
        ['POST', '/health'],
      ];
      const cases: ErrorCase[] = routes.map(([method, path]) => {
        const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
        const headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
        return {
          what: `${method} ${path}`,
          send: () => rawRequest(server, { method, path, headers, body }),
          status: 404,
          message: /no route|no file|no thread/,
        };
      });
      const problems: string[] = [];
      for (const c of cases) {
        const response = await c.send();
        if (response.status !== 404 && response.status !== 405) {
          problems.push(`${c.what}: HTTP ${response.status}`);
          continue;
        }
        const error = expectRawError(response, response.status);
        if (!c.message.test(error.message)) problems.push(`${c.what}: message ${error.message}`);
      }
      assert.deepEqual(problems, []);
    });
  },
  { postgres: 'all' },
);
