import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigurationError, NotFoundError } from '../../src/errors/index.ts';
import { serveWorkspaceHelper } from '../../src/workspace/helper/helper-server.ts';
import { HelperWorkspaceStore } from '../../src/workspace/helper/helper-store.ts';
import { LoopWorkspaceStore } from '../../src/workspace/index.ts';
import { mountPoints } from '../../src/workspace/local/system-commands.ts';

/**
 * The workspace helper of the container set-up, here on the host as root with real loop
 * mounts: the unprivileged server's store asks it for workspaces by id and nothing else,
 * and never hands out a workspace whose mount it cannot see.
 */
describe('analyst workspace-helper and HelperWorkspaceStore', { timeout: 120_000 }, () => {
  let dir: string;
  let root: string;
  let socketPath: string;
  let loop: LoopWorkspaceStore;
  let helper: { close(): Promise<void> };

  before(async () => {
    dir = await mkdtemp('/var/tmp/analyst-helper-test-');
    root = join(dir, 'workspaces');
    socketPath = join(dir, 'helper.sock');
    loop = await LoopWorkspaceStore.create({ root, quotaBytes: 16 * 1024 * 1024, quotaFiles: 1000 });
    helper = await serveWorkspaceHelper({ store: loop, socketPath, clientUid: 65534 });
  });

  after(async () => {
    await helper?.close();
    await loop?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the socket is the client uid’s alone', async () => {
    const info = await stat(socketPath);
    assert.equal(info.uid, 65534);
    assert.equal(info.mode & 0o777, 0o600);
  });

  test('create, write, open, destroy: real nosymfollow mounts, made by the helper', async () => {
    const store = await HelperWorkspaceStore.connect({ socketPath, root });
    try {
      const workspace = await store.create();
      const point = join(root, workspace.id);
      assert.ok((await mountPoints()).has(point));
      await workspace.write('a.txt', Buffer.from('hello'));
      const again = await store.open(workspace.id);
      assert.deepEqual(
        (await again.list()).map((entry) => entry.path),
        ['a.txt'],
      );
      await store.destroy(workspace.id);
      assert.ok(!(await mountPoints()).has(point), 'unmounted');
      assert.ok(!existsSync(join(root, `${workspace.id}.img`)), 'image removed');
      await assert.rejects(store.open(workspace.id), NotFoundError);
      await assert.rejects(store.open('../../etc'), NotFoundError);
    } finally {
      await store.close();
    }
  });

  test('requests that are not a workspace id are refused; an endless line drops the peer', async () => {
    const ask = async (line: string): Promise<{ ok: boolean; error?: { code: string } }> => {
      const socket = connect(socketPath);
      socket.write(`${line}\n`);
      const [reply] = await Promise.all([
        new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(chunk.toString()))),
      ]);
      socket.destroy();
      return JSON.parse(reply);
    };
    for (const line of [
      '{"id":1,"op":"open","workspace":"../../etc"}',
      '{"id":2,"op":"destroy","workspace":"/"}',
      '{"id":3,"op":"mount","path":"/etc"}',
      '{"id":4,"op":"create","path":"/tmp/x"}',
      'not json',
    ]) {
      const reply = await ask(line);
      assert.equal(reply.ok, false, line);
      assert.equal(reply.error?.code, 'invalid_request', line);
    }
    const socket = connect(socketPath);
    socket.write('x'.repeat(10_000));
    await new Promise((resolve) => socket.once('close', resolve));
  });

  test('a store that cannot see the helper’s mounts refuses, and leaves nothing mounted', async () => {
    const before = [...(await mountPoints())].filter((path) => path.startsWith(root));
    await assert.rejects(
      HelperWorkspaceStore.connect({ socketPath, root: join(dir, 'elsewhere') }),
      (error: Error) => error instanceof ConfigurationError && /does not see the mount/.test(error.message),
    );
    const left = [...(await mountPoints())].filter((path) => path.startsWith(root));
    assert.deepEqual(left, before);
  });

  test('no helper at the socket: a ConfigurationError that says what to do', async () => {
    await assert.rejects(
      HelperWorkspaceStore.connect({ socketPath: join(dir, 'none.sock'), root }),
      (error: Error) => error instanceof ConfigurationError && /ANALYST_WORKSPACE_HELPER/.test(error.message),
    );
  });
});
