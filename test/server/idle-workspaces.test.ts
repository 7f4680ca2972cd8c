import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { loopDevicesUnder, mountsUnder } from '../helpers/mounts.ts';
import { startTestServer, type TestServer } from './helpers.ts';

/**
 * Issue 29 finding 11: idle workspaces hold no kernel resources. With a short
 * ANALYST_WORKSPACE_IDLE_UNMOUNT_MS, 100 threads' workspace mounts and loop devices go once
 * they are left alone, and every thread still answers afterwards: uploads and listings mount
 * its workspace again, and so does a cell.
 */
const THREADS = 100;
const IDLE_MS = 2000;

let server: TestServer;
const threads: string[] = [];

before(async () => {
  server = await startTestServer({
    env: { ANALYST_WORKSPACE_IDLE_UNMOUNT_MS: String(IDLE_MS), ANALYST_WORKSPACE_SPARES: '0' },
  });
});
after(async () => {
  await server.close();
});

const workspacesDir = () => join(server.dataDir, 'workspaces');

async function upload(threadId: string, name: string, content: string): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([content]), name);
  const response = await fetch(`${server.url}/v1/threads/${threadId}/files`, { method: 'POST', body: form });
  assert.equal(response.status, 200, await response.clone().text());
}

async function fileNames(threadId: string): Promise<string[]> {
  const response = await fetch(`${server.url}/v1/threads/${threadId}/files`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as {
    data: Array<{ filename?: string; name?: string; path?: string }>;
  };
  return body.data.map((f) => f.path ?? f.filename ?? f.name ?? '').sort();
}

test(`${THREADS} threads left alone give back their mounts and loop devices`, async () => {
  for (let i = 0; i < THREADS; i++) {
    const response = await fetch(`${server.url}/v1/threads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: `t${i}` }),
    });
    assert.equal(response.status, 201);
    const id = ((await response.json()) as { id: string }).id;
    await upload(id, 'note.csv', `thread,${i}\n`);
    threads.push(id);
  }
  assert.ok((await mountsUnder(workspacesDir())).length > 0, 'workspaces are mounted while used');
  await eventually(
    async () =>
      (await mountsUnder(workspacesDir())).length === 0 && loopDevicesUnder(server.dataDir).length === 0,
    'every idle workspace unmounted and its loop device freed',
    IDLE_MS * 15,
  );
});

test('each thread still works after its workspace was unmounted', async () => {
  assert.equal(threads.length, THREADS);
  for (const [i, id] of threads.entries()) {
    assert.deepEqual(await fileNames(id), ['note.csv'], `thread ${i} lists its upload`);
    await upload(id, 'more.csv', 'x\n');
  }
  // A cell on a workspace that was unmounted: mounted again before the sandbox binds it.
  await eventually(
    async () => (await mountsUnder(workspacesDir())).length === 0,
    'the workspaces idle again',
    IDLE_MS * 15,
  );
  for (const id of threads.slice(0, 2)) {
    const response = await fetch(`${server.url}/v1/threads/${id}/exec`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'print(open("note.csv").read().strip())' }),
    });
    const result = (await response.json()) as { status: string; output?: string; stdout?: string };
    assert.equal(response.status, 200, JSON.stringify(result));
    assert.equal(result.status, 'ok', JSON.stringify(result));
    assert.match(JSON.stringify(result), /thread,\d+/);
  }
});
