import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { sha256 } from '../../src/server/config.ts';
import { containersOfInstance } from '../helpers/sandbox.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { json, startTestServer, type TestServer } from './helpers.ts';
import {
  KEY_A,
  KEY_B,
  offlineThread,
  postJson,
  rawRequest,
  TWO_KEYS,
  threadExec,
  upload,
  waitFor,
  workspaceIdOf,
  workspaceOf,
} from './hostile-helpers.ts';

/**
 * The attacks of issue 7, as a hostile tenant makes them: a cell that keeps running while the
 * server works on its workspace and swaps a directory for a symlink at the right moment
 * (renameat2 RENAME_EXCHANGE), relative `../..` links toward other tenants, a DELETE raced by
 * an exec, a million files, a write past the quota, sparse fake PNGs, a thread a stateful
 * cell leaves behind. Every one must fail, while /health stays fast.
 */

/** Python for a cell that swaps `a` and `b` (a directory and a symlink) as fast as it can for `seconds`. */
function swapper(a: string, b: string, seconds: number): string {
  return `
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
SYS_renameat2 = {"x86_64": 316, "aarch64": 276}[os.uname().machine]
deadline = time.time() + ${seconds}
swaps = 0
while time.time() < deadline:
    if libc.syscall(SYS_renameat2, -100, ${JSON.stringify(a)}.encode(), -100, ${JSON.stringify(b)}.encode(), 2) == 0:
        swaps += 1
print("swaps", swaps)
`;
}

/** A root-only host directory with a secret file a cell must never reach through the server. */
async function rootOnlySecret(
  name: string,
): Promise<{ dir: string; marker: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp('/root/analyst-secret-');
  const marker = `root-only-${randomBytes(8).toString('hex')}`;
  await writeFile(join(dir, name), marker, { mode: 0o600 });
  await writeFile(join(dir, 'only-in-secret.txt'), marker, { mode: 0o600 });
  return { dir, marker, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Polls /health every 100 ms while `work` runs; returns the slowest answer in ms. */
async function healthDuring<T>(
  server: TestServer,
  work: Promise<T>,
): Promise<{ result: T; slowestMs: number }> {
  let slowest = 0;
  let done = false;
  const poller = (async () => {
    while (!done) {
      const started = performance.now();
      const response = await fetch(`${server.url}/health`);
      await response.text();
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    return { result: await work, slowestMs: slowest };
  } finally {
    done = true;
    await poller;
  }
}

describeEachStore(
  'workspaces cannot be turned against the host or another tenant',
  (store) => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        store,
        env: {
          ...TWO_KEYS,
          ANALYST_WORKSPACE_QUOTA_BYTES: String(64 * 1024 * 1024),
          // The races below send thousands of requests a minute with one key, by design.
          ANALYST_LIMIT_REQUESTS_PER_MINUTE: '0',
        },
      });
    });
    after(() => server.close());

    test('a directory swapped for a symlink while downloads and listings race it never leaks a host file', async () => {
      const secret = await rootOnlySecret('NAME');
      try {
        const threadId = await offlineThread(server, KEY_A);
        const setup = await threadExec(
          server,
          threadId,
          `import os\nos.makedirs("sub", exist_ok=True)\nopen("sub/NAME", "w").write("public")\nos.symlink(${JSON.stringify(secret.dir)}, "alt")\nprint("ready")`,
          { key: KEY_A },
        );
        assert.equal(setup.output, 'ready\n', JSON.stringify(setup));
        const racing = threadExec(server, threadId, swapper('sub', 'alt', 12), { key: KEY_A });
        const seen = new Map<string, number>();
        const deadline = Date.now() + 10_000;
        let requests = 0;
        while (Date.now() < deadline) {
          const batch = await Promise.all(
            Array.from({ length: 16 }, (_, i) =>
              rawRequest(server, {
                path:
                  i % 4 === 0 ? `/v1/threads/${threadId}/files` : `/v1/threads/${threadId}/files/sub/NAME`,
                key: KEY_A,
              }),
            ),
          );
          for (const response of batch) {
            requests += 1;
            assert.ok(
              !response.text.includes(secret.marker),
              `a host file leaked: ${response.text.slice(0, 200)}`,
            );
            assert.ok(!response.text.includes('only-in-secret'), 'a host directory was listed');
            const kind = `${response.status}`;
            seen.set(kind, (seen.get(kind) ?? 0) + 1);
          }
        }
        const swapped = await racing;
        assert.match(swapped.output, /swaps [1-9]/, 'the cell swapped the directories');
        assert.ok(requests >= 1000, `only ${requests} requests raced the swap`);
        assert.ok((seen.get('200') ?? 0) > 0, `no request succeeded: ${JSON.stringify([...seen])}`);
        assert.ok(
          [...seen.keys()].every((status) => ['200', '400', '404'].includes(status)),
          JSON.stringify([...seen]),
        );
      } finally {
        await secret.cleanup();
      }
    });

    test('report writing raced by a swapped reports/ folder never writes or chowns outside the workspace', async () => {
      const secret = await rootOnlySecret('report.md');
      try {
        const threadId = await offlineThread(server, KEY_A);
        await threadExec(
          server,
          threadId,
          `import os\nos.symlink(${JSON.stringify(secret.dir)}, "alt")\nprint(os.path.isdir("reports"))`,
          {
            key: KEY_A,
          },
        );
        const { deps } = server.service;
        const thread = await deps.threads.get(ownerOfKeyA(server), threadId);
        const workspace = await deps.threads.workspace(thread);
        const racing = threadExec(server, threadId, swapper('reports', 'alt', 8), { key: KEY_A });
        const deadline = Date.now() + 6000;
        let writes = 0;
        while (Date.now() < deadline) {
          await deps.reports.write(thread, workspace).catch(() => {});
          writes += 1;
        }
        await racing;
        assert.ok(writes >= 5, `only ${writes} report writes raced the swap`);
        assert.deepEqual((await readdir(secret.dir)).sort(), ['only-in-secret.txt', 'report.md']);
        const info = await stat(join(secret.dir, 'report.md'));
        assert.equal(info.uid, 0, 'the host file was chowned');
        assert.equal(info.size, secret.marker.length, 'the host file was overwritten');
      } finally {
        await secret.cleanup();
      }
    });

    test("a relative ../.. symlink reaches neither another tenant's workspace nor the database", async () => {
      const victim = await offlineThread(server, KEY_A);
      const planted = await upload(
        server,
        `/v1/threads/${victim}/files`,
        { filename: 'private.csv', content: 'tenant A only\n' },
        KEY_A,
      );
      assert.equal(planted.status, 200, planted.text);
      const attacker = await offlineThread(server, KEY_B);
      const made = await threadExec(
        server,
        attacker,
        'import os\nos.symlink("../..", "up")\nos.symlink("..", "one")\nprint(sorted(os.listdir(".")))',
        { key: KEY_B },
      );
      assert.match(made.output, /'up'/);
      const victimWorkspace = await workspaceIdOf(server, victim);
      const attempts = [
        `up/workspaces/${victimWorkspace}/private.csv`,
        `one/${victimWorkspace}/private.csv`,
        'up/analyst.db',
        'up/analyst.db-wal',
        'one/../analyst.db',
        `up/workspaces/${victimWorkspace}.img`,
      ];
      for (const path of attempts) {
        const response = await rawRequest(server, {
          path: `/v1/threads/${attacker}/files/${path}`,
          key: KEY_B,
        });
        assert.ok([400, 404].includes(response.status), `${path}: HTTP ${response.status}`);
        assert.ok(!response.text.includes('tenant A only'), `${path} leaked tenant A's file`);
      }
      const listing = (
        await rawRequest(server, { path: `/v1/threads/${attacker}/files`, key: KEY_B })
      ).json() as {
        data: Array<{ path: string }>;
      };
      assert.ok(
        listing.data.every((f) => !f.path.startsWith('up/') && !f.path.startsWith('one/')),
        JSON.stringify(listing.data),
      );
    });

    test('an exec sent 50 ms after DELETE starts nothing, and no container or workspace is left', async () => {
      const threadId = await offlineThread(server, KEY_A);
      await threadExec(server, threadId, 'open("x.txt", "w").write("x")\nprint("ok")', { key: KEY_A });
      const workspaceDir = await workspaceOf(server, threadId);
      const deleting = rawRequest(server, { method: 'DELETE', path: `/v1/threads/${threadId}`, key: KEY_A });
      await new Promise((r) => setTimeout(r, 50));
      const exec = await postJson(server, `/v1/threads/${threadId}/exec`, { code: 'print("late")' }, KEY_A);
      assert.ok([404, 409].includes(exec.status), `exec during delete: HTTP ${exec.status} ${exec.text}`);
      assert.equal((await deleting).status, 200);
      const instance = (server.service.deps.sandbox as DockerSandboxManager).instanceId;
      const left = (await containersOfInstance(instance)).filter((name) => name.includes(threadId));
      assert.deepEqual(left, [], 'a container is left for the deleted thread');
      await assert.rejects(stat(workspaceDir), 'the workspace mount point is gone');
      await assert.rejects(stat(`${workspaceDir}.img`), 'the workspace image is gone');
      const again = await postJson(server, `/v1/threads/${threadId}/exec`, { code: 'print(1)' }, KEY_A);
      assert.equal(again.status, 404);
    });

    test('a cell writing past the quota gets ENOSPC and the result says the quota was reached', async () => {
      const threadId = await offlineThread(server, KEY_A);
      const result = await threadExec(
        server,
        threadId,
        'try:\n    with open("big.bin", "wb") as f:\n        for _ in range(200):\n            f.write(b"x" * (1 << 20))\n    print("wrote it all")\nexcept OSError as e:\n    print("errno", e.errno)',
        { key: KEY_A },
      );
      assert.match(result.output, /errno 28/, JSON.stringify(result));
      assert.match(String(result.message), /quota is reached/);
      const cleared = await threadExec(server, threadId, 'import os\nos.remove("big.bin")\nprint("freed")', {
        key: KEY_A,
      });
      assert.equal(cleared.output, 'freed\n');
      assert.equal(cleared.message, undefined, 'the quota message stays after space is freed');
    });

    test('a thread a stateful cell leaves running does not write between cells', async () => {
      const threadId = await offlineThread(server, KEY_A);
      const code =
        'import threading, time\n' +
        'def spin():\n    while True:\n        with open("ticks.txt", "a") as f:\n            f.write("x")\n        time.sleep(0.005)\n' +
        'threading.Thread(target=spin, daemon=True).start()\ntime.sleep(0.2)\nprint("started")';
      const started = await threadExec(server, threadId, code, { key: KEY_A, stateful: true });
      assert.equal(started.output, 'started\n');
      const workspace = await server.service.deps.threads.workspace(
        await server.service.deps.threads.get(ownerOfKeyA(server), threadId),
      );
      const size = async () => (await workspace.stat('ticks.txt'))?.bytes ?? 0;
      const first = await size();
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(await size(), first, 'the thread wrote after its cell ended');
      const next = await threadExec(
        server,
        threadId,
        'import time\ntime.sleep(0.2)\nprint(len(open("ticks.txt").read()) > 0)',
        {
          key: KEY_A,
          stateful: true,
        },
      );
      assert.equal(next.output, 'True\n');
      assert.ok((await size()) > first, 'the thread runs again while the next cell runs');
    });

    test('sparse fake PNGs are not embedded and cannot stall or kill the server', async () => {
      const threadId = await offlineThread(server, KEY_A);
      // A cell run (not a bare exec) so the artifacts are recorded like any analysis's.
      const started = await postJson(
        server,
        `/v1/threads/${threadId}/runs`,
        {
          cell: {
            code: 'import os\nos.makedirs("charts", exist_ok=True)\nfor i in range(6):\n    with open(f"charts/fake-{i}.png", "wb") as f:\n        f.write(b"\\x89PNG\\r\\n\\x1a\\n")\n        f.truncate(60 * 1024 * 1024)\nprint("made")',
          },
        },
        KEY_A,
      );
      assert.equal(started.status, 201, started.text);
      const runId = (started.json() as { id: string }).id;
      await waitFor(
        async () => (await server.service.deps.store.getRun(runId))?.status !== 'running',
        'the cell run ended',
        30_000,
      );
      await server.service.deps.runs.settled();
      const events = await server.service.deps.store.runEvents(runId);
      assert.equal(events.filter((e) => e.event.type === 'artifact-created').length, 6);
      const reports = Promise.all(
        ['report?format=html', 'report?format=md', 'notebook'].map((path) =>
          rawRequest(server, { path: `/v1/threads/${threadId}/${path}`, key: KEY_A }),
        ),
      );
      const { result, slowestMs } = await healthDuring(server, reports);
      for (const response of result) assert.equal(response.status, 200, response.text.slice(0, 300));
      const [html, , notebook] = result;
      assert.ok(
        !html!.text.includes('data:image/png;base64,iVBORw0KGgoAAAAAAAAA'),
        'a fake PNG was embedded',
      );
      assert.ok(html!.body.length < 5 * 1024 * 1024, `the HTML report is ${html!.body.length} bytes`);
      assert.ok(notebook!.body.length < 5 * 1024 * 1024, `the notebook is ${notebook!.body.length} bytes`);
      assert.match(html!.text, /fake-0\.png/);
      assert.ok(slowestMs < 1000, `/health took ${Math.round(slowestMs)} ms while reports were made`);
    });

    test('a workspace of a million empty files is deleted while /health stays fast', async () => {
      const big = await startTestServer({ store, env: { ANALYST_WORKSPACE_QUOTA_FILES: '1100000' } });
      try {
        const threadId = await offlineThread(big);
        const dir = await workspaceOf(big, threadId);
        // The files are made from the host side (a cell would need several 30 s cells for them).
        await mkdir(join(dir, 'many'));
        const { spawnSync } = await import('node:child_process');
        const made = spawnSync(
          '/usr/bin/python3',
          [
            '-c',
            'import os,sys\nd=sys.argv[1]\nfor i in range(1000000):\n    os.close(os.open(f"{d}/{i}", os.O_CREAT|os.O_WRONLY, 0o644))\nprint("ok")',
            join(dir, 'many'),
          ],
          { encoding: 'utf8', timeout: 180_000 },
        );
        assert.equal(made.stdout.trim(), 'ok', made.stderr);
        const started = performance.now();
        const { result, slowestMs } = await healthDuring(
          big,
          rawRequest(big, { method: 'DELETE', path: `/v1/threads/${threadId}` }),
        );
        assert.equal(result.status, 200, result.text);
        assert.ok(slowestMs < 1000, `/health took ${Math.round(slowestMs)} ms during the delete`);
        await assert.rejects(stat(dir));
        process.stdout.write(
          `# deleted a workspace of 1,000,000 files in ${Math.round(performance.now() - started)} ms\n`,
        );
      } finally {
        await big.close();
      }
    });

    test('readiness details, host paths and client Host headers stay private', async () => {
      const anonymous = await rawRequest(server, { path: '/health/ready' });
      assert.deepEqual(Object.keys(anonymous.json()), ['status']);
      const keyed = await rawRequest(server, { path: '/health/ready', key: KEY_A });
      assert.ok('sandbox' in keyed.json());
      assert.deepEqual((await rawRequest(server, { path: '/health' })).json(), { status: 'ok' });
      const response = await rawRequest(server, {
        method: 'POST',
        path: '/v1/chat/completions',
        key: KEY_A,
        headers: { host: 'evil.example', 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'offline',
          messages: [{ role: 'user', content: 'Describe the data.' }],
        }),
      });
      assert.equal(response.status, 200, response.text);
      assert.ok(!response.text.includes('evil.example'), 'a link was made from the client Host header');
      const body = response.json() as { choices: Array<{ message: { files: Array<{ url: string }> } }> };
      for (const file of body.choices[0]!.message.files) assert.match(file.url, /^\/v1\/threads\//);
      assert.ok(!response.text.includes(server.dataDir), 'the response names the data directory');
      await waitFor(async () => !server.service.deps.runs.running, 'runs settled');
      await json(await server.fetch('/health'));
    });
  },
  { postgres: 'all' },
);

/** The owner id of KEY_A, as the server derives it. */
function ownerOfKeyA(server: TestServer): string {
  return server.service.deps.config.keys.get(sha256(KEY_A)) ?? 'local';
}
