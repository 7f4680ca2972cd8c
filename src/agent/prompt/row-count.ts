import type { Workspace, WorkspaceEntry } from '../../workspace/workspace.ts';
import { parquetFooterLength, parquetRowsFromFooter } from './parquet-rows.ts';

/** Text files up to this size have their lines counted for the prompt (a fraction of a second). */
export const COUNTED_TEXT_BYTES = 32 * 1024 * 1024;
/** A Parquet footer larger than this is not read for its row count. */
const MAX_FOOTER_BYTES = 8 * 1024 * 1024;
const HEADED = new Set(['csv', 'tsv', 'tab']);
const LINES = new Set(['csv', 'tsv', 'tab', 'jsonl', 'ndjson']);

/** Counts by path, size and time, so the next turn's prompt does not read the file again. */
const cache = new Map<string, number | undefined>();
const CACHE_ENTRIES = 1000;

/**
 * A file's row count where it is cheap to know: the lines of a CSV, TSV or JSONL file up
 * to COUNTED_TEXT_BYTES (after the header line; a quoted value over several lines counts
 * each of them), a Parquet file's count from its footer. Undefined otherwise and on any
 * failure to read: the count is a hint to the model, never a reason to fail a turn.
 */
export async function cheapRowCount(
  workspace: Workspace,
  entry: WorkspaceEntry,
): Promise<number | undefined> {
  const kind = entry.path.split('.').at(-1)?.toLowerCase() ?? '';
  const counted = LINES.has(kind) && entry.bytes <= COUNTED_TEXT_BYTES;
  if (!counted && kind !== 'parquet') return undefined;
  const key = `${entry.path}\u0000${entry.bytes}\u0000${entry.modifiedAt.getTime()}`;
  if (cache.has(key)) return cache.get(key);
  let rows: number | undefined;
  try {
    rows = counted ? await textRows(workspace, entry, HEADED.has(kind)) : await parquetRows(workspace, entry);
  } catch {
    rows = undefined;
  }
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, rows);
  return rows;
}

async function textRows(workspace: Workspace, entry: WorkspaceEntry, header: boolean): Promise<number> {
  const file = await workspace.open(entry.path);
  let lines = 0;
  let last = 0x0a;
  try {
    for await (const chunk of file.stream() as AsyncIterable<Buffer>) {
      for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) lines++;
      if (chunk.length) last = chunk[chunk.length - 1]!;
    }
  } finally {
    await file.close();
  }
  if (entry.bytes > 0 && last !== 0x0a) lines++;
  return Math.max(0, lines - (header ? 1 : 0));
}

async function parquetRows(workspace: Workspace, entry: WorkspaceEntry): Promise<number | undefined> {
  if (entry.bytes < 12) return undefined;
  const tail = await readRange(workspace, entry.path, entry.bytes - 8, entry.bytes);
  const length = parquetFooterLength(tail);
  if (length === undefined || length > MAX_FOOTER_BYTES || length > entry.bytes - 12) return undefined;
  const footer = await readRange(workspace, entry.path, entry.bytes - 8 - length, entry.bytes - 8);
  return parquetRowsFromFooter(footer);
}

/** Bytes [start, end) of a file (a stream owns its file: one open per range). */
async function readRange(workspace: Workspace, path: string, start: number, end: number): Promise<Buffer> {
  const file = await workspace.open(path);
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of file.stream({ start, end }) as AsyncIterable<Buffer>) chunks.push(chunk);
  } finally {
    await file.close();
  }
  return Buffer.concat(chunks);
}
