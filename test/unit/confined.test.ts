import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { InvalidInputError, NotFoundError } from '../../src/errors/index.ts';
import {
  listWorkspaceFiles,
  readWorkspaceFile,
  workspacePathParts,
} from '../../src/sandbox/workspace/confined.ts';

describe('host-side workspace access', () => {
  let root: string;
  let workspace: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'analyst-confined-'));
    workspace = join(root, 'ws');
    await mkdir(join(workspace, 'sub'), { recursive: true });
    await writeFile(join(workspace, 'sales.csv'), 'a,b\n1,2\n');
    await writeFile(join(workspace, 'sub', 'chart.png'), 'png');
    await writeFile(join(root, 'outside.txt'), 'secret');
    await symlink('/etc/passwd', join(workspace, 'passwd'));
    await symlink(root, join(workspace, 'escape'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  test('reads regular files, also in subdirectories', async () => {
    assert.equal((await readWorkspaceFile(workspace, 'sales.csv')).toString(), 'a,b\n1,2\n');
    assert.equal((await readWorkspaceFile(workspace, 'sub/chart.png')).toString(), 'png');
  });
  test('a symlink to /etc/passwd is never followed', async () => {
    await assert.rejects(readWorkspaceFile(workspace, 'passwd'), InvalidInputError);
  });
  test('a symlinked directory is never walked through', async () => {
    await assert.rejects(readWorkspaceFile(workspace, 'escape/outside.txt'), InvalidInputError);
  });
  for (const path of ['../outside.txt', 'sub/../../outside.txt', '/etc/passwd', 'C:\\x', 'a\0b', '']) {
    test(`path ${JSON.stringify(path)} is refused`, async () => {
      await assert.rejects(readWorkspaceFile(workspace, path), InvalidInputError);
    });
  }
  test('missing files are not found', async () => {
    await assert.rejects(readWorkspaceFile(workspace, 'nope.csv'), NotFoundError);
    await assert.rejects(readWorkspaceFile(workspace, 'sub'), NotFoundError);
  });
  test('listing skips symlinks and walks real directories', async () => {
    const paths = (await listWorkspaceFiles(workspace)).map((e) => e.path);
    assert.deepEqual(paths, ['sales.csv', 'sub/chart.png']);
    assert.deepEqual(
      (await listWorkspaceFiles(workspace, { topLevelOnly: true })).map((e) => e.path),
      ['sales.csv'],
    );
  });
  test('path parts are normalised', () =>
    assert.deepEqual(workspacePathParts('./a//b/c.txt'), ['a', 'b', 'c.txt']));
});
