import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Database from 'better-sqlite3';
import { readRange } from './fd-source.ts';
import type { FileSource, PreviewCell, PreviewColumn } from './preview.ts';

/** Largest SQLite file previewed (it is copied once per preview). */
export const MAX_SQLITE_BYTES = 1024 ** 3;

/**
 * SQLite needs a file of its own to open (given a path it would follow symlinks and look for
 * journals beside it): the file is checked to be SQLite first (a file that only has the name
 * is never copied), then copied from the descriptor the server handed over into the job's
 * private directory, which goes with the job. A database in WAL mode (header bytes 18-19 =
 * 2) would need a -shm file to open read-only: the copy has no WAL, so it is marked as a
 * rollback-journal database.
 */
export async function copySqlite(file: FileSource, scratchDir: string): Promise<string> {
  if (file.bytes > MAX_SQLITE_BYTES)
    throw new Error(`${file.path} is larger than ${MAX_SQLITE_BYTES / 1024 ** 3} GiB, too large to preview`);
  const header = Buffer.from(await readRange(file, 0, 100));
  if (header.length < 100 || header.subarray(0, 16).toString('latin1') !== 'SQLite format 3\u0000')
    throw new Error(`${file.path} is not a SQLite database`);
  const path = join(scratchDir, 'copy.sqlite');
  await pipeline(
    Readable.from(file.range(0, file.bytes)),
    createWriteStream(path, { mode: 0o600, flags: 'wx' }),
  );
  if (header[18] === 2 || header[19] === 2) {
    const handle = await open(path, 'r+');
    try {
      await handle.write(Buffer.from([1, 1]), 0, 2, 18);
    } finally {
      await handle.close();
    }
  }
  return path;
}

/**
 * A page of one table of a SQLite file: a private copy the host made (never the workspace
 * file itself), opened read-only with untrusted schemas off, SQLite's own heap capped, and
 * only ordinary tables read (no views, no virtual tables: their code is not ours to run).
 * Runs in a preview process: a damaged file whose b-tree loops keeps SQLite busy until the
 * process is killed at its time or CPU limit, which is the design (SQLite cannot be
 * interrupted from outside otherwise).
 */
export function readSqlite(
  path: string,
  query: { table?: string; offset: number; limit: number },
): { tables: string[]; table: string; columns: PreviewColumn[]; rows: PreviewCell[][]; totalRows: number } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('hard_heap_limit = 268435456');
    db.pragma('trusted_schema = OFF');
    db.pragma('query_only = ON');
    const tables = (
      db
        .prepare(
          "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' " +
            "AND upper(sql) NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
        )
        .all() as Array<{ name: string }>
    ).map((t) => t.name);
    if (tables.length === 0) return { tables, table: '', columns: [], rows: [], totalRows: 0 };
    const table = tables.includes(query.table ?? '') ? query.table! : tables[0]!;
    const quoted = `"${table.replaceAll('"', '""')}"`;
    const info = db.prepare(`SELECT name, type FROM pragma_table_info(?)`).all(table) as Array<{
      name: string;
      type: string;
    }>;
    const columns = info.map((c) => ({ name: c.name, type: columnType(c.type) }));
    const totalRows = (db.prepare(`SELECT count(*) AS n FROM ${quoted}`).get() as { n: number }).n;
    const rows = (
      db
        .prepare(`SELECT * FROM ${quoted} LIMIT ? OFFSET ?`)
        .raw()
        .all(query.limit, query.offset) as unknown[][]
    ).map((row) => row.map(cellOf));
    return { tables, table, columns, rows, totalRows };
  } finally {
    db.close();
  }
}

function columnType(declared: string): PreviewColumn['type'] {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'integer';
  if (/REAL|FLOA|DOUB|NUM|DEC/.test(t)) return 'number';
  if (t.includes('BOOL')) return 'boolean';
  if (/DATE|TIME/.test(t)) return 'date';
  if (t.includes('BLOB')) return 'bytes';
  return 'string';
}

function cellOf(value: unknown): PreviewCell {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') return value.length > 10_000 ? `${value.slice(0, 10_000)}…` : value;
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  return String(value);
}
