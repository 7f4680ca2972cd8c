import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LoopWorkspaceStore } from '../../src/workspace/index.ts';
import type { Workspace } from '../../src/workspace/workspace.ts';
import { eventually } from '../helpers/eventually.ts';
import { loopDevicesUnder, mountsUnder, unmountUnder } from '../helpers/mounts.ts';

const THREADS = 100;
const IDLE_MS = 3000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function withStore(
  work: (store: LoopWorkspaceStore, root: string) => Promise<void>,
  idleUnmountMs = IDLE_MS,
): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'analyst-idle-'));
  const store = await LoopWorkspaceStore.create({
    root,
    quotaBytes: 16 * 1024 * 1024,
    quotaFiles: 2000,
    idleUnmountMs,
  });
  try {
    await work(store, root);
  } finally {
    await store.close().catch(() => {});
    await unmountUnder(root);
    await rm(root, { recursive: true, force: true });
  }
}

async function readText(workspace: Workspace, path: string): Promise<string> {
  const file = await workspace.open(path);
  try {
    return (await file.read(1024)).toString();
  } finally {
    await file.close();
  }
}

test(`${THREADS} idle workspaces give back their mounts and loop devices, and each works again on use`, async () => {
  await withStore(async (store, root) => {
    const workspaces: Workspace[] = [];
    for (let i = 0; i < THREADS; i++) {
      const workspace = await store.create();
      await workspace.write('note.txt', Buffer.from(`thread ${i}`));
      workspaces.push(workspace);
    }
    // Making them took a while: the first ones may be idle already. All in use at once:
    await Promise.all(workspaces.map((workspace) => workspace.usage()));
    assert.equal((await mountsUnder(root)).length, THREADS);
    assert.equal(loopDevicesUnder(root).length, THREADS);

    await eventually(
      async () => (await mountsUnder(root)).length === 0 && loopDevicesUnder(root).length === 0,
      'every idle workspace is unmounted and its loop device freed',
      IDLE_MS * 10,
    );
    // Through a new handle (a listing after a restart of the request) and the old one alike.
    for (const [i, workspace] of workspaces.entries()) {
      const again = i % 2 ? workspace : await store.open(workspace.id);
      assert.deepEqual(
        (await again.list()).map((entry) => entry.path),
        ['note.txt'],
      );
      assert.equal(await readText(again, 'note.txt'), `thread ${i}`);
      await again.write('second.txt', Buffer.from('again'));
    }
    await Promise.all(workspaces.map((workspace) => workspace.usage()));
    assert.equal((await mountsUnder(root)).length, THREADS);
    await store.close();
    assert.equal((await mountsUnder(root)).length, 0);
    assert.equal(loopDevicesUnder(root).length, 0);
    // Nothing was ever written beside a filesystem: each mount point is an empty directory.
    for (const workspace of workspaces) assert.deepEqual(await readdir(join(root, workspace.id)), []);
  });
});

test('a use that starts while its workspace is being unmounted waits and mounts it again', async () => {
  // 0 here: the test drives the idle unmount itself, as often as it can.
  await withStore(async (store, root) => {
    const workspace = await store.create();
    await workspace.write('keep.txt', Buffer.from('kept'));
    let unmounts = 0;
    for (let round = 0; round < 60; round++) {
      // Uses start before, during and after the unmount (its steps take a few milliseconds).
      const [, listed, written] = await Promise.all([
        store.unmountIdle(0).then((count) => {
          unmounts += count;
        }),
        sleep(round % 4).then(() => workspace.list()),
        sleep((round * 7) % 5).then(() => workspace.write(`round-${round}.txt`, Buffer.from(String(round)))),
      ]);
      assert.ok(
        listed.some((entry) => entry.path === 'keep.txt'),
        `round ${round}: the listing sees the workspace's files`,
      );
      assert.equal(written.bytes, String(round).length);
    }
    assert.ok(unmounts > 0, 'the workspace was unmounted between uses');
    await store.unmountIdle(0);
    assert.equal((await mountsUnder(root)).length, 0);
    // Every write landed in the filesystem, none in the bare mount point under it.
    assert.deepEqual(await readdir(join(root, workspace.id)), []);
    const names = (await workspace.list()).map((entry) => entry.path);
    assert.equal(names.length, 61);
  }, 0);
});

test('a listing under way keeps its workspace mounted to its end (no half listing)', async () => {
  await withStore(async (store) => {
    const workspace = await store.create();
    for (let dir = 0; dir < 40; dir++)
      for (let file = 0; file < 5; file++)
        await workspace.write(`dir-${dir}/file-${file}.txt`, Buffer.from(`${dir}/${file}`));
    let unmounts = 0;
    for (let round = 0; round < 30; round++) {
      // The walk opens and closes each directory in turn: between two, nothing holds the filesystem busy.
      const [listed] = await Promise.all([
        workspace.list(),
        sleep(round % 6).then(async () => {
          unmounts += await store.unmountIdle(0);
        }),
      ]);
      assert.equal(listed.length, 200, `round ${round}: every file listed`);
      unmounts += await store.unmountIdle(0); // the next listing mounts it again
    }
    assert.ok(unmounts > 0, 'the workspace was unmounted between listings');
  }, 0);
});

test('an open file keeps its workspace mounted', async () => {
  await withStore(async (store, root) => {
    const workspace = await store.create();
    await workspace.write('open.txt', Buffer.from('still here'));
    const file = await workspace.open('open.txt');
    try {
      assert.equal(await store.unmountIdle(0), 0);
      assert.equal((await mountsUnder(root)).length, 1);
      assert.equal((await file.read(100)).toString(), 'still here');
    } finally {
      await file.close();
    }
    assert.equal(await store.unmountIdle(0), 1);
    assert.equal(loopDevicesUnder(root).length, 0);
  }, 0);
});
