// One statement (or the schema) on a SQLite file opened read-only, in a child process: SQLite
// runs synchronously in native code, which ending a worker thread cannot interrupt, while a
// killed process stops at once. Plain JavaScript: no module hooks needed. Input: the first IPC
// message; output: one IPC message, then the process exits.
import Database from 'better-sqlite3';

function cell(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (Buffer.isBuffer(value)) return `base64:${value.toString('base64')}`;
  return value;
}

function bytesOf(row) {
  let bytes = 2;
  for (const c of row)
    bytes += typeof c === 'string' ? Buffer.byteLength(c) + 3 : c === null ? 5 : String(c).length + 1;
  return bytes;
}

function query(db, { sql, maxRows, maxBytes }) {
  const statement = db.prepare(sql);
  if (!statement.reader || !statement.readonly) return { error: 'read_only' };
  statement.raw(true);
  statement.safeIntegers(true);
  const columns = statement
    .columns()
    .map((c) => ({ name: c.name, type: (c.type ?? 'unknown').toLowerCase() }));
  const rows = [];
  let bytes = 0;
  let truncated = false;
  for (const raw of statement.iterate()) {
    if (rows.length >= maxRows) {
      truncated = 'rows';
      break;
    }
    const row = raw.map(cell);
    bytes += bytesOf(row);
    if (bytes > maxBytes) {
      truncated = 'bytes';
      break;
    }
    rows.push(row);
  }
  return { ok: { columns, rows, truncated } };
}

function schema(db) {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .all();
  const info = db.prepare('SELECT name, type FROM pragma_table_info(?) ORDER BY cid');
  return {
    ok: tables.map((t) => ({
      schema: 'main',
      name: t.name,
      columns: info.all(t.name).map((c) => ({ name: c.name, type: (c.type || 'any').toLowerCase() })),
      row_estimate: null,
    })),
  };
}

process.once('message', (job) => {
  let outcome;
  try {
    const db = new Database(job.path, { readonly: true, fileMustExist: true });
    try {
      outcome = job.op === 'schema' ? schema(db) : query(db, job);
    } finally {
      db.close();
    }
  } catch (error) {
    outcome = { error: 'failed', code: error?.code ?? null, message: String(error?.message ?? error) };
  }
  process.send(outcome, () => process.exit(0));
});
