import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { InvalidInputError, NotFoundError, PayloadTooLargeError } from '../../src/errors/index.ts';
import {
  LoopWorkspaceStore,
  WorkspaceFileExistsError,
  workspacePathParts,
} from '../../src/workspace/index.ts';
import type { Workspace } from '../../src/workspace/workspace.ts';
import { mountsUnder } from '../helpers/mounts.ts';

describe('a loop-mounted workspace, from the host side', () => {
  let root: string;
  let store: LoopWorkspaceStore;
  let workspace: Workspace;
  let dir: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'analyst-ws-test-'));
    store = await LoopWorkspaceStore.create({ root, quotaBytes: 16 * 1024 * 1024, quotaFiles: 2000 });
    workspace = await store.create();
    dir = workspace.mount().path;
    await mkdir(join(dir, 'sub'), { recursive: true });
    await writeFile(join(dir, 'sales.csv'), 'a,b\n1,2\n');
    await writeFile(join(dir, 'sub', 'chart.png'), 'png');
    await writeFile(join(root, 'outside.txt'), 'secret');
    await symlink('/etc/passwd', join(dir, 'passwd'));
    await symlink(root, join(dir, 'escape'));
    await symlink('..', join(dir, 'up'));
  });
  after(async () => {
    await store.destroy(workspace.id);
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  const read = async (path: string) => (await workspace.open(path)).read(1 << 20);

  test('reads regular files, also in subdirectories', async () => {
    assert.equal((await read('sales.csv')).toString(), 'a,b\n1,2\n');
    assert.equal((await read('sub/chart.png')).toString(), 'png');
  });
  test('a symlink to /etc/passwd is never followed', async () => {
    await assert.rejects(read('passwd'), InvalidInputError);
  });
  test('a symlinked directory is never walked through, absolute or relative', async () => {
    await assert.rejects(read('escape/outside.txt'), InvalidInputError);
    await assert.rejects(read('up/outside.txt'), InvalidInputError);
  });
  for (const path of ['../outside.txt', 'sub/../../outside.txt', '/etc/passwd', 'C:\\x', 'a\0b', '']) {
    test(`path ${JSON.stringify(path)} is refused`, async () => {
      await assert.rejects(read(path), InvalidInputError);
    });
  }
  test('missing files are not found', async () => {
    await assert.rejects(read('nope.csv'), NotFoundError);
    await assert.rejects(read('sub'), NotFoundError);
  });
  test('listing skips symlinks and walks real directories', async () => {
    assert.deepEqual(
      (await workspace.list()).map((e) => e.path),
      ['sales.csv', 'sub/chart.png'],
    );
    assert.deepEqual(
      (await workspace.list({ topLevelOnly: true })).map((e) => e.path),
      ['sales.csv'],
    );
  });
  test('writes never go through a symlink; exclusive writes refuse what exists', async () => {
    // A symlink where a directory goes is replaced by a real directory, never walked through.
    await workspace.write('escape/planted.txt', Buffer.from('x'));
    await workspace.write('up/planted.txt', Buffer.from('y'));
    await assert.rejects(stat(join(root, 'planted.txt')), { code: 'ENOENT' });
    assert.equal((await read('escape/planted.txt')).toString(), 'x');
    assert.equal((await read('up/planted.txt')).toString(), 'y');
    await workspace.write('passwd', Buffer.from('mine'));
    assert.equal((await read('passwd')).toString(), 'mine', 'the link was replaced, not followed');
    await assert.rejects(
      workspace.write('sales.csv', Buffer.from('x'), { exclusive: true }),
      WorkspaceFileExistsError,
    );
    await workspace.write('new/deep/file.txt', Buffer.from('made'));
    assert.equal((await read('new/deep/file.txt')).toString(), 'made');
  });
  test('the quota is the filesystem: a write past it is refused with a clear error', async () => {
    const big = Buffer.alloc(4 * 1024 * 1024, 1);
    await assert.rejects(async () => {
      for (let i = 0; i < 10; i++) await workspace.write(`fill-${i}.bin`, big);
    }, PayloadTooLargeError);
    const usage = await workspace.usage();
    assert.ok(usage.quotaBytes !== null && usage.quotaBytes < 40 * 1024 * 1024, JSON.stringify(usage));
    for (let i = 0; i < 10; i++) await workspace.remove(`fill-${i}.bin`);
  });
  test('a workspace is its own mount with nosymfollow, nosuid and nodev', async () => {
    const mounts = await mountsUnder(root);
    const mine = mounts.find((m) => m.point === dir);
    assert.ok(mine, `no mount at ${dir}: ${JSON.stringify(mounts)}`);
    for (const option of ['nosymfollow', 'nosuid', 'nodev']) assert.ok(mine.options.includes(option), option);
  });
  test('path parts are normalised', () =>
    assert.deepEqual(workspacePathParts('./a//b/c.txt'), ['a', 'b', 'c.txt']));
});
