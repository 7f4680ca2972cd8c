import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidInputError } from '../../errors/index.ts';
import { randomHex } from '../../ids/random-hex.ts';
import type { FileSource } from './preview.ts';

/** Largest SQLite file previewed (it is copied once). Default 1 GiB. */
const MAX_SQLITE_BYTES = 1024 ** 3;

/**
 * Private copies of SQLite files for the preview worker. SQLite needs a file to open; the
 * copy is made through the Workspace (so a cell cannot swap in a symlink), lives in a
 * directory only the server reads, and is reused while the file is unchanged (paging a big
 * table does not copy it again). The few most recent are kept.
 */
export class SqliteCopies {
  private dir: Promise<string> | undefined;
  private readonly copies = new Map<string, Promise<string>>();

  constructor(private readonly maxCopies = 4) {}

  async pathFor(file: FileSource): Promise<string> {
    if (file.bytes > MAX_SQLITE_BYTES)
      throw new InvalidInputError(`${file.path} is larger than 1 GiB, too large to preview`, {
        param: 'path',
      });
    const key = `${file.workspaceId}\u0000${file.path}\u0000${file.bytes}\u0000${file.modifiedMs}`;
    let copy = this.copies.get(key);
    if (!copy) {
      copy = this.copy(file);
      copy.catch(() => this.copies.delete(key));
    }
    this.copies.delete(key);
    this.copies.set(key, copy);
    while (this.copies.size > this.maxCopies) {
      const [oldest, path] = this.copies.entries().next().value!;
      this.copies.delete(oldest);
      void path.then((p) => rm(p, { force: true })).catch(() => {});
    }
    return copy;
  }

  async close(): Promise<void> {
    const dir = this.dir;
    this.dir = undefined;
    this.copies.clear();
    if (dir) await rm(await dir, { recursive: true, force: true });
  }

  private async copy(file: FileSource): Promise<string> {
    this.dir ??= mkdtemp(join(tmpdir(), 'analyst-preview-'));
    const path = join(await this.dir, `${randomHex(8)}.sqlite`);
    await pipeline(Readable.from(file.range(0, file.bytes)), createWriteStream(path, { mode: 0o600 }));
    // A database in WAL mode (header bytes 18-19 = 2) would need a -shm file to open read-only:
    // the copy has no WAL to read, so it is marked as a rollback-journal database.
    const handle = await open(path, 'r+');
    try {
      const header = Buffer.alloc(20);
      await handle.read(header, 0, 20, 0);
      if (header.subarray(0, 16).toString('latin1') !== 'SQLite format 3\u0000')
        throw new InvalidInputError(`${file.path} is not a SQLite database`, { param: 'path' });
      if (header[18] === 2 || header[19] === 2) await handle.write(Buffer.from([1, 1]), 0, 2, 18);
    } finally {
      await handle.close();
    }
    return path;
  }
}
