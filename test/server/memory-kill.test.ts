import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { offlineThread, threadExec } from './hostile-helpers.ts';

// Measured before: the child process's kill came back `ok`, `reason: null`, with no word of memory.
const HOGS: Array<[string, string]> = [
  ['numpy', 'import numpy as np\na = np.ones(2_000_000_000 // 8)\nprint(a.sum())'],
  ['a Python list', 'xs = []\nwhile True:\n    xs.append(bytearray(1 << 20))'],
  [
    'a child process',
    'import subprocess, sys\nsubprocess.run([sys.executable, "-c", "b = bytearray(2_000_000_000)"])\nprint("child done")',
  ],
];

let server: TestServer;
let thread: string;
before(async () => {
  server = await startTestServer();
  thread = await offlineThread(server);
});
after(() => server.close());

for (const stateful of [false, true]) {
  for (const [how, code] of HOGS) {
    test(`a cell past the memory limit through ${how} (${stateful ? 'stateful' : 'one-shot'}) is reported as a memory kill`, async () => {
      const result = await threadExec(server, thread, code, { stateful });
      // The cell itself may finish (its child was the one killed): the message must still say memory.
      assert.match(String(result.message), /memory limit/, JSON.stringify(result).slice(0, 800));
    });
  }
}

test('a cell after a memory kill is not blamed for it', async () => {
  const result = await threadExec(server, thread, 'print(1 + 1)');
  assert.equal(result.status, 'ok');
  assert.equal(result.message, undefined, String(result.message));
});
