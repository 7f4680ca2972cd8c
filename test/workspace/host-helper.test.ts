import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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

  for (const [kind, make] of kinds) {
    test(`${kind}: a loop mount has its flags and its own loop device, gone with the unmount; errors are clear`, async () => {
      const calls = make();
      const image = join(root, `loop-${kind.length}.img`);
      const point = join(root, `loop-${kind.length}`);
      await mkdir(point);
      execFileSync('truncate', ['-s', '16M', image]);
      execFileSync('mkfs.ext4', ['-q', '-F', '-N', '1000', image]);
      const devicesBefore = loopDevicesOn(image);
      try {
        const many = await Promise.all(
          Array.from({ length: 8 }, async (_, i) => {
            const each = join(root, `many-${kind.length}-${i}`);
            await mkdir(each);
            execFileSync('cp', ['--sparse=always', image, `${each}.img`]);
            return { each, outcome: await calls.mountLoop(`${each}.img`, each, ['nosuid', 'nodev']) };
          }),
        );
        for (const { outcome } of many) assert.deepEqual(outcome, {});
        assert.equal(
          new Set(many.map(({ each }) => loopDevicesOn(`${each}.img`)[0])).size,
          8,
          'a device each',
        );
        for (const { each } of many) assert.deepEqual(await calls.unmount(each), {});

        assert.deepEqual(
          await calls.mountLoop(image, point, ['nosuid', 'nodev', 'nosymfollow', 'noatime']),
          {},
        );
        const mine = (await mountsUnder(root)).find((m) => m.point === point);
        assert.ok(mine, 'the image is mounted');
        for (const flag of ['nosymfollow', 'nosuid', 'nodev', 'noatime'])
          assert.ok(mine.options.includes(flag), flag);
        await writeFile(join(point, 'kept.txt'), 'on the image');
        assert.equal(loopDevicesOn(image).length, devicesBefore.length + 1, 'one loop device on the image');
        assert.deepEqual(await calls.unmount(point), {});
        assert.deepEqual(loopDevicesOn(image), devicesBefore, 'the loop device went with the unmount');

        const missing = await calls.mountLoop(join(root, 'no-such.img'), point, ['nosuid']);
        assert.match(missing.error ?? '', /No such file|does not exist|failed to setup loop device/i);
        await writeFile(join(root, 'not-ext4.img'), Buffer.alloc(1024 * 1024));
        assert.ok(
          (await calls.mountLoop(join(root, 'not-ext4.img'), point, ['nosuid'])).error,
          'not a filesystem',
        );
        assert.equal(
          (await mountsUnder(root)).find((m) => m.point === point),
          undefined,
          'a failed mount leaves nothing mounted',
        );
        assert.deepEqual(loopDevicesOn(join(root, 'not-ext4.img')), [], 'nor a loop device');
        // What was written is on the image: mounted again (on a mount point made for it), it is there.
        const made = join(root, `made-${kind.length}`);
        assert.deepEqual(await calls.mountLoop(image, made, ['nosuid']), {});
        assert.equal(await readFile(join(made, 'kept.txt'), 'utf8'), 'on the image');
        assert.deepEqual(await calls.unmount(made), {});
      } finally {
        calls.close();
      }
    });
  }

  test('a helper for work that may wait runs at the lowest CPU priority, and what it starts too', async () => {
    const niceOf = async (calls: HostHelper) => {
      const out = join(root, `nice-${Math.random()}`);
      const result = await calls.run(
        '/bin/sh',
        ['-c', `cut -d' ' -f19 /proc/self/stat > ${out}`],
        ENV,
        10_000,
      );
      assert.equal(result.code, 0, result.stderr);
      return Number((await readFile(out, 'utf8')).trim());
    };
    const background = new HostHelper({ ...programs, python: findProgram('python3'), niceness: 19 });
    const normal = new HostHelper({ ...programs, python: findProgram('python3') });
    try {
      assert.equal(await niceOf(background), 19);
      assert.equal(await niceOf(normal), 0);
    } finally {
      background.close();
      normal.close();
    }
  });

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

/** The loop devices whose backing file is `image` (from `losetup -j`). */
function loopDevicesOn(image: string): string[] {
  return execFileSync('losetup', ['-j', image], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(':')[0]!);
}
