import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LoopWorkspaceStore } from '../../src/workspace/index.ts';
import { HostHelper } from '../../src/workspace/local/host-helper.ts';
import { findProgram, spawnHere } from '../../src/workspace/local/system-commands.ts';
import type { Workspace } from '../../src/workspace/workspace.ts';
import { mountsUnder } from '../helpers/mounts.ts';

const programs = { mount: findProgram('mount')!, umount: findProgram('umount')!, spawnHere };
const ENV = { PATH: '/usr/bin:/bin', LANG: 'C' };

describe('the host helper: programs and bind mounts without forking the server', () => {
  let root: string;
  let store: LoopWorkspaceStore;
  let workspace: Workspace;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'analyst-mount-calls-'));
    store = await LoopWorkspaceStore.create({
      root: join(root, 'ws'),
      quotaBytes: 16 * 1024 ** 2,
      quotaFiles: 1000,
    });
    workspace = await store.create();
    await workspace.ready();
    await writeFile(join(workspace.mount().path, 'seen.txt'), 'through the bind');
  });
  after(async () => {
    await store.destroy(workspace.id);
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  const kinds = [
    ['the python3 helper', () => new HostHelper({ ...programs, python: findProgram('python3') })],
    ['this process (no python3)', () => new HostHelper(programs)],
  ] as const;
  for (const [kind, make] of kinds) {
    test(`${kind}: a bind keeps nosymfollow, nosuid and nodev; unmount takes it away; errors are clear`, async () => {
      const calls = make();
      const slot = join(root, `slot-${kind.length}`);
      await mkdir(slot);
      try {
        assert.deepEqual(await calls.bind(workspace.mount().path, slot), {});
        const mine = (await mountsUnder(root)).find((m) => m.point === slot);
        assert.ok(mine, 'the slot is a mount point');
        for (const flag of ['nosymfollow', 'nosuid', 'nodev']) assert.ok(mine.options.includes(flag), flag);
        assert.deepEqual(await calls.unmount(slot), {});
        assert.equal(
          (await mountsUnder(root)).find((m) => m.point === slot),
          undefined,
        );
        const missing = await calls.bind(workspace.mount().path, join(root, 'no-such-dir'));
        assert.match(missing.error ?? '', /No such file or directory|does not exist/i);
        assert.ok((await calls.unmount(slot)).error, 'unmounting what is not mounted is an error');

        // Programs: exit codes and stderr, a missing program, a timeout, many at once.
        assert.deepEqual(await calls.run('/bin/sh', ['-c', 'echo "$LANG" >&2; exit 3'], ENV, 10_000), {
          code: 3,
          stderr: 'C',
        });
        const missing2 = await calls.run('/no/such/program', [], ENV, 10_000);
        assert.notEqual(missing2.code, 0);
        assert.match(missing2.stderr, /No such file|ENOENT/);
        assert.notEqual((await calls.run('/bin/sleep', ['5'], ENV, 200)).code, 0, 'timed out');
        const many = await Promise.all(
          Array.from({ length: 20 }, (_, i) => calls.run('/bin/sh', ['-c', `exit ${i}`], ENV, 10_000)),
        );
        assert.deepEqual(
          many.map((r) => r.code),
          Array.from({ length: 20 }, (_, i) => i),
        );
      } finally {
        calls.close();
      }
    });
  }

  test('a helper that dies mid-way: its calls and the next ones are made by the programs', async () => {
    const calls = new HostHelper({ ...programs, python: findProgram('python3') });
    const slot = join(root, 'slot-dies');
    await mkdir(slot);
    calls.start();
    const helper = (calls as unknown as { helper: { kill: (s: string) => void } }).helper;
    helper.kill('SIGKILL');
    const outcome = await calls.bind(workspace.mount().path, slot);
    assert.deepEqual(outcome, {});
    assert.deepEqual(await calls.unmount(slot), {});
    calls.close();
  });
});
