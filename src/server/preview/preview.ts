import { z } from 'zod';
import type { ColumnType } from '../../contract/preview.ts';
import { isTableQuery, type TableQuery, TableQueryParamsSchema } from '../../contract/table-query.ts';

/**
 * The preview of one workspace file (GET /v1/threads/{id}/preview/{path}): a page of a
 * table (CSV/TSV, an Excel sheet, a SQLite table, Parquet, JSON records), lines of text, or
 * just the kind for images, PDFs and other binaries (the client shows those from the file's
 * download URL). The file is opened through the thread's Workspace and parsed in a child
 * process bounded in memory, CPU and time (`preview-processes.ts`), never in the server.
 */

export type {
  ColumnType,
  Preview,
  PreviewCell,
  PreviewColumn,
  PreviewKind,
} from '../../contract/preview.ts';

export const PreviewQuerySchema = z
  .object({
    offset: z.coerce.number().int().min(0).max(1e12).default(0),
    limit: z.coerce.number().int().min(0).max(1000).default(100),
    sheet: z.string().max(300).optional(),
    table: z.string().max(300).optional(),
  })
  .merge(TableQueryParamsSchema)
  .passthrough();
export type PreviewQuery = z.infer<typeof PreviewQuerySchema>;

/** GET /v1/threads/{id}/table-csv/{path}: the table as the preview's query sorts and filters it. */
export const TableCsvQuerySchema = TableQueryParamsSchema.passthrough();
export type TableCsvQuery = z.infer<typeof TableCsvQuerySchema>;

/** Most rows a CSV download of a table holds. */
export const MAX_CSV_ROWS = 1_000_000;

/** Formats DuckDB sorts, searches, filters and writes as CSV in a preview process. */
export const QUERYABLE_FORMATS: ReadonlySet<PreviewFormat> = new Set(['csv', 'tsv', 'parquet']);

/** The sorting, search and filters of parsed query parameters, or undefined when there are none. */
export function tableQueryOf(params: TableCsvQuery): TableQuery | undefined {
  const query: TableQuery = {
    ...(params.sort !== undefined ? { sort: params.sort, desc: params.desc ?? false } : {}),
    ...(params.search ? { search: params.search } : {}),
    ...(params.filter && params.filter.length > 0 ? { filters: params.filter } : {}),
  };
  return isTableQuery(query) ? query : undefined;
}

export const ProfileQuerySchema = z
  .object({ sheet: z.string().max(300).optional(), table: z.string().max(300).optional() })
  .passthrough();

/** The formats this preview knows, from a file's name. */
export type PreviewFormat =
  | 'csv'
  | 'tsv'
  | 'xlsx'
  | 'sqlite'
  | 'parquet'
  | 'json'
  | 'text'
  | 'image'
  | 'pdf'
  | 'unknown';

const BY_EXTENSION: Record<string, PreviewFormat> = {
  csv: 'csv',
  tsv: 'tsv',
  tab: 'tsv',
  xlsx: 'xlsx',
  xlsm: 'xlsx',
  sqlite: 'sqlite',
  sqlite3: 'sqlite',
  db: 'sqlite',
  parquet: 'parquet',
  pq: 'parquet',
  json: 'json',
  geojson: 'json',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  pdf: 'pdf',
};
const TEXT = new Set(
  'txt md markdown log py r sql yaml yml toml ini cfg conf xml html htm svg sh jsonl ndjson js ts css tex rst'.split(
    ' ',
  ),
);

export function formatOf(path: string): PreviewFormat {
  const name = path.split('/').pop() ?? path;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  if (TEXT.has(extension)) return 'text';
  return BY_EXTENSION[extension] ?? 'unknown';
}

/** True when the first bytes look like text (UTF-8 without NUL bytes). */
export function looksLikeText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  try {
    // A multi-byte character cut at the end of the sample is not a reason to say binary.
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 4)));
    return true;
  } catch {
    return false;
  }
}

/**
 * True when the first bytes are not text of any encoding a CSV comes in: NUL bytes, or more
 * than one byte in ten a control character (the offline analyst's `looks_binary` is the same rule).
 */
export function looksBinary(head: Uint8Array): boolean {
  if (head.includes(0)) return true;
  let controls = 0;
  for (const b of head) if (b < 9 || (b > 13 && b < 32)) controls++;
  return head.length > 0 && controls * 10 > head.length;
}

/** Infers a column's type from sample values (empty ones do not count). */
export function inferType(values: Iterable<string>): ColumnType {
  let integer = true;
  let number = true;
  let boolean = true;
  let date = true;
  let seen = 0;
  for (const raw of values) {
    const value = raw.trim();
    if (value === '') continue;
    seen++;
    if (integer && !/^[-+]?\d{1,15}$/.test(value)) integer = false;
    if (number && !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value)) number = false;
    if (boolean && !/^(true|false)$/i.test(value)) boolean = false;
    if (date && !/^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value))
      date = false;
    if (!integer && !number && !boolean && !date) return 'string';
  }
  if (seen === 0) return 'string';
  return integer ? 'integer' : number ? 'number' : boolean ? 'boolean' : date ? 'date' : 'string';
}

/**
 * One workspace file as the readers see it: its size and time from one `stat`, and byte
 * ranges each read through a fresh `Workspace.open` (an open file streams once).
 */
export interface FileSource {
  workspaceId: string;
  path: string;
  bytes: number;
  modifiedMs: number;
  /** The bytes in [start, end), as chunks. */
  range(start: number, end: number): AsyncIterable<Uint8Array>;
}
