import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FileProblem, fileProblem, fileProblemMessage } from '../../src/contract/file-problems.ts';
import { BAD_FILES } from '../helpers/bad-files.ts';
import { newThread, startTestServer, type TestServer } from './helpers.ts';

/** Bad files are named as bad in their preview, in plain words (issue 31, defect 5). */
describe('previews of bad files', () => {
  let server: TestServer;
  let thread: string;

  before(async () => {
    server = await startTestServer();
    thread = await newThread(server);
    for (const [name, data] of Object.entries(BAD_FILES)) {
      const form = new FormData();
      form.append('file', new Blob([data as BlobPart]), name);
      const response = await server.fetch(`/v1/threads/${thread}/files`, { method: 'POST', body: form });
      assert.equal(response.status, 200, await response.clone().text());
    }
  });
  after(async () => server.close());

  const preview = async (path: string) => {
    const response = await server.fetch(`/v1/threads/${thread}/preview/${path}`);
    assert.equal(response.status, 200);
    return (await response.json()) as {
      kind: string;
      message?: string;
      problem?: FileProblem;
      rows: unknown[][];
      total_rows: number;
    };
  };

  test('a malformed CSV: its rows, and the line with too many fields named', async () => {
    const page = await preview('malformed.csv');
    assert.equal(page.kind, 'table');
    assert.equal(page.message, fileProblem.tooManyFields('malformed.csv', 4, 5, 3));
    assert.equal(page.rows.length, 4);
  });

  test('a binary file named .csv: not a garbled table but a statement that it is not text', async () => {
    const page = await preview('binary.csv');
    assert.equal(page.kind, 'binary');
    assert.deepEqual(page.rows, []);
    assert.equal(page.message, fileProblem.notText('binary.csv'));
  });

  test('an empty CSV and one with a header only: said so', async () => {
    assert.equal((await preview('empty.csv')).message, fileProblem.empty('empty.csv'));
    const header = await preview('header-only.csv');
    assert.equal(header.total_rows, 0);
    assert.equal(header.message, fileProblem.headerOnly('header-only.csv', 3));
  });

  test('each problem also comes as data: a code and the values its sentence names', async () => {
    const expected: Record<string, FileProblem> = {
      'malformed.csv': { code: 'too-many-fields', name: 'malformed.csv', line: 4, saw: 5, expected: 3 },
      'binary.csv': { code: 'not-text', name: 'binary.csv' },
      'empty.csv': { code: 'empty', name: 'empty.csv' },
      'header-only.csv': { code: 'header-only', name: 'header-only.csv', columns: 3 },
    };
    for (const [name, problem] of Object.entries(expected)) {
      const page = await preview(name);
      assert.deepEqual(page.problem, problem, name);
      // The sentence front ends fall back to is the one the code and values make.
      assert.equal(page.message, fileProblemMessage(problem), name);
    }
  });

  test('a good CSV carries no message', async () => {
    const form = new FormData();
    form.append('file', new Blob(['a,b\n1,2\n']), 'good.csv');
    await server.fetch(`/v1/threads/${thread}/files`, { method: 'POST', body: form });
    const good = await preview('good.csv');
    assert.equal(good.message, undefined);
    assert.equal(good.problem, undefined);
  });
});
