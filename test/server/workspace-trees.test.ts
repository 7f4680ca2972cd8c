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
