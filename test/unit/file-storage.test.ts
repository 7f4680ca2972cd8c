import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { PayloadTooLargeError } from '../../src/errors/index.ts';
import { FileStorage } from '../../src/server/services/file-storage.ts';

/** File storage against a real directory: what a refused or broken upload leaves (nothing). */
let dir: string;
let storage: FileStorage;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'file-storage-'));
  storage = new FileStorage(dir);
  await storage.init();
});
after(() => rm(dir, { recursive: true, force: true }));

test('a saved file is renamed into place with its size and hash; no staging file remains', async () => {
  const saved = await storage.save('file-a', Readable.from([Buffer.from('abc')]), { maxBytes: 10 });
  assert.equal(saved.bytes, 3);
  assert.equal(saved.sha256, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(await readFile(join(dir, 'file-a'), 'utf8'), 'abc');
  assert.deepEqual(await readdir(dir), ['file-a']);
  await storage.delete('file-a');
});

test('a source that fails at once (a body cut off) leaves no staging file, even one opened late', async () => {
  // The multipart parser fails a cut-off body before the first chunk: the staging file's
  // open may still be in flight when the failure is cleaned up.
  for (let i = 0; i < 50; i++) {
    const failing = new Readable({
      read() {
        this.destroy(new Error('cut off'));
      },
    });
    await assert.rejects(storage.save(`file-${i}`, failing, { maxBytes: 10 }), /cut off/);
    // One that failed before the save began (the body ended while a quota was being held).
    const failed = new Readable({ read() {} });
    failed.on('error', () => undefined);
    failed.destroy(new Error('cut off'));
    await assert.rejects(storage.save(`file-${i}`, failed, { maxBytes: 10 }));
  }
  assert.deepEqual(await readdir(dir), []);
});

test('over maxBytes or refused before a write: PayloadTooLargeError or the refusal, nothing kept', async () => {
  await assert.rejects(
    storage.save('big', Readable.from([Buffer.alloc(8), Buffer.alloc(8)]), { maxBytes: 10 }),
    PayloadTooLargeError,
  );
  await assert.rejects(
    storage.save('quota', Readable.from([Buffer.alloc(8)]), {
      maxBytes: 10,
      beforeWrite: () => {
        throw new Error('over quota');
      },
    }),
    /over quota/,
  );
  assert.deepEqual(await readdir(dir), []);
});
