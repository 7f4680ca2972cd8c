import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import type { JsonCell, QueryRows } from './connection.ts';

/** The Parquet type of a column, from its values: exact integers, doubles, booleans, else text. */
function parquetType(rows: readonly JsonCell[][], index: number): string {
  let type: 'BIGINT' | 'DOUBLE' | 'BOOLEAN' | undefined;
  for (const row of rows) {
    const v = row[index];
    if (v === null || v === undefined) continue;
    if (typeof v === 'boolean') {
      if (type && type !== 'BOOLEAN') return 'VARCHAR';
      type = 'BOOLEAN';
    } else if (typeof v === 'number') {
      if (type === 'BOOLEAN') return 'VARCHAR';
      type = Number.isSafeInteger(v) && type !== 'DOUBLE' ? 'BIGINT' : 'DOUBLE';
    } else {
      return 'VARCHAR';
    }
  }
  return type ?? 'VARCHAR';
}

/** Column names made unique (`n`, `n_2`, …): a Parquet file cannot hold two columns of one name. */
export function uniqueNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    const base = name || 'column';
    let candidate = base;
    for (let n = 2; seen.has(candidate); n++) candidate = `${base}_${n}`;
    seen.add(candidate);
    return candidate;
  });
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Rows as a Parquet file in a temp directory of the host (never in a workspace: the caller
 * copies it in through the Workspace interface), written by DuckDB from newline-delimited JSON
 * with the columns' types given, so no value is guessed from a sample. `cleanup` removes it.
 */
export async function rowsToParquet(
  result: QueryRows,
): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'analyst-extract-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const names = uniqueNames(result.columns.map((c) => c.name));
    const jsonPath = join(dir, 'rows.ndjson');
    const out = createWriteStream(jsonPath);
    for (const row of result.rows) {
      const object: Record<string, JsonCell> = {};
      names.forEach((name, i) => {
        object[name] = row[i] ?? null;
      });
      if (!out.write(`${JSON.stringify(object)}\n`))
        await new Promise<void>((r) => out.once('drain', () => r()));
    }
    out.end();
    await finished(out);
    const columns = names
      .map((name, i) => `${literal(name)}: ${literal(parquetType(result.rows, i))}`)
      .join(', ');
    const path = join(dir, 'extract.parquet');
    const instance = await DuckDBInstance.create(':memory:', { threads: '1', memory_limit: '256MB' });
    const connection = await instance.connect();
    try {
      const source =
        names.length === 0
          ? 'SELECT 1 WHERE false'
          : `SELECT * FROM read_json(${literal(jsonPath)}, format = 'newline_delimited', columns = {${columns}})`;
      await connection.run(`COPY (${source}) TO ${literal(path)} (FORMAT parquet)`);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    return { path, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
