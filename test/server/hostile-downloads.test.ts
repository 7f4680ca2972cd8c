import assert from 'node:assert/strict';
import { lstat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { describeEachStore } from '../helpers/stores.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import {
  expectRawError,
  hostVictim,
  offlineThread,
  postJson,
  type RawResponse,
  rawRequest,
  settled,
  threadExec,
  workspaceOf,
} from './hostile-helpers.ts';

type Victim = Awaited<ReturnType<typeof hostVictim>>;

/** Markers of bytes no download may ever return. */
const SECRET = 'data-dir-secret-7f3a';
const PASSWD = 'root:x:0:0';

/** A response that must not have served anything but an error: no secret, no host file. */
function assertRefused(response: RawResponse, what: string, victim: Victim): void {
  assert.ok(
    [400, 404].includes(response.status),
    `${what}: HTTP ${response.status} ${response.text.slice(0, 200)}`,
  );
  const error = expectRawError(response, response.status);
  for (const leak of [SECRET, PASSWD, victim.marker]) {
    assert.ok(!response.text.includes(leak), `${what}: the response holds ${leak}`);
  }
  if (response.status === 400) assert.equal(error.param, 'path', `${what}: ${error.message}`);
}

/** GET with a deadline: a download that hangs (a FIFO, a device) is a failure, not a stuck suite. */
async function getWithin(server: TestServer, path: string, ms = 5000): Promise<RawResponse> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`GET ${path} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([rawRequest(server, { path }), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describeEachStore(
  'hostile: downloads never leave the workspace',
  (store) => {
    let server: TestServer;
    let victim: Victim;
    let threadId: string;
    let workspace: string;

    before(async () => {
      victim = await hostVictim();
      server = await startTestServer({
        store,
        script: {
          mode: 'match',
          turns: [
            {
              when: { last_role: 'user', last_contains: 'link the victim' },
              content: `<Code>\nimport os\nos.symlink(${JSON.stringify(victim.file)}, "leak.txt")\nos.symlink(${JSON.stringify(victim.file)}, "leak.png")\nos.makedirs("out", exist_ok=True)\nos.symlink(${JSON.stringify(victim.dir)}, "out/dir")\nprint("linked")\n</Code>`,
            },
            {
              when: { last_role: 'execute', last_contains: 'linked' },
              content: '<Answer>See [the data](leak.txt) and ![chart](leak.png).</Answer>',
            },
          ],
        },
      });
      await writeFile(join(server.dataDir, 'secret.txt'), `${SECRET}\n`);
      threadId = await offlineThread(server);
      workspace = await workspaceOf(server, threadId);
      const made = await threadExec(
        server,
        threadId,
        'import os\nos.makedirs("data", exist_ok=True)\nopen("data/x.csv", "w").write("a,b\\n1,2\\n")\nprint("ok")',
      );
      assert.equal(made.output, 'ok\n', JSON.stringify(made));
    });
    after(async () => {
      await server.close();
      await victim.cleanup();
    });

    test('download paths with .., encodings, absolute paths, NUL or backslashes are refused', async () => {
      const ok = await rawRequest(server, { path: `/v1/threads/${threadId}/files/data/x.csv` });
      assert.equal(ok.status, 200);
      assert.equal(ok.text, 'a,b\n1,2\n');

      const victimPath = encodeURIComponent(victim.file);
      const paths = [
        '../../secret.txt',
        '..%2F..%2Fsecret.txt',
        '%2e%2e/%2e%2e/secret.txt',
        '%2E%2E%2F%2E%2E%2Fsecret.txt',
        'data/../../../secret.txt',
        'data/%2e%2e/%2e%2e/%2e%2e/secret.txt',
        'data%2F..%2F..%2F..%2Fsecret.txt',
        './../../secret.txt',
        '%252e%252e/%252e%252e/secret.txt',
        '....//....//secret.txt',
        '/etc/passwd',
        '%2Fetc%2Fpasswd',
        victimPath,
        `%2F%2F${victimPath.replace(/^%2F/, '')}`,
        'data/x.csv%00.png',
        'data%00/x.csv',
        '%00',
        '..\\..\\secret.txt',
        '..%5C..%5Csecret.txt',
        'data%5C..%5C..%5C..%5Csecret.txt',
        'C:%5Cwindows%5Cwin.ini',
        'C:/etc/passwd',
        '.',
        '%2e',
        'data/.',
        '',
        'data',
        'data/',
        'no-such-file.csv',
        '%E2%80%A4%E2%80%A4/secret.txt',
      ];
      for (const path of paths) {
        assertRefused(await getWithin(server, `/v1/threads/${threadId}/files/${path}`), path, victim);
      }
    });

    test('symlinks, a FIFO and directories a cell leaves are never followed or served', async () => {
      const made = await threadExec(
        server,
        threadId,
        [
          'import os',
          'os.symlink("/etc/passwd", "pw")',
          `os.symlink(${JSON.stringify(victim.file)}, "victim.txt")`,
          `os.symlink(${JSON.stringify(victim.dir)}, "hostdir")`,
          `os.symlink(${JSON.stringify(victim.file)}, "data/inner.csv")`,
          'os.symlink(".", "loop")',
          'os.symlink("..", "up")',
          'os.symlink("/", "root")',
          'os.mkfifo("fifo")',
          'os.makedirs("adir/deeper", exist_ok=True)',
          'print("made")',
        ].join('\n'),
      );
      assert.equal(made.output, 'made\n', JSON.stringify(made));
      const paths = [
        'pw',
        'victim.txt',
        'hostdir',
        'hostdir/victim.txt',
        'data/inner.csv',
        'loop/data/x.csv',
        'loop/loop/pw',
        'up/secret.txt',
        `up/${workspace.split('/').pop()}/data/x.csv`,
        'root/etc/passwd',
        `root${victim.file}`,
        'fifo',
        'adir',
        'adir/deeper',
      ];
      for (const path of paths) {
        assertRefused(await getWithin(server, `/v1/threads/${threadId}/files/${path}`), path, victim);
      }
      const listing = (await rawRequest(server, { path: `/v1/threads/${threadId}/files` })).json() as {
        data: Array<{ path: string }>;
      };
      const listed = listing.data.map((f) => f.path);
      assert.ok(listed.includes('data/x.csv'), listed.join(', '));
      for (const path of paths) assert.ok(!listed.includes(path), `${path} is listed`);
      await victim.assertUntouched();
    });

    test('reports are never written through a reports/ symlink a cell made', async () => {
      const made = await threadExec(
        server,
        threadId,
        `import os, shutil\nshutil.rmtree("reports", ignore_errors=True)\nos.symlink(${JSON.stringify(victim.dir)}, "reports")\nprint("ok")`,
      );
      assert.equal(made.output, 'ok\n');
      const chat = await postJson(server, '/v1/chat/completions', {
        model: 'offline',
        thread_id: threadId,
        messages: [{ role: 'user', content: 'Describe the data again.' }],
      });
      assert.equal(chat.status, 200, chat.text.slice(0, 300));
      // The reports are written after the answer is sent.
      await settled(server);
      await victim.assertUntouched();
      assert.ok((await lstat(join(workspace, 'reports'))).isDirectory(), 'reports/ is not a real directory');

      const linked = await threadExec(
        server,
        threadId,
        `import os\nos.remove("reports/report.md")\nos.symlink(${JSON.stringify(victim.file)}, "reports/report.md")\nprint("ok")`,
      );
      assert.equal(linked.output, 'ok\n');
      const again = await postJson(server, '/v1/chat/completions', {
        model: 'offline',
        thread_id: threadId,
        messages: [{ role: 'user', content: 'And once more.' }],
      });
      assert.equal(again.status, 200, again.text.slice(0, 300));
      await settled(server);
      await victim.assertUntouched();
      assert.ok((await lstat(join(workspace, 'reports', 'report.md'))).isFile());
    });

    test("a report and notebook never embed a host file behind an artifact's symlink", async () => {
      const chat = await postJson(server, '/v1/chat/completions', {
        messages: [{ role: 'user', content: 'Please link the victim.' }],
      });
      assert.equal(chat.status, 200, chat.text.slice(0, 300));
      assert.deepEqual(server.scripted!.failures, []);
      const thread = (chat.json() as { choices: Array<{ message: { thread_id: string } }> }).choices[0]!
        .message.thread_id;
      for (const path of [
        'report?format=md',
        'report?format=html',
        'notebook',
        'files/leak.txt',
        'files/out/dir/victim.txt',
      ]) {
        const response = await rawRequest(server, { path: `/v1/threads/${thread}/${path}` });
        assert.ok(!response.text.includes(victim.marker), `${path} holds the host file's bytes`);
      }
      await settled(server);
      await victim.assertUntouched();
    });
  },
  { postgres: 'all' },
);
