import Database from 'better-sqlite3';
import type { PreviewCell, PreviewColumn } from './preview.ts';

/**
 * A page of one table of a SQLite file: a private copy the host made (never the workspace
 * file itself), opened read-only with untrusted schemas off, SQLite's own heap capped, and
 * only ordinary tables read (no views, no virtual tables: their code is not ours to run).
 * Runs inside the preview worker.
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
