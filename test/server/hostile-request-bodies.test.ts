import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, test } from 'node:test';
import { describeEachStore } from '../helpers/stores.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import {
  assertUnchanged,
  type DataSnapshot,
  dataSnapshot,
  type ErrorCase,
  expectErrors,
  multipart,
  offlineThread,
  postJson,
  rawRequest,
  upload,
  waitFor,
  workspaceOf,
} from './hostile-helpers.ts';

const MAX_BODY = 65536;
const MAX_UPLOAD = 4096;

describeEachStore(
  'hostile: upload, exec and other request bodies',
  (store) => {
    let server: TestServer;
    let threadId: string;
    let workspace: string;
    let snapshot: DataSnapshot;

    before(async () => {
      server = await startTestServer({
        store,
        env: { ANALYST_MAX_BODY_BYTES: String(MAX_BODY), ANALYST_MAX_UPLOAD_BYTES: String(MAX_UPLOAD) },
      });
      threadId = await offlineThread(server);
      workspace = await workspaceOf(server, threadId);
    });
    after(() => server.close());

    // Every request here is refused: nothing in the data dir or the database may change.
    beforeEach(async () => {
      snapshot = await dataSnapshot(server);
    });
    afterEach(async () => {
      await assertUnchanged(server, snapshot);
    });

    const raw =
      (path: string, body: string, contentType = 'application/json') =>
      () =>
        rawRequest(server, { method: 'POST', path, headers: { 'content-type': contentType }, body });

    test('an upload over ANALYST_MAX_UPLOAD_BYTES → 413 and no record or partial file left', async () => {
      const leftovers = async () => [
        ...(await readdir(join(server.dataDir, 'files'))),
        ...(await readdir(workspace)).filter((name) => name.startsWith('.upload-')),
      ];
      const filesBefore = await leftovers();
      await expectErrors([
        {
          what: '/v1/files one byte over',
          send: () =>
            upload(server, '/v1/files', { filename: 'big.csv', content: 'z'.repeat(MAX_UPLOAD + 1) }),
          status: 413,
          message: new RegExp(`${MAX_UPLOAD} bytes, ANALYST_MAX_UPLOAD_BYTES`),
        },
        {
          what: '/v1/files far over',
          send: () =>
            upload(server, '/v1/files', { filename: 'big.csv', content: Buffer.alloc(MAX_UPLOAD * 100) }),
          status: 413,
          message: /upload limit/,
        },
        {
          what: 'workspace upload over',
          send: () =>
            upload(server, `/v1/threads/${threadId}/files`, {
              filename: 'big.csv',
              content: 'z'.repeat(MAX_UPLOAD * 3),
            }),
          status: 413,
          message: /upload limit/,
        },
      ]);
      assert.deepEqual(await leftovers(), filesBefore);
      const files = (await rawRequest(server, { path: '/v1/files' })).json() as { data: unknown[] };
      assert.deepEqual(files.data, []);
    });

    test('an upload whose client hangs up halfway leaves no record or partial file', async () => {
      const url = new URL(server.url);
      const staging = async () =>
        (await readdir(join(server.dataDir, 'files'))).some((name) => name.startsWith('.upload-'));
      for (const path of ['/v1/files', `/v1/threads/${threadId}/files`]) {
        const { body, contentType } = multipart([
          { name: 'file', filename: 'half.csv', content: 'h'.repeat(3000) },
        ]);
        await new Promise<void>((resolve, reject) => {
          const socket = connect(Number(url.port), url.hostname, () => {
            socket.write(
              `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
            );
            socket.write(body.subarray(0, 1500));
            // Hung up once the server is saving (its staging file is there), not after a fixed
            // time: a handler still waiting would save only after this test, in the next one's.
            waitFor(staging, 'the upload is being saved', 10_000).then(() => {
              socket.destroy();
              resolve();
            }, reject);
          });
          socket.on('error', reject);
        });
      }
      await waitFor(
        async () => (await readdir(workspace)).every((name) => !name.startsWith('.upload-')),
        'the workspace upload’s staging file is removed',
        5000,
      );
      await waitFor(
        async () => (await readdir(join(server.dataDir, 'files'))).length === 0,
        'the files upload’s staging file is removed',
        5000,
      );
    });

    test('uploads that are not one multipart "file" part → 400 (never 500)', async () => {
      const multipartRaw =
        (path: string, body: string, contentType = 'multipart/form-data; boundary=xx') =>
        () =>
          rawRequest(server, { method: 'POST', path, headers: { 'content-type': contentType }, body });
      const cases: ErrorCase[] = [];
      for (const path of ['/v1/files', `/v1/threads/${threadId}/files`]) {
        cases.push(
          {
            what: `${path}: JSON`,
            send: () => postJson(server, path, { file: 'x' }),
            status: 400,
            message: /multipart/,
            param: 'file',
          },
          {
            what: `${path}: no body`,
            send: () => rawRequest(server, { method: 'POST', path }),
            status: 400,
            message: /multipart/,
            param: 'file',
          },
          {
            what: `${path}: only a purpose field`,
            send: multipartRaw(
              path,
              '--xx\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n--xx--\r\n',
            ),
            status: 400,
            message: /no "file" field/,
            param: 'file',
          },
          {
            what: `${path}: an empty form`,
            send: multipartRaw(path, '--xx--\r\n'),
            status: 400,
            message: /no "file" field/,
            param: 'file',
          },
          {
            what: `${path}: the file under another field name`,
            send: () => upload(server, path, { filename: 'a.csv', content: 'a', fieldName: 'document' }),
            status: 400,
            message: /"document".*"file"/,
            param: 'file',
          },
          {
            what: `${path}: a part without a file name`,
            send: multipartRaw(
              path,
              '--xx\r\nContent-Disposition: form-data; name="file"; filename=""\r\n\r\nabc\r\n--xx--\r\n',
            ),
            status: 400,
            message: /file name/,
            param: 'file',
          },
          {
            what: `${path}: cut off before the closing boundary`,
            send: multipartRaw(
              path,
              '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nabc',
            ),
            status: 400,
            message: /./,
          },
          {
            what: `${path}: multipart without a boundary`,
            send: multipartRaw(path, 'abc', 'multipart/form-data'),
            status: 400,
            message: /./,
          },
        );
      }
      await expectErrors(cases);
    });

    test('/v1/exec and thread exec: missing, empty or mistyped fields → 400 naming the field', async () => {
      const cases: ErrorCase[] = [];
      for (const path of ['/v1/exec', `/v1/threads/${threadId}/exec`]) {
        const exec = (body: unknown) => () => postJson(server, path, body);
        cases.push(
          { what: `${path}: no code`, send: exec({}), status: 400, message: /code/, param: 'code' },
          {
            what: `${path}: empty code`,
            send: exec({ code: '' }),
            status: 400,
            message: /empty/,
            param: 'code',
          },
          {
            what: `${path}: blank code`,
            send: exec({ code: '  \n ' }),
            status: 400,
            message: /empty/,
            param: 'code',
          },
          {
            what: `${path}: code as a number`,
            send: exec({ code: 5 }),
            status: 400,
            message: /string/,
            param: 'code',
          },
          {
            what: `${path}: code as a list`,
            send: exec({ code: ['print(1)'] }),
            status: 400,
            message: /string/,
            param: 'code',
          },
          {
            what: `${path}: code with a lone surrogate`,
            send: raw(path, '{"code": "print(\\"\\udc80\\")"}'),
            status: 400,
            message: /Unicode/,
            param: 'code',
          },
          {
            what: `${path}: timeout 0`,
            send: exec({ code: 'print(1)', timeout: 0 }),
            status: 400,
            message: /between 1 and 30/,
            param: 'timeout',
          },
          {
            what: `${path}: timeout 31`,
            send: exec({ code: 'print(1)', timeout: 31 }),
            status: 400,
            message: /between 1 and 30/,
            param: 'timeout',
          },
          {
            what: `${path}: timeout -1`,
            send: exec({ code: 'print(1)', timeout: -1 }),
            status: 400,
            message: /between 1 and 30/,
            param: 'timeout',
          },
          {
            what: `${path}: timeout "x"`,
            send: exec({ code: 'print(1)', timeout: 'x' }),
            status: 400,
            message: /number/,
            param: 'timeout',
          },
          {
            what: `${path}: timeout 1e400`,
            send: raw(path, '{"code": "print(1)", "timeout": 1e400}'),
            status: 400,
            message: /timeout|finite|number/i,
            param: 'timeout',
          },
          {
            what: `${path}: an unknown field`,
            send: exec({ code: 'print(1)', shell: 'rm -rf /' }),
            status: 400,
            message: /shell/,
          },
          { what: `${path}: an array body`, send: exec(['print(1)']), status: 400, message: /object/i },
          {
            what: `${path}: malformed JSON`,
            send: raw(path, '{"code": "print(1)"'),
            status: 400,
            message: /not valid JSON/,
          },
          {
            what: `${path}: code as text/plain`,
            send: raw(path, 'print(1)', 'text/plain'),
            status: 400,
            message: /object|JSON/i,
          },
        );
      }
      cases.push(
        {
          what: 'thread exec: stateful "yes"',
          send: () => postJson(server, `/v1/threads/${threadId}/exec`, { code: 'print(1)', stateful: 'yes' }),
          status: 400,
          message: /boolean/,
          param: 'stateful',
        },
        {
          what: 'exec: source_query_ids of numbers',
          send: () => postJson(server, '/v1/exec', { code: 'print(1)', source_query_ids: [1] }),
          status: 400,
          message: /string/,
          param: 'source_query_ids.0',
        },
        {
          what: 'exec: data that cannot be parsed',
          send: raw('/v1/exec', '{"code": "print(1)", "data": [1, 2,]}'),
          status: 400,
          message: /JSON/,
        },
      );
      await expectErrors(cases);
    });

    test('other bodies and queries: cleanup, pagination, report format → 400 naming the field', async () => {
      await expectErrors([
        {
          what: 'cleanup older_than_hours -1',
          send: () => postJson(server, '/v1/admin/cleanup-threads', { older_than_hours: -1 }),
          status: 400,
          message: /older_than_hours/,
          param: 'older_than_hours',
        },
        {
          what: 'cleanup older_than_hours "all"',
          send: () => postJson(server, '/v1/admin/cleanup-threads', { older_than_hours: 'all' }),
          status: 400,
          message: /older_than_hours/,
          param: 'older_than_hours',
        },
        {
          what: 'cleanup an unknown field',
          send: () => postJson(server, '/v1/admin/cleanup-threads', { everyone: true }),
          status: 400,
          message: /everyone/,
        },
        {
          what: 'limit=0',
          send: () => rawRequest(server, { path: '/v1/files?limit=0' }),
          status: 400,
          message: /limit/,
          param: 'limit',
        },
        {
          what: 'limit=101',
          send: () => rawRequest(server, { path: '/v1/threads?limit=101' }),
          status: 400,
          message: /limit/,
          param: 'limit',
        },
        {
          what: 'limit=abc',
          send: () => rawRequest(server, { path: '/v1/threads?limit=abc' }),
          status: 400,
          message: /limit/,
          param: 'limit',
        },
        {
          what: 'limit=1.5',
          send: () => rawRequest(server, { path: '/v1/files?limit=1.5' }),
          status: 400,
          message: /limit/,
          param: 'limit',
        },
        {
          what: 'report format=exe',
          send: () => rawRequest(server, { path: `/v1/threads/${threadId}/report?format=exe` }),
          status: 400,
          message: /md, html or pdf/,
          param: 'format',
        },
      ]);
    });

    test('report formats that are names every object has (toString, __proto__) → 400, not 500', async () => {
      await expectErrors([
        {
          what: 'report format=__proto__',
          send: () => rawRequest(server, { path: `/v1/threads/${threadId}/report?format=__proto__` }),
          status: 400,
          message: /md, html or pdf/,
          param: 'format',
        },
        {
          what: 'report format=toString',
          send: () => rawRequest(server, { path: `/v1/threads/${threadId}/report?format=toString` }),
          status: 400,
          message: /md, html or pdf/,
          param: 'format',
        },
        {
          what: 'report format=constructor',
          send: () => rawRequest(server, { path: `/v1/threads/${threadId}/report?format=constructor` }),
          status: 400,
          message: /md, html or pdf/,
          param: 'format',
        },
      ]);
    });
  },
  { postgres: 'all' },
);
