import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, readlink, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { unzipSync } from 'fflate';
import { WorkspaceExports } from '../../src/server/services/zip-export.ts';
import { DirectoryWorkspaceStore } from '../../src/workspace/local/directory-workspace-store.ts';
import type { Workspace } from '../../src/workspace/workspace.ts';
import { eventually } from '../helpers/eventually.ts';

/**
 * Exports are made on worker threads (issue 29: no main-thread step costs more than a few
 * milliseconds whatever the data): the server's thread opens the files and hands their
 * descriptors over. Real files in a real directory workspace, real worker threads.
 */

const MiB = 1024 * 1024;

async function readAll(stream: Readable): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** This process's descriptors open on files under `dir`. */
async function openUnder(dir: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target.startsWith(`${dir}/`)) count += 1;
  }
  return count;
}

/** The nice value of each of this process's threads, by thread id. */
async function threadNiceness(): Promise<Map<number, number>> {
  const nice = new Map<number, number>();
  for (const tid of await readdir('/proc/self/task')) {
    const stat = await readFile(`/proc/self/task/${tid}/stat`, 'utf8').catch(() => '');
    // Fields after the command's closing parenthesis; nice is field 19 of stat(5).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.length > 16) nice.set(Number(tid), Number(fields[16]));
  }
  return nice;
}

describe('ZIP exports on worker threads', () => {
  let root: string;
  let store: DirectoryWorkspaceStore;
  const exportsMade: WorkspaceExports[] = [];
  const exportsOf = (options: ConstructorParameters<typeof WorkspaceExports>[0]) => {
    const made = new WorkspaceExports(options);
    exportsMade.push(made);
    return made;
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'analyst-zip-'));
    store = new DirectoryWorkspaceStore(root);
  });
  after(async () => {
    await Promise.all(exportsMade.map((e) => e.close()));
    await rm(root, { recursive: true, force: true });
  });

  const workspaceWith = async (files: Record<string, Uint8Array | string>): Promise<Workspace> => {
    const workspace = await store.create();
    for (const [path, data] of Object.entries(files)) await workspace.write(path, Buffer.from(data));
    return workspace;
  };

  test('the archive holds every file byte for byte, deflated or stored, made off the main thread', async () => {
    const files = {
      'random.bin': randomBytes(3 * MiB),
      'table.csv': 'region,sales\n'.concat('north,1\nsouth,2\n'.repeat(200_000)),
      'empty.txt': '',
      'a/b/c/notes.md': '# deep\n',
      'picture.png': randomBytes(100_000),
      '数据/销售.csv': '城市,销售额\n北京,1\n',
    };
    const workspace = await workspaceWith(files);
    const exports = exportsOf({});
    const archive = await readAll(await exports.zip('key-a', workspace));
    const unzipped = unzipSync(archive);
    assert.deepEqual(Object.keys(unzipped).sort(), Object.keys(files).sort());
    for (const [path, data] of Object.entries(files)) {
      assert.ok(Buffer.from(unzipped[path]!).equals(Buffer.from(data)), `${path} differs`);
    }
    // Deflated: the text shrank; the random bytes and the PNG did not grow beyond their size.
    assert.ok(archive.length < 3 * MiB + 100_000 + 1_000_000, `${archive.length} bytes`);
    assert.equal(exports.threadCounts().started, 1);
    // The archive thread runs at background priority; the process's own thread does not.
    const nice = await threadNiceness();
    assert.equal(nice.get(process.pid), 0);
    assert.ok([...nice.values()].includes(10), `threads' nice values: ${[...nice.values()]}`);
    assert.equal(
      exports.bytesRead,
      Object.values(files).reduce((n, d) => n + Buffer.from(d).length, 0),
    );
    await eventually(
      async () => (await openUnder(root)) === 0,
      'every file descriptor the export opened is closed',
    );
  });

  test('a file that shrinks while it is exported cuts the archive; nothing stays open', async () => {
    const workspace = await workspaceWith({ 'a.txt': 'a', 'big.bin': randomBytes(48 * MiB) });
    const exports = exportsOf({});
    const stream = await exports.zip('key-a', workspace);
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    await truncate(join(workspace.mount().path, 'big.bin'), MiB);
    await assert.rejects(
      (async () => {
        for (;;) if ((await iterator.next()).done) break;
      })(),
      /unexpected number of bytes|expected|size/i,
    );
    await eventually(() => exports.counts().running === 0, 'the export left its slot');
    await eventually(
      async () => (await openUnder(root)) === 0,
      'every file descriptor the export opened is closed',
    );
    // The thread serves the next export.
    const next = unzipSync(await readAll(await exports.zip('key-a', await workspaceWith({ 'x.txt': 'x' }))));
    assert.deepEqual(Object.keys(next), ['x.txt']);
    assert.equal(exports.threadCounts().started, 1);
  });

  test('a client that stops reading is ended at the stall limit and its thread is freed', async () => {
    const workspace = await workspaceWith({ 'r.bin': randomBytes(32 * MiB) });
    const exports = exportsOf({ stallTimeoutMs: 300, slots: 1 });
    // Nothing else keeps this process's event loop alive while the export waits for its client.
    const alive = setInterval(() => {}, 1000);
    after(() => clearInterval(alive));
    const stream = await exports.zip('key-a', workspace);
    stream.once('readable', () => stream.read(1));
    const failed = new Promise<Error>((resolve) => stream.once('error', resolve));
    assert.match((await failed).message, /took nothing for 0.3 s/);
    await eventually(() => exports.counts().running === 0, 'the export left its slot');
    const read = exports.bytesRead;
    assert.ok(read < 32 * MiB, `${read} bytes read for a client that took one byte`);
    const next = unzipSync(await readAll(await exports.zip('key-b', await workspaceWith({ 'y.txt': 'y' }))));
    assert.deepEqual(Object.keys(next), ['y.txt']);
  });

  test('an idle archive thread ends and gives its memory back; the next export starts one', async () => {
    const exports = exportsOf({ threadIdleExitMs: 200 });
    const workspace = await workspaceWith({ 'z.txt': 'z' });
    await readAll(await exports.zip('key-a', workspace));
    assert.equal(exports.threadCounts().alive, 1);
    await eventually(() => exports.threadCounts().alive === 0, 'the idle thread ended', 5_000, 20);
    const again = unzipSync(await readAll(await exports.zip('key-a', workspace)));
    assert.deepEqual(Object.keys(again), ['z.txt']);
    assert.equal(exports.threadCounts().started, 2);
  });
});
