import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rm, stat, statfs, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { QuietTime } from '../../src/background/quiet-time.ts';
import { InvalidInputError, NotFoundError, PayloadTooLargeError } from '../../src/errors/index.ts';
import {
  LoopWorkspaceStore,
  SANDBOX_UID,
  WorkspaceFileExistsError,
  WorkspaceUnavailableError,
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
    await workspace.ready();
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
  test('a write replaces a file whole: readers and listings never see it half written (issue 31)', async () => {
    await workspace.write('reports/report.html', Buffer.from('old report'));
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const body = Readable.from(
      (async function* () {
        yield Buffer.from('new ');
        await held;
        yield Buffer.from('report, longer');
      })(),
    );
    const writing = workspace.write('reports/report.html', body);
    await new Promise((r) => setTimeout(r, 200)); // the first chunk is written, the rest held
    const during = await workspace.list();
    const listed = during.find((f) => f.path === 'reports/report.html');
    assert.equal(listed?.bytes, 'old report'.length, 'the old file is listed whole meanwhile');
    assert.equal((await read('reports/report.html')).toString(), 'old report');
    assert.deepEqual(
      during.filter((f) => f.path.startsWith('reports/')).map((f) => f.path),
      ['reports/report.html'],
      'no partial file is listed',
    );
    release();
    assert.equal((await writing).bytes, 'new report, longer'.length);
    assert.equal((await read('reports/report.html')).toString(), 'new report, longer');
    assert.deepEqual(await readdir(join(dir, 'reports')), ['report.html'], 'no partial file is left');
    // A write that fails part way leaves the old file and no partial one.
    const broken = Readable.from(
      (async function* () {
        yield Buffer.from('half');
        throw new Error('the source broke');
      })(),
    );
    await assert.rejects(workspace.write('reports/report.html', broken));
    assert.equal((await read('reports/report.html')).toString(), 'new report, longer');
    assert.deepEqual(await readdir(join(dir, 'reports')), ['report.html']);
    await workspace.remove('reports');
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

describe('a new loop workspace is made in the background', () => {
  test('create() answers at once; every method waits for the filesystem; destroy while making leaves nothing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'analyst-ws-pending-'));
    const store = await LoopWorkspaceStore.create({ root, quotaBytes: 16 * 1024 * 1024, quotaFiles: 2000 });
    try {
      const workspace = await store.create();
      assert.throws(() => workspace.mount(), /not ready: await ready\(\) before mount\(\)/);
      // Nothing written yet: a new filesystem is empty, so a listing need not wait for it.
      assert.deepEqual(await workspace.list(), []);
      assert.equal(await workspace.stat('early.txt'), undefined);
      assert.throws(() => workspace.mount(), /not ready/, 'and they did not wait for the filesystem');
      assert.equal(await store.open(workspace.id), workspace, 'open finds the workspace being made');
      await workspace.write('early.txt', Buffer.from('written before the mount existed'));
      await workspace.ready();
      const { path } = workspace.mount();
      assert.ok(
        (await mountsUnder(root)).some((m) => m.point === path),
        'the write waited for the filesystem: it is mounted',
      );
      assert.equal((await (await store.open(workspace.id)).open('early.txt')).bytes, 32);
      const doomed = await store.create();
      await store.destroy(doomed.id);
      await assert.rejects(stat(join(root, `${doomed.id}.img`)), { code: 'ENOENT' });
      assert.ok(
        !(await mountsUnder(root)).some((m) => m.point.endsWith(doomed.id)),
        'nothing of it is mounted',
      );
      await store.destroy(workspace.id);
    } finally {
      await store.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('a closed loop workspace store', () => {
  test('mounts nothing again: work that outlives close (a late report) gets a clear error', async () => {
    const root = await mkdtemp(join(tmpdir(), 'analyst-ws-closed-'));
    const store = await LoopWorkspaceStore.create({ root, quotaBytes: 16 * 1024 * 1024, quotaFiles: 2000 });
    const workspace = await store.create();
    await workspace.ready();
    await store.close();
    try {
      assert.deepEqual(await mountsUnder(root), [], 'close unmounted it');
      await assert.rejects(store.open(workspace.id), WorkspaceUnavailableError);
      await assert.rejects(store.create(), /workspace store is closed/);
      assert.deepEqual(await mountsUnder(root), [], 'and nothing was mounted again');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('loop workspaces copied from one formatted template', () => {
  /** The ext4 UUID in an image's superblock (1024 + 104): mkfs makes a new one each time. */
  const uuidOf = async (image: string) => {
    const handle = await open(image, 'r');
    try {
      const { buffer } = await handle.read(Buffer.alloc(16), 0, 16, 1024 + 104);
      return buffer.toString('hex');
    } finally {
      await handle.close();
    }
  };

  test('each is the same empty filesystem with its quota, sparse, and its own; the template goes at close', async () => {
    const root = await mkdtemp(join(tmpdir(), 'analyst-ws-template-'));
    const store = await LoopWorkspaceStore.create({ root, quotaBytes: 16 * 1024 * 1024, quotaFiles: 2000 });
    try {
      const [a, b] = [await store.create(), await store.create()];
      await Promise.all([a.ready(), b.ready()]);
      const templates = (await readdir(root)).filter((n) => n.startsWith('.template-'));
      assert.equal(templates.length, 1, 'one template');
      const images = [a, b].map((w) => join(root, `${w.id}.img`));
      const uuids = await Promise.all([...images, join(root, templates[0]!)].map(uuidOf));
      assert.equal(new Set(uuids).size, 1, 'copies of the template, not formatted one by one');
      // The template has no lost+found (no copy has one to remove), and fsck finds nothing wrong.
      const fsck = spawnSync('e2fsck', ['-fn', join(root, templates[0]!)], { encoding: 'utf8' });
      assert.equal(fsck.status, 0, fsck.stdout + fsck.stderr);
      for (const [i, workspace] of [a, b].entries()) {
        const point = join(root, workspace.id);
        const fs = await statfs(point);
        assert.ok(
          fs.files >= 1900 && fs.files < 4000,
          `${fs.files} inodes (2000 asked; ext4 rounds per group)`,
        );
        assert.ok(fs.blocks * fs.bsize >= 15 * 1024 * 1024, `${fs.blocks * fs.bsize} bytes`);
        assert.deepEqual(await readdir(point), [], 'empty');
        assert.equal((await stat(point)).uid, SANDBOX_UID, "the sandbox user's");
        const image = await stat(images[i]!);
        assert.ok(image.blocks * 512 < image.size / 4, 'the holes stayed holes');
      }
      await a.write('only-a.txt', Buffer.from('a'));
      assert.deepEqual(await b.list(), [], 'one write, one workspace');
      await Promise.all([a, b].map((w) => store.destroy(w.id)));
      await store.close();
      assert.deepEqual(
        (await readdir(root)).filter((n) => n.startsWith('.template-')),
        [],
        'close removes the template',
      );
    } finally {
      await store.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  test('a template a killed process left is removed at start, a live one’s stays', async () => {
    const root = await mkdtemp(join(tmpdir(), 'analyst-ws-template-'));
    // Named after a process that has exited; a live process's template (this one's) stays.
    const dead = spawnSync('true').pid;
    await writeFile(join(root, `.template-${dead}-abc.img`), 'left behind');
    await writeFile(join(root, `.template-${process.pid}-abc.img`), 'a live replica’s');
    const store = await LoopWorkspaceStore.create({ root, quotaBytes: 16 * 1024 * 1024, quotaFiles: 2000 });
    try {
      assert.ok(!existsSync(join(root, `.template-${dead}-abc.img`)));
      assert.ok(existsSync(join(root, `.template-${process.pid}-abc.img`)));
    } finally {
      await store.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('spare loop workspaces made ahead of demand', () => {
  const waitFor = async (check: () => Promise<boolean>) => {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      assert.ok(Date.now() < deadline, 'timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const spareMarkers = async (root: string) => (await readdir(root)).filter((n) => n.endsWith('.spare'));
  const smallStore = (
    root: string,
    options: { spares?: number; shared?: boolean; spareRefillDelayMs?: number },
  ) => LoopWorkspaceStore.create({ root, quotaBytes: 16 * 1024 * 1024, quotaFiles: 2000, ...options });

  test('a new workspace is a mounted spare, unmarked; spares are refilled, and destroyed at close', async () => {
    const root = await mkdtemp(join(tmpdir(), 'analyst-ws-spares-'));
    const store = await smallStore(root, { spares: 2 });
    try {
      await waitFor(async () => (await mountsUnder(root)).length === 2);
      assert.equal((await spareMarkers(root)).length, 2);
      const workspace = await store.create();
      // Ready at once: no pending filesystem, the mount is usable now.
      const { path } = workspace.mount();
      assert.ok((await mountsUnder(root)).some((m) => m.point === path));
      assert.ok(
        !(await spareMarkers(root)).includes(`${workspace.id}.spare`),
        'handed out: no longer a spare',
      );
      await workspace.write('a.txt', Buffer.from('x'));
      await waitFor(async () => (await spareMarkers(root)).length === 2);
      await waitFor(async () => (await mountsUnder(root)).length === 3);
      await store.destroy(workspace.id);
    } finally {
      await store.close();
    }
    assert.deepEqual(await mountsUnder(root), [], 'close unmounts the spares');
    assert.deepEqual(
      (await readdir(root)).filter((n) => /\.(img|spare)$/.test(n)),
      [],
      'and removes their images and markers',
    );
    await rm(root, { recursive: true, force: true });
  });

  test('a spare is made again after a pause while another is left, at once when none is', async () => {
    const root = await mkdtemp(join(tmpdir(), 'analyst-ws-spares-'));
    const store = await smallStore(root, { spares: 2, spareRefillDelayMs: 400 });
    try {
      // Marked when begun, ready once mounted: both made (a mount alone is not yet ready).
      await waitFor(async () => store.sparesReady === 2);
      assert.equal((await mountsUnder(root)).length, 2);
      const first = await store.create();
      assert.equal((await spareMarkers(root)).length, 1, 'no mkfs next to the first cell');
      await new Promise((r) => setTimeout(r, 150));
      assert.equal((await spareMarkers(root)).length, 1, 'still waiting');
      await waitFor(async () => store.sparesReady === 2);
      assert.equal((await mountsUnder(root)).length, 3);
      const second = await store.create();
      const third = await store.create();
      assert.equal(
        (await spareMarkers(root)).length,
        2,
        'the last spare taken: both are being made again at once',
      );
      for (const w of [first, second, third]) await store.destroy(w.id);
    } finally {
      await store.close();
    }
    await rm(root, { recursive: true, force: true });
  });

  test("with the server's quiet time, a spare is made again once the run that took one has ended", async () => {
    const root = await mkdtemp(join(tmpdir(), 'analyst-ws-spares-'));
    const quiet = new QuietTime({ settleMs: 20 });
    const store = await LoopWorkspaceStore.create({
      root,
      quotaBytes: 16 * 1024 * 1024,
      quotaFiles: 2000,
      spares: 2,
      quiet,
    });
    try {
      await waitFor(async () => store.sparesReady === 2);
      const endRun = quiet.begin(); // a run goes on (the new thread's, or another's)
      const first = await store.create();
      await new Promise((r) => setTimeout(r, 300)); // well past the settle time
      assert.equal((await spareMarkers(root)).length, 1, 'no image copy or mount beside the run');
      endRun();
      await waitFor(async () => store.sparesReady === 2);
      await store.destroy(first.id);
    } finally {
      await store.close();
    }
    await rm(root, { recursive: true, force: true });
  });

  test('spares a killed process left are destroyed at start; the workspaces it handed out stay', async () => {
    const root = await mkdtemp(join(tmpdir(), 'analyst-ws-spares-'));
    const first = await smallStore(root, { spares: 2 });
    await waitFor(
      async () => (await spareMarkers(root)).length === 2 && (await mountsUnder(root)).length === 2,
    );
    const kept = await first.create();
    await kept.write('keep.txt', Buffer.from('mine'));
    await waitFor(async () => (await mountsUnder(root)).length === 3);
    const left = (await spareMarkers(root)).map((n) => n.replace('.spare', ''));
    // As if the process died: nothing closed, everything still mounted.
    const second = await smallStore(root, {});
    try {
      for (const id of left)
        assert.ok(!existsSync(join(root, `${id}.img`)), `leftover spare ${id} destroyed`);
      assert.deepEqual(await spareMarkers(root), []);
      const again = await second.open(kept.id);
      assert.equal((await (await again.open('keep.txt')).read(100)).toString(), 'mine');
      await second.destroy(kept.id);
    } finally {
      await second.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  test('a shared store (replicas) keeps no spares', async () => {
    const root = await mkdtemp(join(tmpdir(), 'analyst-ws-spares-'));
    const store = await smallStore(root, { spares: 2, shared: true });
    try {
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(await spareMarkers(root), []);
      assert.deepEqual(await mountsUnder(root), []);
    } finally {
      await store.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
