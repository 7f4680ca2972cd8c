import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { offlineThread, rawRequest, threadExec } from './hostile-helpers.ts';

let server: TestServer;
let thread: string;
before(async () => {
  server = await startTestServer();
  thread = await offlineThread(server);
});
after(() => server.close());

// Measured before: DELETE of this tree returned 500 and left it (rm -r fails past PATH_MAX).
test('DELETE removes a 1,100-level-deep tree, names that are not UTF-8 too', async () => {
  const made = await threadExec(
    server,
    thread,
    [
      'import os',
      'os.mkdir("deep")',
      'os.chdir("deep")',
      'for i in range(1100):',
      '    os.mkdir("level")',
      '    open(b"\\xff\\xfe-" + str(i).encode() + b".bin", "wb").write(b"x" * 10)',
      '    os.chdir("level")',
      'os.chdir("/workspace")',
      'print("made")',
    ].join('\n'),
  );
  assert.match(made.output, /made/, JSON.stringify(made).slice(0, 500));
  const response = await rawRequest(server, { method: 'DELETE', path: `/v1/threads/${thread}/files/deep` });
  assert.equal(response.status, 200, response.text.slice(0, 500));
  assert.equal(response.json().deleted, true);
  const left = await threadExec(server, thread, 'import os\nprint(sorted(os.listdir(".")))');
  assert.doesNotMatch(left.output, /deep|analyst-removing/, left.output);
});

// Measured before: these files were present but missing from the listing (names decoded lossily).
test('files whose names are not UTF-8 are listed escaped, and that name downloads and deletes them', async () => {
  await threadExec(
    server,
    thread,
    [
      'import os',
      'open(b"bad-\\xff\\xfe.csv", "wb").write(b"a,b\\n1,2\\n")',
      'os.makedirs(b"dir-\\xc3", exist_ok=True)',
      'open(b"dir-\\xc3/in\\\\side.txt", "wb").write(b"inside")',
      'print("made")',
    ].join('\n'),
  );
  const listed = await rawRequest(server, { path: `/v1/threads/${thread}/files` });
  assert.equal(listed.status, 200, listed.text);
  const paths = (listed.json().data as Array<{ path: string; url: string }>).map((f) => f.path);
  assert.ok(paths.includes('bad-\\xff\\xfe.csv'), paths.join(' | '));
  assert.ok(paths.includes('dir-\\xc3/in\\\\side.txt'), paths.join(' | '));
  const url = (path: string) =>
    `/v1/threads/${thread}/files/${path.split('/').map(encodeURIComponent).join('/')}`;
  const csv = await rawRequest(server, { path: url('bad-\\xff\\xfe.csv') });
  assert.equal(csv.status, 200, csv.text);
  assert.equal(csv.text, 'a,b\n1,2\n');
  const inside = await rawRequest(server, { path: url('dir-\\xc3/in\\\\side.txt') });
  assert.equal(inside.text, 'inside');
  // A backslash that escapes nothing is refused with a message that says how to write one.
  const bad = await rawRequest(server, { path: url('bad-\\q.csv') });
  assert.equal(bad.status, 400, bad.text);
  // An escape cannot spell `..`.
  const up = await rawRequest(server, { path: url('\\x2e\\x2e/etc') });
  assert.equal(up.status, 400, up.text);
  for (const path of ['bad-\\xff\\xfe.csv', 'dir-\\xc3']) {
    const deleted = await rawRequest(server, { method: 'DELETE', path: url(path) });
    assert.equal(deleted.status, 200, deleted.text);
  }
  const left = await threadExec(server, thread, 'import os\nprint(sorted(os.listdir(b".")))');
  assert.doesNotMatch(left.output, /bad-|dir-/, left.output);
});
