import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { zipSync } from 'fflate';
import { parquetWriteBuffer } from 'hyparquet-writer';

/**
 * Files built to attack the previews (issue 29's findings), each small on disk and
 * expensive to parse. Built by the tests, never committed.
 */

const PAGE = 4096;

/**
 * A 6-page SQLite file whose table b-tree is a chain of 4 interior pages, each with 600
 * cells (and its right pointer) all naming the next page: no cycle SQLite's depth check sees,
 * but about 10^11 paths to the one leaf, so `count(*)` never ends.
 */
export async function loopingSqlite(): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'analyst-fixture-'));
  try {
    const path = join(dir, 'db.sqlite');
    const db = new Database(path);
    db.pragma(`page_size = ${PAGE}`);
    db.pragma('journal_mode = DELETE');
    db.exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);');
    db.close();
    const base = await readFile(path);
    if (base.length !== 2 * PAGE) throw new Error(`expected 2 pages, got ${base.length} bytes`);
    const file = Buffer.alloc(6 * PAGE);
    base.copy(file, 0, 0, PAGE);
    file.writeUInt32BE(6, 28); // pages in the database
    for (let page = 2; page <= 5; page++) {
      const at = (page - 1) * PAGE;
      const cells = 600; // SQLite allows (page size - 8) / 6 cells a page
      const cell = PAGE - 5; // one shared cell: child page (4 bytes) and key 1 (varint)
      file[at] = 0x05; // an interior table page
      file.writeUInt16BE(cells, at + 3);
      file.writeUInt16BE(cell, at + 5);
      file.writeUInt32BE(page + 1, at + 8); // right-most child
      for (let i = 0; i < cells; i++) file.writeUInt16BE(cell, at + 12 + 2 * i);
      file.writeUInt32BE(page + 1, at + cell);
      file[at + cell + 4] = 1;
    }
    base.copy(file, 5 * PAGE, PAGE, 2 * PAGE); // page 6: the original leaf with its row
    return file;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A Zstandard frame of `bytes` zero bytes made of RLE blocks: 4 bytes per 128 KiB. */
export function zstdBomb(bytes: number): Uint8Array {
  const block = 128 * 1024;
  const blocks = Math.ceil(bytes / block);
  const out = Buffer.alloc(6 + blocks * 4);
  out.writeUInt32LE(0xfd2fb528, 0); // magic
  out[4] = 0x00; // no content size, not single segment, no checksum, no dictionary
  out[5] = 7 << 3; // window 2^17 bytes
  for (let i = 0; i < blocks; i++) {
    const size = Math.min(block, bytes - i * block);
    const last = i === blocks - 1 ? 1 : 0;
    const header = (size << 3) | (1 << 1) | last; // an RLE block of `size` repeats
    out.writeUIntLE(header, 6 + i * 4, 3);
    out[6 + i * 4 + 3] = 0;
  }
  return out;
}

/** A Parquet file of a few rows whose one ZSTD page inflates to `bytes` (default 2,000 MiB). */
export function parquetBomb(bytes = 2000 * 1024 * 1024): Uint8Array {
  const frame = zstdBomb(bytes);
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: [{ name: 'x', data: [1, 2, 3], type: 'INT32' }],
      codec: 'ZSTD',
      compressors: { ZSTD: () => frame },
    }),
  );
}

/**
 * An .xlsx whose `xl/sharedStrings.xml` entry is repeated `copies` times, each inflating to
 * `entryBytes`: every entry is under the per-part cap, the whole is not.
 */
export function duplicateSharedStringsXlsx(copies = 900, entryBytes = 1100 * 1024): Uint8Array {
  const strings = Buffer.alloc(entryBytes, 0x20);
  const one = zipSync({ 'xl/sharedStrings.xml': new Uint8Array(strings) }, { level: 9 });
  const view = Buffer.from(one);
  const centralAt = view.readUInt32LE(view.length - 22 + 16);
  const local = view.subarray(0, centralAt);
  return new Uint8Array(
    Buffer.concat([...Array.from({ length: copies }, () => local), view.subarray(centralAt)]),
  );
}
