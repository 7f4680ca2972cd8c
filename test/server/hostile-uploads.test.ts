import assert from 'node:assert/strict';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { describeEachStore } from '../helpers/stores.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import {
  dbCounts,
  expectRawError,
  hostVictim,
  multipart,
  offlineThread,
  postJson,
  rawRequest,
  settled,
  threadExec,
  treeDiff,
  treeOf,
  upload,
  workspaceOf,
} from './hostile-helpers.ts';

type Victim = Awaited<ReturnType<typeof hostVictim>>;

describeEachStore(
  'hostile: uploads land inside the workspace and never on a host file',
  (store) => {
    let server: TestServer;
    let victim: Victim;
    let threadId: string;
    let workspace: string;

    before(async () => {
      victim = await hostVictim();
      server = await startTestServer({ store });
      threadId = await offlineThread(server);
      workspace = await workspaceOf(server, threadId);
    });
    after(async () => {
      await server.close();
      await victim.cleanup();
    });

    test('hostile upload names get a clear 400 or a safe name inside the workspace', async () => {
      const countsBefore = await dbCounts(server);
      const treeBefore = await treeOf(server.dataDir);
      const escapes = [
        join(tmpdir(), `analyst-escape-${process.pid}.txt`),
        `/etc/analyst-escape-${process.pid}`,
      ];
      const names: Array<string | Buffer> = [
        '../escape.txt',
        `../../../../../..${escapes[0]}`,
        escapes[1]!,
        '.',
        '..',
        '',
        '   ',
        './..',
        'a\x01b\x1fc.txt',
        'tab\there.txt',
        'del\x7f.txt',
        `${'n'.repeat(300)}.csv`,
        'é'.repeat(150),
        `a${'😀'.repeat(60)}.csv`,
        Buffer.from([0xff, 0xfe, 0x41, 0x2e, 0x74, 0x78, 0x74]),
        Buffer.from('caf\xe9.txt', 'latin1'),
        Buffer.from([0x2e, 0x2e, 0xc0, 0xaf, 0x65, 0x74, 0x63]),
        'sub\\..\\..\\win.txt',
        'C:\\Windows\\evil.txt',
        'reports',
        '.upload-file-000000000000000000000000',
      ];
      const problems: string[] = [];
      for (const name of names) {
        const shown = JSON.stringify(name.toString());
        const content = `content of ${shown}\n`;
        const response = await upload(server, `/v1/threads/${threadId}/files`, { filename: name, content });
        if (response.status === 400) {
          const error = expectRawError(response, 400);
          if (error.param !== 'file') problems.push(`${shown}: 400 with param ${error.param}`);
          continue;
        }
        if (response.status !== 200) {
          problems.push(`${shown}: HTTP ${response.status} ${response.text.slice(0, 200)}`);
          continue;
        }
        const stored = response.json() as { path: string; url: string };
        if (/[/\\\u0000-\u001f\u007f]/.test(stored.path) || ['.', '..', ''].includes(stored.path.trim())) {
          problems.push(`${shown}: stored as ${JSON.stringify(stored.path)}`);
          continue;
        }
        if (Buffer.byteLength(stored.path) > 255)
          problems.push(`${shown}: name too long for the file system`);
        const info = await lstat(join(workspace, stored.path)).catch(() => undefined);
        if (!info?.isFile()) problems.push(`${shown}: ${stored.path} is not a regular file in the workspace`);
        else if ((await readFile(join(workspace, stored.path), 'utf8')) !== content)
          problems.push(`${shown}: stored other bytes`);
        const download = await rawRequest(server, { path: new URL(stored.url, server.url).pathname });
        if (download.text !== content)
          problems.push(`${shown}: its URL does not download it (HTTP ${download.status})`);
      }
      assert.deepEqual(problems, []);
      for (const path of escapes)
        assert.equal(await lstat(path).catch(() => undefined), undefined, `${path} exists`);
      const outside = treeDiff(treeBefore, await treeOf(server.dataDir)).filter(
        (change) => !change.startsWith(`+ workspaces/${workspace.split('/').pop()}/`),
      );
      assert.deepEqual(outside, [], 'uploads changed the data dir outside the workspace');
      assert.deepEqual(
        (await readdir(workspace)).filter((name) => name.startsWith('.upload-') && !name.includes('000000')),
        [],
      );
      assert.deepEqual(await dbCounts(server), countsBefore, 'a workspace upload wrote records');
    });

    test('hostile file names uploaded to /v1/files are stored safely and only under files/', async () => {
      const treeBefore = await treeOf(server.dataDir);
      for (const name of [
        '../escape.txt',
        '/etc/passwd',
        '..',
        'a\x01b.txt',
        Buffer.from([0xff, 0xfe]),
        'x'.repeat(300),
      ]) {
        const shown = JSON.stringify(name.toString());
        const response = await upload(server, '/v1/files', { filename: name, content: 'x\n' });
        if (response.status === 400) {
          assert.equal(expectRawError(response, 400).param, 'file', shown);
          continue;
        }
        assert.equal(response.status, 200, `${shown}: ${response.text.slice(0, 200)}`);
        const file = response.json() as { id: string; filename: string };
        assert.ok(!/[/\\\u0000-\u001f\u007f]/.test(file.filename), `${shown} stored as ${file.filename}`);
        const content = await rawRequest(server, { path: `/v1/files/${file.id}/content` });
        assert.equal(content.text, 'x\n');
      }
      const changes = treeDiff(treeBefore, await treeOf(server.dataDir));
      assert.ok(
        changes.every((change) => /^\+ files\/file-[0-9a-f]{24} \(file:2\)$/.test(change)),
        changes.join('\n'),
      );
    });

    test('an upload onto a name where a cell left a symlink to a host file leaves the host file alone', async () => {
      const made = await threadExec(
        server,
        threadId,
        `import os\nos.symlink(${JSON.stringify(victim.file)}, "target.csv")\nprint(os.path.islink("target.csv"))`,
      );
      assert.equal(made.output, 'True\n');
      const response = await upload(server, `/v1/threads/${threadId}/files`, {
        filename: 'target.csv',
        content: 'overwritten!\n',
      });
      assert.equal(response.status, 200, response.text);
      const stored = response.json() as { path: string };
      assert.notEqual(stored.path, 'target.csv');
      assert.ok((await lstat(join(workspace, 'target.csv'))).isSymbolicLink(), 'the link was replaced');
      assert.equal(await readFile(join(workspace, stored.path), 'utf8'), 'overwritten!\n');
      await victim.assertUntouched();
    });

    test('an upload racing a cell that swaps the staging file for a symlink hands no host file to the sandbox', async () => {
      const victim = await hostVictim();
      const threadId = await offlineThread(server);
      const workspace = await workspaceOf(server, threadId);
      const linksBefore = await symlinksIn(workspace);
      // A stateful kernel keeps a thread running after its cell: it watches for the server's
      // staging file and replaces it with a link to a host file while the upload streams in.
      const armed = await threadExec(
        server,
        threadId,
        [
          'import os, threading, time',
          'def swap():',
          '    deadline = time.time() + 15',
          '    while time.time() < deadline:',
          '        for name in os.listdir("."):',
          '            if name.startswith(".upload-") and not os.path.islink(name):',
          '                try:',
          '                    os.unlink(name)',
          `                    os.symlink(${JSON.stringify(victim.file)}, name)`,
          '                except OSError:',
          '                    pass',
          '        time.sleep(0.002)',
          'threading.Thread(target=swap, daemon=True).start()',
          'print("armed")',
        ].join('\n'),
        { stateful: true },
      );
      assert.equal(armed.output, 'armed\n');
      const { body, contentType } = multipart([
        { name: 'file', filename: 'slow.csv', content: 'a,b\n'.repeat(1500) },
      ]);
      const response = await slowPost(server, `/v1/threads/${threadId}/files`, contentType, body);
      assert.ok(response.status < 500, `HTTP ${response.status}: ${response.text.slice(0, 200)}`);
      try {
        await victim.assertUntouched();
        // Whatever the upload answered, it left no name in the workspace that leads to a host file.
        assert.deepEqual(await symlinksIn(workspace), linksBefore, 'the upload stored a symlink');
      } finally {
        await victim.cleanup();
      }
    });

    test('attaching an uploaded file while a cell swaps it for a symlink hands no host file to the sandbox', async () => {
      const victim = await hostVictim();
      const threadId = await offlineThread(server);
      const big = await upload(server, '/v1/files', {
        filename: 'big.csv',
        content: Buffer.alloc(32 * 1024 * 1024, 'a'),
      });
      assert.equal(big.status, 200, big.text);
      const armed = await threadExec(
        server,
        threadId,
        [
          'import os, threading, time',
          'def swap():',
          '    deadline = time.time() + 20',
          '    while time.time() < deadline:',
          '        try:',
          '            if os.path.exists("big.csv") and not os.path.islink("big.csv"):',
          '                os.unlink("big.csv")',
          `                os.symlink(${JSON.stringify(victim.file)}, "big.csv")`,
          '        except OSError:',
          '            pass',
          'threading.Thread(target=swap, daemon=True).start()',
          'print("armed")',
        ].join('\n'),
        { stateful: true },
      );
      assert.equal(armed.output, 'armed\n');
      const chat = await postJson(server, '/v1/chat/completions', {
        model: 'offline',
        thread_id: threadId,
        file_ids: [big.json().id],
        messages: [{ role: 'user', content: 'Describe big.csv' }],
      });
      assert.ok(chat.status < 500, `HTTP ${chat.status}: ${chat.text.slice(0, 200)}`);
      await settled(server);
      try {
        await victim.assertUntouched();
      } finally {
        await victim.cleanup();
      }
    });
  },
  { postgres: 'all' },
);

/** POSTs `body` in small pieces over about two seconds, as a slow client would. */
function slowPost(
  server: TestServer,
  path: string,
  contentType: string,
  body: Buffer,
): Promise<{ status: number; text: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: { 'content-type': contentType, 'content-length': body.length },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    const pieces = 20;
    const size = Math.ceil(body.length / pieces);
    let sent = 0;
    const step = () => {
      if (sent >= body.length) {
        req.end();
        return;
      }
      req.write(body.subarray(sent, sent + size));
      sent += size;
      setTimeout(step, 100);
    };
    step();
  });
}

/** Names of the symlinks directly in a directory. */
async function symlinksIn(dir: string): Promise<string[]> {
  const links: string[] = [];
  for (const name of await readdir(dir))
    if ((await lstat(join(dir, name))).isSymbolicLink()) links.push(name);
  return links.sort();
}
